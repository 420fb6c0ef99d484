package lowdefy_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
)

// The "log a ticket" journey again, with the generated form tool: the agent calls
// submit_new_ticket (first without a required field, which is refused naming it), the row
// lands in the SQLite file the app's Knex connection uses, and the agent sees it on
// view-tickets, both through the page's resource and through a work session.
func TestLogATicketWithFormTool(t *testing.T) {
	ta := lowdefytest.Tutorial(t, "08-final", lowdefytest.StartDummyJSON(t))
	t.Setenv("LD_TEST_SQLITE_FILENAME", ta.Secrets["SQLITE_FILENAME"])
	st := openStore(t, filepath.Join(t.TempDir(), "mcpbridge.db"))
	srv := gatewaytest.Start(t, gatewayConfig(ta.Dir, ""), gateway.Options{WorkSessions: st.WorkSessions, Version: "test"})
	alice := connect(t, srv.URL+"/mcp/tickets", aliceKey)
	ctx := context.Background()

	lt, err := alice.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tool *mcp.Tool
	for _, x := range lt.Tools {
		if x.Name == "submit_new_ticket" {
			tool = x
		}
	}
	if tool == nil {
		t.Fatalf("tools/list has no submit_new_ticket: %v", lt.Tools)
	}
	if lr, err := alice.cs.ListResources(ctx, nil); err != nil || len(lr.Resources) != 1 || lr.Resources[0].URI != "lowdefy://view-tickets/view_tickets" {
		t.Fatalf("resources/list: %+v %v", lr, err)
	}

	// A required field left out: refused, naming it; nothing is written.
	res := alice.call("submit_new_ticket", map[string]any{"ticket_type": "Question"}, true)
	if !strings.Contains(text(res), "ticket_title") {
		t.Errorf("missing title: %s", text(res))
	}
	t.Logf("missing title: %s", text(res))
	// A value the input does not offer.
	res = alice.call("submit_new_ticket", map[string]any{"ticket_title": "x", "ticket_type": "Rant"}, true)
	if !strings.Contains(text(res), "ticket_type") {
		t.Errorf("bad type: %s", text(res))
	}

	const title = "Toner everywhere"
	res = alice.call("submit_new_ticket", map[string]any{
		"ticket_title": title, "ticket_type": "Complaint", "purchase_in_last_month": "Yes",
		"ticket_description": "Tray 2 leaks toner.", "product": "Laptop",
	}, false)
	t.Logf("submitted: %s", text(res))
	var out struct {
		Success        bool   `json:"success"`
		PageID         string `json:"pageId"`
		RequestResults []struct {
			RequestID string `json:"requestId"`
			Success   bool   `json:"success"`
		} `json:"requestResults"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || !out.Success || out.PageID != "new-ticket" || len(out.RequestResults) != 1 ||
		out.RequestResults[0].RequestID != "save_new_ticket" || !out.RequestResults[0].Success {
		t.Fatalf("submit: %s (%v)", b, err)
	}
	if n := tickets(t, ta.SQLite, title); n != 1 {
		t.Fatalf("%d tickets titled %q in the SQLite file, want 1", n, title)
	}

	rr, err := alice.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "lowdefy://view-tickets/view_tickets"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Contents) != 1 || rr.Contents[0].MIMEType != "application/json" || !strings.Contains(rr.Contents[0].Text, title) ||
		!strings.HasPrefix(rr.Contents[0].Text, `{"fetch_tickets":[`) {
		t.Errorf("view-tickets resource: %.300s", rr.Contents[0].Text)
	}
	var rows struct {
		FetchTickets []map[string]any `json:"fetch_tickets"`
	}
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &rows); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rows.FetchTickets {
		if r["ticket_title"] == title && r["ticket_type"] == "Complaint" && r["product"] == "Laptop" && r["purchase_in_last_month"] == "Yes" {
			found = true
		}
	}
	if !found {
		t.Errorf("the resource has no row for the new ticket: %.500s", rr.Contents[0].Text)
	}

	sid := newSession(alice)
	page, _ := pageLog(t, alice.call("navigate", map[string]any{"sessionId": sid, "pageId": "view-tickets"}, false))
	if !strings.Contains(page, title) {
		t.Errorf("view-tickets in a session does not show the new ticket:\n%s", page)
	}
}
