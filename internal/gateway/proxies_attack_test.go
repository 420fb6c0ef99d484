package gateway_test

// Issue 20.7: capacity fairness and reverse proxies. A trusted proxy's X-Forwarded-For names
// the client for rate limits, session caps and the audit log; anyone else's is ignored.
// Authenticated callers' sessions count per principal. Once most sessions are taken, a
// caller that already holds many is refused before a new one.

import (
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

const proxyServers = `servers:
  demo:
    kind: command
    description: one call an hour per caller
    limits: {rate: {per_principal: 1/h}}
    tools:
      echo: {description: echo, inputSchema: {type: object, properties: {message: {type: string}}}, argv: [echo, {direct: message}]}
  other:
    kind: command
    description: no rate limit
    tools:
      echo: {description: echo, inputSchema: {type: object, properties: {message: {type: string}}}, argv: [echo, {direct: message}]}
`

// withHeader returns h and k: v (v empty: h alone).
func withHeader(h map[string]string, k, v string) map[string]string {
	out := map[string]string{}
	for a, b := range h {
		out[a] = b
	}
	if v != "" {
		out[k] = v
	}
	return out
}

func TestAttackForwardedFor(t *testing.T) {
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "a.db"), sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg := "trusted_proxies: [127.0.0.1/32, 10.0.0.0/8]\n" + limitsSection("{sessions_per_client: 2, drain_period: 1s}") + proxyServers
	lb := serveLoopback(t, cfg, gateway.Options{Audit: st.Audit}, nil)
	proxy := clientFrom("127.0.0.1")    // a trusted proxy
	outsider := clientFrom("127.0.0.9") // anyone else
	callAs := func(c *http.Client, xff string) int {
		t.Helper()
		resp, b := rawPost(t, c, lb.base+"/mcp/demo", withHeader(modernHeaders, "X-Forwarded-For", xff), modernCall)
		if resp.StatusCode != 200 && resp.StatusCode != 429 {
			t.Fatalf("call with X-Forwarded-For %q: %d %s", xff, resp.StatusCode, b)
		}
		return resp.StatusCode
	}

	// Rate limits: through the proxy each client has its own budget (one call an hour).
	for _, c := range []struct {
		xff  string
		want int
	}{
		{"203.0.113.7", 200},
		{"203.0.113.7", 429},
		{"203.0.113.8", 200},
		// The client wrote 6.6.6.6; the proxy appended 203.0.113.8: the right-most address
		// that is not a trusted proxy's is the client, whose budget is spent.
		{"6.6.6.6, 203.0.113.8", 429},
		// Trusted hops (10.x) on the right are passed over.
		{"6.6.6.6, 203.0.113.8, 10.0.0.3", 429},
		{"203.0.113.9, 10.0.0.3", 200},
	} {
		if got := callAs(proxy, c.xff); got != c.want {
			t.Errorf("through the proxy, X-Forwarded-For %q: %d, want %d", c.xff, got, c.want)
		}
	}
	// From anyone else the header is ignored: a new address in it each time buys nothing.
	for i, want := range []int{200, 429, 429} {
		if got := callAs(outsider, fmt.Sprintf("198.51.100.%d", i+1)); got != want {
			t.Errorf("outsider's call %d with a spoofed X-Forwarded-For: %d, want %d", i+1, got, want)
		}
	}

	// Session caps: sessions_per_client is per client behind the proxy, and per peer for
	// anyone else, whatever it claims.
	open := func(c *http.Client, xff string) int {
		t.Helper()
		resp, b := rawPost(t, c, lb.base+"/mcp/other", withHeader(nil, "X-Forwarded-For", xff), initBody("2025-11-25"))
		if resp.StatusCode != 200 && resp.StatusCode != 429 {
			t.Fatalf("initialize with X-Forwarded-For %q: %d %s", xff, resp.StatusCode, b)
		}
		return resp.StatusCode
	}
	for _, c := range []struct {
		who  *http.Client
		xff  string
		want int
	}{
		{proxy, "192.0.2.1", 200}, {proxy, "192.0.2.1", 200}, {proxy, "192.0.2.1", 429},
		{proxy, "192.0.2.2", 200},
		{outsider, "192.0.2.3", 200}, {outsider, "192.0.2.4", 200}, {outsider, "192.0.2.5", 429},
	} {
		if got := open(c.who, c.xff); got != c.want {
			t.Errorf("session with X-Forwarded-For %q: %d, want %d", c.xff, got, c.want)
		}
	}

	// The audit log names the client the proxy named, and the outsider's own address.
	lb.g.Close()
	rows, err := st.Audit.List(t.Context(), store.AuditFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	clients := map[string]int{}
	for _, r := range rows {
		clients[r.Client]++
	}
	if clients["203.0.113.7"] != 1 || clients["203.0.113.8"] != 1 || clients["203.0.113.9"] != 1 || clients["127.0.0.9"] != 1 || len(clients) != 4 {
		t.Errorf("audit clients %v; want one call each from 203.0.113.7, .8, .9 and 127.0.0.9", clients)
	}
}

// Authenticated callers' sessions count per principal: several users behind one address
// (a proxy that is not trusted, a NAT) each have sessions_per_client.
func TestAttackSessionsPerPrincipal(t *testing.T) {
	const aliceKey, bobKey = "alice-sessions-key-0123456789", "bob-sessions-key-0123456789ab"
	cfg := fmt.Sprintf(`auth:
  keys:
    - {id: a, hash: "sha256:%s", user: {id: alice}}
    - {id: b, hash: "sha256:%s", user: {id: bob}}
`, store.HashKey(aliceKey), store.HashKey(bobKey)) + limitsSection("{sessions_per_client: 2, drain_period: 1s}") + strings.Replace(proxyServers, "description: no rate limit", "description: no rate limit\n    auth: {public: true}", 1)
	lb := serveLoopback(t, cfg, gateway.Options{}, nil)
	c := clientFrom("127.0.0.2")
	open := func(key string) int {
		t.Helper()
		resp, b := rawPost(t, c, lb.base+"/mcp/other", withHeader(nil, "Authorization", map[bool]string{true: "Bearer " + key}[key != ""]), initBody("2025-11-25"))
		if resp.StatusCode != 200 && resp.StatusCode != 429 {
			t.Fatalf("initialize: %d %s", resp.StatusCode, b)
		}
		return resp.StatusCode
	}
	for i, c := range []struct {
		key  string
		want int
	}{
		{aliceKey, 200}, {aliceKey, 200}, {aliceKey, 429},
		{bobKey, 200}, {bobKey, 200}, {bobKey, 429},
		{"", 200}, {"", 200}, {"", 429}, // anonymous callers: per address
	} {
		if got := open(c.key); got != c.want {
			t.Errorf("initialize %d: %d, want %d", i+1, got, c.want)
		}
	}
}

// Once three quarters of limits.sessions are open, a caller that holds a quarter of
// sessions_per_client is refused (429, sessions_share) while a caller that holds fewer still
// gets in, until the gateway is full (503).
func TestAttackSessionShare(t *testing.T) {
	lb := serveLoopback(t, limitsSection("{sessions: 8, sessions_per_client: 8, drain_period: 1s}")+echoServers, gateway.Options{}, nil)
	u := lb.base + "/mcp/demo"
	open := func(c *http.Client) (int, string, string) {
		t.Helper()
		resp, b := rawPost(t, c, u, nil, initBody("2025-11-25"))
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
	}
	greedy, late, later := clientFrom("127.0.0.2"), clientFrom("127.0.0.3"), clientFrom("127.0.0.4")
	var held []string
	for {
		status, sid, body := open(greedy)
		if status != 200 {
			if status != 429 || !strings.Contains(body, "sessions_share") && !strings.Contains(body, "nearly full") {
				t.Errorf("greedy refused with %d %s; want 429 saying the gateway is nearly full", status, body)
			}
			break
		}
		held = append(held, sid)
		if len(held) > 8 {
			t.Fatal("greedy opened more sessions than the gateway allows")
		}
	}
	// Six of eight (three quarters): the rest is for callers holding fewer than 2.
	if len(held) != 6 {
		t.Errorf("greedy holds %d sessions, want 6 (three quarters of 8)", len(held))
	}
	for i, want := range []int{200, 200, 429} {
		if status, _, body := open(late); status != want {
			t.Errorf("a newcomer's session %d: %d %s, want %d", i+1, status, body, want)
		}
	}
	if status, _, body := open(later); status != 503 {
		t.Errorf("the 9th session: %d %s, want 503 (full)", status, body)
	}
	// One of greedy's ends: the slot goes to a caller that holds fewer, not back to greedy.
	req, _ := http.NewRequest("DELETE", u, nil)
	req.Header.Set("Mcp-Session-Id", held[0])
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if resp, err := greedy.Do(req); err != nil || resp.StatusCode != 204 {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	waitFor(t, 10*time.Second, "the deleted session's slot", func() bool {
		status, _, _ := open(later)
		if status == 503 {
			return false
		}
		if status != 200 {
			t.Fatalf("after a DELETE, a newcomer got %d", status)
		}
		return true
	})
	if status, _, body := open(greedy); status != 503 && status != 429 {
		t.Errorf("greedy after the gateway filled again: %d %s", status, body)
	}
}
