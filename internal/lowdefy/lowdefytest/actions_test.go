package lowdefytest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/journey"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/runtime"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// actionsCore are the actions of @lowdefy/actions-core 4.0.0-rc.11 (dist/actions.js), each
// with the page of testdata/actions that exercises it.
var actionsCore = []struct{ action, page string }{
	{"CallMethod", "call-method"},
	{"CopyToClipboard", "browser"},
	{"DisplayMessage", "display-message"},
	{"Fetch", "fetch"},
	{"GeolocationCurrentPosition", "browser"},
	{"Link", "link"},
	{"Login", "auth"},
	{"Logout", "auth"},
	{"Request", "request"},
	{"Reset", "reset"},
	{"ResetValidation", "validate"},
	{"ScrollTo", "browser"},
	{"SetGlobal", "set-global"},
	{"SetState", "set-state"},
	{"Throw", "throw"},
	{"UpdateSession", "auth"},
	{"Validate", "validate"},
	{"Wait", "wait"},
}

// The fidelity of every action of @lowdefy/actions-core (issue 22): testdata/actions has a
// page per action (good and bad params, _actions responses, messages, try/catch), and the
// journey testdata/actions.json runs on Lowdefy's own engine (the oracle, with its api and
// Knex connection on SQLite and Node's fetch) and on mcpbridge's runtime (engine, server,
// Knex, Fetch on Go's HTTP client) against the same local HTTP server. Every step must
// agree: state, global, validation, request results, the events logged (messages, links,
// errors, warnings) and whether the step failed. The per-action agreement is logged for the
// table in docs/lowdefy.md ("Actions").
func TestDifferentialActions(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/data.json":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"a":1,"list":[1,2],"nested":{"b":"c"}}`)
		case "/hello.txt":
			body, _ := io.ReadAll(r.Body)
			fmt.Fprintf(w, "%s %s %s", r.Method, r.Header.Get("X-Test"), body)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	fixture := filepath.Join(lowdefytest.RepoRoot(t), "internal", "lowdefy", "lowdefytest", "testdata", "actions")
	raw, err := os.ReadFile(lowdefytest.Journey(t, "actions"))
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "actions.json")
	if err := os.WriteFile(script, []byte(strings.ReplaceAll(string(raw), "FETCH_BASE", srv.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	oracleDB := filepath.Join(t.TempDir(), "oracle.sqlite")
	goDB := filepath.Join(t.TempDir(), "go.sqlite")
	want := lowdefytest.RunOracleWith(t, fixture, script, lowdefytest.OracleOptions{Now: diffNow, Env: []string{"LOWDEFY_SECRET_ACTIONS_DB=" + oracleDB}})
	got := runActions(t, fixture, script, goDB)
	if len(want) != len(got) {
		t.Fatalf("the oracle printed %d lines, the Go runtime %d", len(want), len(got))
	}
	want, got = normalize(t, want), normalize(t, got)

	// Per page (action), the steps that agree.
	steps, err := journey.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	agree, total := map[string]int{}, map[string]int{}
	page := ""
	for i, s := range steps {
		if p, ok := s.Prop("navigate").(string); ok {
			page = p
		}
		total[page]++
		if s.Prop("trigger") == "scroll_bad" {
			// The oracle's harness replaces ScrollTo with a warning (a browser-only action);
			// actions-core's ScrollTo first throws for params that are not an object, as the
			// Go engine does: check its message against actions-core's source instead.
			const msg = `Invalid ScrollTo, check action params. Received \"\"top\"\".`
			if !strings.Contains(string(got[i]), `"message":"`+msg+`"`) {
				t.Errorf("step %d: ScrollTo with params \"top\": %s, want the error %s", i+1, got[i], msg)
				continue
			}
			agree[page]++
			continue
		}
		if d := lowdefytest.Compare(want[i:i+1], got[i:i+1], lowdefytest.CompareOptions{Ignore: ignoreAlways}); d != nil {
			t.Errorf("step %d (page %s): %s: want %s, got %s\nwant %s\n got %s", i+1, page, d.Path, d.Want, d.Got, want[i], got[i])
			continue
		}
		agree[page]++
	}
	var table strings.Builder
	n := 0
	for _, a := range actionsCore {
		fmt.Fprintf(&table, "\n  %-28s page %-16s %d/%d steps agree", a.action, a.page, agree[a.page], total[a.page])
		if agree[a.page] == total[a.page] && total[a.page] > 0 {
			n++
		}
	}
	t.Logf("actions of @lowdefy/actions-core whose page agrees with Lowdefy's engine: %d of %d (%d steps in all)%s", n, len(actionsCore), len(steps), table.String())
	if n != len(actionsCore) {
		t.Errorf("%d of %d actions agree with the oracle", n, len(actionsCore))
	}
}

// runActions runs the journey on mcpbridge's runtime with the oracle's headless choices,
// Fetch on Go's HTTP client and the app's SQLite database at db.
func runActions(t *testing.T, dir, scriptPath, db string) []json.RawMessage {
	t.Helper()
	loaded, steps := loadJourney(t, dir, map[string]string{}, scriptPath)
	now := time.UnixMilli(diffNow).UTC()
	pools := &connections.Pools{}
	t.Cleanup(func() { pools.Close() })
	e := runtime.NewEngine(loaded, runtime.Options{
		Now:        func() time.Time { return now },
		Origin:     "http://localhost:3000",
		Secrets:    map[string]string{"ACTIONS_DB": db},
		Pools:      pools,
		HTTPClient: func() *http.Client { return http.DefaultClient },
	})
	ctx := context.Background()
	var lines []json.RawMessage
	for i, s := range steps {
		from := len(e.Journal())
		err := journey.RunStep(ctx, e, s)
		b, merr := serial.Marshal(journey.Line(e, i+1, from, err))
		if merr != nil {
			t.Fatalf("step %d: %v", i+1, merr)
		}
		lines = append(lines, json.RawMessage(b))
	}
	return lines
}
