package lowdefy_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// agendaApp books a slot: date blocks whose values go, as a browser sends them, to an HTTP
// API (AxiosHttp POST); and a profile page opened like a shared link (_url_query, _input).
const agendaApp = `lowdefy: 4.0.0
mcp:
  timeZone: Europe/Paris
connections:
  - id: api
    type: AxiosHttp
    properties: {baseURL: API_URL}
pages:
  - id: book
    type: Box
    properties: {title: Book}
    requests:
      - id: save
        type: AxiosHttp
        connectionId: api
        payload:
          day: {_state: day}
          at: {_state: at}
          span: {_state: span}
          rows: {_state: rows}
        properties:
          url: /bookings
          method: post
          data:
            day: {_payload: day}
            at: {_payload: at}
            span: {_payload: span}
            rows: {_payload: rows}
    blocks:
      - {id: day, type: DateSelector, required: true, properties: {title: Day}}
      - {id: at, type: DateTimeSelector, properties: {title: At}}
      - {id: span, type: DateRangeSelector, properties: {title: Span}}
      - id: rows
        type: ControlledList
        blocks:
          - {id: rows.$.due, type: DateSelector}
      - id: save
        type: Button
        properties: {title: Save}
        events:
          onClick:
            - {id: check, type: Validate}
            - {id: post, type: Request, params: save}
  - id: profile
    type: Box
    properties: {title: Profile}
    blocks:
      - id: who
        type: Paragraph
        properties:
          content:
            _string.concat: ["Profile ", {_json.stringify: [{_url_query: id}]}, " from ", {_if_none: [{_input: from}, nobody]}]
      - id: remember
        type: Button
        events:
          onClick:
            - {id: keep, type: SetState, params: {seen: {_url_query: true}, from: {_input: from}}}
`

// bookings is the HTTP API the agenda app posts to: it keeps the bodies it got.
type bookings struct {
	mu     sync.Mutex
	bodies []string
}

func (b *bookings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	b.mu.Lock()
	b.bodies = append(b.bodies, string(body))
	b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"ok":true}`)
}

func (b *bookings) last(t *testing.T) string {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.bodies) == 0 {
		t.Fatal("the API got no booking")
	}
	return b.bodies[len(b.bodies)-1]
}

func startAgenda(t *testing.T) (srv, replica *gatewaytest.Server, api *bookings) {
	t.Helper()
	api = &bookings{}
	hs := httptest.NewServer(api)
	t.Cleanup(hs.Close)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lowdefy.yaml"), []byte(strings.Replace(agendaApp, "API_URL", hs.URL, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	st := openStore(t, filepath.Join(t.TempDir(), "s.db"))
	cfg := strings.Replace(gatewayConfig(dir, ""), "    secrets: {SQLITE_FILENAME: env:LD_TEST_SQLITE_FILENAME}\n", "", 1)
	return gatewaytest.Start(t, cfg, gateway.Options{WorkSessions: st.WorkSessions}),
		gatewaytest.Start(t, cfg, gateway.Options{WorkSessions: st.WorkSessions}), api
}

func contains(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %s:\n%s", what, w, got)
		}
	}
}

// Date blocks through the session tools: ISO 8601 dates and timestamps (in the app's time
// zone) are stored as the blocks store them, shown as the blocks show them with the ISO
// value beside, and reach the API as a browser sends them; setState gives date blocks dates
// too; a value a date block cannot take is a failed action naming the accepted forms, never
// a silent null; the interact description says which forms are accepted.
func TestDatesThroughSessionTools(t *testing.T) {
	srv, _, api := startAgenda(t)
	alice := connect(t, srv.URL+"/mcp/tickets", aliceKey)
	tools, err := alice.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "interact" {
			contains(t, "interact's description", tool.Description, `Date blocks take ISO 8601: "2026-03-01", "2026-03-01T09:30" (no offset: Europe/Paris time)`)
		}
	}
	sid := newSession(alice)
	alice.call("navigate", map[string]any{"sessionId": sid, "pageId": "book"}, false)
	res := alice.call("interact", map[string]any{"sessionId": sid, "actions": []any{
		map[string]any{"type": "setValue", "blockId": "day", "value": "2026-03-01"},
		map[string]any{"type": "setValue", "blockId": "at", "value": "2026-03-01T09:30"},
		map[string]any{"type": "setValue", "blockId": "span", "value": []any{"2026-03-01", "2026-03-31"}},
		map[string]any{"type": "setState", "key": "rows", "value": []any{map[string]any{"due": "2026-03-15"}}},
		map[string]any{"type": "setValue", "blockId": "at", "value": "half past nine"},
	}}, false)
	page := text(res)
	contains(t, "the page", page,
		`<input id="day" type="DateSelector" required label="Day" value="2026-03-01" iso="2026-03-01T00:00:00.000Z">`,
		// 09:30 in Paris is 08:30 UTC; the block shows Paris time.
		`<input id="at" type="DateTimeSelector" label="At" value="2026-03-01 09:30" iso="2026-03-01T08:30:00.000Z">`,
		`value="2026-03-01 ~ 2026-03-31" iso=["2026-03-01T00:00:00.000Z","2026-03-31T00:00:00.000Z"]`,
		`value="2026-03-15" iso="2026-03-15T00:00:00.000Z"`,
		`"action":"setValue","blockId":"at","success":false,"error":"block \"at\": DateTimeSelector takes an ISO 8601 timestamp such as \"2026-03-01T09:30\" (without an offset it is the app's time zone, Europe/Paris`,
	)
	state := text(alice.call("get_state", map[string]any{"sessionId": sid}, false))
	contains(t, "get_state", state, `"day":"2026-03-01T00:00:00.000Z"`, `"at":"2026-03-01T08:30:00.000Z"`, `"due":"2026-03-15T00:00:00.000Z"`)

	alice.call("interact", map[string]any{"sessionId": sid, "actions": []any{
		map[string]any{"type": "triggerEvent", "blockId": "save", "event": "onClick"}}}, false)
	var body map[string]any
	if err := json.Unmarshal([]byte(api.last(t)), &body); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(body)
	if want := `{"at":"2026-03-01T08:30:00.000Z","day":"2026-03-01T00:00:00.000Z","rows":[{"due":"2026-03-15T00:00:00.000Z"}],"span":["2026-03-01T00:00:00.000Z","2026-03-31T00:00:00.000Z"]}`; string(got) != want {
		t.Errorf("the API got %s\nwant %s", got, want)
	}
}

