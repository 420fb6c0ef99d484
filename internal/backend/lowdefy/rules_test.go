package lowdefy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// deskApp has a public page and one for the support role, an endpoint, and its own limits.
const deskApp = `lowdefy: 4.0.0
mcp:
  limits: {maxActionsPerCall: 8, maxSessionsPerUser: 2}
auth:
  pages:
    public: [home]
    roles:
      support: [desk]
api:
  - id: whoami
    type: Api
    routine:
      - :return: { _user: id }
pages:
  - id: home
    type: Box
    properties: {title: Home}
    blocks:
      - id: name
        type: TextInput
      - id: greeting
        type: Paragraph
        properties:
          content:
            _string.concat: [Hello, " ", {_if_none: [{_state: name}, ""]}, " ", {_if_none: [{_global: mood}, ""]}]
      - id: go_desk
        type: Button
        events:
          onClick:
            - {id: link, type: Link, params: {pageId: desk}}
      - id: boom
        type: Button
        events:
          onClick:
            - {id: fail, type: Throw, params: {throw: true, message: Boom}}
  - id: desk
    type: Box
    properties: {title: Desk}
    blocks:
      - id: note
        type: TextInput
`

func startDesk(t *testing.T) *gatewaytest.Server {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lowdefy.yaml"), []byte(deskApp), 0o644); err != nil {
		t.Fatal(err)
	}
	st := openStore(t, filepath.Join(t.TempDir(), "s.db"))
	cfg := strings.Replace(gatewayConfig(dir, ""), "    secrets: {SQLITE_FILENAME: env:LD_TEST_SQLITE_FILENAME}\n", "", 1)
	return gatewaytest.Start(t, cfg, gateway.Options{WorkSessions: st.WorkSessions})
}

func newSession(a *agent) string {
	a.t.Helper()
	res := a.call("session_create", map[string]any{"name": "desk work", "description": "tests"}, false)
	s := text(res)
	i := strings.Index(s, `"sessionId":"`)
	if i < 0 {
		a.t.Fatalf("session_create: %s", s)
	}
	s = s[i+len(`"sessionId":"`):]
	return s[:strings.IndexByte(s, '"')]
}

// interact runs the actions in order, logs a failure per action and goes on, and stops at a
// page change; the app's auth.pages rules apply to the caller; the app's mcp.limits apply.
func TestInteractRules(t *testing.T) {
	srv := startDesk(t)
	alice := connect(t, srv.URL+"/mcp/tickets", aliceKey) // role support
	bob := connect(t, srv.URL+"/mcp/tickets", bobKey)     // role sales
	sid, bsid := newSession(alice), newSession(bob)

	if p := text(alice.call("get_pages", map[string]any{"sessionId": sid}, false)); !strings.Contains(p, `"pageId":"desk"`) || !strings.Contains(p, `"auth":"roles: support"`) {
		t.Errorf("alice's pages: %s", p)
	}
	if p := text(bob.call("get_pages", map[string]any{"sessionId": bsid}, false)); strings.Contains(p, "desk") || !strings.Contains(p, `"pageId":"home"`) {
		t.Errorf("bob's pages: %s", p)
	}
	if res := bob.call("navigate", map[string]any{"sessionId": bsid, "pageId": "desk"}, true); !strings.Contains(text(res), "not visible") {
		t.Errorf("bob navigate desk: %s", text(res))
	}

	alice.call("navigate", map[string]any{"sessionId": sid, "pageId": "home"}, false)
	tooMany := make([]any, 9)
	for i := range tooMany {
		tooMany[i] = map[string]any{"type": "setValue", "blockId": "name", "value": "x"}
	}
	if res := alice.call("interact", map[string]any{"sessionId": sid, "actions": tooMany}, true); !strings.Contains(text(res), "at most 8") {
		t.Errorf("9 actions: %s", text(res))
	}

	page, log := pageLog(t, alice.call("interact", map[string]any{"sessionId": sid, "actions": []any{
		map[string]any{"type": "setValue", "blockId": "name", "value": "Ada"},
		map[string]any{"type": "setGlobal", "key": "mood", "value": "happy"},
		map[string]any{"type": "triggerEvent", "blockId": "boom", "event": "onClick"},
		map[string]any{"type": "setValue", "blockId": "no_such_block", "value": 1},
		map[string]any{"type": "callApi", "endpointId": "whoami"},
		map[string]any{"type": "setState", "values": map[string]any{"extra": 1}},
		map[string]any{"type": "triggerEvent", "blockId": "go_desk", "event": "onClick"},
		map[string]any{"type": "setValue", "blockId": "name", "value": "never"},
	}}, false))
	if len(log) != 8 {
		t.Fatalf("log has %d entries, want 7 actions and a skip note: %v", len(log), log)
	}
	want := []bool{true, true, false, false, true, true, true}
	for i, w := range want {
		if log[i]["success"] != w {
			t.Errorf("action %d: success %v, want %v: %v", i+1, log[i]["success"], w, log[i])
		}
	}
	if !strings.Contains(fmtErrs(log[2]), "Boom") {
		t.Errorf("the Throw is not in the log: %v", log[2])
	}
	if !strings.Contains(log[3]["error"].(string), "no_such_block") {
		t.Errorf("unknown block: %v", log[3])
	}
	if log[4]["response"] != "alice" {
		t.Errorf("callApi as alice: %v", log[4])
	}
	if log[6]["page"] != "desk" || log[7]["skipped"] != float64(1) {
		t.Errorf("navigation did not stop the rest: %v / %v", log[6], log[7])
	}
	if !strings.Contains(page, "note") || strings.Contains(page, "go_desk") {
		t.Errorf("the returned page is not the desk:\n%s", page)
	}

	page, _ = pageLog(t, alice.call("interact", map[string]any{"sessionId": sid, "actions": []any{
		map[string]any{"type": "navigate", "pageId": "home"},
	}}, false))
	if !strings.Contains(page, "Hello Ada happy") {
		t.Errorf("home after returning does not show state and global:\n%s", page)
	}
	if st := text(alice.call("get_state", map[string]any{"sessionId": sid}, false)); !strings.Contains(st, `"extra":1`) || !strings.Contains(st, `"mood":"happy"`) {
		t.Errorf("get_state: %s", st)
	}

	// maxSessionsPerUser: 2.
	second := newSession(alice)
	if res := alice.call("session_create", map[string]any{"name": "third"}, true); !strings.Contains(text(res), "session_close") {
		t.Errorf("third session: %s", text(res))
	}
	alice.call("session_close", map[string]any{"sessionId": second}, false)
	newSession(alice)
}

func fmtErrs(e map[string]any) string {
	var parts []string
	if errs, ok := e["errors"].([]any); ok {
		for _, x := range errs {
			parts = append(parts, x.(string))
		}
	}
	return strings.Join(parts, "; ")
}
