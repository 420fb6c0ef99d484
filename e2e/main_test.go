package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// repoRoot is the directory holding go.mod (the parent of this package's directory).
var repoRoot string

// binary is the mcpbridge binary built once by TestMain, and binaryErr why it could not be built.
var (
	binary     string
	binaryErr  error
	binaryOnce sync.Once
	binaryDir  string
)

func TestMain(m *testing.M) {
	if role := os.Getenv(upstreamRoleEnv); role != "" {
		os.Exit(runUpstreamRole(role))
	}
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	root, err := filepath.Abs("..")
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: finding the repository root: %v\n", err)
		return 2
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %s has no go.mod; run the tests from the repository (go test ./e2e/)\n", root)
		return 2
	}
	repoRoot = root
	canaries, err := loadCanaries(filepath.Join(root, "e2e", "testdata", "secret-canaries.txt"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 2
	}
	for k, v := range canaries {
		os.Setenv(k, v)
	}

	binaryDir, err = os.MkdirTemp("", "mcpbridge-e2e-bin-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: creating a temporary directory: %v\n", err)
		return 2
	}
	defer os.RemoveAll(binaryDir)

	code := m.Run()
	stopSharedGateways()
	if leaks := scanForCanaries(sharedLogPath()); leaks != "" {
		fmt.Fprintf(os.Stderr, "e2e: FAIL: a canary secret is in the shared gateway's log:\n%s\n", leaks)
		code = 1
	}
	return code
}

// canaryMarker is in every canary secret's value.
const canaryMarker = "LEAKCANARY"

// loadCanaries reads testdata/secret-canaries.txt: NAME=VALUE lines, # comments.
func loadCanaries(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the canary secrets: %w", err)
	}
	out := map[string]string{}
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !strings.Contains(v, canaryMarker) {
			return nil, fmt.Errorf("%s: %q is not NAME=VALUE with %s in the value", path, line, canaryMarker)
		}
		out[k] = v
	}
	return out, nil
}

// canaryValues are the values of the canary secrets (set in the environment by TestMain).
func canaryValues() []string {
	var vs []string
	for _, kv := range os.Environ() {
		if _, v, _ := strings.Cut(kv, "="); strings.Contains(v, canaryMarker) {
			vs = append(vs, v)
		}
	}
	return vs
}

// scanForCanaries returns the lines of the file at path that hold the canary marker ("" when
// none, or no file).
func scanForCanaries(path string) string {
	if path == "" {
		return ""
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var hits []string
	for line := range strings.Lines(string(b)) {
		if strings.Contains(line, canaryMarker) {
			hits = append(hits, strings.TrimRight(line, "\n"))
		}
	}
	return strings.Join(hits, "\n")
}

// mcpbridgeBinary builds ./cmd/mcpbridge once (go build into a temporary directory) and returns
// its path; the test fails with the compiler's output when it does not build.
func mcpbridgeBinary(t testing.TB) string {
	t.Helper()
	binaryOnce.Do(func() {
		out := filepath.Join(binaryDir, "mcpbridge")
		start := time.Now()
		cmd := exec.Command("go", "build", "-o", out, "./cmd/mcpbridge")
		cmd.Dir = repoRoot
		output, err := cmd.CombinedOutput()
		if err != nil {
			binaryErr = fmt.Errorf("go build -o %s ./cmd/mcpbridge: %w\n%s", out, err, strings.TrimSpace(string(output)))
			return
		}
		binary = out
		fmt.Fprintf(os.Stderr, "e2e: built %s in %s\n", out, time.Since(start).Round(time.Millisecond))
	})
	if binaryErr != nil {
		t.Fatalf("building the gateway: %v", binaryErr)
	}
	return binary
}

// artifactDir returns a directory for files a person may want to look at after the run
// (screenshots, conformance results): $MCPBRIDGE_E2E_ARTIFACTS/<test name> when set, else a
// temporary directory of the test.
func artifactDir(t *testing.T) string {
	t.Helper()
	base := os.Getenv("MCPBRIDGE_E2E_ARTIFACTS")
	if base == "" {
		return t.TempDir()
	}
	dir := filepath.Join(base, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
	if err := os.RemoveAll(dir); err != nil {
		t.Fatalf("clearing %s: %v", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("creating %s: %v", dir, err)
	}
	return dir
}
