package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
)

const datesApp = `lowdefy: 4.0.0
mcp:
  timeZone: America/New_York
pages:
  - id: p
    type: Box
    blocks:
      - {id: when, type: DateSelector, required: true}
      - {id: at, type: DateTimeSelector}
      - {id: span, type: DateRangeSelector}
      - {id: note, type: TextInput}
      - id: rows
        type: List
        blocks:
          - {id: rows.$.due, type: DateSelector}
          - {id: rows.$.what, type: TextInput}
`

func datesEngine(t *testing.T) *engine.Engine {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lowdefy.yaml"), []byte(datesApp), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := app.Load(dir, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New(a, engine.Options{Now: fixedClock()})
	if err := e.Navigate(context.Background(), "p", nil, nil); err != nil {
		t.Fatal(err)
	}
	return e
}

// SetValue on a date block reads ISO 8601 as the block would (in the app's time zone),
// and refuses what it cannot read without touching the state; other blocks keep strings.
func TestSetValueDates(t *testing.T) {
	e := datesEngine(t)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.SetValue(ctx, "when", "2026-03-01"))
	must(e.SetValue(ctx, "at", "2026-03-01T09:30"))
	must(e.SetValue(ctx, "span", []any{"2026-03-01", "2026-03-31"}))
	must(e.SetValue(ctx, "note", "2026-03-01"))
	want := `{"when":{"~d":1772323200000},"at":{"~d":1772375400000},"span":[{"~d":1772323200000},{"~d":1774915200000}],"note":"2026-03-01","rows":[]}`
	if got := js(t, e.Page().State()); got != want {
		t.Fatalf("state %s\nwant  %s", got, want)
	}
	err := e.SetValue(ctx, "when", "1st of March")
	if err == nil || !strings.Contains(err.Error(), `block "when": DateSelector takes a date "YYYY-MM-DD"`) || !strings.Contains(err.Error(), "America/New_York") {
		t.Fatalf("SetValue(when, 1st of March) = %v", err)
	}
	if got := js(t, e.Page().State()); got != want {
		t.Fatalf("a refused value changed the state: %s", got)
	}
	if e.TimeZone().String() != "America/New_York" || e.Page().TimeZone() != e.TimeZone() {
		t.Fatalf("time zone %v", e.TimeZone())
	}
}

// An agent's setState gives date blocks dates too, inside list items as well; a string a
// date block cannot read is reported, not silently kept.
func TestSetStateFromAgentDates(t *testing.T) {
	e := datesEngine(t)
	ctx := context.Background()
	rows := []any{jsvalue.ObjectOf("due", "2026-03-02", "what", "a"), jsvalue.ObjectOf("due", "2026-03-03T23:00:00Z", "what", "b")}
	if err := e.SetStateFromAgent(ctx, jsvalue.ObjectOf("when", "2026-03-01", "rows", rows, "free", "2026-03-01")); err != nil {
		t.Fatal(err)
	}
	got := js(t, e.Page().State())
	for _, w := range []string{`"when":{"~d":1772323200000}`, `"due":{"~d":1772409600000},"what":"a"`,
		`"due":{"~d":1772496000000},"what":"b"`, `"free":"2026-03-01"`} {
		if !strings.Contains(got, w) {
			t.Errorf("state %s lacks %s", got, w)
		}
	}
	// The plain SetState keeps Lowdefy's behaviour: the string stays.
	if err := e.SetState(ctx, jsvalue.ObjectOf("when", "2026-03-05")); err != nil {
		t.Fatal(err)
	}
	if got := js(t, e.Page().State().Prop("when")); got != `"2026-03-05"` {
		t.Errorf("SetState when = %s", got)
	}
	err := e.SetStateFromAgent(ctx, jsvalue.ObjectOf("span", []any{"soon", "later"}))
	if err == nil || !strings.Contains(err.Error(), `block "span": DateRangeSelector takes two dates`) {
		t.Fatalf("SetStateFromAgent(span: soon, later) = %v", err)
	}
}
