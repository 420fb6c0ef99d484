package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
	"github.com/mcpbridge/mcpbridge/internal/testenv"
)

func load(t testing.TB, dir string) *app.App {
	t.Helper()
	a, err := app.Load(filepath.Join(testenv.LowdefyApps(t), dir), app.Options{Env: map[string]string{}})
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	return a
}

// recordedServer answers requests with fixed responses. It stands in for
// the server side only to test how the engine handles responses (loading,
// _request, payload passing); it runs no connection. Calls are recorded.
type recordedServer struct {
	responses map[string]string // requestId → response JSON
	calls     []engine.RequestCall
}

func (s *recordedServer) Request(ctx context.Context, c engine.RequestCall) (any, error) {
	s.calls = append(s.calls, c)
	r, ok := s.responses[c.RequestID]
	if !ok {
		return nil, fmt.Errorf("request %q failed: no recorded response", c.RequestID)
	}
	return serial.Unmarshal([]byte(r))
}

func (s *recordedServer) Endpoint(ctx context.Context, c engine.EndpointCall) (engine.EndpointResult, error) {
	return engine.EndpointResult{}, fmt.Errorf("endpoint %q not available", c.EndpointID)
}

func fixedClock() func() time.Time {
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time { return t0 }
}

func js(t testing.TB, v any) string {
	t.Helper()
	b, err := serial.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func entries(l []*jsvalue.Object) []any {
	out := make([]any, len(l))
	for i, o := range l {
		out[i] = o
	}
	return out
}

func obj(t testing.TB, s string) *jsvalue.Object {
	t.Helper()
	v, err := serial.Unmarshal([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v.(*jsvalue.Object)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantState(t testing.TB, e *engine.Engine, want string) {
	t.Helper()
	if got := js(t, e.Page().State()); got != want {
		t.Errorf("state = %s\nwant    %s", got, want)
	}
}

func TestVisibilityRemovesHiddenInputsAndKeepsTheirValue(t *testing.T) {
	ctx := context.Background()
	e := engine.New(load(t, "tutorial/04-interactive-pages"), engine.Options{Now: fixedClock()})
	must(t, e.Navigate(ctx, "new-ticket", nil, nil))
	wantState(t, e, `{"ticket_title":null,"ticket_type":null,"ticket_description":null}`)
	must(t, e.SetValue(ctx, "ticket_type", "Complaint"))
	wantState(t, e, `{"ticket_title":null,"ticket_type":"Complaint","ticket_description":null,"purchase_in_last_month":null}`)
	must(t, e.SetValue(ctx, "purchase_in_last_month", "No"))
	must(t, e.SetValue(ctx, "ticket_type", "Question"))
	wantState(t, e, `{"ticket_title":null,"ticket_type":"Question","ticket_description":null}`)
	// Shown again, the block writes back the value it kept (Blocks.recEval).
	must(t, e.SetValue(ctx, "ticket_type", "Complaint"))
	wantState(t, e, `{"ticket_title":null,"ticket_type":"Complaint","ticket_description":null,"purchase_in_last_month":"No"}`)
	// Type coercion: a TextInput turns "" into null.
	must(t, e.SetValue(ctx, "ticket_title", ""))
	if v := e.Page().State().Prop("ticket_title"); v != nil {
		t.Errorf("ticket_title = %v, want null", v)
	}
}

func TestValidateShowsErrorsAndResetHidesThem(t *testing.T) {
	ctx := context.Background()
	e := engine.New(load(t, "tutorial/04-interactive-pages"), engine.Options{Now: fixedClock()})
	must(t, e.Navigate(ctx, "new-ticket", nil, nil))
	if v := e.Page().Validation(); v.Len() != 0 {
		t.Fatalf("validation before Validate = %s, want none shown", v)
	}
	must(t, e.SetValue(ctx, "ticket_type", "Complaint"))
	must(t, e.SetValue(ctx, "purchase_in_last_month", "No"))
	n := len(e.Journal())
	must(t, e.Trigger(ctx, "submit_button", "onClick", nil))
	got := js(t, e.Page().Validation())
	want := `{"ticket_title":{"status":"error","errors":["This field is required"],"warnings":[]},` +
		`"purchase_in_last_month":{"status":"warning","errors":[],"warnings":["If you have had the product for over a month, we may not be able to replace it."]}}`
	if got != want {
		t.Errorf("validation = %s\nwant         %s", got, want)
	}
	entries := js(t, entries(e.Journal()[n:]))
	wantLog := `[{"type":"DisplayMessage","params":{"content":"Your input has 1 validation error.","duration":6,"status":"error"}},` +
		`{"type":"error","event":"submit_button.onClick","action":"validate","message":"Your input has 1 validation error."}]`
	if entries != wantLog {
		t.Errorf("journal = %s\nwant      %s", entries, wantLog)
	}
	// A fixed field stays shown (showValidation stays) but has no error.
	must(t, e.SetValue(ctx, "ticket_title", "Broken"))
	if v := e.Page().Validation(); v.Has("ticket_title") {
		t.Errorf("ticket_title still has errors: %s", v)
	}
	must(t, e.Trigger(ctx, "submit_button", "onClick", nil))
	// Reset restores the state frozen after onInit and hides validation.
	must(t, e.Trigger(ctx, "reset_button", "onClick", nil))
	wantState(t, e, `{"ticket_title":null,"ticket_type":null,"ticket_description":null}`)
	if v := e.Page().Validation(); v.Len() != 0 {
		t.Errorf("validation after Reset = %s, want none", v)
	}
	// An unknown block is a step error that names the block.
	if err := e.Trigger(ctx, "nope", "onClick", nil); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("Trigger(nope) = %v, want an error naming the block", err)
	}
}

const productsJSON = `{"status":200,"statusText":"OK","data":{"products":[{"id":1,"title":"iPhone 9"},{"id":2,"title":"Samsung Universe 9"}]}}`

func TestRequestsOnMountAndSubmit(t *testing.T) {
	ctx := context.Background()
	srv := &recordedServer{responses: map[string]string{"get_products": productsJSON, "save_new_ticket": `[]`}}
	e := engine.New(load(t, "tutorial/08-final"), engine.Options{Server: srv, Now: fixedClock()})
	must(t, e.Navigate(ctx, "new-ticket", nil, nil))
	p := e.Page()
	if got := js(t, p.RequestResults()); got != `{"get_products":{"response":`+productsJSON+`,"error":null}}` {
		t.Errorf("requests = %s", got)
	}
	for _, b := range p.Blocks() {
		if b.ID == "product" {
			if got := js(t, b.Properties.(*jsvalue.Object).Prop("options")); got != `["iPhone 9","Samsung Universe 9"]` {
				t.Errorf("product options = %s", got)
			}
		}
	}
	must(t, e.SetValue(ctx, "ticket_title", "Screen"))
	must(t, e.SetValue(ctx, "ticket_type", "Suggestion"))
	must(t, e.SetValue(ctx, "product", "iPhone 9"))
	must(t, e.Trigger(ctx, "submit_button", "onClick", nil))
	last := srv.calls[len(srv.calls)-1]
	if last.RequestID != "save_new_ticket" || last.BlockID != "submit_button" || last.PageID != "new-ticket" {
		t.Fatalf("last call = %+v", last)
	}
	if got := js(t, last.Payload); got != `{"ticket_title":"Screen","ticket_type":"Suggestion","product":"iPhone 9","ticket_description":null}` {
		t.Errorf("payload = %s", got)
	}
	// The chain ends with Reset.
	wantState(t, e, `{"ticket_title":null,"ticket_type":null,"product":null,"ticket_description":null}`)
	// A failing request: the error is on the call and in the journal.
	srv.responses = map[string]string{}
	n := len(e.Journal())
	must(t, e.Navigate(ctx, "new-ticket", nil, nil))
	if got := js(t, e.Page().RequestResults()); got != `{"get_products":{"response":null,"error":"request \"get_products\" failed: no recorded response"},"save_new_ticket":{"response":[],"error":null}}` {
		t.Errorf("requests after failure = %s", got)
	}
	if got := js(t, entries(e.Journal()[n:])); !strings.Contains(got, `"type":"error","event":"new-ticket.onMount","action":"fetch_products"`) {
		t.Errorf("journal = %s, want the failed action", got)
	}
}

func TestLinkRecordsAndNavigates(t *testing.T) {
	ctx := context.Background()
	e := engine.New(load(t, "tutorial/08-final"), engine.Options{Server: &recordedServer{}, Now: fixedClock()})
	must(t, e.Navigate(ctx, "", nil, nil))
	if e.Page().ID() != "welcome" {
		t.Fatalf("home page = %s, want welcome (first menu link)", e.Page().ID())
	}
	n := len(e.Journal())
	must(t, e.Trigger(ctx, "docs_button", "onClick", nil))
	if got := js(t, entries(e.Journal()[n:])); got != `[{"type":"Link","url":"https://docs.lowdefy.com","newTab":true}]` {
		t.Errorf("journal = %s", got)
	}
	// Navigating to an unknown page fails and stays (the page route answers nothing)…
	if err := e.Navigate(ctx, "no-such-page", nil, nil); err == nil || !strings.Contains(err.Error(), "no-such-page") {
		t.Errorf("Navigate to an unknown page: err = %v", err)
	}
	if e.Page().ID() != "welcome" {
		t.Errorf("a failed navigation left the page for %s", e.Page().ID())
	}
	// …while a Link to it opens the 404 page, as the server redirects there. The Link is
	// registered on the button with its registerEvent method.
	must(t, e.CallMethod(ctx, "docs_button", "registerEvent", []any{jsvalue.ObjectOf("name", "onClick",
		"actions", []any{jsvalue.ObjectOf("id", "go", "type", "Link", "params", "no-such-page")})}))
	must(t, e.Trigger(ctx, "docs_button", "onClick", nil))
	if e.Page().ID() != "404" {
		t.Errorf("a Link to an unknown page led to %s, want 404", e.Page().ID())
	}
	if got := e.Visited(); strings.Join(got, ",") != "welcome,404" {
		t.Errorf("visited = %v", got)
	}
}

// The crud products page: onMount loads products into a List, a list item
// click copies the item into state and opens a Drawer with CallMethod.
func TestCrudListAndDrawer(t *testing.T) {
	ctx := context.Background()
	srv := &recordedServer{responses: map[string]string{
		"all_products":    `[{"_id":{"_oid":"a1"},"name":"Chair","description":"Wood"},{"_id":{"_oid":"a2"},"name":"Desk","description":"Oak"}]`,
		"brands_selector": `[{"value":"b1","label":"Acme"}]`,
		"update_product":  `{"acknowledged":true}`,
	}}
	e := engine.New(load(t, "crud"), engine.Options{Server: srv, Now: fixedClock()})
	must(t, e.Navigate(ctx, "products", nil, nil))
	st := e.Page().State()
	list, _ := st.Prop("product_list").([]any)
	if len(list) != 2 {
		t.Fatalf("product_list = %s", js(t, st.Prop("product_list")))
	}
	ids := map[string]bool{}
	for _, b := range e.Page().Blocks() {
		ids[b.ID] = true
	}
	for _, id := range []string{"product_list.0.container", "product_list.1.name", "edit_product_drawer"} {
		if !ids[id] {
			t.Errorf("no block %s", id)
		}
	}
	must(t, e.Trigger(ctx, "product_list.1.container", "onClick", nil))
	if got := js(t, e.Page().State().Prop("edit_product")); !strings.Contains(got, `"name":"Desk"`) {
		t.Errorf("edit_product = %s, want the second item", got)
	}
	for _, j := range e.Journal() {
		if j.Prop("type") == "error" {
			t.Errorf("unexpected error: %s", j)
		}
	}
}

// AppendJSON writes what encoding/json writes for a snapshot (as JSON values),
// and a snapshot read back from it restores the same engine.
func TestSnapshotAppendJSON(t *testing.T) {
	ctx := context.Background()
	a := load(t, "tutorial/04-interactive-pages")
	e := engine.New(a, engine.Options{Now: fixedClock()})
	must(t, e.Navigate(ctx, "new-ticket", nil, nil))
	must(t, e.SetValue(ctx, "ticket_title", "quote \" backslash \\ tab \t nul \x00 <&> é 😀"))
	must(t, e.Trigger(ctx, "submit_button", "onClick", nil))
	s, err := e.Save()
	must(t, err)
	frozen := "line\nbreak\x01 \b\f \u2028"
	ps := s.Pages["new-ticket"]
	ps.Frozen = &frozen
	s.Pages["new-ticket"] = ps
	s.Pages["empty"] = engine.PageSnapshot{}
	for _, snap := range []*engine.Snapshot{s, {}} {
		want, err := json.Marshal(snap)
		must(t, err)
		got := snap.AppendJSON(nil)
		var wv, gv any
		must(t, json.Unmarshal(want, &wv))
		if err := json.Unmarshal(got, &gv); err != nil {
			t.Fatalf("AppendJSON wrote invalid JSON: %v\n%s", err, got)
		}
		if !reflect.DeepEqual(wv, gv) {
			t.Errorf("AppendJSON differs from encoding/json:\n got %s\nwant %s", got, want)
		}
	}
	delete(s.Pages, "empty")
	var back engine.Snapshot
	must(t, json.Unmarshal(s.AppendJSON(nil), &back))
	e2 := engine.New(a, engine.Options{Now: fixedClock()})
	must(t, e2.Restore(ctx, &back))
	s2, err := e2.Save()
	must(t, err)
	if got, want := string(s2.AppendJSON(nil)), string(s.AppendJSON(nil)); got != want {
		t.Errorf("restored engine saves\n%s\nwant\n%s", got, want)
	}
}
