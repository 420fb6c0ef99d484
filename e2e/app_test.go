package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	_ "modernc.org/sqlite"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections/mongodb/mongotest"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
)

// tutorialServer is the server name `mcpbridge app` gives tutorial 08-final (its
// lowdefy.yaml name is "Lowdefy starter").
const tutorialServer = "lowdefy-starter"

// tutorialApp copies tutorial 08-final into a temporary folder (the shared apps are never
// written), with its AxiosHttp connection pointed at a local fake of dummyjson.com, and
// returns it with the SQLite file its Knex connection writes to. The file is found as the
// app says: the connection's filename is `_secret: NAME`, and the secret's value is the
// LOWDEFY_SECRET_NAME the app is run with.
func tutorialApp(t *testing.T) (ta *lowdefytest.App, sqliteFile string) {
	t.Helper()
	ta = lowdefytest.Tutorial(t, "08-final", lowdefytest.StartDummyJSON(t))
	a, err := app.Load(ta.Dir, app.Options{})
	if err != nil {
		t.Fatalf("loading the tutorial app: %v", err)
	}
	for _, c := range a.Connections {
		if c.Type != "Knex" {
			continue
		}
		conn, _ := c.Properties.Prop("connection").(*jsvalue.Object)
		if conn == nil {
			break
		}
		ref, _ := conn.Prop("filename").(*jsvalue.Object)
		if ref == nil {
			break
		}
		name, _ := ref.Prop("_secret").(string)
		if file := ta.Secrets[name]; file != "" {
			return ta, file
		}
	}
	t.Fatalf("the tutorial's Knex connection names no SQLite file through a secret")
	return nil, ""
}

// appCommand returns `mcpbridge app DIR ARGS...` with the app's secrets in its environment,
// run from a temporary folder.
func appCommand(t *testing.T, ta *lowdefytest.App, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(mcpbridgeBinary(t), append([]string{"app", ta.Dir, "--allow-private"}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), ta.Env()...)
	return cmd
}

// startAppHTTP runs `mcpbridge app DIR --http --listen 127.0.0.1:PORT ARGS...` until the test
// ends and returns it once /healthz answers; its log is in the test's temporary folder.
func startAppHTTP(t *testing.T, ta *lowdefytest.App, args ...string) *gateway {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	listen := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := appCommand(t, ta, append([]string{"--http", "--listen", listen}, args...)...)
	logPath := filepath.Join(t.TempDir(), "app.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		t.Fatalf("starting %s: %v", strings.Join(cmd.Args, " "), err)
	}
	g := &gateway{Base: "http://" + listen, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		g.waitErr = cmd.Wait()
		logFile.Close()
		close(g.done)
	}()
	t.Cleanup(g.stop)
	if err := g.waitReady(30 * time.Second); err != nil {
		t.Fatalf("%s: %v; its log:\n%s", strings.Join(cmd.Args, " "), err, g.LogTail())
	}
	return g
}

// appAgent is a scripted agent: an MCP client of the app's server.
type appAgent struct {
	t  *testing.T
	cs *mcp.ClientSession
}

func (a *appAgent) call(name string, args map[string]any) *mcp.CallToolResult {
	a.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		a.t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		a.t.Fatalf("%s: error result: %s", name, resultText(res))
	}
	return res
}

