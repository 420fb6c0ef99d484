package cli_test

import (
	"bytes"
	"encoding/json"
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
	dummy := lowdefytest.StartDummyJSON(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/apprun",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			for _, step := range lowdefytest.TutorialSteps {
				a := lowdefytest.Tutorial(t, step, dummy)
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
				sameAsOracle(t, ts, args)
			},
		},
	})
}

// sameasoracle APP_DIR SCRIPT compares the last command's stdout with the oracle's lines for
// the journey (the wording of a failed step's error is the runner's own and not compared).
func sameAsOracle(t *testing.T, ts *testscript.TestScript, args []string) {
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
