package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	_ "github.com/mcpbridge/mcpbridge/internal/backend/all"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

const leanConfig = `
servers:
  lean:
    kind: command
    title: Lean path
    description: d
    tools:
      echo:
        description: echo
        inputSchema: {type: object, properties: {m: {type: string}, n: {type: integer}}, required: [m]}
        argv: [echo, {direct: m}]
      fail:
        description: exits 3
        argv: [sh, -c, "echo broken >&2; exit 3"]
`

// leanServe serves a gateway of leanConfig made with opts, closed when the test ends, and
// returns it and the URL of its lean server.
func leanServe(t *testing.T, opts Options) (*Gateway, string) {
	t.Helper()
	cfg, err := config.Parse("lean.yaml", t.TempDir(), []byte(leanConfig), backend.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(context.Background(), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	srv := httptest.NewServer(g.Handler())
	t.Cleanup(srv.Close)
	return g, srv.URL + "/mcp/lean"
}

// leanSend sends one request with protocol version version (none when empty) and the headers
// hdr, and returns the answer (its body closed) and its JSON-RPC message: the body, or the
// data of the event stream's last message.
func leanSend(t *testing.T, url, version string, hdr map[string]string, body string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(raw))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(d, `"jsonrpc"`) {
				raw = []byte(d)
			}
		}
	}
	return resp, raw
}

// leanPost sends one stateless request and returns the JSON-RPC message of the answer, its
// Content-Type and status.
func leanPost(t *testing.T, url string, hdr map[string]string, body string) (any, string, int) {
	t.Helper()
	resp, raw := leanSend(t, url, "2026-07-28", hdr, body)
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("answer is not JSON: %s", raw)
	}
	return v, resp.Header.Get("Content-Type"), resp.StatusCode
}

// The lean path answers a stateless tools/call exactly as the SDK's handler does (the same
// JSON-RPC message), and leaves to the SDK what it does not handle.
func TestLeanPathMatchesSDK(t *testing.T) {
	g, url := leanServe(t, Options{Version: "test"})
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`
	call := func(id, name, args string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `,` + meta + `}}`
	}
	hdr := func(name string) map[string]string {
		return map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": name}
	}
	cases := []struct {
		name string
		hdr  map[string]string
		body string
		lean bool // the lean path answers it
	}{
		{"success", hdr("echo"), call("1", "echo", `{"m":"hi"}`), true},
		{"string id", hdr("echo"), call(`"abc"`, "echo", `{"m":"hi","n":3}`), true},
		{"tool error", hdr("fail"), call("2", "fail", `{}`), true},
		{"invalid arguments", hdr("echo"), call("3", "echo", `{"n":"x"}`), true},
		{"unknown tool", hdr("nope"), call("4", "nope", `{}`), false},
		{"name header mismatch", hdr("fail"), call("5", "echo", `{"m":"hi"}`), false},
		{"no _meta", hdr("echo"), `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"m":"x"}}}`, false},
		{"progress token", hdr("echo"), `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"m":"x"},"_meta":{"progressToken":1,` + meta[len(`"_meta":{`):] + `}}`, false},
		{"log level", hdr("echo"), `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"m":"x"},"_meta":{"io.modelcontextprotocol/logLevel":"info",` + meta[len(`"_meta":{`):] + `}}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g.leanOff = false
			before := g.leanServed.Load()
			got, _, status := leanPost(t, url, c.hdr, c.body)
			lean := g.leanServed.Load() > before
			g.leanOff = true
			want, _, wantStatus := leanPost(t, url, c.hdr, c.body)
			g.leanOff = false
			if lean != c.lean {
				t.Errorf("answered by the lean path: %v, want %v", lean, c.lean)
			}
			if status != wantStatus || !reflect.DeepEqual(got, want) {
				gb, _ := json.Marshal(got)
				wb, _ := json.Marshal(want)
				t.Errorf("lean path: %d %s\nSDK:       %d %s", status, gb, wantStatus, wb)
			}
		})
	}
}

