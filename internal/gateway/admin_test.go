package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

const adminKey = "test-admin-key-0123456789"

const fileConfig = `
servers:
  filed:
    kind: command
    description: from the file
    tools:
      echo: {description: Echo, inputSchema: {type: object, properties: {m: {type: string}}}, argv: [echo, {direct: m}]}
`

func startGateway(t *testing.T, st *store.Store) (*gateway.Gateway, string) {
	t.Helper()
	srv := gatewaytest.Start(t, fileConfig, gateway.Options{Definitions: st.Definitions, AdminKeys: []string{adminKey}})
	return srv.Gateway, srv.URL
}

func admin(t *testing.T, method, url, key, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	json.Unmarshal(b, &m)
	return resp.StatusCode, m
}

const echoDef = `{"kind":"command","description":"stored","tools":{"shout":{"description":"Upper-case","inputSchema":{"type":"object","properties":{"t":{"type":"string"}},"required":["t"]},"argv":["tr","a-z","A-Z"],"stdin":{"direct":"t"}}}}`

func TestAdminAPIRoundTrip(t *testing.T) {
	_, base := startGateway(t, openSQLite(t))
	api := base + "/admin/api/servers"

	if code, _ := admin(t, "GET", api, "", ""); code != 401 {
		t.Errorf("no key: %d", code)
	}
	if code, _ := admin(t, "GET", api, "wrong-key-wrong-key", ""); code != 401 {
		t.Errorf("wrong key: %d", code)
	}
	// Invalid definitions are refused with problems naming the field.
	code, m := admin(t, "PUT", api+"/notes", adminKey, `{"kind":"command","description":"x","tools":{"t":{"description":"d","argvv":["echo"]}}}`)
	if code != 400 || !strings.Contains(fmt.Sprint(m["problems"]), `path:tools.t.argvv`) || !strings.Contains(fmt.Sprint(m["problems"]), `unknown field "argvv"`) {
		t.Errorf("invalid: %d %v", code, m)
	}
	// A file-defined server cannot be overwritten or deleted.
	if code, _ := admin(t, "PUT", api+"/filed", adminKey, echoDef); code != 409 {
		t.Errorf("overwrite file server: %d", code)
	}
	if code, _ := admin(t, "DELETE", api+"/filed", adminKey, ""); code != 409 {
		t.Errorf("delete file server: %d", code)
	}
	// Create, then it is served at once.
	code, m = admin(t, "POST", api, adminKey, `{"slug":"notes","definition":`+echoDef+`}`)
	if code != 201 || m["slug"] != "notes" {
		t.Fatalf("create: %d %v", code, m)
	}
	if code, _ := admin(t, "POST", api, adminKey, `{"slug":"notes","definition":`+echoDef+`}`); code != 409 {
		t.Errorf("create twice: %d", code)
	}
	cs := connect(t, base+"/mcp/notes", "2025-11-25")
	r := call(t, cs, "shout", map[string]any{"t": "hi"})
	if text(t, r) != "HI" {
		t.Errorf("stored tool: %q", text(t, r))
	}
	// A legacy session hears list_changed when the definition changes, and keeps working.
	changed := make(chan struct{}, 4)
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs2, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp/notes"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	newDef := strings.Replace(echoDef, `"shout"`, `"yell"`, 1)
	if code, m := admin(t, "PUT", api+"/notes", adminKey, newDef); code != 200 {
		t.Fatalf("put: %d %v", code, m)
	}
	select {
	case <-changed:
	case <-time.After(60 * time.Second):
		t.Error("no tools/list_changed notification within 60 s")
	}
	tools, err := cs2.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "yell" {
		t.Errorf("after update: %v %v", tools, err)
	}
	// Reads and lists.
	code, m = admin(t, "GET", api+"/notes", adminKey, "")
	if code != 200 || m["source"] != "store" || m["definition"] == nil {
		t.Errorf("get: %d %v", code, m)
	}
	code, m = admin(t, "GET", api, adminKey, "")
	if code != 200 || len(m["servers"].([]any)) != 2 {
		t.Errorf("list: %d %v", code, m)
	}
	// Delete: the endpoint is gone.
	if code, _ := admin(t, "DELETE", api+"/notes", adminKey, ""); code != 204 {
		t.Errorf("delete: %d", code)
	}
	resp, _ := post(t, base+"/mcp/notes", nil, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if resp.StatusCode != 404 {
		t.Errorf("deleted server still served: %d", resp.StatusCode)
	}
}

func TestAdminAPIOffWithoutKeys(t *testing.T) {
	srv := gatewaytest.Start(t, fileConfig, gateway.Options{})
	code, m := admin(t, "GET", srv.URL+"/admin/api/servers", "anything-anything", "")
	if code != 404 || !strings.Contains(m["error"].(string), "MCPBRIDGE_ADMIN_KEY") {
		t.Errorf("%d %v", code, m)
	}
}

// Two gateways on one PostgreSQL database: a server created through one is served by the
// other within 2 seconds (LISTEN/NOTIFY, not polling).
func TestReplicasShareServersOnPostgres(t *testing.T) {
	stores := openPostgresReplicas(t)
	_, a := startGateway(t, stores[0])
	_, b := startGateway(t, stores[1])
	start := time.Now()
	if code, m := admin(t, "PUT", a+"/admin/api/servers/shared", adminKey, echoDef); code != 201 {
		t.Fatalf("create on a: %d %v", code, m)
	}
	for {
		resp, _ := post(t, b+"/mcp/shared", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
		if resp.StatusCode == 200 {
			break
		}
		if time.Since(start) > 30*time.Second { // a wide margin: the time is logged below
			t.Fatalf("replica b does not serve the new server after %s", time.Since(start))
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("replica b served the new server after %s", time.Since(start))
	cs := connect(t, b+"/mcp/shared", "2026-07-28")
	if r := call(t, cs, "shout", map[string]any{"t": "replica"}); text(t, r) != "REPLICA" {
		t.Errorf("call on b: %q", text(t, r))
	}
	// Delete on b: gone on a.
	if code, _ := admin(t, "DELETE", b+"/admin/api/servers/shared", adminKey, ""); code != 204 {
		t.Fatal("delete on b")
	}
	deadline := time.Now().Add(30 * time.Second) // a wide margin
	for {
		resp, _ := post(t, a+"/mcp/shared", nil, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if resp.StatusCode == 404 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("replica a still serves the deleted server 30 s after the delete")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Every tool call leaves an audit row: server, tool, outcome, duration, error text.
func TestAuditRows(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := gatewaytest.Start(t, fileConfig, gateway.Options{Audit: st.Audit, Definitions: st.Definitions, AdminKeys: []string{adminKey}})
	g := srv.Gateway
	cs := connect(t, srv.URL+"/mcp/filed", "2026-07-28")
	call(t, cs, "echo", map[string]any{"m": "audited"})
	call(t, cs, "echo", map[string]any{"m": 5})
	g.Close()                                               // flushes the audit queue
	g.Close()                                               // and may be called again
	call(t, cs, "echo", map[string]any{"m": "after close"}) // not recorded, no panic
	rows, err := st.Audit.List(context.Background(), store.AuditFilter{Server: "filed"})
	if err != nil || len(rows) != 2 {
		t.Fatalf("audit rows: %v %v", rows, err)
	}
	// Newest first.
	if rows[0].Outcome != "invalid_arguments" || !strings.Contains(rows[0].Error, "m") || rows[1].Outcome != "ok" || rows[1].Tool != "echo" || rows[1].Duration <= 0 {
		t.Errorf("rows: %+v", rows)
	}
	// The admin API shows them.
	code, m := admin(t, "GET", srv.URL+"/admin/api/audit?server=filed&limit=1", adminKey, "")
	entries, _ := m["entries"].([]any)
	if code != 200 || len(entries) != 1 || entries[0].(map[string]any)["outcome"] != "invalid_arguments" {
		t.Errorf("admin audit: %d %v", code, m)
	}
	if code, _ := admin(t, "GET", srv.URL+"/admin/api/audit?limit=zero", adminKey, ""); code != 400 {
		t.Errorf("bad limit: %d", code)
	}
}
