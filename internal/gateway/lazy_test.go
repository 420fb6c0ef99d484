package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/postgres"
	"github.com/mcpbridge/mcpbridge/internal/store/postgres/pgtest"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

// metric returns the value of the sample named series (name{labels} as /metrics writes it)
// on the gateway at base, or 0 when there is none.
func metric(t *testing.T, base, series string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("metric %s: %v", series, err)
			}
			return f
		}
	}
	return 0
}

// index returns the servers of the /mcp page (JSON), by name.
func index(t *testing.T, base string) map[string]map[string]any {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/mcp", nil)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p struct {
		Servers []map[string]any `json:"servers"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, s := range p.Servers {
		out[s["name"].(string)] = s
	}
	return out
}

// lockedBuffer collects log output written from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func storedDef(tool, desc string) string {
	return fmt.Sprintf(`{"kind":"command","description":%q,"tools":{%q:{"description":"Upper-case","inputSchema":{"type":"object","properties":{"t":{"type":"string"}},"required":["t"]},"argv":["tr","a-z","A-Z"],"stdin":{"direct":"t"}}}}`, desc, tool)
}

// openPostgresReplicas opens two stores on one PostgreSQL database, as two replicas do.
func openPostgresReplicas(t *testing.T) [2]*store.Store {
	t.Helper()
	url := pgtest.URL(t)
	var stores [2]*store.Store
	for i := range stores {
		st, err := postgres.Open(context.Background(), url, postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		stores[i] = st
	}
	return stores
}

func openSQLite(t *testing.T) *store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Stored servers open on first use: at start none is opened, yet every one is listed; the
// first MCP request, REST call or page of a server opens it (once) and serves it; a
// disabled one and one whose caller the server's rule refuses are not opened.
func TestStoredServersOpenOnFirstUse(t *testing.T) {
	st := openSQLite(t)
	ctx := context.Background()
	for _, s := range []string{"mcpuse", "restuse", "pageuse", "unused"} {
		if _, err := st.Definitions.Put(ctx, s, json.RawMessage(storedDef("shout", "stored "+s))); err != nil {
			t.Fatal(err)
		}
	}
	st.Definitions.Put(ctx, "off", json.RawMessage(`{"kind":"command","description":"disabled","enabled":false,"tools":{"x":{"description":"X","argv":["true"]}}}`))
	srv := gatewaytest.Start(t, fileConfig, gateway.Options{Definitions: st.Definitions})
	base := srv.URL

	if got := metric(t, base, `mcpbridge_servers{state="not_opened"}`); got != 5 {
		t.Fatalf("stored servers not opened after start: %v, want 5", got)
	}
	if got := metric(t, base, `mcpbridge_servers{state="opened"}`); got != 1 {
		t.Errorf("opened servers after start: %v, want 1 (the file's)", got)
	}
	// The list shows every server from its summary, and says which are not opened yet.
	idx := index(t, base)
	if len(idx) != 6 {
		t.Fatalf("the list shows %d servers, want 6: %v", len(idx), idx)
	}
	if s := idx["unused"]; s["description"] != "stored unused" || s["kind"] != "command" || s["enabled"] != true || s["notOpened"] != true {
		t.Errorf("unopened server in the list: %v", s)
	}
	if s := idx["filed"]; s["notOpened"] != nil || s["tools"] != float64(1) {
		t.Errorf("file server in the list: %v", s)
	}

	// A disabled stored server answers as disabled without being opened.
	resp, m := post(t, base+"/mcp/off", nil, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if resp.StatusCode != 404 || !strings.Contains(fmt.Sprint(m), "disabled") {
		t.Errorf("disabled stored server: %d %v", resp.StatusCode, m)
	}

	// The first MCP request opens the server and is served.
	cs := connect(t, base+"/mcp/mcpuse", "2026-07-28")
	if r := call(t, cs, "shout", map[string]any{"t": "first"}); text(t, r) != "FIRST" {
		t.Errorf("first call: %q", text(t, r))
	}
	// A REST call opens its server.
	rr, err := http.Post(base+"/api/mcp/restuse/tools/call", "application/json", strings.NewReader(`{"name":"shout","arguments":{"t":"rest"}}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(rr.Body)
	rr.Body.Close()
	if rr.StatusCode != 200 || !strings.Contains(string(body), "REST") {
		t.Errorf("first REST call: %d %s", rr.StatusCode, body)
	}
	// So does its page, which lists its tools.
	pr, err := http.Get(base + "/mcp/meta/pageuse")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(pr.Body)
	pr.Body.Close()
	if pr.StatusCode != 200 || !strings.Contains(string(page), "shout") {
		t.Errorf("first page: %d, shout listed: %v", pr.StatusCode, strings.Contains(string(page), "shout"))
	}

	if got := metric(t, base, `mcpbridge_servers{state="not_opened"}`); got != 2 {
		t.Errorf("not opened after three first uses: %v, want 2 (unused, off)", got)
	}
	if got := metric(t, base, `mcpbridge_server_opens_total{outcome="ok"}`); got != 3 {
		t.Errorf("opens: %v, want 3", got)
	}
	idx = index(t, base)
	if s := idx["mcpuse"]; s["notOpened"] != nil || s["tools"] != float64(1) {
		t.Errorf("opened server in the list: %v", s)
	}
	if s := idx["unused"]; s["notOpened"] != true {
		t.Errorf("the unused server was opened: %v", s)
	}
	// Later calls are served by the opened server, which is not opened again.
	if r := call(t, cs, "shout", map[string]any{"t": "again"}); text(t, r) != "AGAIN" {
		t.Errorf("second call: %q", text(t, r))
	}
	if got := metric(t, base, `mcpbridge_server_opens_total{outcome="ok"}`); got != 3 {
		t.Errorf("opens after a second call: %v, want 3", got)
	}
}

