package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
)

// Issue 12.7: one client opening sessions without end. Past sessions_per_client it gets 429
// with Retry-After; from three quarters of sessions on, a client that holds one gets 429 too
// (issue 20.7: the rest is for clients that hold fewer), past sessions everyone gets 503;
// other clients still get in; a DELETE and idle expiry give slots back; legacy SSE streams
// count as sessions.
func TestAttackSessionFlood(t *testing.T) {
	lb := serveLoopback(t, limitsSection("{sessions: 16, sessions_per_client: 5, drain_period: 1s}")+echoServers, gateway.Options{}, nil)
	url := lb.base + "/mcp/demo"
	attacker := clientFrom("127.0.0.1")
	before := heapInUse()
	const n = 1000
	opened, limited := 0, 0
	var sids []string
	start := time.Now()
	for range n {
		resp, b := rawPost(t, attacker, url, nil, initBody("2025-11-25"))
		switch {
		case resp.StatusCode == 200 && resp.Header.Get("Mcp-Session-Id") != "":
			opened++
			sids = append(sids, resp.Header.Get("Mcp-Session-Id"))
		case resp.StatusCode == http.StatusTooManyRequests:
			limited++
			if limited == 1 {
				rs := replies(t, b)
				if resp.Header.Get("Retry-After") == "" || len(rs) != 1 || rs[0].Error == nil || !strings.Contains(rs[0].Error.Message, "sessions") {
					t.Errorf("429 answer: Retry-After=%q %s", resp.Header.Get("Retry-After"), b)
				}
				t.Logf("refusal: %s", bytes.TrimSpace(b))
			}
		default:
			t.Fatalf("initialize %d: %d %s", opened+limited, resp.StatusCode, b)
		}
	}
	grown := int64(heapInUse()) - int64(before)
	t.Logf("one client sent %d initialize requests in %s: %d sessions opened, %d refused with 429; heap %+.1f MB",
		n, time.Since(start).Round(time.Millisecond), opened, limited, float64(grown)/(1<<20))
	if opened != 5 || limited != n-5 {
		t.Errorf("per-client cap: opened %d, refused %d; want 5 and %d", opened, limited, n-5)
	}

	// Another client still gets in and works.
	cs := connectFrom(t, "127.0.0.2", url, "2025-11-25")
	if r := call(t, cs, "echo", map[string]any{"message": "still here"}); text(t, r) != "still here\n" {
		t.Errorf("bystander: %q", text(t, r))
	}
	// Legacy SSE streams are sessions too: 127.0.0.3 holds five, the sixth is refused, and so
	// is a Streamable HTTP initialize from the same address.
	third := clientFrom("127.0.0.3")
	for i := range 6 {
		req, _ := http.NewRequest("GET", url+"/sse", nil)
		req.Header.Set("Accept", "text/event-stream")
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		resp, err := third.Do(req.WithContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		if want := map[bool]int{true: 200, false: 429}[i < 5]; resp.StatusCode != want {
			t.Errorf("SSE stream %d: %d, want %d", i+1, resp.StatusCode, want)
		}
	}
	if resp, b := rawPost(t, third, url, nil, initBody("2025-11-25")); resp.StatusCode != 429 {
		t.Errorf("initialize beside five SSE streams: %d %s", resp.StatusCode, b)
	}
	// 5 + 1 + 5 = 11 of 16: one more from a fourth address makes 12, three quarters; from
	// then on only addresses that hold no session get one, until the gateway is full for all.
	fourth := clientFrom("127.0.0.4")
	if resp, b := rawPost(t, fourth, url, nil, initBody("2025-11-25")); resp.StatusCode != 200 {
		t.Fatalf("12th session: %d %s", resp.StatusCode, b)
	}
	if resp, b := rawPost(t, fourth, lb.base+"/mcp/other", nil, initBody("2025-11-25")); resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(b), "nearly full") {
		t.Errorf("a 2nd session of the fourth address past three quarters: %d %s, want 429", resp.StatusCode, b)
	}
	for _, ip := range []string{"127.0.0.6", "127.0.0.7", "127.0.0.8", "127.0.0.9"} {
		if resp, b := rawPost(t, clientFrom(ip), url, nil, initBody("2025-11-25")); resp.StatusCode != 200 {
			t.Fatalf("a session of new address %s: %d %s", ip, resp.StatusCode, b)
		}
	}
	resp, b := rawPost(t, clientFrom("127.0.0.10"), lb.base+"/mcp/other", nil, initBody("2025-11-25"))
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("17th session: %d Retry-After=%q %s", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
	// Modern-era requests need no session and are still served.
	mcs := connectFrom(t, "127.0.0.5", url, "2026-07-28")
	if r := call(t, mcs, "echo", map[string]any{"message": "stateless"}); text(t, r) != "stateless\n" {
		t.Errorf("modern call while full: %q", text(t, r))
	}
	// Ending a session frees its slot.
	if len(sids) > 0 {
		req, _ := http.NewRequest("DELETE", url, nil)
		req.Header.Set("Mcp-Session-Id", sids[0])
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		if resp, err := attacker.Do(req); err != nil || resp.StatusCode != 204 {
			t.Fatalf("DELETE: %v %v", resp, err)
		}
		// The slot goes to an address that holds none; the attacker, holding four, is still
		// past its share.
		eleventh := clientFrom("127.0.0.11")
		waitFor(t, 10*time.Second, "the deleted session's slot", func() bool {
			resp, b := rawPost(t, eleventh, url, nil, initBody("2025-11-25"))
			if resp.StatusCode != 200 && resp.StatusCode != http.StatusServiceUnavailable {
				t.Fatalf("initialize after DELETE: %d %s", resp.StatusCode, b)
			}
			return resp.StatusCode == 200
		})
	}
}

// Issue 12.7: session_idle closes idle sessions, and their slots come back.
func TestAttackSessionIdle(t *testing.T) {
	lb := serveLoopback(t, limitsSection("{sessions_per_client: 2, session_idle: 1s, drain_period: 1s}")+echoServers, gateway.Options{}, nil)
	url := lb.base + "/mcp/demo"
	c := clientFrom("127.0.0.1")
	h := legacySession(t, c, url, "2025-11-25")
	legacySession(t, c, url, "2025-11-25")
	if resp, _ := rawPost(t, c, url, nil, initBody("2025-11-25")); resp.StatusCode != 429 {
		t.Errorf("third session: %d, want 429", resp.StatusCode)
	}
	// Wait for a slot to come back by trying to open a session: that touches neither idle
	// session (a ping would keep h alive). h was used before the other, so it is gone by
	// the time a slot is free.
	waitFor(t, 30*time.Second, "a slot freed by session_idle", func() bool {
		resp, b := rawPost(t, c, url, nil, initBody("2025-11-25"))
		if resp.StatusCode != 200 && resp.StatusCode != 429 {
			t.Fatalf("initialize while waiting for idle expiry: %d %s", resp.StatusCode, b)
		}
		return resp.StatusCode == 200
	})
	if resp, b := rawPost(t, c, url, h, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); resp.StatusCode != 404 {
		t.Errorf("idle session still answers: %d %s", resp.StatusCode, b)
	}
}

// Issue 12.9: on a legacy session, MCP-Protocol-Version must be the version negotiated at
// initialize; a batch cannot get through a 2025-11-25 session by claiming (or implying, by
// leaving the header out) 2025-03-26.
func TestAttackProtocolVersionMismatch(t *testing.T) {
	lb := serveLoopback(t, limitsSection("{drain_period: 1s}")+echoServers, gateway.Options{}, nil)
	url := lb.base + "/mcp/demo"
	c := clientFrom("127.0.0.1")
	h := legacySession(t, c, url, "2025-11-25")
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`
	for _, claimed := range []string{"2025-03-26", "2024-11-05", ""} {
		hdr := map[string]string{"Mcp-Session-Id": h["Mcp-Session-Id"]}
		if claimed != "" {
			hdr["MCP-Protocol-Version"] = claimed
		}
		resp, b := rawPost(t, c, url, hdr, batch)
		t.Logf("batch on a 2025-11-25 session claiming %q → HTTP %d %s", claimed, resp.StatusCode, bytes.TrimSpace(b))
		if resp.StatusCode != 400 {
			t.Errorf("batch claiming %q: %d %s", claimed, resp.StatusCode, b)
		}
		if claimed != "" && !bytes.Contains(b, []byte("2025-11-25")) {
			t.Errorf("the refusal does not name the negotiated version: %s", b)
		}
	}
	// A single request claiming another version is refused too; the right version works.
	hdr := map[string]string{"Mcp-Session-Id": h["Mcp-Session-Id"], "MCP-Protocol-Version": "2025-06-18"}
	if resp, b := rawPost(t, c, url, hdr, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); resp.StatusCode != 400 {
		t.Errorf("ping claiming 2025-06-18 on a 2025-11-25 session: %d %s", resp.StatusCode, b)
	}
	if resp, b := rawPost(t, c, url, h, `{"jsonrpc":"2.0","id":4,"method":"ping"}`); resp.StatusCode != 200 {
		t.Errorf("ping with the negotiated version: %d %s", resp.StatusCode, b)
	}
	// The gateway's idea of the negotiated version is the SDK's answer, for every version a
	// client may ask for.
	for _, asked := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "1999-01-01", ""} {
		resp, b := rawPost(t, c, url, nil, initBody(asked))
		rs := replies(t, b)
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if resp.StatusCode != 200 || len(rs) != 1 || json.Unmarshal(rs[0].Result, &res) != nil {
			t.Fatalf("initialize %q: %d %s", asked, resp.StatusCode, b)
		}
		hdr := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "MCP-Protocol-Version": res.ProtocolVersion}
		if resp, b := rawPost(t, c, url, hdr, `{"jsonrpc":"2.0","id":5,"method":"ping"}`); resp.StatusCode != 200 {
			t.Errorf("asked %q, negotiated %s: ping with the negotiated version: %d %s", asked, res.ProtocolVersion, resp.StatusCode, b)
		}
	}
}
