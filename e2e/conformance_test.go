package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// conformanceServer is the server of testdata/gateway.yaml that the conformance suite tests.
const conformanceServer = "tools-demo"

// requirementSetServer is the server of testdata/gateway.yaml that the full requirement sets run
// against: it has the parts of the reference surface that a config can express.
const requirementSetServer = "conformance"

// requiredConformance are the scenarios the gateway must pass, per spec version, and the
// server of testdata/gateway.yaml each runs against.
var requiredConformance = []struct {
	version   string
	server    string
	scenarios []string
}{
	{"2025-11-25", conformanceServer, []string{"server-initialize", "server-session-lifecycle", "ping", "dns-rebinding-protection", "tools-list"}},
	{"2026-07-28", conformanceServer, []string{"server-stateless", "http-header-validation", "caching", "dns-rebinding-protection", "tools-list"}},
	// Mcp-Param-* headers of a kind: http tool (the command server's are asserted by
	// TestConformanceRequirementSets).
	{"2026-07-28", "headers-api", []string{"http-custom-header-server-validation"}},
}

// configSurfaceScenarios are the scenarios the conformance server of testdata/gateway.yaml can
// pass with what a config expresses (command tools, prompts, static resources).
// TestConformanceRequirementSets asserts them in both eras from its requirement-set runs.
var configSurfaceScenarios = []string{
	"tools-call-simple-text", "tools-call-error", "prompts-list", "prompts-get-simple",
	"prompts-get-with-args", "resources-list", "resources-read-text", "resources-read-binary",
	"tools-call-image", "tools-call-audio", "tools-call-with-progress",
	"prompts-get-embedded-resource", "prompts-get-with-image",
	"json-schema-2020-12", // not scored: the suite runs it with both sets
	// 2025-11-25 only: the 2026-07-28 set has no such scenarios.
	"tools-call-with-logging", "resources-subscribe", "resources-unsubscribe",
	// 2026-07-28 only (http-custom-header-server-validation is not scored: the suite runs it).
	"server-stateless", "http-custom-header-server-validation",
}

// removedIn2026 are the configSurfaceScenarios the 2026-07-28 requirement set does not run.
var removedIn2026 = map[string]bool{"tools-call-with-logging": true, "resources-subscribe": true, "resources-unsubscribe": true}

// addedIn2026 are the configSurfaceScenarios only the 2026-07-28 requirement set runs.
var addedIn2026 = map[string]bool{"server-stateless": true, "http-custom-header-server-validation": true}

// TestConformance runs each required conformance scenario at its spec version
// (`conformance server --scenario X --spec-version V`) and reports every check. A failing check
// fails the test unless the suite marks it "Not testable" and conformance-expected-failures.yml
// lists it with that reason.
func TestConformance(t *testing.T) {
	tools := requireNodeTools(t)
	ef, err := loadExpectedFailures(expectedFailuresFile)
	if err != nil {
		t.Fatal(err)
	}
	gw := sharedGateway(t)
	out := artifactDir(t)
	for _, set := range requiredConformance {
		t.Run(set.version+"-"+set.server, func(t *testing.T) {
			for _, scenario := range set.scenarios {
				t.Run(scenario, func(t *testing.T) {
					url := gw.MCPURL(set.server)
					dir := filepath.Join(out, set.version, set.server, scenario)
					results := runConformance(t, tools, gw, dir, 60*time.Second,
						"--url", url, "--scenario", scenario, "--spec-version", set.version, "--timeout", "20000")
					if len(results) != 1 || results[0].Scenario != scenario {
						t.Fatalf("want the results of scenario %s, got %d result directories in %s", scenario, len(results), dir)
					}
					assertScenario(t, gw, ef, set.version, results[0])
				})
			}
		})
	}
}

// assertScenario logs every check of one scenario run and fails on unexpected failures.
func assertScenario(t *testing.T, gw *gateway, ef *expectedFailures, version string, r scenarioResult) {
	t.Helper()
	if len(r.Checks) == 0 {
		t.Fatalf("scenario %s at %s produced no checks (%s)", r.Scenario, version, r.Dir)
	}
	used := map[string]bool{}
	unexpected := 0
	for _, c := range r.Checks {
		switch {
		case !c.Failed():
			msg := ""
			if c.ErrorMessage != "" {
				msg = ": " + c.ErrorMessage
			}
			t.Logf("%-8s %s%s", c.Status, c.ID, msg)
		case ef.allows(r.Scenario, version, c) != nil:
			used[c.ID] = true
			t.Logf("%-8s %s: %s (allowed by %s)", "FAILURE", c.ID, c.ErrorMessage, expectedFailuresFile)
		default:
			unexpected++
			t.Errorf("FAILURE  %s (%s) at %s: %s\n    details: %s", c.ID, c.Description, version, c.ErrorMessage, compactJSON(c.Details, 2000))
		}
	}
	for _, e := range ef.forScenario(r.Scenario, version) {
		if !used[e.Check] {
			t.Logf("stale entry in %s: %s %s %s did not fail", expectedFailuresFile, e.Scenario, e.SpecVersion, e.Check)
		}
	}
	passed, failed, warnings := r.Counts()
	t.Logf("%s at %s: %d passed, %d failed (%d allowed), %d warnings; results in %s", r.Scenario, version, passed, failed, failed-unexpected, warnings, r.Dir)
	if unexpected > 0 {
		t.Logf("gateway log tail:\n%s", gw.LogTail())
	}
}

