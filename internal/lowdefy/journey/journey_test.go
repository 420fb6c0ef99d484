package journey_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/journey"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
	"github.com/mcpbridge/mcpbridge/internal/testenv"
)

// recordedServer answers requests with fixed responses: it stands in for
// the server side only so that the engine's handling of responses is part
// of the journeys; it runs no connection.
type recordedServer map[string]string

func (s recordedServer) Request(ctx context.Context, c engine.RequestCall) (any, error) {
	r, ok := s[c.RequestID]
	if !ok {
		return nil, fmt.Errorf("request %q failed: no recorded response", c.RequestID)
	}
	return serial.Unmarshal([]byte(r))
}

func (s recordedServer) Endpoint(ctx context.Context, c engine.EndpointCall) (engine.EndpointResult, error) {
	return engine.EndpointResult{}, fmt.Errorf("no endpoint %q", c.EndpointID)
}

var server = recordedServer{
	"get_products":    `{"status":200,"data":{"products":[{"title":"iPhone 9"},{"title":"Samsung Universe 9"}]}}`,
	"save_new_ticket": `[]`,
	"all_products":    `[{"_id":{"_oid":"a1"},"name":"Chair","description":"Wood"},{"_id":{"_oid":"a2"},"name":"Desk","description":"Oak"}]`,
	"brands_selector": `[{"value":"b1","label":"Acme"}]`,
	"update_product":  `{"acknowledged":true}`,
	"get_tickets":     `[{"id":1,"ticket_title":"Broken","created_date":{"~d":1700000000000}}]`,
}

func newEngine(t testing.TB, a *app.App) *engine.Engine {
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	return engine.New(a, engine.Options{Server: server, Now: func() time.Time { return t0 },
		User: nil})
}

// ticketJourney walks the new-ticket form: hidden input, validation errors
// and warnings, Reset, submit, navigation between pages.
const ticketJourney = `[
 {"navigate": "new-ticket"},
 {"trigger": "submit_button", "event": "onClick"},
 {"setValue": "ticket_title", "value": "Screen cracked"},
 {"setValue": "ticket_type", "value": "Complaint"},
 {"setValue": "purchase_in_last_month", "value": "No"},
 {"trigger": "submit_button", "event": "onClick"},
 {"setValue": "ticket_type", "value": "Question"},
 {"setState": {"ticket_description": "It fell", "extra": {"n": 1}}},
 {"setValue": "ticket_type", "value": "Complaint"},
 {"navigate": "welcome"},
 {"trigger": "docs_button", "event": "onClick"},
 {"navigate": "new-ticket", "input": {"from": "welcome"}, "urlQuery": {"q": [1, 2]}},
 {"trigger": "reset_button", "event": "onClick"},
 {"setValue": "ticket_title", "value": "Again"},
 {"setValue": "ticket_type", "value": "Suggestion"},
 {"trigger": "submit_button", "event": "onClick"},
 {"setValue": "nope", "value": 1}
]`

func run(t *testing.T, a *app.App, steps []journey.Step) []string {
	var buf bytes.Buffer
	if err := journey.Run(context.Background(), newEngine(t, a), steps, &buf); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
}

func TestJourneyLines(t *testing.T) {
	a, err := app.Load(filepath.Join(testenv.LowdefyApps(t), "tutorial/08-final"), app.Options{Env: map[string]string{}})
	if err != nil {
		t.Fatal(err)
	}
	steps, err := journey.Parse([]byte(ticketJourney))
	if err != nil {
		t.Fatal(err)
	}
	lines := run(t, a, steps)
	if len(lines) != len(steps) {
		t.Fatalf("%d lines for %d steps", len(lines), len(steps))
	}
	want := map[int]string{
		1: `{"step":1,"pageId":"new-ticket","state":{"ticket_title":null,"ticket_type":null,"product":null,"ticket_description":null},"global":{},"validation":{},"requests":{"get_products":{"response":{"status":200,"data":{"products":[{"title":"iPhone 9"},{"title":"Samsung Universe 9"}]}},"error":null}},"events":[],"error":null}`,
		2: `{"step":2,"pageId":"new-ticket","state":{"ticket_title":null,"ticket_type":null,"product":null,"ticket_description":null},"global":{},"validation":{"ticket_title":{"status":"error","errors":["This field is required"],"warnings":[]},"ticket_type":{"status":"error","errors":["This field is required"],"warnings":[]}},"requests":{"get_products":{"response":{"status":200,"data":{"products":[{"title":"iPhone 9"},{"title":"Samsung Universe 9"}]}},"error":null}},"events":[{"type":"DisplayMessage","params":{"content":"Your input has 2 validation errors.","duration":6,"status":"error"}},{"type":"error","event":"submit_button.onClick","action":"validate","message":"Your input has 2 validation errors."}],"error":null}`,
	}
	for n, w := range want {
		if lines[n-1] != w {
			t.Errorf("line %d = %s\nwant      %s", n, lines[n-1], w)
		}
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d is not JSON: %v", i+1, err)
		}
		keys := []string{`{"step":`, `,"pageId":`, `,"state":`, `,"global":`, `,"validation":`, `,"requests":`, `,"events":`, `,"error":`}
		pos := 0
		for _, k := range keys {
			j := strings.Index(l[pos:], k)
			if j < 0 {
				t.Fatalf("line %d: key %s missing or out of order: %s", i+1, k, l)
			}
			pos += j
		}
	}
	for _, check := range []struct {
		step int
		has  string
	}{
		{6, `"save_new_ticket":{"response":[],"error":null}`},
		{7, `"state":{"ticket_title":null,"ticket_type":"Question","product":null,"ticket_description":null}`},
		{9, `"extra":{"n":1},"purchase_in_last_month":null}`},
		{11, `"events":[{"type":"Link","url":"https://docs.lowdefy.com","newTab":true}]`},
		{13, `"state":{"ticket_title":null,"ticket_type":null,"product":null,"ticket_description":null}`},
		{16, `"save_new_ticket":{"response":[],"error":null}`},
		{17, `"error":"page \"new-ticket\" has no block \"nope\"`},
	} {
		if !strings.Contains(lines[check.step-1], check.has) {
			t.Errorf("line %d = %s\nwant it to contain %s", check.step, lines[check.step-1], check.has)
		}
	}
}

