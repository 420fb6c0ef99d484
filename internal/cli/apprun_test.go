package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
)

// oracleNow is the frozen clock of the app run scripts (--now) and of the oracle.
const oracleNow = 1700000000000

// TestAppRun runs `mcpbridge app run` as a process on copies of tutorial steps (scripts in
// testdata/apprun; $TUTORIAL_<NN> is the copy of step NN) and, with the script command
// `sameasoracle`, checks its lines against Lowdefy's own engine on the same journey.
func TestAppRun(t *testing.T) {
	// Every script compares with Lowdefy's engine: without Node 22, the engine oracle or the
	// example apps the test skips here, naming the setup script (testenv).
	lowdefytest.AppsDir(t)
	lowdefytest.Node(t)
	lowdefytest.OracleDir(t)
	dummy := lowdefytest.StartDummyJSON(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/apprun",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// The script's own T: Setup runs in the script's subtest, after TestAppRun returned.
			keepScriptT(env)
			st, ok := env.T().(testing.TB)
			if !ok {
				return fmt.Errorf("testscript's T is a %T, not a testing.TB", env.T())
			}
			for _, step := range lowdefytest.TutorialSteps {
				a := lowdefytest.Tutorial(st, step, dummy)
				env.Setenv("TUTORIAL_"+step[:2], a.Dir)
				for _, kv := range a.Env() {
					k, v, _ := strings.Cut(kv, "=")
					env.Setenv(k, v)
				}
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"sameasoracle": func(ts *testscript.TestScript, neg bool, args []string) {
				sameAsOracle(scriptT(ts), ts, args)
			},
		},
	})
}

// sameasoracle APP_DIR SCRIPT compares the last command's stdout with the oracle's lines for
// the journey (the wording of a failed step's error is the runner's own and not compared).
func sameAsOracle(t testing.TB, ts *testscript.TestScript, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: sameasoracle APP_DIR SCRIPT")
	}
	want := lowdefytest.RunOracleWith(t, args[0], ts.MkAbs(args[1]), lowdefytest.OracleOptions{Now: oracleNow})
	var got []json.RawMessage
	for _, l := range strings.Split(strings.TrimSpace(ts.ReadFile("stdout")), "\n") {
		got = append(got, json.RawMessage(l))
	}
	strip := func(lines []json.RawMessage) []json.RawMessage {
		out := make([]json.RawMessage, len(lines))
		for i, l := range lines {
			var m map[string]any
			if err := json.Unmarshal(l, &m); err != nil {
				ts.Fatalf("line %d is not JSON: %s", i+1, l)
			}
			if m["error"] != nil {
				i := bytes.LastIndex(l, []byte(`,"error":`))
				l = append(append([]byte{}, l[:i]...), []byte(`,"error":true}`)...)
			}
			out[i] = l
		}
		return out
	}
	if d := lowdefytest.Compare(strip(want), strip(got), lowdefytest.CompareOptions{Ignore: func(p string) bool { return strings.HasSuffix(p, `"~k"`) }}); d != nil {
		ts.Fatalf("app run differs from Lowdefy's engine: %v", d)
	}
}