// A stored server whose caller its rule refuses is not opened by that caller.
func TestStoredServerNotOpenedForRefusedCaller(t *testing.T) {
	st := openSQLite(t)
	st.Definitions.Put(context.Background(), "guarded", json.RawMessage(
		`{"kind":"command","description":"d","auth":{"roles":["ops"]},"tools":{"x":{"description":"X","argv":["true"]}}}`))
	srv := gatewaytest.Start(t, fmt.Sprintf("auth:\n  keys:\n    - {id: bot, hash: \"sha256:%s\", user: {id: bot}, roles: [dev]}\nservers: {}\n", store.HashKey(declaredKey)),
		gateway.Options{Definitions: st.Definitions})
	resp, _ := post(t, srv.URL+"/mcp/guarded", nil, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if resp.StatusCode != 401 {
		t.Errorf("no credentials: %d, want 401", resp.StatusCode)
	}
	resp, _ = post(t, srv.URL+"/mcp/guarded", map[string]string{"Authorization": "Bearer " + declaredKey}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if resp.StatusCode != 403 {
		t.Errorf("a principal without the role: %d, want 403", resp.StatusCode)
	}
	if got := metric(t, srv.URL, `mcpbridge_servers{state="not_opened"}`); got != 1 {
		t.Errorf("refused callers opened the server: not_opened %v, want 1", got)
	}
}

// Concurrent first calls of a server open it once: its opening (the upstream's initialize)
// is held until every call has reached the gateway, then all are served.
func TestStoredServerConcurrentFirstUseOpensOnce(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	mcp.AddTool(up, &mcp.Tool{Name: "hello", Description: "Says hello"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello"}}}, nil, nil
	})
	upHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, nil)
	release := make(chan struct{})
	var held atomic.Bool
	var heldOnce sync.Once
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		heldOnce.Do(func() { held.Store(true); <-release }) // the opening's first request waits
		upHandler.ServeHTTP(w, r)
	}))
	defer func() {
		upstream.CloseClientConnections() // streams of backends the gateway failed to close must not hang the test
		upstream.Close()
	}()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()

	st := openSQLite(t)
	st.Definitions.Put(context.Background(), "up", json.RawMessage(fmt.Sprintf(`{"kind":"mcp","description":"d","url":%q}`, upstream.URL)))
	g, _, err := gatewaytest.Open(t.TempDir(), "servers: {}\n", gateway.Options{Definitions: st.Definitions})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var entered atomic.Int64
	h := g.Handler()
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/mcp/up" {
			entered.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	defer gw.Close()

	const n = 20
	errs := make(chan error, n)
	for i := range n {
		go func() {
			c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: gw.URL + "/mcp/up", MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
			if err != nil {
				errs <- fmt.Errorf("client %d: connect: %w", i, err)
				return
			}
			defer cs.Close()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hello", Arguments: map[string]any{}})
			switch {
			case err != nil:
				errs <- fmt.Errorf("client %d: call: %w", i, err)
			case res.IsError || len(res.Content) == 0 || res.Content[0].(*mcp.TextContent).Text != "hello":
				errs <- fmt.Errorf("client %d: result %+v", i, res)
			default:
				errs <- nil
			}
		}()
	}
	// Release the opening once it is under way and every client's first request is in.
	deadline := time.Now().Add(60 * time.Second)
	for !held.Load() || entered.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s: opening under way %v, requests in %d of %d", held.Load(), entered.Load(), n)
		}
		time.Sleep(5 * time.Millisecond) // polling a condition, not waiting for time to pass
	}
	close(release)
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got := metric(t, gw.URL, `mcpbridge_server_opens_total{outcome="ok"}`); got != 1 {
		t.Errorf("%d concurrent first calls opened the server %v times, want 1", n, got)
	}
}