// TestSaveRestoreEveryStep interrupts the journey after every step: the
// engine is saved, the snapshot goes through JSON, a fresh engine is
// restored from it and runs the remaining steps. Every line must equal the
// uninterrupted run's.
func TestSaveRestoreEveryStep(t *testing.T) {
	journeys := map[string]string{
		"tutorial/04-interactive-pages": strings.ReplaceAll(ticketJourney, `{"setValue": "ticket_type", "value": "Suggestion"},`, `{"setValue": "ticket_type", "value": "Suggestion"}, {"trigger": "reset_button", "event": "onClick"},`),
		"tutorial/08-final":             ticketJourney,
		"crud": `[{"navigate": "products"}, {"trigger": "product_list.1.container", "event": "onClick"},
			{"setValue": "edit_product.name", "value": "Big desk"}, {"setState": {"product_list.0.name": "Stool"}},
			{"callMethod": "edit_product_drawer", "method": "toggleOpen"}, {"trigger": "product_list.0.container", "event": "onClick"}]`,
		"tutorial/02-creating-a-page": `[{"navigate": "welcome"}, {"trigger": "docs_button", "event": "onClick"}, {"navigate": "missing"}, {"navigate": "welcome"}]`,
	}
	for dir, script := range journeys {
		t.Run(dir, func(t *testing.T) {
			a, err := app.Load(filepath.Join(testenv.LowdefyApps(t), dir), app.Options{Env: map[string]string{}})
			if err != nil {
				t.Fatal(err)
			}
			steps, err := journey.Parse([]byte(script))
			if err != nil {
				t.Fatal(err)
			}
			want := run(t, a, steps)
			for k := 1; k < len(steps); k++ {
				ctx := context.Background()
				var buf bytes.Buffer
				e := newEngine(t, a)
				if err := journey.Run(ctx, e, steps[:k], &buf); err != nil {
					t.Fatal(err)
				}
				snap, err := e.Save()
				if err != nil {
					t.Fatal(err)
				}
				data, err := json.Marshal(snap)
				if err != nil {
					t.Fatal(err)
				}
				var back engine.Snapshot
				if err := json.Unmarshal(data, &back); err != nil {
					t.Fatal(err)
				}
				fresh := newEngine(t, a)
				if err := fresh.Restore(ctx, &back); err != nil {
					t.Fatalf("restore after step %d: %v", k, err)
				}
				var rest bytes.Buffer
				for i, s := range steps[k:] {
					from := len(fresh.Journal())
					err := journey.RunStep(ctx, fresh, s)
					b, _ := serial.Marshal(journey.Line(fresh, k+i+1, from, err))
					rest.Write(append(b, '\n'))
				}
				got := strings.Split(strings.TrimSuffix(buf.String()+rest.String(), "\n"), "\n")
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("interrupted after step %d: line %d differs\n got %s\nwant %s", k, i+1, got[i], want[i])
					}
				}
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, bad := range []string{`{}`, `[1]`, `[{}]`, `[{"navigate":"a","setState":{}}]`, `[{"trigger":"b"}]`, `[{"setState":1}]`, `[{"callMethod":"l"}]`} {
		if _, err := journey.Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%s) succeeded", bad)
		}
	}
}
