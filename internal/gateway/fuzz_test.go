package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
)

// FuzzHTTPEntry sends random bodies and headers to an MCP endpoint: the gateway must never
// panic and must always answer with a well-formed response (JSON, an event stream of JSON
// messages, or an empty 202).
func FuzzHTTPEntry(f *testing.F) {
	cfg, err := config.Parse("f.yaml", f.TempDir(), []byte(`
servers:
  demo:
    kind: command
    description: d
    tools:
      echo: {description: e, inputSchema: {type: object, properties: {m: {type: string}}}, argv: [echo, {direct: m}]}
`), backend.Kinds())
	if err != nil {
		f.Fatal(err)
	}
	g, err := gateway.New(context.Background(), cfg, gateway.Options{})
	if err != nil {
		f.Fatal(err)
	}
	h := g.Handler()
	seeds := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"m":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `{`, `null`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}
	for i, s := range seeds {
		f.Add("POST", "application/json", []string{"2025-11-25", "2026-07-28", "", "bogus"}[i%4], "tools/call", "echo", s)
	}
	f.Add("GET", "", "", "", "", "")
	f.Add("DELETE", "application/json", "2025-11-25", "", "", "")
	f.Fuzz(func(t *testing.T, method, ctype, version, mcpMethod, mcpName, body string) {
		switch method {
		case "POST", "GET", "DELETE", "PUT", "OPTIONS", "HEAD":
		default:
			method = "POST"
		}
		req := httptest.NewRequest(method, "/mcp/demo", strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range map[string]string{"Content-Type": ctype, "Mcp-Protocol-Version": version, "Mcp-Method": mcpMethod, "Mcp-Name": mcpName} {
			if v != "" && !strings.ContainsAny(v, "\r\n\x00") {
				req.Header.Set(k, v)
			}
		}
		ctx, cancel := context.WithCancel(req.Context())
		defer cancel()
		if method == "GET" {
			cancel() // a valid GET stream would wait for events; we only check the opening
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req.WithContext(ctx))
		res := rec.Result()
		if res.StatusCode < 200 || res.StatusCode > 599 {
			t.Fatalf("status %d", res.StatusCode)
		}
		b := rec.Body.Bytes()
		ct := res.Header.Get("Content-Type")
		switch {
		case len(bytes.TrimSpace(b)) == 0:
			if res.StatusCode >= 400 && method != "HEAD" {
				t.Fatalf("error %d without a body", res.StatusCode)
			}
		case strings.HasPrefix(ct, "application/json"):
			if !json.Valid(b) {
				t.Fatalf("invalid JSON body %q", b)
			}
		case strings.HasPrefix(ct, "text/event-stream"):
			for _, line := range strings.Split(string(b), "\n") {
				if d, ok := strings.CutPrefix(line, "data: "); ok && d != "" && !json.Valid([]byte(d)) {
					t.Fatalf("invalid SSE data %q", d)
				}
			}
		default:
			if res.StatusCode != http.StatusMethodNotAllowed || res.StatusCode < 400 {
				t.Fatalf("status %d content type %q body %q", res.StatusCode, ct, b)
			}
		}
	})
}