// legacyPost sends one request on a legacy session and returns the JSON-RPC message of the
// answer and its Content-Type.
func legacyPost(t *testing.T, url, sid, body string) (any, string) {
	t.Helper()
	var hdr map[string]string
	if sid != "" {
		hdr = map[string]string{"Mcp-Session-Id": sid}
	}
	resp, raw := leanSend(t, url, "2025-11-25", hdr, body)
	ct := resp.Header.Get("Content-Type")
	if resp.StatusCode == http.StatusAccepted {
		return nil, ct
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil || resp.StatusCode != 200 {
		t.Fatalf("answer: %d %s", resp.StatusCode, raw)
	}
	return v, ct
}

// openLegacy initializes a 2025-11-25 session and returns its id.
func openLegacy(t *testing.T, url string) string {
	t.Helper()
	// the answer ends once initialize is handled
	resp, _ := leanSend(t, url, "", nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize: %d, no session", resp.StatusCode)
	}
	legacyPost(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return sid
}

// On a legacy session the lean path answers a quiet tool's call with the same JSON-RPC
// message as the SDK's event stream, and leaves to the SDK the calls that may send more
// than their result: a progress token, _meta, or a session that set a log level.
func TestLeanLegacyMatchesSDK(t *testing.T) {
	g, url := leanServe(t, Options{Version: "test"})
	sid := openLegacy(t, url)
	call := func(id, name, args string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
	}
	cases := []struct {
		name string
		body string
		lean bool
	}{
		{"success", call("1", "echo", `{"m":"hi"}`), true},
		{"string id", call(`"abc"`, "echo", `{"m":"hi","n":3}`), true},
		{"tool error", call("2", "fail", `{}`), true},
		{"invalid arguments", call("3", "echo", `{"n":"x"}`), true},
		{"unknown tool", call("4", "nope", `{}`), false},
		{"progress token", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"m":"x"},"_meta":{"progressToken":1}}}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g.leanOff = false
			before := g.leanServed.Load()
			got, ct := legacyPost(t, url, sid, c.body)
			lean := g.leanServed.Load() > before
			g.leanOff = true
			want, _ := legacyPost(t, url, sid, c.body)
			g.leanOff = false
			if lean != c.lean {
				t.Errorf("answered by the lean path: %v, want %v", lean, c.lean)
			}
			if lean && ct != "application/json" {
				t.Errorf("lean answer Content-Type %q", ct)
			}
			if !reflect.DeepEqual(got, want) {
				gb, _ := json.Marshal(got)
				wb, _ := json.Marshal(want)
				t.Errorf("lean path: %s\nSDK:       %s", gb, wb)
			}
		})
	}
	// A session that set a log level may receive log notifications with a call: the SDK
	// answers on an event stream. Another session is not affected.
	logged := openLegacy(t, url)
	legacyPost(t, url, logged, `{"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":{"level":"debug"}}`)
	before := g.leanServed.Load()
	if _, ct := legacyPost(t, url, logged, call("10", "echo", `{"m":"x"}`)); g.leanServed.Load() != before || !strings.HasPrefix(ct, "text/event-stream") {
		t.Errorf("a session with a log level was answered by the lean path (%s)", ct)
	}
	if legacyPost(t, url, sid, call("11", "echo", `{"m":"x"}`)); g.leanServed.Load() != before+1 {
		t.Errorf("the other session's call did not take the lean path")
	}
	// An unknown session is the SDK's to refuse.
	resp, _ := leanSend(t, url, "", map[string]string{"Mcp-Session-Id": "no-such-session"}, call("12", "echo", `{"m":"x"}`))
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown session: %d, want 404", resp.StatusCode)
	}
}

// Calls answered by the lean path keep a legacy session alive: the idle time counts from
// the end of the last request, whichever path answered it. The calls come every quarter
// second, eight times as often as the session idle time, for longer than that time; then the
// test waits for the sweeper to expire the session (polled, no fixed wait) and checks the
// session is gone for the client too.
func TestLeanLegacyKeepsSessionAlive(t *testing.T) {
	const idle = 2 * time.Second
	g, url := leanServe(t, Options{Version: "test", SessionTimeout: idle})
	sid := openLegacy(t, url)
	before := g.leanServed.Load()
	const calls = 12 // 12 gaps of 250ms: 3 s, longer than idle
	for i := range calls {
		time.Sleep(idle / 8) // the time that passes between calls, not a synchronisation
		legacyPost(t, url, sid, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+1)+`,"method":"tools/call","params":{"name":"echo","arguments":{"m":"x"}}}`)
	}
	if g.leanServed.Load() != before+calls {
		t.Fatalf("lean path answered %d of %d calls", g.leanServed.Load()-before, calls)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, ok := g.sessions.lookup(sid); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session was not expired within a minute of its last call (session_idle %v)", idle)
		}
	}
	resp, _ := leanSend(t, url, "2025-11-25", map[string]string{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":99,"method":"ping"}`)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("an expired session answered %d, want 404", resp.StatusCode)
	}
}

// A call and its notifications/cancelled match however the client writes the number, and a
// string id never matches a number.
func TestRequestKey(t *testing.T) {
	key := func(id string) string {
		k, ok := requestKey(json.RawMessage(id))
		if !ok {
			t.Fatalf("requestKey(%s): not an id", id)
		}
		return k
	}
	if key(`7`) != key(`7.0`) || key(`7`) != key(`7e0`) {
		t.Errorf("7, 7.0 and 7e0 differ: %q %q %q", key(`7`), key(`7.0`), key(`7e0`))
	}
	if key(`7`) == key(`"7"`) {
		t.Errorf("7 and \"7\" match: %q", key(`7`))
	}
	for _, id := range []string{`null`, `{}`, `[1]`, `true`, ``} {
		if k, ok := requestKey(json.RawMessage(id)); ok {
			t.Errorf("requestKey(%s) = %q, want not an id", id, k)
		}
	}
}
