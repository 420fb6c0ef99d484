package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// conformanceRun is one way of running the suite: --suite all (every scenario of every
// era, the unscored ones included), or one requirement set.
type conformanceRun struct {
	name string
	args []string
	// version is the requirement set (its scored scenarios must all run); "" for all.
	version string
}

var conformanceRuns = []conformanceRun{
	{"all", []string{"--suite", "all"}, ""},
	{"2025-11-25", []string{"--requirements", "2025-11-25"}, "2025-11-25"},
	{"2026-07-28", []string{"--requirements", "2026-07-28"}, "2026-07-28"},
}

// upstreamSetup is one way of putting the reference server behind kind: mcp, and the
// direct runs of the reference it is held to.
type upstreamSetup struct {
	name string
	// yaml is the server definition's upstream fields (at indent 4).
	yaml string
	// refs name the direct runs of the reference the setup is held to: a check may fail
	// through the gateway only as often as it fails in each of them.
	refs []string
}

// extensionScenario reports whether a scenario belongs to the tasks extension, which the
// gateway does not implement (nor does it say it does): its failures are not compared.
func extensionScenario(scenario string) bool { return strings.HasPrefix(scenario, "tasks-") }

// TestUpstreamConformance runs the official suite against the go-sdk reference
// everything-server (the module's own, built from the module cache) directly, and through
// a kind: mcp server in front of it — over stdio, and over Streamable HTTP with the
// reference served stateless and stateful — in both isolation modes (per-session: an
// upstream session per client session or stateless caller; shared: one for all), with
// --suite all and with each requirement set. Through the gateway every check must pass
// that passes against the reference directly: a check may fail through the gateway only as
// often as it fails directly (for stdio, which the suite cannot reach directly, as often
// as it fails against both HTTP modes), except in the tasks extension, which mcpbridge does
// not implement. Every scored scenario of a requirement set must run.
func TestUpstreamConformance(t *testing.T) {
	tools := requireNodeTools(t)
	everything := everythingServer(t)
	dir := t.TempDir()
	out := artifactDir(t)
	stateless := startReference(t, everything, dir, true)
	stateful := startReference(t, everything, dir, false)

	// The reference, directly.
	direct := map[string]map[string][]scenarioResult{}
	outside := &gateway{}
	for mode, url := range map[string]string{"stateless": stateless, "stateful": stateful} {
		direct[mode] = map[string][]scenarioResult{}
		for _, run := range conformanceRuns {
			args := append([]string{"--url", url, "--timeout", "8000"}, run.args...)
			direct[mode][run.name] = runConformance(t, tools, outside, filepath.Join(out, "direct", mode, run.name), 180*time.Second, args...)
		}
	}

	setups := []upstreamSetup{
		{"stdio", fmt.Sprintf("    command: [%q]\n", everything), []string{"stateless", "stateful"}},
		{"http-stateless", "    url: " + stateless + "\n", []string{"stateless"}},
		{"http-stateful", "    url: " + stateful + "\n", []string{"stateful"}},
	}
	// A server per setup, isolation and run: the runs do not meet in the gateway's shared
	// upstream sessions, as the direct runs meet nowhere (a stateful run's calls would
	// otherwise overlap another run's on the one shared session, where the upstream's
	// requests cannot be told apart).
	var cfg strings.Builder
	cfg.WriteString("servers:\n")
	for _, s := range setups {
		for _, isolation := range []string{"per-session", "shared"} {
			for _, run := range conformanceRuns {
				fmt.Fprintf(&cfg, "  %s-%s-%s:\n    kind: mcp\n    description: the go-sdk reference everything-server (%s), behind the gateway\n    isolation: %s\n%s",
					s.name, isolation, run.name, s.name, isolation, s.yaml)
			}
		}
	}
	config := filepath.Join(dir, "upstream-conformance.yaml")
	if err := os.WriteFile(config, []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	gw, err := startGateway(mcpbridgeBinary(t), config, dir)
	if err != nil {
		t.Fatalf("starting the gateway: %v", err)
	}
	defer gw.stop()

	var summary []string
	for _, s := range setups {
		for _, isolation := range []string{"per-session", "shared"} {
			setup := s.name + "-" + isolation
			t.Run(setup, func(t *testing.T) {
				for _, run := range conformanceRuns {
					t.Run(run.name, func(t *testing.T) {
						args := append([]string{"--url", gw.MCPURL(setup + "-" + run.name), "--timeout", "8000"}, run.args...)
						got := runConformance(t, tools, gw, filepath.Join(out, setup, run.name), 180*time.Second, args...)
						var refs [][]scenarioResult
						for _, mode := range s.refs {
							refs = append(refs, direct[mode][run.name])
						}
						line := compareToReference(t, s, run, got, refs)
						summary = append(summary, fmt.Sprintf("%-26s %-10s %s", setup, run.name, line))
						if run.version != "" {
							scored, err := scoredServerScenarios(tools, run.version)
							if err != nil {
								t.Fatal(err)
							}
							ran := map[string]bool{}
							for _, r := range got {
								ran[r.Scenario] = true
							}
							for sc := range scored {
								if !ran[sc] {
									t.Errorf("the scored scenario %s of %s did not run", sc, run.version)
								}
							}
						}
						if t.Failed() {
							t.Logf("gateway log tail:\n%s", gw.LogTail())
						}
					})
				}
			})
		}
	}
	for mode := range direct {
		for _, run := range conformanceRuns {
			p, f := checkCounts(direct[mode][run.name])
			summary = append(summary, fmt.Sprintf("%-26s %-10s %d checks passed, %d failed (tasks-* aside)", "reference "+mode+" directly", run.name, p, f))
		}
	}
	sort.Strings(summary)
	t.Logf("conformance, the reference directly and through kind: mcp:\n%s", strings.Join(summary, "\n"))
}

// checkKey names a check of a scenario.
type checkKey struct{ scenario, check string }

// failureCounts counts the failed checks of a run by scenario and check, the tasks
// extension aside.
func failureCounts(rs []scenarioResult) map[checkKey]int {
	out := map[checkKey]int{}
	for _, r := range rs {
		if extensionScenario(r.Scenario) {
			continue
		}
		for _, c := range r.Checks {
			if c.Failed() {
				out[checkKey{r.Scenario, c.ID}]++
			}
		}
	}
	return out
}

// checkCounts returns how many checks of a run passed and failed, the tasks extension aside.
func checkCounts(rs []scenarioResult) (passed, failed int) {
	for _, r := range rs {
		if extensionScenario(r.Scenario) {
			continue
		}
		p, f, _ := r.Counts()
		passed += p
		failed += f
	}
	return passed, failed
}

// compareToReference fails the test for every check that fails through the gateway more
// often than in each of the reference runs, and for every scenario the reference ran that
// did not run through the gateway; it returns a one-line summary.
func compareToReference(t *testing.T, s upstreamSetup, run conformanceRun, got []scenarioResult, refs [][]scenarioResult) string {
	t.Helper()
	allowed := map[checkKey]int{}
	ranDirectly := map[string]bool{}
	for i, ref := range refs {
		counts := failureCounts(ref)
		for _, r := range ref {
			ranDirectly[r.Scenario] = true
		}
		if i == 0 {
			allowed = counts
			continue
		}
		for k, n := range allowed { // a failure is allowed as often as every reference fails it
			allowed[k] = min(n, counts[k])
		}
	}
	ran := map[string]bool{}
	for _, r := range got {
		ran[r.Scenario] = true
	}
	for sc := range ranDirectly {
		if !ran[sc] && !extensionScenario(sc) {
			t.Errorf("scenario %s ran against the reference directly but not through the gateway", sc)
		}
	}
	seen := map[checkKey]int{}
	var known []string
	for _, r := range got {
		if extensionScenario(r.Scenario) {
			continue
		}
		for _, c := range r.Checks {
			if !c.Failed() {
				continue
			}
			k := checkKey{r.Scenario, c.ID}
			seen[k]++
			if seen[k] <= allowed[k] {
				known = append(known, r.Scenario+" "+c.ID)
				continue
			}
			t.Errorf("FAILURE %s %s (%s, %s): %s — it passes against the reference directly\n    details: %s",
				r.Scenario, c.ID, s.name, run.name, c.ErrorMessage, compactJSON(c.Details, 1500))
		}
	}
	p, f := checkCounts(got)
	line := fmt.Sprintf("%d checks passed, %d failed (tasks-* aside)", p, f)
	if len(known) > 0 {
		sort.Strings(known)
		line += "; failing directly too: " + strings.Join(known, ", ")
	}
	return line
}

// startReference serves the reference everything-server over Streamable HTTP on a free
// loopback port, stateless or stateful (its -stateless flag), until the test ends, and
// returns its URL once it accepts connections.
func startReference(t *testing.T, everything, dir string, stateless bool) string {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	mode := "stateless"
	if !stateless {
		mode = "stateful"
	}
	logPath := filepath.Join(dir, "reference-"+mode+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(everything, "-http", addr, fmt.Sprintf("-stateless=%v", stateless))
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); logFile.Close(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return "http://" + addr + "/"
		}
		select {
		case <-exited:
			b, _ := os.ReadFile(logPath)
			t.Fatalf("the reference server (%s) exited: %s", mode, b)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reference server (%s) does not accept connections on %s after 30s", mode, addr)
		}
	}
}

// buildEverythingServer builds the go-sdk's conformance everything-server, at the SDK
// version go.mod requires, from the module cache. go.mod replaces the SDK with the copy in
// third_party (which carries no conformance directory), so the module is downloaded as
// published and built as its own main module: the upstream is the unpatched SDK.
func buildEverythingServer(out string) error {
	list := exec.Command("go", "list", "-m", "-f", "{{.Path}}@{{.Version}}", "github.com/modelcontextprotocol/go-sdk")
	list.Dir = repoRoot
	mod, err := list.Output()
	if err != nil {
		return fmt.Errorf("go list -m: %w", err)
	}
	dl := exec.Command("go", "mod", "download", "-json", strings.TrimSpace(string(mod)))
	dl.Dir = repoRoot
	js, err := dl.Output()
	if err != nil {
		return fmt.Errorf("go mod download %s: %w", mod, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(js, &m); err != nil || m.Dir == "" {
		return fmt.Errorf("go mod download %s: %v %s", mod, err, m.Error)
	}
	build := exec.Command("go", "build", "-o", out, "./conformance/everything-server")
	build.Dir = m.Dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if b, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("%w\n%s", err, b)
	}
	return nil
}