// The generated form tool advertises format: date and takes a date (and a timestamp, and
// list items' dates); a value it cannot take is refused with the accepted forms.
func TestDatesThroughFormTool(t *testing.T) {
	srv, _, api := startAgenda(t)
	alice := connect(t, srv.URL+"/mcp/tickets", aliceKey)
	tools, err := alice.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var schema string
	for _, tool := range tools.Tools {
		if tool.Name == "submit_book" {
			b, _ := json.Marshal(tool.InputSchema)
			schema = string(b)
		}
	}
	contains(t, "submit_book's schema", schema,
		`"day":{"description":"Day. A date, YYYY-MM-DD.","format":"date","type":"string"}`,
		`"format":"date-time"`, `(without an offset: Europe/Paris time)`,
		`"span":{"description":"Span. Two dates [start, end], each YYYY-MM-DD.","items":{"format":"date","type":"string"},"maxItems":2,"minItems":2,"type":"array"}`)
	res := alice.call("submit_book", map[string]any{"day": "2026-05-01", "at": "2026-05-01T10:00:00+02:00",
		"span": []any{"2026-05-01", "2026-05-03"}, "rows": []any{map[string]any{"due": "2026-05-02"}}}, false)
	contains(t, "submit_book", text(res), `"success":true`)
	var body map[string]any
	if err := json.Unmarshal([]byte(api.last(t)), &body); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(body)
	if want := `{"at":"2026-05-01T08:00:00.000Z","day":"2026-05-01T00:00:00.000Z","rows":[{"due":"2026-05-02T00:00:00.000Z"}],"span":["2026-05-01T00:00:00.000Z","2026-05-03T00:00:00.000Z"]}`; string(got) != want {
		t.Errorf("the API got %s\nwant %s", got, want)
	}
	res = alice.call("submit_book", map[string]any{"day": "1 May"}, true)
	contains(t, "submit_book with 1 May", text(res), `day: block "day": DateSelector takes a date "YYYY-MM-DD"`)
}

// navigate opens a page as a link does: a page id with a query string, or urlQuery and
// input as Link gives them; the page reads them with _url_query and _input, and they are
// kept in the work session: another replica, restoring it, still has them.
func TestNavigateLikeALink(t *testing.T) {
	srv, replica, _ := startAgenda(t)
	alice := connect(t, srv.URL+"/mcp/tickets", aliceKey)
	sid := newSession(alice)
	res := alice.call("navigate", map[string]any{"sessionId": sid, "pageId": "profile?id=42"}, false)
	contains(t, "profile?id=42", text(res), "Profile 42 from nobody")
	res = alice.call("navigate", map[string]any{"sessionId": sid, "pageId": "profile", "urlQuery": map[string]any{"id": "ada"}, "input": map[string]any{"from": "home"}}, false)
	contains(t, "profile with urlQuery and input", text(res), `Profile "ada" from home`)

	other := connect(t, replica.URL+"/mcp/tickets", aliceKey)
	other.call("interact", map[string]any{"sessionId": sid, "actions": []any{
		map[string]any{"type": "triggerEvent", "blockId": "remember", "event": "onClick"}}}, false)
	contains(t, "state on the other replica", text(other.call("get_state", map[string]any{"sessionId": sid}, false)),
		`"seen":{"id":"ada"}`, `"from":"home"`)

	// interact's navigate takes them too; a query given both ways is refused.
	res = other.call("interact", map[string]any{"sessionId": sid, "actions": []any{
		map[string]any{"type": "navigate", "pageId": "profile?id=7", "input": map[string]any{"from": "a link"}}}}, false)
	contains(t, "interact navigate", text(res), "Profile 7 from a link")
	res = other.call("navigate", map[string]any{"sessionId": sid, "pageId": "profile?id=1", "urlQuery": map[string]any{"id": 2}}, false)
	contains(t, "navigate with two queries", text(res), `"success":false,"error":"give the URL query either in the page id`)
}
