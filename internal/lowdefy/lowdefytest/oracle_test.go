package lowdefytest

import (
	"encoding/json"
	"strings"
	"testing"
)

// fixedNow freezes the oracle's clock, so `_date: now` values are the same in every run.
const fixedNow = 1700000000000

// runTutorial runs the journey of one tutorial step on a fresh copy of the app.
func runTutorial(t *testing.T, step string) []Step {
	t.Helper()
	steps, _ := runTutorialLines(t, step)
	return steps
}

func runTutorialLines(t *testing.T, step string) ([]Step, []json.RawMessage) {
	t.Helper()
	app := Tutorial(t, step, StartDummyJSON(t))
	lines := RunOracleWith(t, app.Dir, Journey(t, step), OracleOptions{Now: fixedNow})
	steps := DecodeSteps(t, lines)
	var script []json.RawMessage
	if err := json.Unmarshal(mustRead(t, Journey(t, step)), &script); err != nil {
		t.Fatal(err)
	}
	if len(steps) != len(script) {
		t.Fatalf("%d step lines for %d steps", len(steps), len(script))
	}
	if testing.Verbose() {
		for _, l := range lines {
			t.Logf("%s", l)
		}
	}
	return steps, lines
}

func noErrors(t *testing.T, steps []Step, except ...int) {
	t.Helper()
	for _, s := range steps {
		if s.Error != nil && !contains(except, s.Step) {
			t.Errorf("step %d failed: %s", s.Step, *s.Error)
		}
	}
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func wantState(t *testing.T, s Step, key string, want any) {
	t.Helper()
	got, ok := s.State[key]
	if !ok {
		t.Errorf("step %d: state has no %q: %v", s.Step, key, s.State)
		return
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if string(gb) != string(wb) {
		t.Errorf("step %d: state.%s = %s, want %s", s.Step, key, gb, wb)
	}
}

func noState(t *testing.T, s Step, key string) {
	t.Helper()
	if v, ok := s.State[key]; ok {
		t.Errorf("step %d: state.%s = %v, want absent", s.Step, key, v)
	}
}

func eventTypes(s Step) string {
	var ts []string
	for _, e := range s.Events {
		ts = append(ts, e["type"].(string))
	}
	return strings.Join(ts, ",")
}

func requestOK(t *testing.T, s Step, id string) any {
	t.Helper()
	r, ok := s.Requests[id]
	if !ok {
		t.Fatalf("step %d: request %s was not called: %v", s.Step, id, s.Requests)
	}
	if r.Error != nil {
		t.Fatalf("step %d: request %s failed: %s", s.Step, id, *r.Error)
	}
	if r.Response == nil {
		t.Fatalf("step %d: request %s has a null response", s.Step, id)
	}
	return r.Response
}

func TestOracleTutorial01(t *testing.T) {
	s := runTutorial(t, "01-getting-started")
	noErrors(t, s, 4, 5, 6, 9)
	if s[0].PageID != "welcome" || len(s[0].State) != 0 {
		t.Errorf("step 1: %v", s[0])
	}
	link := s[1].Events
	if len(link) != 1 || link[0]["type"] != "Link" || link[0]["url"] != "https://discord.gg/QQY9eJ7A2D" || link[0]["newTab"] != true {
		t.Errorf("step 2 events: %v", link)
	}
	if len(s[2].Events) != 0 {
		t.Errorf("an event the block does not define ran actions: %v", s[2].Events)
	}
	for _, i := range []int{3, 4, 5, 8} {
		if s[i].Error == nil || *s[i].Error == "" {
			t.Errorf("step %d should fail", i+1)
		}
	}
	if !strings.Contains(*s[4].Error, "missing_block") || !strings.Contains(*s[5].Error, "no-such-page") || !strings.Contains(*s[8].Error, "noSuchMethod") {
		t.Errorf("errors do not name what is missing: %q %q %q", *s[4].Error, *s[5].Error, *s[8].Error)
	}
	if s[5].PageID != "welcome" {
		t.Errorf("a failed navigation left the page: %s", s[5].PageID)
	}
	wantState(t, s[6], "note", "hello")
	wantState(t, s[6], "nested", map[string]any{"count": 2})
	if eventTypes(s[7]) != "Link" {
		t.Errorf("callMethod triggerEvent: events %v", s[7].Events)
	}
	if s[9].PageID != "404" || s[9].Error != nil {
		t.Errorf("the built-in 404 page: %v", s[9])
	}
}

func TestOracleTutorial02(t *testing.T) {
	s := runTutorial(t, "02-creating-a-page")
	noErrors(t, s)
	if s[1].PageID != "new-ticket" || len(s[1].State) != 0 {
		t.Errorf("step 2: %v", s[1])
	}
	wantState(t, s[2], "draft", map[string]any{"title": "First"})
	// Contexts are kept between visits: the state set on new-ticket is still there.
	if s[5].PageID != "new-ticket" {
		t.Fatalf("step 6 page %s", s[5].PageID)
	}
	wantState(t, s[5], "draft", map[string]any{"title": "First"})
	if eventTypes(s[4]) != "Link" || s[4].Events[0]["url"] != "https://docs.lowdefy.com" {
		t.Errorf("step 5 events %v", s[4].Events)
	}
}

func TestOracleTutorial03(t *testing.T) {
	s := runTutorial(t, "03-adding-blocks")
	noErrors(t, s)
	wantState(t, s[0], "ticket_title", nil)
	wantState(t, s[3], "ticket_title", "Printer jams")
	wantState(t, s[3], "ticket_type", "Question")
	wantState(t, s[3], "ticket_description", "It jams on every second page.")
	// Buttons without events change nothing.
	wantState(t, s[5], "ticket_title", "Printer jams")
	// enforceType: an empty string is null for a string input; ButtonSelector takes any value.
	wantState(t, s[6], "ticket_title", nil)
	wantState(t, s[7], "ticket_type", 42)
	wantState(t, s[8], "ticket_description", nil)
	wantState(t, s[10], "ticket_type", 42)
	if len(s[4].Validation) != 0 {
		t.Errorf("validation shown without Validate: %v", s[4].Validation)
	}
}

func TestOracleTutorial04(t *testing.T) {
	s := runTutorial(t, "04-interactive-pages")
	noErrors(t, s)
	v := s[1].Validation
	if len(v) != 2 || len(v["ticket_title"].Errors) != 1 || len(v["ticket_type"].Errors) != 1 || *v["ticket_title"].Status != "error" {
		t.Errorf("step 2 validation: %v", v)
	}
	if eventTypes(s[1]) != "DisplayMessage,error" || s[1].Events[1]["message"] != "Your input has 2 validation errors." || s[1].Events[1]["action"] != "validate" || s[1].Events[1]["event"] != "submit_button.onClick" {
		t.Errorf("step 2 events: %v", s[1].Events)
	}
	if _, ok := s[3].Validation["ticket_title"]; ok || s[3].Validation["ticket_type"].Errors[0] != "This field is required" {
		t.Errorf("step 4 validation: %v", s[3].Validation)
	}
	// Complaint shows purchase_in_last_month, with its warning until it is Yes.
	wantState(t, s[4], "purchase_in_last_month", nil)
	if w := s[5].Validation["purchase_in_last_month"]; w.Status == nil || *w.Status != "warning" || len(w.Warnings) != 1 {
		t.Errorf("step 6 warning: %v", s[5].Validation)
	}
	if _, ok := s[6].Validation["purchase_in_last_month"]; ok {
		t.Errorf("step 7: the warning stays after Yes: %v", s[6].Validation)
	}
	// Another type hides the block and removes its value from state.
	noState(t, s[7], "purchase_in_last_month")
	if len(s[9].Validation) != 0 || len(s[9].Events) != 0 {
		t.Errorf("step 10: valid submit: %v %v", s[9].Validation, s[9].Events)
	}
	// Reset restores the state frozen after onInit and hides validation.
	for _, k := range []string{"ticket_title", "ticket_type", "ticket_description"} {
		wantState(t, s[10], k, nil)
	}
	if len(s[10].Validation) != 0 {
		t.Errorf("step 11 validation after Reset: %v", s[10].Validation)
	}
	if len(s[11].Validation) != 2 {
		t.Errorf("step 12: %v", s[11].Validation)
	}
}

func checkProducts(t *testing.T, s Step) {
	t.Helper()
	resp := requestOK(t, s, "get_products").(map[string]any)
	// AxiosHttp returns {status, statusText, headers, method, path, data}; axios 1 responses
	// carry no method or path, so those are absent.
	headers, _ := resp["headers"].(map[string]any)
	if resp["status"] != float64(200) || resp["statusText"] != "OK" || headers["date"] != DummyJSONDate {
		t.Errorf("get_products: status %v %v headers %v", resp["status"], resp["statusText"], headers)
	}
	if _, ok := resp["method"]; ok {
		t.Errorf("get_products has a method: %v", resp["method"])
	}
	data := resp["data"].(map[string]any)
	if len(data["products"].([]any)) != 30 || data["total"] != float64(40) || data["skip"] != float64(0) || data["limit"] != float64(30) {
		t.Errorf("get_products data: total %v skip %v limit %v", data["total"], data["skip"], data["limit"])
	}
}

func TestOracleTutorial05(t *testing.T) {
	s := runTutorial(t, "05-requests-api")
	noErrors(t, s)
	checkProducts(t, s[0])
	wantState(t, s[3], "product", "Lumen Mascara")
	wantState(t, s[5], "purchase_in_last_month", "Yes")
	if len(s[5].Validation) != 0 || len(s[5].Events) != 0 {
		t.Errorf("step 6 submit: %v %v", s[5].Validation, s[5].Events)
	}
	// Coming back re-runs onMount (get_products) and keeps the page state.
	checkProducts(t, s[7])
	wantState(t, s[7], "ticket_title", "Mascara smudges")
	wantState(t, s[8], "ticket_title", nil)
	noState(t, s[8], "purchase_in_last_month")
	if len(s[9].Validation) != 2 {
		t.Errorf("step 10: %v", s[9].Validation)
	}
}

func TestOracleTutorial06(t *testing.T) {
	s := runTutorial(t, "06-requests-sql")
	noErrors(t, s)
	checkProducts(t, s[0])
	if _, ok := s[1].Requests["save_new_ticket"]; ok {
		t.Errorf("step 2: save ran despite failed validation")
	}
	// A valid submit inserts with Knex and resets the form.
	r := s[7].Requests["save_new_ticket"]
	if r.Error != nil || r.Response == nil {
		t.Fatalf("step 8 save_new_ticket: %+v", r)
	}
	wantState(t, s[7], "ticket_title", nil)
	noState(t, s[7], "purchase_in_last_month")
	if len(s[10].Validation) != 0 || s[10].Requests["save_new_ticket"].Error != nil {
		t.Errorf("step 11: %v", s[10])
	}
}

func tickets(t *testing.T, s Step) []any {
	t.Helper()
	return requestOK(t, s, "fetch_tickets").([]any)
}

func TestOracleTutorial07(t *testing.T) {
	s, lines := runTutorialLines(t, "07-display-data")
	noErrors(t, s)
	if n := len(tickets(t, s[0])); n != 0 {
		t.Errorf("the tutorial database should start empty, has %d tickets", n)
	}
	rows := tickets(t, s[7])
	if len(rows) != 1 {
		t.Fatalf("after one submit: %d tickets", len(rows))
	}
	// The row keeps the table's column order; created_date is the frozen clock (ms).
	want := `"response":[{"ticket_title":"Eggs were cracked","ticket_type":"Complaint","ticket_description":null,"product":"Mill & Co Eggs","purchase_in_last_month":"Yes","created_date":1700000000000}]`
	if !strings.Contains(string(lines[7]), want) {
		t.Errorf("ticket row:\n got %s\nwant %s", lines[7], want)
	}
	if rows := tickets(t, s[12]); len(rows) != 2 {
		t.Errorf("after two submits: %d tickets", len(rows))
	}
}

func TestOracleTutorial08(t *testing.T) {
	s := runTutorial(t, "08-final")
	noErrors(t, s)
	if s[1].Events[0]["url"] != "https://docs.lowdefy.com" {
		t.Errorf("step 2: %v", s[1].Events)
	}
	// 08-final's get_products has no url: it fetches the API's home page (HTML), so the
	// product options are empty and nothing fails.
	resp := requestOK(t, s[2], "get_products").(map[string]any)
	if d, ok := resp["data"].(string); !ok || !strings.Contains(d, "DummyJSON") {
		t.Errorf("get_products data: %v", resp["data"])
	}
	if len(s[3].Validation) != 2 {
		t.Errorf("step 4: %v", s[3].Validation)
	}
	if r := s[8].Requests["save_new_ticket"]; r.Error != nil || r.Response == nil {
		t.Errorf("step 9 save: %+v", r)
	}
	if s[9].PageID != "view-tickets" || len(tickets(t, s[9])) != 1 {
		t.Errorf("step 10: %v", s[9])
	}
	wantState(t, s[13], "ticket_title", nil)
	if rows := tickets(t, s[17]); len(rows) != 2 {
		t.Errorf("step 18: %d tickets", len(rows))
	}
	if s[18].PageID != "welcome" {
		t.Errorf("step 19 page %s", s[18].PageID)
	}
}

// The oracle agrees with itself: two runs of the same journey print the same lines.
func TestOracleDeterministic(t *testing.T) {
	dummy := StartDummyJSON(t)
	var runs [2][]json.RawMessage
	for i := range runs {
		app := Tutorial(t, "08-final", dummy)
		runs[i] = RunOracleWith(t, app.Dir, Journey(t, "08-final"), OracleOptions{Now: fixedNow})
	}
	if d := Compare(runs[0], runs[1]); d != nil {
		t.Fatalf("two runs differ: %v", d)
	}
}

// A user is passed to the oracle as the session user.
func TestOracleUser(t *testing.T) {
	app := Tutorial(t, "02-creating-a-page", StartDummyJSON(t))
	script := writeScript(t, `[{"navigate":"welcome"},{"setState":{"x":1}}]`)
	lines := RunOracle(t, app.Dir, script, map[string]any{"sub": "u1", "roles": []string{"a"}})
	s := DecodeSteps(t, lines)
	if len(s) != 2 || s[1].Error != nil {
		t.Fatalf("%v", s)
	}
}
