package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// ticketsKey is the API key of the principal "alice" in ticketsConfig.
const ticketsKey = "e2e-alice-key-0123456789abcdef"

// ticketsApp copies the tutorial's final step (the ticket app) into a temporary folder with
// its dummyjson.com connection pointed at a loopback server of the test, and returns it. Its
// SQLite database file (ta.SQLite) is one file that every serve process of the test uses.
func ticketsApp(t *testing.T) *lowdefytest.App {
	t.Helper()
	return lowdefytest.Tutorial(t, "08-final", lowdefytest.StartDummyJSON(t))
}

// ticketsConfig writes a config into dir that serves the ticket app in appDir as server
// "tickets" and an echo command as server "local", both for the API key ticketsKey, with the
// limits given as YAML (a block under `limits:`, "" for the defaults). The app's database
// file is read from LD_TEST_SQLITE_FILENAME (ticketsEnv). It returns the config's path.
func ticketsConfig(t *testing.T, dir, appDir, limits string) string {
	t.Helper()
	if limits != "" {
		limits = "limits:\n" + limits
	}
	cfg := fmt.Sprintf(`auth:
  keys:
    - id: alice
      hash: sha256:%s
      user: {id: alice, name: Alice}
      roles: [support]
%s
servers:
  tickets:
    kind: lowdefy
    description: The ticket app
    app: %s
    secrets: {SQLITE_FILENAME: env:LD_TEST_SQLITE_FILENAME}
    allow_private: true
  local:
    kind: command
    description: An echo
    tools:
      echo:
        description: Echo a message back
        inputSchema: {type: object, properties: {message: {type: string}}, required: [message]}
        argv: [echo, {direct: message}]
        timeout: 10s
`, store.HashKey(ticketsKey), limits, appDir)
	path := filepath.Join(dir, "tickets.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatalf("writing %s: %v", path, err)
	}
	return path
}

// ticketsEnv is the environment a serve process of ticketsConfig needs.
func ticketsEnv(ta *lowdefytest.App) []string {
	return []string{"LD_TEST_SQLITE_FILENAME=" + ta.SQLite}
}

// pageResult is the result of navigate and interact: the page, and the log.
type pageResult struct {
	Page string
	Log  []map[string]any
}

// callPage calls navigate or interact and decodes its result: the page as text, then
// "\n\nlog: " and the log as JSON.
func callPage(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (pageResult, error) {
	var out pageResult
	s, err := callTool(ctx, cs, tool, args)
	if err != nil {
		return out, err
	}
	i := strings.LastIndex(s, "\n\nlog: ")
	if i < 0 {
		return out, fmt.Errorf("%s: result is not a page and a log: %.300s", tool, s)
	}
	out.Page = s[:i]
	if err := json.Unmarshal([]byte(s[i+len("\n\nlog: "):]), &out.Log); err != nil {
		return out, fmt.Errorf("%s: the log is not JSON (%v): %.300s", tool, err, s[i:])
	}
	return out, nil
}

// createSession calls session_create and returns the new work session's id.
func createSession(ctx context.Context, cs *mcp.ClientSession, name string) (string, error) {
	s, err := callTool(ctx, cs, "session_create", map[string]any{"name": name})
	if err != nil {
		return "", err
	}
	var created struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal([]byte(s), &created); err != nil || created.SessionID == "" {
		return "", fmt.Errorf("session_create: no sessionId in %.300s", s)
	}
	return created.SessionID, nil
}

// fillTicket is the interact action list that fills the new-ticket form with title (and
// submits it when submit is set).
func fillTicket(title string, submit bool) []any {
	actions := []any{
		map[string]any{"type": "setValue", "blockId": "ticket_title", "value": title},
		map[string]any{"type": "setValue", "blockId": "ticket_type", "value": "Complaint"},
		map[string]any{"type": "setValue", "blockId": "purchase_in_last_month", "value": "Yes"},
		map[string]any{"type": "setValue", "blockId": "ticket_description", "value": "Smoke from tray 2."},
	}
	if submit {
		actions = append(actions, map[string]any{"type": "triggerEvent", "blockId": "submit_button", "event": "onClick"})
	}
	return actions
}

// logTicket is the Lowdefy journey of a person logging a ticket: session_create, navigate to
// new-ticket, interact (fill the form and submit it), navigate to view-tickets, whose data
// (get_state) must hold the new ticket; then session_close. Every step must succeed.
func logTicket(ctx context.Context, cs *mcp.ClientSession, title string) error {
	sid, err := createSession(ctx, cs, "log "+title)
	if err != nil {
		return err
	}
	pl, err := callPage(ctx, cs, "navigate", map[string]any{"sessionId": sid, "pageId": "new-ticket"})
	if err != nil {
		return err
	}
	if !strings.Contains(pl.Page, "ticket_title") {
		return fmt.Errorf("navigate new-ticket: the page has no ticket_title:\n%.500s", pl.Page)
	}
	pl, err = callPage(ctx, cs, "interact", map[string]any{"sessionId": sid, "actions": fillTicket(title, true)})
	if err != nil {
		return err
	}
	if len(pl.Log) != 5 {
		return fmt.Errorf("interact: %d log entries, want 5: %v", len(pl.Log), pl.Log)
	}
	for i, e := range pl.Log {
		if e["success"] != true {
			return fmt.Errorf("interact: action %d failed: %v", i+1, e)
		}
	}
	if rr := fmt.Sprint(pl.Log[4]["requestResults"]); !strings.Contains(rr, "save_new_ticket") {
		return fmt.Errorf("interact: the submit ran no save_new_ticket request: %v", pl.Log[4])
	}
	pl, err = callPage(ctx, cs, "navigate", map[string]any{"sessionId": sid, "pageId": "view-tickets"})
	if err != nil {
		return err
	}
	if !strings.Contains(pl.Page, "view_tickets_table") {
		return fmt.Errorf("navigate view-tickets: no tickets table:\n%.2000s", pl.Page)
	}
	// The page shows the first 20 rows; get_state has them all.
	state, err := callTool(ctx, cs, "get_state", map[string]any{"sessionId": sid})
	if err != nil {
		return err
	}
	if !strings.Contains(state, title) {
		return fmt.Errorf("view-tickets: the new ticket %q is not in the page's data: %.1000s", title, state)
	}
	if _, err := callTool(ctx, cs, "session_close", map[string]any{"sessionId": sid}); err != nil {
		return err
	}
	return nil
}
