package lowdefy_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite"

	_ "github.com/mcpbridge/mcpbridge/internal/backend/all"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

const (
	aliceKey = "alice-key-0123456789abcdef"
	bobKey   = "bob-key-0123456789abcdef0"
)

// gatewayConfig serves the app in dir as server "tickets", with API keys for alice and bob.
func gatewayConfig(dir, extra string) string {
	return fmt.Sprintf(`
auth:
  keys:
    - id: alice
      hash: sha256:%s
      user: {id: alice, name: Alice}
      roles: [support]
    - id: bob
      hash: sha256:%s
      user: {id: bob, name: Bob}
      roles: [sales]
servers:
  tickets:
    kind: lowdefy
    description: The ticket app
    app: %s
    secrets: {SQLITE_FILENAME: env:LD_TEST_SQLITE_FILENAME}
    allow_private: true
%s`, store.HashKey(aliceKey), store.HashKey(bobKey), dir, extra)
}

func openStore(t *testing.T, path string) *store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// agent is a scripted MCP client of one server, as one principal.
type agent struct {
	t  *testing.T
	cs *mcp.ClientSession
}

func connect(t *testing.T, url, key string) *agent {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "ld-agent", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer(key)}}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return &agent{t: t, cs: cs}
}

// call calls a tool and returns its result; wantErr says whether it must be an error result.
func (a *agent) call(name string, args map[string]any, wantErr bool) *mcp.CallToolResult {
	a.t.Helper()
	res, err := a.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		a.t.Fatalf("%s: %v", name, err)
	}
	if res.IsError != wantErr {
		a.t.Fatalf("%s: isError %v, want %v: %s", name, res.IsError, wantErr, text(res))
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

// pageLog decodes a navigate or interact result: the page as text, then "\n\nlog: " and
// the log as JSON. The result carries no structured copy (the page is paid for once).
func pageLog(t *testing.T, res *mcp.CallToolResult) (string, []map[string]any) {
	t.Helper()
	if res.StructuredContent != nil {
		t.Fatalf("a page result has structured content: %v", res.StructuredContent)
	}
	s := text(res)
	i := strings.LastIndex(s, "\n\nlog: ")
	if i < 0 {
		t.Fatalf("result is not a page and a log: %s", s)
	}
	var log []map[string]any
	if err := json.Unmarshal([]byte(s[i+len("\n\nlog: "):]), &log); err != nil {
		t.Fatalf("the log is not JSON (%v): %s", err, s[i:])
	}
	return s[:i], log
}

func tickets(t *testing.T, file, title string) int {
	t.Helper()
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM tickets WHERE ticket_title = ?`, title).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A scripted agent logs a ticket on the tutorial app through the gateway, the way a person
// does in a browser; another principal cannot see its session; the session survives a
// restart of the gateway on the same store.
func TestLogATicket(t *testing.T) {
	ta := lowdefytest.Tutorial(t, "08-final", lowdefytest.StartDummyJSON(t))
	t.Setenv("LD_TEST_SQLITE_FILENAME", ta.Secrets["SQLITE_FILENAME"])
	storeFile := filepath.Join(t.TempDir(), "mcpbridge.db")
	st := openStore(t, storeFile)
	srv := gatewaytest.Start(t, gatewayConfig(ta.Dir, ""), gateway.Options{WorkSessions: st.WorkSessions, Version: "test"})
	alice := connect(t, srv.URL+"/mcp/tickets", aliceKey)

	var created struct{ SessionID, Name string }
	res := alice.call("session_create", map[string]any{"name": "log a ticket"}, false)
	if err := json.Unmarshal([]byte(text(res)), &created); err != nil || created.SessionID == "" || created.Name != "log a ticket" {
		t.Fatalf("session_create: %s (%v)", text(res), err)
	}
	sid := created.SessionID

	pages := text(alice.call("get_pages", map[string]any{"sessionId": sid}, false))
	for _, id := range []string{"new-ticket", "view-tickets", "welcome"} {
		if !strings.Contains(pages, `"pageId":"`+id+`"`) {
			t.Errorf("get_pages misses %s: %s", id, pages)
		}
	}
	if strings.Contains(pages, `"404"`) {
		t.Errorf("get_pages lists the 404 page: %s", pages)
	}

	page, log := pageLog(t, alice.call("navigate", map[string]any{"sessionId": sid, "pageId": "new-ticket"}, false))
	for _, id := range []string{"ticket_title", "ticket_type", "ticket_description", "submit_button"} {
		if !strings.Contains(page, id) {
			t.Errorf("new-ticket page misses %s:\n%s", id, page)
		}
	}
	if len(log) != 1 || log[0]["success"] != true || !strings.Contains(fmt.Sprint(log[0]["requestResults"]), "get_products") {
		t.Errorf("navigate log: %v", log)
	}

	// Submitting the empty form fails validation; the agent is told so, and nothing is saved.
	_, log = pageLog(t, alice.call("interact", map[string]any{"sessionId": sid, "actions": []any{
		map[string]any{"type": "triggerEvent", "blockId": "submit_button", "event": "onClick"},
	}}, false))
	if len(log) != 1 || log[0]["success"] != false || log[0]["errors"] == nil {
		t.Errorf("empty submit log: %v", log)
	}

	const title = "Printer on fire"
	page, log = pageLog(t, alice.call("interact", map[string]any{"sessionId": sid, "actions": []any{
		map[string]any{"type": "setValue", "blockId": "ticket_title", "value": title},
		map[string]any{"type": "setValue", "blockId": "ticket_type", "value": "Complaint"},
		map[string]any{"type": "setValue", "blockId": "purchase_in_last_month", "value": "Yes"},
		map[string]any{"type": "setValue", "blockId": "ticket_description", "value": "Smoke from tray 2."},
		map[string]any{"type": "triggerEvent", "blockId": "submit_button", "event": "onClick"},
	}}, false))
	if len(log) != 5 {
		t.Fatalf("interact log has %d entries, want 5: %v", len(log), log)
	}
	for i, e := range log {
		if e["success"] != true {
			t.Errorf("action %d failed: %v", i+1, e)
		}
	}
	if rr := fmt.Sprint(log[4]["requestResults"]); !strings.Contains(rr, "save_new_ticket") || !strings.Contains(rr, "success:true") {
		t.Errorf("submit log lacks the save request: %v", log[4])
	}
	if strings.Contains(page, title) {
		t.Errorf("the form still shows the title after submit (Reset runs last):\n%s", page)
	}
	if n := tickets(t, ta.SQLite, title); n != 1 {
		t.Fatalf("%d tickets titled %q in the SQLite file, want 1", n, title)
	}

	page, _ = pageLog(t, alice.call("navigate", map[string]any{"sessionId": sid, "pageId": "view-tickets"}, false))
	if !strings.Contains(page, title) || !strings.Contains(page, "view_tickets_table") {
		t.Errorf("view-tickets does not show the new ticket:\n%s", page)
	}

	// Bob cannot see, use or close Alice's session.
	bob := connect(t, srv.URL+"/mcp/tickets", bobKey)
	for tool, args := range map[string]map[string]any{
		"get_state":     {"sessionId": sid},
		"navigate":      {"sessionId": sid, "pageId": "welcome"},
		"interact":      {"sessionId": sid, "actions": []any{map[string]any{"type": "setValue", "blockId": "ticket_title", "value": "x"}}},
		"session_close": {"sessionId": sid},
	} {
		res := bob.call(tool, args, true)
		if !strings.Contains(text(res), "not found") {
			t.Errorf("bob %s: %s", tool, text(res))
		}
	}
	if list := text(bob.call("session_list", nil, false)); list != "[]" {
		t.Errorf("bob's session_list: %s", list)
	}

	// A new gateway on the same store serves the session where it was.
	srv.Close()
	srv2 := gatewaytest.Start(t, gatewayConfig(ta.Dir, ""), gateway.Options{WorkSessions: st.WorkSessions, Version: "test"})
	alice2 := connect(t, srv2.URL+"/mcp/tickets", aliceKey)
	list := text(alice2.call("session_list", nil, false))
	if !strings.Contains(list, sid) || !strings.Contains(list, `"pageId":"view-tickets"`) {
		t.Errorf("session_list after restart: %s", list)
	}
	state := text(alice2.call("get_state", map[string]any{"sessionId": sid}, false))
	if !strings.Contains(state, `"pageId":"view-tickets"`) || !strings.Contains(state, title) {
		t.Errorf("get_state after restart: %.400s", state)
	}
	alice2.call("session_close", map[string]any{"sessionId": sid}, false)
	alice2.call("get_state", map[string]any{"sessionId": sid}, true)

	// The audit trail is kept with the session: every step, in order.
	ws, err := st.WorkSessions.Load(context.Background(), sid, "key:alice") // alice's API key (auth.Principal.Owner)
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Audit []struct {
			Tool   string          `json:"tool"`
			Action json.RawMessage `json:"action"`
			OK     bool            `json:"ok"`
		} `json:"audit"`
	}
	if err := json.Unmarshal(ws.Data, &data); err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, a := range data.Audit {
		steps = append(steps, fmt.Sprintf("%s:%v", a.Tool, a.OK))
	}
	if got := strings.Join(steps, " "); got != "session_create:true navigate:true interact:false "+strings.Repeat("interact:true ", 5)+"navigate:true session_close:true" {
		t.Errorf("audit: %s", got)
	}
	if !ws.Closed || !strings.Contains(string(data.Audit[3].Action), title) {
		t.Errorf("closed %v, audit[3] %s", ws.Closed, data.Audit[3].Action)
	}
}
