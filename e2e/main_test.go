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

	binaryDir, err = os.MkdirTemp("", "mcpbridge-e2e-bin-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: creating a temporary directory: %v\n", err)
		return 2
	}
	defer os.RemoveAll(binaryDir)
	defer stopSharedGateways()

	return m.Run()
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