// runConformance runs `conformance server ARGS -o DIR` and returns the results it wrote. The
// suite's exit code is not used: the checks decide.
func runConformance(t *testing.T, tools nodeTools, gw *gateway, dir string, timeout time.Duration, args ...string) []scenarioResult {
	t.Helper()
	args = append([]string{tools.Conformance, "server"}, args...)
	args = append(args, "-o", dir)
	start := time.Now()
	stdout, stderr, err := runLogged(context.Background(), timeout, tools.Dir, []string{"NO_COLOR=1", "FORCE_COLOR=0"}, tools.Node, args...)
	t.Logf("conformance %s: %s (exit: %v)", strings.Join(args[1:], " "), time.Since(start).Round(time.Millisecond), err)
	results, rerr := readConformanceResults(dir)
	if rerr != nil || len(results) == 0 {
		t.Fatalf("the conformance suite wrote no results (%v, exit %v)\nstdout:\n%s\nstderr:\n%s\ngateway log tail:\n%s",
			rerr, err, tail(stdout, 60), tail(stderr, 60), gw.LogTail())
	}
	return results
}

// TestConformanceRequirementSets runs the full requirement sets of both spec revisions
// (`--requirements V`) against the conformance server of testdata/gateway.yaml and logs how far
// the gateway gets, scenario by scenario. It does not assert the whole set (a config-defined
// server has only part of the reference "everything" surface): it asserts only the scenarios in
// configSurfaceScenarios, one subtest each, and that the suite produced results.
func TestConformanceRequirementSets(t *testing.T) {
	tools := requireNodeTools(t)
	ef, err := loadExpectedFailures(expectedFailuresFile)
	if err != nil {
		t.Fatal(err)
	}
	gw := sharedGateway(t)
	url := gw.MCPURL(requirementSetServer)
	out := artifactDir(t)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			dir := filepath.Join(out, version)
			results := runConformance(t, tools, gw, dir, 150*time.Second,
				"--url", url, "--requirements", version, "--timeout", "8000")
			scored, err := scoredServerScenarios(tools, version)
			if err != nil {
				t.Fatal(err)
			}
			var totalPassed, totalFailed, scoredRun, scoredPassed int
			var lines []string
			for _, r := range results {
				passed, failed, warnings := r.Counts()
				kind := "not scored"
				if scored[r.Scenario] {
					kind = "scored"
					scoredRun++
					totalPassed += passed
					totalFailed += failed
				}
				mark := "✓"
				if failed > 0 {
					mark = "✗"
				} else if scored[r.Scenario] {
					scoredPassed++
				}
				line := fmt.Sprintf("%s %-45s %-10s %3d passed %3d failed %2d warnings", mark, r.Scenario, kind, passed, failed, warnings)
				for _, c := range r.Checks {
					if c.Failed() {
						line += fmt.Sprintf("\n      %s: %s", c.ID, firstLine(c.ErrorMessage, 200))
					}
				}
				lines = append(lines, line)
			}
			t.Logf("requirements %s against %s: %d of %d scored scenarios without failures (%d required, %d run in all); scored checks: %d passed, %d failed\n%s",
				version, url, scoredPassed, scoredRun, len(scored), len(results), totalPassed, totalFailed, strings.Join(lines, "\n"))
			if scoredRun == 0 {
				t.Errorf("none of the %d scenarios required for %s produced results", len(scored), version)
			}
			byName := map[string]scenarioResult{}
			for _, r := range results {
				byName[r.Scenario] = r
			}
			for _, scenario := range configSurfaceScenarios {
				if (version >= "2026-07-28" && removedIn2026[scenario]) || (version < "2026-07-28" && addedIn2026[scenario]) {
					continue
				}
				t.Run(scenario, func(t *testing.T) {
					r, ok := byName[scenario]
					if !ok {
						t.Fatalf("the %s requirement set ran no scenario %s", version, scenario)
					}
					assertScenario(t, gw, ef, version, r)
				})
			}
		})
	}
}

// scoredServerScenarios returns the server scenarios a requirement set scores, from
// `conformance list --requirements V`.
func scoredServerScenarios(tools nodeTools, version string) (map[string]bool, error) {
	stdout, stderr, err := runLogged(context.Background(), 30*time.Second, tools.Dir, []string{"NO_COLOR=1"},
		tools.Node, tools.Conformance, "list", "--requirements", version)
	if err != nil {
		return nil, fmt.Errorf("conformance list --requirements %s: %w\n%s", version, err, stderr)
	}
	scored := map[string]bool{}
	inServer := false
	for _, line := range strings.Split(string(stdout), "\n") {
		switch {
		case strings.HasPrefix(line, "Server scenarios"):
			inServer = true
		case strings.TrimSpace(line) == "":
		case !strings.HasPrefix(line, "  "):
			inServer = false
		case inServer && strings.HasPrefix(strings.TrimSpace(line), "- "):
			scored[strings.TrimPrefix(strings.TrimSpace(line), "- ")] = true
		}
	}
	if len(scored) == 0 {
		return nil, fmt.Errorf("conformance list --requirements %s listed no server scenarios:\n%s", version, stdout)
	}
	return scored, nil
}
