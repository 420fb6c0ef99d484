package upstream_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const demoServer = `  demo:
    kind: command
    description: another server, which must keep working
    tools:
      echo: {description: Echo, inputSchema: {type: object, properties: {m: {type: string}}}, argv: [echo, {direct: m}]}
`

// An upstream that crashes in the middle of a call, hangs, or sends something that is not
// JSON-RPC gives the caller a tool error that says so; it is started again for the next
// call, and the gateway and its other servers keep serving.
func TestFaults(t *testing.T) {
	for _, iso := range []string{"per-session", "shared"} {
		t.Run(iso, func(t *testing.T) {
			srv := start(t, "servers:\n  fragile:\n    kind: mcp\n    description: d\n    timeout: 5s\n    isolation: "+iso+"\n"+stdioUpstream(t, nil, "")+demoServer)
			_, cs := connect(t, srv, "fragile", "2025-11-25")
			_, demo := connect(t, srv, "demo", "2025-11-25")

			before := pidOf(t, cs, "pid")
			wantError(t, cs, "crash", nil, "stopped while running the call", "exited with status 3", "started again")
			wantText(t, cs, "echo", map[string]any{"text": "back"}, "back")
			if after := pidOf(t, cs, "pid"); after == before {
				t.Errorf("the crashed child %d still answers", before)
			}

			// A hung call times out; other calls, on this server and others, go on.
			var wg sync.WaitGroup
			wg.Go(func() {
				wantError(t, cs, "hang", nil, "did not answer tools/call within 5s", "timeout")
			})
			// The hang has reached the child before the other calls are made (the child
			// counts it), so they run beside it.
			for deadline := time.Now().Add(30 * time.Second); text(callTool(t, cs, "hang_started", nil)) == "0"; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the hang call did not reach the child within 30s")
				}
			}
			wantText(t, cs, "echo", map[string]any{"text": "meanwhile"}, "meanwhile")
			wantText(t, demo, "echo", map[string]any{"m": "still here"}, "still here\n")
			wg.Wait()
			wantText(t, cs, "echo", map[string]any{"text": "after"}, "after")

			wantError(t, cs, "garbage", nil, "malformed message")
			wantText(t, cs, "echo", map[string]any{"text": "recovered"}, "recovered")

			// Tools still list after the shared child was restarted.
			tools, err := cs.ListTools(context.Background(), nil)
			if err != nil || len(tools.Tools) < 5 {
				t.Errorf("tools after the faults: %v, %v", tools, err)
			}
		})
	}
}

// An upstream that is slow to start is waited for (up to start_timeout); one that takes
// longer makes its server unavailable with the reason, while other servers are served.
func TestSlowStart(t *testing.T) {
	srv := start(t, "servers:\n"+
		"  slow:\n    kind: mcp\n    description: d\n"+stdioUpstream(t, map[string]string{"UPSTREAM_TEST_START_DELAY": "1s"}, "")+
		"  tooslow:\n    kind: mcp\n    description: d\n    start_timeout: 300ms\n"+stdioUpstream(t, map[string]string{"UPSTREAM_TEST_START_DELAY": "20s"}, "")+
		demoServer)
	_, cs := connect(t, srv, "slow", "2025-11-25")
	wantText(t, cs, "echo", map[string]any{"text": "waited"}, "waited")
	resp, err := http.Post(srv.URL+"/mcp/tooslow", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "did not complete the MCP handshake within start_timeout (300ms)") {
		t.Errorf("tooslow: %d %s", resp.StatusCode, body)
	}
	_, demo := connect(t, srv, "demo", "2025-11-25")
	wantText(t, demo, "echo", map[string]any{"m": "fine"}, "fine\n")
}

// An HTTP upstream that goes away gives a tool error; the gateway keeps serving.
func TestHTTPUpstreamGone(t *testing.T) {
	up, stop := startNetServerStop(t, "http", "UPSTREAM_TEST_LEGACY=1")
	srv := start(t, "servers:\n  remote:\n    kind: mcp\n    description: d\n    url: "+up+"\n"+demoServer)
	_, cs := connect(t, srv, "remote", "2025-11-25")
	wantText(t, cs, "echo", map[string]any{"text": "up"}, "up")
	stop()
	r := callTool(t, cs, "echo", map[string]any{"text": "down"})
	if !r.IsError {
		t.Errorf("a call to a stopped upstream = %q, want a tool error", text(r))
	}
	t.Logf("the error: %s", text(r))
	_, demo := connect(t, srv, "demo", "2025-11-25")
	wantText(t, demo, "echo", map[string]any{"m": "fine"}, "fine\n")
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://static"})
	if err == nil {
		t.Errorf("reading from a stopped upstream = %+v", rr)
	}
}

// A hung HTTP upstream times out like a hung child, and the session goes on.
func TestHTTPUpstreamHangs(t *testing.T) {
	srv := start(t, "servers:\n  remote:\n    kind: mcp\n    description: d\n    timeout: 700ms\n    url: "+startHTTPServer(t)+"\n")
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		_, cs := connect(t, srv, "remote", era)
		wantError(t, cs, "hang", nil, "did not answer tools/call within 700ms")
		wantText(t, cs, "echo", map[string]any{"text": "after"}, "after")
	}
}

// A url that answers with something that is not MCP makes the server unavailable with the
// reason; the gateway serves the others.
func TestNotAnMCPServer(t *testing.T) {
	junk := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"this is": "not JSON-RPC"`)
	}))
	defer junk.Close()
	srv := start(t, "servers:\n  junk:\n    kind: mcp\n    description: d\n    start_timeout: 2s\n    url: "+junk.URL+"/mcp\n"+demoServer)
	why := srv.Entry("junk").Unavailable()
	if why == "" || !strings.Contains(why, "cannot start") {
		t.Errorf("a url that is not MCP: unavailable = %q", why)
	}
	t.Logf("reason: %s", why)
	_, demo := connect(t, srv, "demo", "2025-11-25")
	wantText(t, demo, "echo", map[string]any{"m": "fine"}, "fine\n")
}

// A message from the upstream longer than the gateway accepts breaks that connection with a
// clear error instead of being decoded whole (stdio lines and HTTP stream lines alike);
// the gateway and other servers keep serving, and the next call works again.
func TestHugeUpstreamMessage(t *testing.T) {
	for _, v := range []struct{ name, yaml string }{
		{"stdio", stdioUpstream(t, nil, "")},
		{"http", "    url: " + startHTTPServer(t) + "\n"},
	} {
		t.Run(v.name, func(t *testing.T) {
			srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n    timeout: 20s\n"+v.yaml+demoServer)
			_, cs := connect(t, srv, "up", "2025-11-25")
			_, demo := connect(t, srv, "demo", "2025-11-25")
			wantText(t, cs, "big", map[string]any{"n": 1000}, strings.Repeat("x", 1000))
			if r := callTool(t, cs, "big", map[string]any{"n": 40 << 20}); !r.IsError {
				t.Errorf("a 40 MiB message was passed on: %d bytes", len(text(r)))
			}
			wantText(t, demo, "echo", map[string]any{"m": "still here"}, "still here\n")
			// A call that reaches the broken connection before the gateway has seen it end
			// fails with that connection's reason (a known race under heavy load); a call after
			// that is served by a new connection. Poll with a generous deadline.
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				r := callTool(t, cs, "big", map[string]any{"n": 10})
				if !r.IsError && text(r) == "xxxxxxxxxx" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no call worked within 30s of the huge message; the last: %q", text(r))
				}
			}
		})
	}
}
