package cli_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptTB is the testing.TB a script command hands to test helpers (lowdefytest and the
// like). A script runs in a subtest of its own, on that subtest's goroutine, often after the
// test that called testscript.Run has returned: a helper given that outer test's t would
// call FailNow on a parent test from another goroutine, or log after the test completed,
// and panic the whole test binary. scriptTB sends failures through the script (ts.Fatalf:
// the script fails with its log), logs to the script's log, and everything else (TempDir,
// Cleanup, Skip, Name) to the script's own *testing.T.
type scriptTB struct {
	testing.TB
	ts *testscript.TestScript
}

// scriptTKey keys the script's own T in the script's values.
type scriptTKey struct{}

// keepScriptT records the script's own T for scriptT; a Params.Setup that runs scripts with
// commands using scriptT calls it.
func keepScriptT(env *testscript.Env) { env.Values[scriptTKey{}] = env.T() }

// scriptT returns the testing.TB of the script ts runs (recorded by keepScriptT).
func scriptT(ts *testscript.TestScript) testing.TB {
	tb, ok := ts.Value(scriptTKey{}).(testing.TB)
	if !ok {
		ts.Fatalf("no testing.TB for this script: its Params.Setup must call keepScriptT")
	}
	return scriptTB{TB: tb, ts: ts}
}

func (s scriptTB) Helper()                        {}
func (s scriptTB) Error(args ...any)              { s.ts.Fatalf("%s", fmt.Sprint(args...)) }
func (s scriptTB) Errorf(format string, a ...any) { s.ts.Fatalf(format, a...) }
func (s scriptTB) Fatal(args ...any)              { s.ts.Fatalf("%s", fmt.Sprint(args...)) }
func (s scriptTB) Fatalf(format string, a ...any) { s.ts.Fatalf(format, a...) }
func (s scriptTB) Fail()                          { s.ts.Fatalf("failed") }
func (s scriptTB) FailNow()                       { s.ts.Fatalf("failed") }
func (s scriptTB) Log(args ...any)                { s.ts.Logf("%s", fmt.Sprint(args...)) }
func (s scriptTB) Logf(format string, a ...any)   { s.ts.Logf(format, a...) }

// harnessChildEnv makes TestHarnessChild run (as a child process of TestScriptHelperFailure).
const harnessChildEnv = "MCPBRIDGE_CLI_HARNESS_CHILD"

// failingHelper is a test helper of the usual kind: it takes a testing.TB and fails it.
func failingHelper(t testing.TB) {
	t.Helper()
	t.Fatalf("the helper's own message")
}

// TestHarnessChild runs a script whose command calls a failing helper, as TestAppRun's
// sameasoracle calls lowdefytest.
func TestHarnessChild(t *testing.T) {
	if os.Getenv(harnessChildEnv) == "" {
		t.Skip("runs as a child of TestScriptHelperFailure")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "helper.txtar"), []byte("failhelper\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			keepScriptT(env)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"failhelper": func(ts *testscript.TestScript, neg bool, args []string) {
				failingHelper(scriptT(ts))
			},
		},
	})
}

// A helper failing inside a script command fails that script, with its message, and does
// not panic the test binary.
func TestScriptHelperFailure(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHarnessChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), harnessChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("the child should fail its script; err = %v\n%s", err, out)
	}
	s := string(out)
	if !strings.Contains(s, "--- FAIL: TestHarnessChild/helper") || !strings.Contains(s, "the helper's own message") {
		t.Errorf("the script's failure and the helper's message are missing:\n%s", s)
	}
	if strings.Contains(s, "panic") {
		t.Errorf("the test binary panicked:\n%s", s)
	}
}