func resultText(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

// pageAndLog decodes a navigate or interact result: the page as text, then "\n\nlog: "
// and the log as JSON (text only: no structured copy).
func pageAndLog(t *testing.T, res *mcp.CallToolResult) (string, []map[string]any) {
	t.Helper()
	if res.StructuredContent != nil {
		t.Fatalf("a page result has structured content: %v", res.StructuredContent)
	}
	s := resultText(res)
	i := strings.LastIndex(s, "\n\nlog: ")
	if i <= 0 {
		t.Fatalf("result is not a page and a log: %s", s)
	}
	var log []map[string]any
	if err := json.Unmarshal([]byte(s[i+len("\n\nlog: "):]), &log); err != nil {
		t.Fatalf("the log is not JSON (%v): %s", err, s[i:])
	}
	return s[:i], log
}

// ticketsTitled counts the tickets with title in the tutorial's SQLite file.
func ticketsTitled(t *testing.T, file, title string) int {
	t.Helper()
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM tickets WHERE ticket_title = ?`, title).Scan(&n); err != nil {
		t.Fatalf("reading %s: %v", file, err)
	}
	return n
}

// logATicket is the journey of issue 9: create a work session, open new-ticket, fill in the
// form, press submit, open view-tickets and see the new row, which is also in the SQLite
// file.
func logATicket(t *testing.T, a *appAgent, sqliteFile, title string) {
	t.Helper()
	var created struct{ SessionID string }
	if err := json.Unmarshal([]byte(resultText(a.call("session_create", map[string]any{"name": "log a ticket"}))), &created); err != nil || created.SessionID == "" {
		t.Fatalf("session_create gave no sessionId (%v)", err)
	}
	sid := created.SessionID

	page, _ := pageAndLog(t, a.call("navigate", map[string]any{"sessionId": sid, "pageId": "new-ticket"}))
	for _, id := range []string{"ticket_title", "ticket_type", "ticket_description", "submit_button"} {
		if !strings.Contains(page, id) {
			t.Fatalf("the new-ticket page does not show %s:\n%s", id, page)
		}
	}
	_, log := pageAndLog(t, a.call("interact", map[string]any{"sessionId": sid, "actions": []any{
		map[string]any{"type": "setValue", "blockId": "ticket_title", "value": title},
		map[string]any{"type": "setValue", "blockId": "ticket_type", "value": "Complaint"},
		map[string]any{"type": "setValue", "blockId": "purchase_in_last_month", "value": "Yes"},
		map[string]any{"type": "setValue", "blockId": "ticket_description", "value": "Smoke from tray 2."},
		map[string]any{"type": "triggerEvent", "blockId": "submit_button", "event": "onClick"},
	}}))
	if len(log) != 5 {
		t.Fatalf("interact log has %d entries, want 5: %v", len(log), log)
	}
	for i, e := range log {
		if e["success"] != true {
			t.Errorf("action %d failed: %v", i+1, e)
		}
	}
	if rr := fmt.Sprint(log[4]["requestResults"]); !strings.Contains(rr, "save_new_ticket") {
		t.Errorf("submitting ran no save_new_ticket request: %v", log[4])
	}
	page, _ = pageAndLog(t, a.call("navigate", map[string]any{"sessionId": sid, "pageId": "view-tickets"}))
	if !strings.Contains(page, title) {
		t.Errorf("view-tickets does not show the new ticket %q:\n%s", title, page)
	}
	if n := ticketsTitled(t, sqliteFile, title); n != 1 {
		t.Errorf("%d tickets titled %q in %s, want 1", n, title, sqliteFile)
	}
	a.call("session_close", map[string]any{"sessionId": sid})
}

// connectApp connects an MCP client to transport tr.
func connectApp(t *testing.T, tr mcp.Transport, opts *mcp.ClientOptions) *appAgent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, opts).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connecting to the app: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return &appAgent{t: t, cs: cs}
}

// TestAppLogATicketStdio: a desktop-style client runs `mcpbridge app DIR` over stdio and
// logs a ticket with the work-session tools.
func TestAppLogATicketStdio(t *testing.T) {
	ta, db := tutorialApp(t)
	a := connectApp(t, &mcp.CommandTransport{Command: appCommand(t, ta)}, nil)
	logATicket(t, a, db, "Printer on fire (stdio)")
}

// TestAppLogATicketHTTP: the same journey with `mcpbridge app DIR --http`, in both protocol
// eras.
func TestAppLogATicketHTTP(t *testing.T) {
	ta, db := tutorialApp(t)
	g := startAppHTTP(t, ta)
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: g.MCPURL(tutorialServer)}, &mcp.ClientSessionOptions{ProtocolVersion: era})
			if err != nil {
				t.Fatalf("connecting to %s: %v\nlog:\n%s", g.MCPURL(tutorialServer), err, g.LogTail())
			}
			defer cs.Close()
			logATicket(t, &appAgent{t: t, cs: cs}, db, "Printer on fire ("+era+")")
		})
	}
}

// TestAppLogATicketFormTool: the journey with the generated form tool of new-ticket (seed
// 000).
func TestAppLogATicketFormTool(t *testing.T) {
	ta, db := tutorialApp(t)
	a := connectApp(t, &mcp.CommandTransport{Command: appCommand(t, ta)}, nil)
	res, err := a.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var form *mcp.Tool
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		n := strings.ToLower(tool.Name)
		if strings.Contains(n, "new_ticket") || strings.Contains(n, "new-ticket") || strings.Contains(n, "newticket") {
			form = tool
		}
	}
	if form == nil {
		t.Fatalf("no generated form tool for new-ticket in tools/list (%s)", strings.Join(names, ", "))
	}
	schema, _ := json.Marshal(form.InputSchema)
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatalf("tool %s: input schema %s: %v", form.Name, schema, err)
	}
	const title = "Printer on fire (form tool)"
	fields := map[string]any{
		"ticket_title": title, "ticket_type": "Complaint", "purchase_in_last_month": "Yes",
		"ticket_description": "Smoke from tray 2.",
	}
	args := map[string]any{}
	for k, v := range fields {
		if _, ok := s.Properties[k]; ok {
			args[k] = v
		}
	}
	for _, r := range s.Required {
		if _, ok := args[r]; !ok {
			t.Fatalf("tool %s requires %q, which this journey does not know how to fill; its input schema:\n%s", form.Name, r, schema)
		}
	}
	if _, ok := args["ticket_title"]; !ok {
		t.Fatalf("tool %s has no ticket_title argument; its input schema:\n%s", form.Name, schema)
	}
	out := a.call(form.Name, args)
	t.Logf("%s: %s", form.Name, resultText(out))
	if n := ticketsTitled(t, db, title); n != 1 {
		t.Errorf("%d tickets titled %q in %s after %s, want 1", n, title, db, form.Name)
	}
	// The row shows on view-tickets, as for a person.
	var created struct{ SessionID string }
	json.Unmarshal([]byte(resultText(a.call("session_create", map[string]any{"name": "check"}))), &created)
	page, _ := pageAndLog(t, a.call("navigate", map[string]any{"sessionId": created.SessionID, "pageId": "view-tickets"}))
	if !strings.Contains(page, title) {
		t.Errorf("view-tickets does not show the ticket the form tool saved:\n%s", page)
	}
}

// TestAppWatch: with --watch, a changed page title reaches connected clients: they are told
// the tool list changed and the next navigate shows the new title.
func TestAppWatch(t *testing.T) {
	ta, _ := tutorialApp(t)
	changed := make(chan struct{}, 8)
	a := connectApp(t, &mcp.CommandTransport{Command: appCommand(t, ta, "--watch")}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	var created struct{ SessionID string }
	json.Unmarshal([]byte(resultText(a.call("session_create", map[string]any{"name": "watch"}))), &created)
	nav := func() string {
		page, _ := pageAndLog(t, a.call("navigate", map[string]any{"sessionId": created.SessionID, "pageId": "new-ticket"}))
		return page
	}
	const newTitle = "Report a fault (edited)"
	if strings.Contains(nav(), newTitle) {
		t.Fatal("the page shows the new title before the edit")
	}
	file := filepath.Join(ta.Dir, "new-ticket.yaml")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// The first Title block of new-ticket is the form's heading.
	edited := strings.Replace(string(src), "content: Log a ticket", "content: "+newTitle, 1)
	if edited == string(src) {
		t.Fatalf("new-ticket.yaml has no `content: Log a ticket` to edit:\n%s", src)
	}
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(15 * time.Second):
		t.Fatal("no notifications/tools/list_changed within 15s of the edit")
	}
	if page := nav(); !strings.Contains(page, newTitle) {
		t.Errorf("navigate after the reload does not show the new title %q:\n%s", newTitle, page)
	}
}

// inspectorText is the text content of an Inspector tools/call result, failing on an error
// result.
func inspectorText(t *testing.T, res inspectorResult) string {
	t.Helper()
	if res.Result.IsError {
		t.Fatalf("tools/call returned isError: %+v", res.Result.Content)
	}
	var sb strings.Builder
	for _, c := range res.Result.Content {
		if c.Type == "text" {
			sb.WriteString(c.Text)
		}
	}
	return sb.String()
}

// TestAppInspectorCLI drives `mcpbridge app DIR --http` with the MCP Inspector CLI, one
// Inspector process per call as a person would type them: tools/list, then the log-a-ticket
// journey through --method tools/call (the work session lives in the store, so it outlives
// each connection), checking the rendered pages and the SQLite file; and tools/list over
// stdio (`-- mcpbridge app DIR`).
func TestAppInspectorCLI(t *testing.T) {
	tools := requireNodeTools(t)
	ta, db := tutorialApp(t)
	g := startAppHTTP(t, ta)
	for _, era := range []string{"legacy", "modern"} {
		t.Run("http-"+era, func(t *testing.T) {
			url := g.MCPURL(tutorialServer)
			inspect := func(args ...string) inspectorResult {
				return runInspector(t, tools, append([]string{url, "--transport", "http", "--protocol-era", era, "--method"}, args...)...)
			}
			list := inspect("tools/list")
			var names []string
			for _, tool := range list.Result.Tools {
				names = append(names, tool.Name)
			}
			for _, want := range []string{"session_create", "navigate", "interact", "get_state", "get_pages"} {
				if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
					t.Errorf("tools/list = %v, want it to include %s", names, want)
				}
			}

			var created struct{ SessionID string }
			out := inspectorText(t, inspect("tools/call", "--tool-name", "session_create", "--tool-arg", "name=inspector "+era))
			if err := json.Unmarshal([]byte(out), &created); err != nil || created.SessionID == "" {
				t.Fatalf("session_create: %s (%v)", out, err)
			}
			sid := "sessionId=" + created.SessionID
			page := inspectorText(t, inspect("tools/call", "--tool-name", "navigate", "--tool-arg", sid, "pageId=new-ticket"))
			for _, want := range []string{"Log a ticket", `id="ticket_title"`, `id="submit_button"`} {
				if !strings.Contains(page, want) {
					t.Errorf("the rendered new-ticket page lacks %s:\n%s", want, page)
				}
			}
			title := "Inspector ticket " + era
			actions, _ := json.Marshal(map[string]any{"sessionId": created.SessionID, "actions": []any{
				map[string]any{"type": "setValue", "blockId": "ticket_title", "value": title},
				map[string]any{"type": "setValue", "blockId": "ticket_type", "value": "Question"},
				map[string]any{"type": "setValue", "blockId": "ticket_description", "value": "Asked through the Inspector."},
				map[string]any{"type": "triggerEvent", "blockId": "submit_button", "event": "onClick"},
			}})
			out = inspectorText(t, inspect("tools/call", "--tool-name", "interact", "--tool-args-json", string(actions)))
			if !strings.Contains(out, "save_new_ticket") {
				t.Errorf("interact did not run save_new_ticket:\n%s", out)
			}
			page = inspectorText(t, inspect("tools/call", "--tool-name", "navigate", "--tool-arg", sid, "pageId=view-tickets"))
			if !strings.Contains(page, title) {
				t.Errorf("the rendered view-tickets page lacks the new ticket %q:\n%s", title, page)
			}
			if n := ticketsTitled(t, db, title); n != 1 {
				t.Errorf("%d tickets titled %q in %s, want 1", n, title, db)
			}
		})
	}
	t.Run("stdio", func(t *testing.T) {
		args := []string{"--method", "tools/list"}
		for _, kv := range ta.Env() {
			args = append(args, "-e", kv)
		}
		// The server command goes after "--", so that the Inspector keeps none of its flags.
		args = append(args, "--", mcpbridgeBinary(t), "app", ta.Dir, "--allow-private")
		list := runInspector(t, tools, args...)
		var names []string
		for _, tool := range list.Result.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		want := []string{"get_pages", "get_state", "interact", "navigate", "session_close", "session_create", "session_list", "submit_new_ticket"}
		if !slices.Equal(names, want) {
			t.Errorf("tools/list over stdio: %v, want the 7 session tools and the new-ticket form tool %v", names, want)
		}
	})
}

// brandsIn returns the documents of the crud app's brands collection on FerretDB.
func brandsIn(t *testing.T, coll *mongo.Collection, filter bson.M) []bson.M {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cur, err := coll.Find(ctx, filter)
	if err != nil {
		t.Fatalf("reading the brands collection: %v", err)
	}
	var docs []bson.M
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatalf("reading the brands collection: %v", err)
	}
	return docs
}

// interactOK runs one interact call and fails the test when an action failed; it returns the
// page and log.
func interactOK(t *testing.T, a *appAgent, sid string, actions ...map[string]any) (string, []map[string]any) {
	t.Helper()
	as := make([]any, len(actions))
	for i, x := range actions {
		as[i] = x
	}
	page, log := pageAndLog(t, a.call("interact", map[string]any{"sessionId": sid, "actions": as}))
	for i, e := range log {
		if e["success"] == false {
			t.Fatalf("action %d failed: %v\npage:\n%s", i+1, e, page)
		}
	}
	return page, log
}

// TestAppCrudFerretDB: an agent creates, edits and deletes a brand in Lowdefy's crud example
// app, served by `mcpbridge app` over stdio with its MongoDB connection on FerretDB; the
// collection is checked with the MongoDB driver after each step.
func TestAppCrudFerretDB(t *testing.T) {
	srv := mongotest.New(t)
	ca := lowdefytest.Crud(t, srv.URI)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	mc, err := mongo.Connect(options.Client().ApplyURI(srv.URI))
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Disconnect(context.Background())
	brands := mc.Database("example-crud").Collection("brands")
	// Another brand, so the table has rows to tell apart.
	if _, err := brands.InsertOne(ctx, bson.M{"name": "Zephyr", "description": "Fans"}); err != nil {
		t.Fatal(err)
	}

	a := connectApp(t, &mcp.CommandTransport{Command: appCommand(t, ca)}, nil)
	var created struct{ SessionID string }
	json.Unmarshal([]byte(resultText(a.call("session_create", map[string]any{"name": "brands"}))), &created)
	sid := created.SessionID

	// Create.
	page, _ := pageAndLog(t, a.call("navigate", map[string]any{"sessionId": sid, "pageId": "brands"}))
	if !strings.Contains(page, "Zephyr") {
		t.Fatalf("the brands page does not list the existing brand:\n%s", page)
	}
	page, _ = interactOK(t, a, sid, map[string]any{"type": "triggerEvent", "blockId": "new_brand_button", "event": "onClick"})
	if !strings.Contains(page, `id="name"`) {
		t.Fatalf("new_brand_button did not open the new-brand form:\n%s", page)
	}
	page, _ = interactOK(t, a, sid,
		map[string]any{"type": "setValue", "blockId": "name", "value": "Acme"},
		map[string]any{"type": "setValue", "blockId": "description", "value": "Anvils and rockets"},
		map[string]any{"type": "triggerEvent", "blockId": "insert_brand", "event": "onClick"})
	docs := brandsIn(t, brands, bson.M{"name": "Acme"})
	if len(docs) != 1 || docs[0]["description"] != "Anvils and rockets" {
		t.Fatalf("after Save on new-brand, brands named Acme: %v", docs)
	}
	id, ok := docs[0]["_id"].(bson.ObjectID)
	if !ok {
		t.Fatalf("the new brand's _id is %T, want an ObjectId", docs[0]["_id"])
	}
	if !strings.Contains(page, "Acme") {
		t.Errorf("the brands page after Save does not list Acme:\n%s", page)
	}

	// Edit: a row click opens edit-brand with the brand's _id in the URL query, as the
	// table's onRowClick event gives it.
	openEdit := func() string {
		t.Helper()
		page, _ := interactOK(t, a, sid, map[string]any{"type": "triggerEvent", "blockId": "brands_table", "event": "onRowClick",
			"args": map[string]any{"row": map[string]any{"_id": map[string]any{"_oid": id.Hex()}, "name": "Acme"}}})
		if !strings.Contains(page, `id="update_brand"`) || !strings.Contains(page, "Anvils and rockets") && !strings.Contains(page, "Pots and pans") {
			t.Fatalf("the row click did not open Acme on edit-brand:\n%s", page)
		}
		return page
	}
	openEdit()
	interactOK(t, a, sid,
		map[string]any{"type": "setValue", "blockId": "description", "value": "Pots and pans"},
		map[string]any{"type": "triggerEvent", "blockId": "update_brand", "event": "onClick"})
	docs = brandsIn(t, brands, bson.M{"_id": id})
	if len(docs) != 1 || docs[0]["description"] != "Pots and pans" || docs[0]["name"] != "Acme" {
		t.Fatalf("after Save on edit-brand, the brand is %v", docs)
	}

	// Delete: the Delete button opens a confirmation; Yes deletes.
	openEdit()
	interactOK(t, a, sid, map[string]any{"type": "triggerEvent", "blockId": "delete_brand", "event": "onClick"})
	if docs := brandsIn(t, brands, bson.M{"_id": id}); len(docs) != 1 {
		t.Fatalf("the brand went before the deletion was confirmed: %v", docs)
	}
	page, _ = interactOK(t, a, sid, map[string]any{"type": "triggerEvent", "blockId": "delete_modal", "event": "onOk"})
	if docs := brandsIn(t, brands, bson.M{"_id": id}); len(docs) != 0 {
		t.Fatalf("after confirming the deletion the brand is still there: %v", docs)
	}
	if strings.Contains(page, "Acme") || !strings.Contains(page, "Zephyr") {
		t.Errorf("the brands page after the deletion:\n%s", page)
	}
}