// A stored definition that cannot be opened, or that is invalid (written to the store
// directly: the admin API refuses it), fails on first use with the reason, as at start-up:
// 503 saying what to fix, a log line, and the reason in the admin API.
func TestStoredServerBrokenFailsOnFirstUse(t *testing.T) {
	st := openSQLite(t)
	ctx := context.Background()
	st.Definitions.Put(ctx, "nosecret", json.RawMessage(`{"kind":"command","description":"d","tools":{"t":{"description":"d","argv":["echo"],"env":{"X":"env:MCPBRIDGE_LAZY_TEST_UNSET"}}}}`))
	st.Definitions.Put(ctx, "typo", json.RawMessage(`{"kind":"command","description":"d","tools":{"t":{"description":"d","argvv":["echo"]}}}`))
	logs := &lockedBuffer{}
	srv := gatewaytest.Start(t, fileConfig, gateway.Options{Definitions: st.Definitions, AdminKeys: []string{adminKey},
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	base := srv.URL
	if got := metric(t, base, `mcpbridge_servers{state="not_opened"}`); got != 2 {
		t.Fatalf("not opened after start: %v, want 2", got)
	}
	for _, c := range []struct{ server, reason, log, outcome string }{
		{"nosecret", "environment variable MCPBRIDGE_LAZY_TEST_UNSET is not set", "stored server cannot be opened; serving it as unavailable", "unavailable"},
		{"typo", `unknown field "argvv"`, "stored server is invalid; serving it as unavailable", "invalid"},
	} {
		for range 2 { // the first use opens it, the second finds it as it was left
			resp, m := post(t, base+"/mcp/"+c.server, nil, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
			msg := fmt.Sprint(m["error"])
			if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" ||
				!strings.Contains(msg, fmt.Sprintf("server %q is unavailable: it could not be opened: ", c.server)) ||
				!strings.Contains(msg, c.reason) || !strings.Contains(msg, "fix its definition") {
				t.Errorf("%s: %d %s", c.server, resp.StatusCode, msg)
			}
		}
		if !strings.Contains(logs.String(), c.log) || !strings.Contains(logs.String(), "server="+c.server) {
			t.Errorf("%s: the log lacks %q", c.server, c.log)
		}
		code, m := admin(t, "GET", base+"/admin/api/servers/"+c.server, adminKey, "")
		if code != 200 || !strings.Contains(fmt.Sprint(m["invalid"]), c.reason) {
			t.Errorf("%s: admin view: %d %v", c.server, code, m)
		}
		if got := metric(t, base, `mcpbridge_server_opens_total{outcome="`+c.outcome+`"}`); got != 1 {
			t.Errorf("%s: opens with outcome %s: %v, want 1", c.server, c.outcome, got)
		}
	}
}

// Two replicas on one PostgreSQL database start with a stored server unopened. After one
// opened it on first use, an edit through the other's admin API replaces it there (its
// session hears list_changed and gets the new tool), and a deletion removes it.
func TestStoredServerEditAfterLazyOpenOnPostgres(t *testing.T) {
	stores := openPostgresReplicas(t)
	if _, err := stores[0].Definitions.Put(context.Background(), "notes", json.RawMessage(storedDef("shout", "stored"))); err != nil {
		t.Fatal(err)
	}
	_, a := startGateway(t, stores[0])
	_, b := startGateway(t, stores[1])
	for _, base := range []string{a, b} {
		if got := metric(t, base, `mcpbridge_servers{state="not_opened"}`); got != 1 {
			t.Fatalf("%s: not opened after start: %v, want 1", base, got)
		}
	}
	changed := make(chan struct{}, 8)
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: b + "/mcp/notes"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if r := call(t, cs, "shout", map[string]any{"t": "before"}); text(t, r) != "BEFORE" {
		t.Fatalf("first call on b: %q", text(t, r))
	}
	if got := metric(t, b, `mcpbridge_server_opens_total{outcome="ok"}`); got != 1 {
		t.Fatalf("b opened the server %v times, want 1", got)
	}
	if code, m := admin(t, "PUT", a+"/admin/api/servers/notes", adminKey, storedDef("yell", "edited")); code != 200 {
		t.Fatalf("edit on a: %d %v", code, m)
	}
	select {
	case <-changed:
	case <-time.After(60 * time.Second):
		t.Fatal("b's session heard no tools/list_changed within 60 s of the edit on a")
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "yell" {
		t.Fatalf("b's tools after the edit: %v %v", tools, err)
	}
	if r := call(t, cs, "yell", map[string]any{"t": "after"}); text(t, r) != "AFTER" {
		t.Errorf("edited tool on b: %q", text(t, r))
	}
	if s := index(t, b)["notes"]; s["description"] != "edited" || s["notOpened"] != nil {
		t.Errorf("b's list after the edit: %v", s)
	}
	if code, _ := admin(t, "DELETE", a+"/admin/api/servers/notes", adminKey, ""); code != 204 {
		t.Fatal("delete on a")
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, _ := post(t, b+"/mcp/notes", nil, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if resp.StatusCode == 404 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("b still serves the server 60 s after its deletion on a")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := metric(t, b, `mcpbridge_servers{state="opened"}`) + metric(t, b, `mcpbridge_servers{state="not_opened"}`); got != 1 {
		t.Errorf("b serves %v servers after the deletion, want 1 (the file's)", got)
	}
}
