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
	"strings"
	"testing"

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

// leanPost sends one stateless request and returns the JSON-RPC message of the answer, its
// Content-Type and status.
func leanPost(t *testing.T, url string, hdr map[string]string, body string) (any, string, int) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	ct := resp.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(raw))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(d, `"jsonrpc"`) {
				raw = []byte(d)
			}
		}
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("answer is not JSON: %s", raw)
	}
	return v, ct, resp.StatusCode
}

// The lean path answers a stateless tools/call exactly as the SDK's handler does (the same
// JSON-RPC message), and leaves to the SDK what it does not handle.
func TestLeanPathMatchesSDK(t *testing.T) {
	cfg, err := config.Parse("lean.yaml", t.TempDir(), []byte(leanConfig), backend.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(context.Background(), cfg, Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	srv := httptest.NewServer(g.Handler())
	defer srv.Close()
	url := srv.URL + "/mcp/lean"
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
