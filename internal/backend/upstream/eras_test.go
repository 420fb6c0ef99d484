package upstream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A tool whose input schema mirrors an argument into a header (x-mcp-header, SEP-2243) is
// called on a 2026-07-28 Streamable HTTP upstream with the Mcp-Param-* header its schema
// asks for, whichever upstream session makes the call (the caller's own, which never
// listed the tools, or the shared one), so an upstream that checks the header serves it.
// A downstream request whose header disagrees with the argument is refused by the gateway
// with 400 and -32020, as the upstream would refuse it.
func TestParamHeadersReachTheUpstream(t *testing.T) {
	url := startHTTPServer(t)
	for _, isolation := range []string{"per-session", "shared"} {
		t.Run(isolation, func(t *testing.T) {
			srv := start(t, fmt.Sprintf("servers:\n  up:\n    kind: mcp\n    description: d\n    url: %s\n    isolation: %s\n", url, isolation))
			for _, era := range []string{"2025-11-25", "2026-07-28"} {
				t.Run(era, func(t *testing.T) {
					_, cs := connect(t, srv, "up", era)
					// The go-sdk client sends Mcp-Param-* headers for the tools it listed.
					if _, err := cs.ListTools(context.Background(), nil); err != nil {
						t.Fatal(err)
					}
					want := "region eu-west, header eu-west"
					if era < "2026-07-28" {
						// A legacy client's upstream session speaks 2025-11-25, which has no
						// such headers (isolation shared: the shared legacy session).
						want = "region eu-west, header none"
					}
					wantText(t, cs, "region", map[string]any{"region": "eu-west"}, want)
				})
			}
			raw := rawPoster{url: srv.URL + "/mcp/up"}
			for _, header := range []string{"us-east", ""} {
				status, body := raw.post(t, "tools/call", "region", header, `{"name":"region","arguments":{"region":"eu-west"}}`)
				if status != http.StatusBadRequest || !strings.Contains(body, `"code":-32020`) {
					t.Errorf("Mcp-Param-Region %q for region eu-west: status %d, %s; want 400 with -32020", header, status, body)
				}
			}
			status, body := raw.post(t, "tools/call", "region", "eu-west", `{"name":"region","arguments":{"region":"eu-west"}}`)
			if status != http.StatusOK || !strings.Contains(body, "region eu-west, header eu-west") {
				t.Errorf("a matching header: status %d, %s", status, body)
			}
		})
	}
}

// An upstream's answers reach the client in the client's era: a 2026-07-28 result has one
// resultType and the gateway's identity in _meta, not the upstream's; a 2025-11-25 session
// gets neither, nor the cache fields of the 2026-07-28 lists, whichever path answers (the
// lean path, as JSON, or the go-sdk, on an event stream).
func TestUpstreamAnswersInTheClientsEra(t *testing.T) {
	for _, up := range []variant{
		{"stdio", stdioUpstream(t, nil, "")},
		{"http", "    url: " + startHTTPServer(t) + "\n"},
	} {
		t.Run(up.name, func(t *testing.T) {
			srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n"+up.yaml)
			raw := rawPoster{url: srv.URL + "/mcp/up"}
			calls := []struct{ method, name, params string }{
				{"tools/call", "echo", `{"name":"echo","arguments":{"text":"hi"}}`},
				{"tools/call", "echo", `{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":"p"}}`},
				{"prompts/get", "greet", `{"name":"greet","arguments":{"who":"Ada"}}`},
				{"resources/read", "test://static", `{"uri":"test://static"}`},
				{"tools/list", "", `{}`},
				{"completion/complete", "", `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"A"}}`},
			}
			for _, c := range calls {
				_, body := raw.post(t, c.method, c.name, "", c.params)
				result := resultOf(t, body)
				if n := strings.Count(result, `"resultType"`); n != 1 {
					t.Errorf("2026-07-28 %s %s: %d resultType keys, want 1: %s", c.method, c.params, n, result)
				}
				if !strings.Contains(result, `"io.modelcontextprotocol/serverInfo":{"name":"mcpbridge-up"`) || strings.Contains(result, "upstream-test") {
					t.Errorf("2026-07-28 %s: want the gateway's serverInfo only: %s", c.method, result)
				}
			}
			raw.open(t)
			for _, c := range calls {
				_, body := raw.post(t, c.method, c.name, "", c.params)
				result := resultOf(t, body)
				for _, field := range []string{`"resultType"`, `"ttlMs"`, `"cacheScope"`, "io.modelcontextprotocol/", "upstream-test"} {
					if strings.Contains(result, field) {
						t.Errorf("2025-11-25 %s %s carries %s: %s", c.method, c.params, field, result)
					}
				}
			}
		})
	}
}

// rawPoster sends JSON-RPC requests as raw HTTP: at 2026-07-28 until open starts a
// 2025-11-25 session.
type rawPoster struct {
	url, session string
	next         int
}

// open initializes a 2025-11-25 session.
func (p *rawPoster) open(t *testing.T) {
	t.Helper()
	status, body := p.send(t, "initialize", "", "", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`, true)
	if status != http.StatusOK || p.session == "" {
		t.Fatalf("initialize: %d %s", status, body)
	}
	p.send(t, "notifications/initialized", "", "", `{}`, false)
}

// post sends a request (with header as its Mcp-Param-Region when not "") and returns the
// status and the body (an event stream's last data).
func (p *rawPoster) post(t *testing.T, method, name, header, params string) (int, string) {
	t.Helper()
	return p.send(t, method, name, header, params, true)
}

func (p *rawPoster) send(t *testing.T, method, name, header, params string, call bool) (int, string) {
	t.Helper()
	var msg map[string]any
	if err := json.Unmarshal([]byte(params), &msg); err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	switch {
	case p.session != "":
		h.Set("Mcp-Session-Id", p.session)
		h.Set("Mcp-Protocol-Version", "2025-11-25")
	case method != "initialize":
		h.Set("Mcp-Protocol-Version", "2026-07-28")
		h.Set("Mcp-Method", method)
		if name != "" {
			h.Set("Mcp-Name", name)
		}
		meta, _ := msg["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["io.modelcontextprotocol/protocolVersion"] = "2026-07-28"
		meta["io.modelcontextprotocol/clientCapabilities"] = map[string]any{}
		msg["_meta"] = meta
	}
	if header != "" {
		h.Set("Mcp-Param-Region", header)
	}
	envelope := map[string]any{"jsonrpc": "2.0", "method": method, "params": msg}
	if call {
		p.next++
		envelope["id"] = p.next
	}
	b, _ := json.Marshal(envelope)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		p.session = sid
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var last string
		for line := range strings.Lines(string(data)) {
			if d, ok := strings.CutPrefix(line, "data:"); ok && strings.TrimSpace(d) != "" {
				last = strings.TrimSpace(d)
			}
		}
		return resp.StatusCode, last
	}
	return resp.StatusCode, string(data)
}

// resultOf returns the raw result of a JSON-RPC answer, failing the test on an error.
func resultOf(t *testing.T, body string) string {
	t.Helper()
	var m struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || m.Result == nil {
		t.Fatalf("not a JSON-RPC result: %v: %.500s", err, body)
	}
	return string(m.Result)
}
