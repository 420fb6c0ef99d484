package gateway_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

const auditConfig = `
auth:
  keys:
    - id: bot
      hash: sha256:%s
      user: {id: bot}
servers:
  plain:
    kind: command
    description: arguments are not audited
    tools:
      echo: {description: echo, inputSchema: {type: object, properties: {m: {type: string}}}, argv: [echo, {direct: m}]}
  argued:
    kind: command
    description: arguments are audited
    audit: {arguments: true}
    tools:
      login:
        description: takes a password
        inputSchema: {type: object, properties: {user: {type: string}, password: {type: string}, opts: {type: object}}}
        argv: [echo, {direct: user}]
`

// Each audit row names its principal and how it authenticated; argument values are
// recorded only for a server with audit: {arguments: true}, with secret-looking fields
// masked at any depth.
func TestAuditPrincipalAndArguments(t *testing.T) {
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "a.db"), sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	secret, key, err := st.Keys.Create(t.Context(), store.KeyInfo{User: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(auditConfig, "%s", store.HashKey(declaredKey), 1)
	srv := gatewaytest.Start(t, cfg, gateway.Options{Audit: st.Audit, Keys: st.Keys})

	alice, err := connectAs(t, srv.URL+"/mcp/plain", secret, "2025-11-25")
	if err != nil {
		t.Fatal(err)
	}
	callText(t, alice, "echo")
	// The bot also sends the gateway's internal client headers, as an attacker would to
	// put another address in the audit log.
	botClient := mcp.NewClient(&mcp.Implementation{Name: "spoof", Version: "1"}, nil)
	bot, err := botClient.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/argued",
		HTTPClient: &http.Client{Transport: spoofAddr{bearer(declaredKey)}}}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer bot.Close()
	call(t, bot, "login", map[string]any{"user": "bob", "password": "hunter2", "opts": map[string]any{"api_key": "k-123", "depth": 2}})
	srv.Gateway.Close() // flushes the audit queue

	rows, err := st.Audit.List(t.Context(), store.AuditFilter{})
	if err != nil || len(rows) != 2 {
		t.Fatalf("audit rows: %+v, %v", rows, err)
	}
	login, echo := rows[0], rows[1]
	if echo.Principal != "alice" || echo.Via != "key:"+key.ID || echo.Arguments != "" || echo.Outcome != "ok" {
		t.Errorf("row of alice's call = %+v; want principal alice via key:%s, no arguments", echo, key.ID)
	}
	if login.Principal != "bot" || login.Via != "key:bot" {
		t.Errorf("row of the bot's call = %+v; want principal bot via key:bot", login)
	}
	if echo.Client != "127.0.0.1" || login.Client != "127.0.0.1" {
		t.Errorf("client addresses %q and %q; want the connection's, 127.0.0.1 (not a header's)", echo.Client, login.Client)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(login.Arguments), &args); err != nil {
		t.Fatalf("arguments %q: %v", login.Arguments, err)
	}
	opts, _ := args["opts"].(map[string]any)
	if args["user"] != "bob" || args["password"] != "***" || opts["api_key"] != "***" || opts["depth"] != float64(2) {
		t.Errorf("recorded arguments = %s; want user and depth kept, password and api_key masked", login.Arguments)
	}
	if strings.Contains(login.Arguments, "hunter2") || strings.Contains(login.Arguments, "k-123") {
		t.Errorf("a secret reached the audit log: %s", login.Arguments)
	}
}

// Serve deletes audit rows older than audit.retention and expired work sessions, at
// start and then every SweepInterval.
func TestServeSweepsAuditAndWorkSessions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.db")
	st, err := sqlite.Open(t.Context(), path, sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	raw, err := sql.Open("sqlite", path) // Load and List hide expired sessions: look at the rows
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	ctx := t.Context()
	now := time.Now()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(st.Audit.Record(ctx,
		store.Entry{Time: now.Add(-72 * time.Hour), Server: "s", Tool: "old", Outcome: "ok"},
		store.Entry{Time: now.Add(-1 * time.Hour), Server: "s", Tool: "recent", Outcome: "ok"}))
	data := json.RawMessage(`{}`)
	for id, exp := range map[string]time.Time{"live": now.Add(time.Hour), "lapsed": now.Add(-time.Minute)} {
		_, err = st.WorkSessions.Create(ctx, store.WorkSession{ID: id, App: "app", Owner: "u", Data: data, ExpiresAt: exp})
		must(err)
	}
	sessions := func() []string {
		rows, err := raw.QueryContext(ctx, `SELECT id FROM work_sessions ORDER BY id`)
		must(err)
		defer rows.Close()
		var ids []string
		for rows.Next() {
			var id string
			must(rows.Scan(&id))
			ids = append(ids, id)
		}
		return ids
	}
	tools := func() []string {
		rows, err := st.Audit.List(ctx, store.AuditFilter{})
		must(err)
		var names []string
		for _, r := range rows {
			names = append(names, r.Tool)
		}
		slices.Sort(names)
		return names
	}

	g, _, err := gatewaytest.Open(t.TempDir(), "audit: {retention: 2d}\nservers: {}\n", gateway.Options{
		Audit: st.Audit, WorkSessions: st.WorkSessions, SweepInterval: 100 * time.Millisecond})
	must(err)
	defer g.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(err)
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- g.Serve(sctx, ln) }()
	defer func() { stop(); <-done }()

	waitFor(t, 10*time.Second, "the 3-day-old audit row pruned (retention 2d)", func() bool { return len(tools()) == 1 })
	if got := tools(); !slices.Equal(got, []string{"recent"}) {
		t.Errorf("audit rows left = %v; want [recent]", got)
	}
	waitFor(t, 10*time.Second, "the lapsed work session deleted", func() bool { return len(sessions()) == 1 })
	if got := sessions(); !slices.Equal(got, []string{"live"}) {
		t.Errorf("work sessions left = %v; want [live]", got)
	}
	// Later sweeps go on: a row that is already too old when written goes too.
	must(st.Audit.Record(ctx, store.Entry{Time: now.Add(-49 * time.Hour), Server: "s", Tool: "late", Outcome: "ok"}))
	waitFor(t, 10*time.Second, "a later sweep", func() bool { return len(tools()) == 1 })
}

// waitFor polls cond until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(timeout); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// spoofAddr sends the gateway's internal client headers with every request.
type spoofAddr struct{ next http.RoundTripper }

func (s spoofAddr) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Mcpbridge-Client-Addr", "6.6.6.6")
	r.Header.Set("Mcpbridge-Client", "6.6.6.6")
	return s.next.RoundTrip(r)
}
