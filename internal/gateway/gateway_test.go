package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	_ "github.com/mcpbridge/mcpbridge/internal/backend/all"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

const testConfig = `
origins: [https://allowed.example]
variables:
  greeting: hello variable
  settings: {a: 1}
limits: {page_size: 2}
servers:
  demo:
    kind: command
    description: "Demo <b>tools</b>"
    tools:
      echo:
        description: Echo a message back
        inputSchema: {type: object, properties: {message: {type: string}, n: {type: integer}}, required: [message]}
        argv: [echo, {direct: message}]
      count:
        description: count words of stdin
        inputSchema: {type: object, properties: {text: {type: string}}, required: [text]}
        argv: [wc, -w]
        stdin: {direct: text}
      fail:
        description: exits 3 with a message on stderr
        inputSchema: {type: object}
        argv: [sh, -c, "echo broken >&2; exit 3"]
      slow:
        description: sleeps
        inputSchema: {type: object, properties: {secs: {type: string}}}
        argv: [sleep, {direct: secs}]
        timeout: 300ms
      big:
        description: prints a lot
        inputSchema: {type: object}
        argv: [sh, -c, "yes 0123456789 | head -c 5000"]
        max_output: 100
      binary:
        description: prints binary bytes
        inputSchema: {type: object}
        argv: [printf, '\377\376\000\001']
      args:
        description: prints its args one per line
        inputSchema: {type: object, properties: {list: {type: array, items: {type: string}}, obj: {type: object}, flag: {type: boolean}, num: {type: number}}}
        argv: [printf, '%s\n', {direct: list}, {direct: obj}, {direct: flag}, {direct: num}]
      shout:
        description: upper-cases through an expression
        inputSchema: {type: object, properties: {a: {type: string}}, required: [a]}
        argv: [echo, {expression: "args.a.toUpperCase() + '!'"}]
      badexpr:
        description: an expression that throws
        inputSchema: {type: object}
        argv: [echo, {expression: "args.missing.deeper"}]
      envtool:
        description: prints env
        inputSchema: {type: object, properties: {v: {type: string}}}
        argv: [env]
        env: {MY_VAR: {direct: v}, FIXED: fixed}
    resources:
      text: {uri: "docs://demo/text", name: text, mimeType: text/plain, text: "inline text"}
      file: {uri: "docs://demo/file", name: file, file: data.txt}
      escape: {uri: "docs://demo/escape", name: escape, file: link.txt}
      blob: {uri: "docs://demo/blob", name: blob, mimeType: application/octet-stream, blob: AAEC/w==}
      var: {uri: "variable://greeting", name: greeting}
      varjson: {uri: "variable://settings", name: settings}
      out: {uri: "server://demo/echo?message=from%20resource", name: out}
    prompts:
      greet:
        description: Greet someone
        arguments: [{name: who, required: true}, {name: mood}]
        messages: [{role: user, text: "Say hello to {{who}} {{ mood }}"}]
  off:
    kind: command
    description: disabled server
    enabled: false
    tools:
      echo: {description: e, argv: [echo]}
  uname:
    kind: command
    description: uname
    auto_discover: true
    allow_options: true
    argv: [uname]
`

func newTestGateway(t *testing.T) (*gateway.Gateway, *gatewaytest.Server) {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "data.txt"), []byte("file content"), 0o644)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("secret"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "link.txt"))
	srv := gatewaytest.StartIn(t, dir, testConfig, gateway.Options{Version: "test"})
	return srv.Gateway, srv
}

func connect(t *testing.T, url, version string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s (%s): %v", url, version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(t *testing.T, r *mcp.CallToolResult) string {
	t.Helper()
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "")
}

var eras = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// T8.1, T8.2, T5.1, T5.7: full session, list tools and call echo, in every protocol version.
func TestT8_FullFlowEveryEra(t *testing.T) {
	_, srv := newTestGateway(t)
	for _, v := range eras {
		t.Run(v, func(t *testing.T) {
			cs := connect(t, srv.URL+"/mcp/demo", v)
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Errorf("negotiated %s, want %s", got, v)
			}
			var names []string
			for tool, err := range cs.Tools(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, tool.Name)
			}
			want := "args badexpr big binary count echo envtool fail shout slow"
			if strings.Join(names, " ") != want {
				t.Errorf("tools = %v, want %s", names, want)
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "héllo ✓ <script>"}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError || text(t, res) != "héllo ✓ <script>\n" {
				t.Errorf("echo = %q (isError %v)", text(t, res), res.IsError)
			}
		})
	}
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func TestT5_ToolCalls(t *testing.T) {
	_, srv := newTestGateway(t)
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			cs := connect(t, srv.URL+"/mcp/demo", v)
			// T5.2: missing required argument.
			r := call(t, cs, "echo", map[string]any{})
			if !r.IsError || !strings.Contains(text(t, r), "message") {
				t.Errorf("T5.2 missing arg: %q isError=%v", text(t, r), r.IsError)
			}
			// wrong type
			r = call(t, cs, "echo", map[string]any{"message": "x", "n": "seven"})
			if !r.IsError || !strings.Contains(text(t, r), "n") {
				t.Errorf("wrong type: %q", text(t, r))
			}
			// T5.4: unknown tool is a JSON-RPC -32602 error.
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}})
			if err == nil || !strings.Contains(err.Error(), "unknown tool") {
				t.Errorf("T5.4 unknown tool: %v", err)
			}
			// T5.5: failing command.
			r = call(t, cs, "fail", map[string]any{})
			if !r.IsError || !strings.Contains(text(t, r), "exit code 3") || !strings.Contains(text(t, r), "broken") {
				t.Errorf("T5.5: %q", text(t, r))
			}
			// T12.5: timeout.
			start := time.Now()
			r = call(t, cs, "slow", map[string]any{"secs": "10"})
			if !r.IsError || !strings.Contains(text(t, r), "timed out") || time.Since(start) > 5*time.Second {
				t.Errorf("T12.5: %q after %s", text(t, r), time.Since(start))
			}
			// T13.2: large output is cut with a note.
			r = call(t, cs, "big", map[string]any{})
			if r.IsError || !strings.Contains(text(t, r), "output truncated: 4900 more bytes") || !strings.HasPrefix(text(t, r), "0123456789") {
				t.Errorf("T13.2: %q", text(t, r))
			}
			// T5.8: binary output as base64 blob.
			r = call(t, cs, "binary", map[string]any{})
			if len(r.Content) != 1 {
				t.Fatalf("T5.8: %d contents", len(r.Content))
			}
			if er, ok := r.Content[0].(*mcp.EmbeddedResource); !ok || !bytes.Equal(er.Resource.Blob, []byte{0xff, 0xfe, 0, 1}) {
				t.Errorf("T5.8: %#v", r.Content[0])
			}
			// T13.1/T13.5/T13.6/T13.7: empty, nested, array and null arguments.
			r = call(t, cs, "args", map[string]any{"list": []string{"a b", "c"}, "obj": map[string]any{"k": []int{1}}, "flag": true, "num": 2.5})
			if got := text(t, r); got != "a b\nc\n{\"k\":[1]}\ntrue\n2.5\n" {
				t.Errorf("args = %q", got)
			}
			r = call(t, cs, "args", map[string]any{})
			if r.IsError || text(t, r) != "\n" {
				t.Errorf("empty args = %q", text(t, r))
			}
			r = call(t, cs, "shout", map[string]any{"a": "hey"})
			if text(t, r) != "HEY!\n" {
				t.Errorf("expression argv: %q", text(t, r))
			}
			r = call(t, cs, "badexpr", map[string]any{})
			if !r.IsError || !strings.Contains(text(t, r), "TypeError") || !strings.Contains(text(t, r), "1:") {
				t.Errorf("expression error: %q", text(t, r))
			}
			r = call(t, cs, "count", map[string]any{"text": "one two three"})
			if strings.TrimSpace(text(t, r)) != "3" {
				t.Errorf("stdin: %q", text(t, r))
			}
			// env allow-list: only the mapped variables plus PATH.
			t.Setenv("LEAK_ME", "leaked")
			r = call(t, cs, "envtool", map[string]any{"v": "value"})
			got := text(t, r)
			if !strings.Contains(got, "MY_VAR=value") || !strings.Contains(got, "FIXED=fixed") || strings.Contains(got, "LEAK_ME") || strings.Contains(got, "HOME=") {
				t.Errorf("env: %q", got)
			}
		})
	}
}

// T4.2/T11.2: auto_discover gives one tool named after the server with an args array.
func TestT11_AutoDiscover(t *testing.T) {
	_, srv := newTestGateway(t)
	cs := connect(t, srv.URL+"/mcp/uname", "2025-11-25")
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(res.Tools) != 1 || res.Tools[0].Name != "uname" {
		t.Fatalf("tools: %v %v", res, err)
	}
	r := call(t, cs, "uname", map[string]any{"args": []string{"-s"}})
	if strings.TrimSpace(text(t, r)) != "Linux" {
		t.Errorf("uname -s = %q", text(t, r))
	}
}

// T4.5: lists paginate with cursors at the configured page size.
func TestT4_5_Pagination(t *testing.T) {
	_, srv := newTestGateway(t)
	cs := connect(t, srv.URL+"/mcp/demo", "2025-11-25")
	first, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Tools) != 2 || first.NextCursor == "" {
		t.Fatalf("first page: %d tools, cursor %q", len(first.Tools), first.NextCursor)
	}
	second, err := cs.ListTools(context.Background(), &mcp.ListToolsParams{Cursor: first.NextCursor})
	if err != nil || len(second.Tools) != 2 || second.Tools[0].Name == first.Tools[0].Name {
		t.Fatalf("second page: %v %v", second, err)
	}
}

// T6: resources of every source.
func TestT6_Resources(t *testing.T) {
	_, srv := newTestGateway(t)
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			cs := connect(t, srv.URL+"/mcp/demo", v)
			var uris []string
			for r, err := range cs.Resources(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				uris = append(uris, r.URI)
			}
			if len(uris) != 7 {
				t.Errorf("T6.1: %v", uris)
			}
			read := func(uri string) (*mcp.ResourceContents, error) {
				res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
				if err != nil {
					return nil, err
				}
				return res.Contents[0], nil
			}
			for uri, want := range map[string]string{
				"docs://demo/text":                           "inline text",
				"docs://demo/file":                           "file content",
				"variable://greeting":                        "hello variable",
				"variable://settings":                        "{\n  \"a\": 1\n}",
				"server://demo/echo?message=from%20resource": "from resource\n",
			} {
				c, err := read(uri)
				if err != nil || c.Text != want {
					t.Errorf("read %s = %v, %v; want %q", uri, c, err, want)
				}
			}
			c, err := read("docs://demo/blob")
			if err != nil || !bytes.Equal(c.Blob, []byte{0, 1, 2, 255}) {
				t.Errorf("T6.3 blob: %v %v", c, err)
			}
			// A symlink leading out of the config directory is refused.
			if c, err := read("docs://demo/escape"); err == nil {
				t.Errorf("escape: read %q", c.Text)
			}
			// T6.5
			if _, err := read("docs://demo/missing"); err == nil {
				t.Error("T6.5: missing resource read without error")
			}
		})
	}
}

// T7: prompts.
func TestT7_Prompts(t *testing.T) {
	_, srv := newTestGateway(t)
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			cs := connect(t, srv.URL+"/mcp/demo", v)
			ps, err := cs.ListPrompts(context.Background(), nil)
			if err != nil || len(ps.Prompts) != 1 || len(ps.Prompts[0].Arguments) != 2 {
				t.Fatalf("T7.1: %v %v", ps, err)
			}
			res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "Ada", "mood": "warmly"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Messages[0].Content.(*mcp.TextContent).Text; got != "Say hello to Ada warmly" {
				t.Errorf("T7.3: %q", got)
			}
			_, err = cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{}})
			if err == nil || !strings.Contains(err.Error(), "-32602") && !strings.Contains(err.Error(), "missing required argument") {
				t.Errorf("T7.5 missing arg: %v", err)
			}
			if _, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "nope"}); err == nil {
				t.Error("T7.4: unknown prompt without error")
			}
		})
	}
}

func post(t *testing.T, url string, hdr map[string]string, body string) (*http.Response, map[string]any) {
	t.Helper()
	resp, b := rawPost(t, http.DefaultClient, url, hdr, body)
	var m map[string]any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("body is not JSON: %q", b)
		}
	}
	return resp, m
}

func rpcCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// T2, T9.7, T12, T14: HTTP-level errors are well-formed JSON-RPC error objects.
func TestT12_ProtocolErrors(t *testing.T) {
	_, srv := newTestGateway(t)
	u := srv.URL + "/mcp/demo"
	cases := []struct {
		name   string
		hdr    map[string]string
		body   string
		status int
		code   float64
	}{
		{"T12.1 invalid JSON", nil, `{"jsonrpc":"2.0",`, 400, -32700},
		{"T2.2 wrong jsonrpc version", nil, `{"jsonrpc":"1.0","id":1,"method":"initialize"}`, 400, -32600},
		{"T2.3 missing method", nil, `{"jsonrpc":"2.0","id":1}`, 400, -32600},
		{"not an object", nil, `"hello"`, 400, -32600},
		{"T9.7 content type", map[string]string{"Content-Type": "text/plain"}, `{}`, 415, -32600},
		{"T14.4 bad origin", map[string]string{"Origin": "https://evil.example"}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 403, -32600},
		{"no session", nil, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 400, -32600},
		{"T14.5 bogus session", map[string]string{"Mcp-Session-Id": "forged", "MCP-Protocol-Version": "2025-11-25"}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 404, -32600},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, m := post(t, u, c.hdr, c.body)
			if resp.StatusCode != c.status || rpcCode(m) != c.code || m["jsonrpc"] != "2.0" {
				t.Errorf("status %d body %v; want %d code %v", resp.StatusCode, m, c.status, c.code)
			}
		})
	}
	// T9.x body too large.
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 5<<20) + `"}}`
	resp, m := post(t, u, nil, big)
	if resp.StatusCode != 413 || rpcCode(m) != -32600 {
		t.Errorf("413: %d %v", resp.StatusCode, m)
	}
	// T9.6, T14.4: an allowed origin passes and gets CORS headers; preflight is answered.
	resp, _ = post(t, u, map[string]string{"Origin": "https://allowed.example"}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "https://allowed.example" || !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id") {
		t.Errorf("allowed origin: %d %v", resp.StatusCode, resp.Header)
	}
	pre, _ := http.NewRequest("OPTIONS", u, nil)
	pre.Header.Set("Origin", "https://allowed.example")
	pre.Header.Set("Access-Control-Request-Method", "POST")
	presp, err := http.DefaultClient.Do(pre)
	if err != nil || presp.StatusCode != 204 || !strings.Contains(presp.Header.Get("Access-Control-Allow-Headers"), "Mcp-Session-Id") {
		t.Errorf("preflight: %v %v", presp, err)
	}
	pre.Header.Set("Origin", "https://evil.example")
	presp, _ = http.DefaultClient.Do(pre)
	if presp.StatusCode != 403 || presp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("evil preflight: %d", presp.StatusCode)
	}
	// T12.2: unknown method in a session is -32601.
	resp, _ = post(t, u, nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("T9.5: no Mcp-Session-Id")
	}
	h := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
	post(t, u, h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r2, b := rawPost(t, http.DefaultClient, u, h, `{"jsonrpc":"2.0","id":7,"method":"no/such"}`)
	if !strings.Contains(string(b), "-32601") {
		t.Errorf("T12.2: %d %s", r2.StatusCode, b)
	}
	// A session minted on /mcp/demo is not honoured on /mcp/uname.
	resp, m = post(t, srv.URL+"/mcp/uname", h, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if resp.StatusCode != 404 || rpcCode(m) != -32600 {
		t.Errorf("cross-server session: %d %v", resp.StatusCode, m)
	}
}

// T12.6, T14.1, T5.6, T14.3: unknown, traversal and disabled servers.
func TestT14_ServerNames(t *testing.T) {
	_, srv := newTestGateway(t)
	for _, p := range []string{"/mcp/nope", "/mcp/..%2Fetc", "/mcp/%2e%2e", "/mcp/off", "/mcp/UPPER", "/mcp/a/b/c"} {
		resp, m := post(t, srv.URL+p, nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
		if resp.StatusCode != 404 || m == nil {
			t.Errorf("%s: %d %v", p, resp.StatusCode, m)
		}
		if p == "/mcp/off" && !strings.Contains(m["error"].(map[string]any)["message"].(string), "disabled") {
			t.Errorf("disabled message: %v", m)
		}
	}
}

// T14.2: script in a tool's arguments or in a URL never reaches a browser as HTML. MCP
// answers are JSON or an event stream (never text/html, and never sniffed as HTML), and the
// pages and their error answers escape what the request carried. (The try-it form of the
// meta page shows a result with <script> as text: e2e TestPagesChromium, in Chromium.)
func TestT14_2_ScriptInjection(t *testing.T) {
	_, srv := newTestGateway(t)
	const script = `<script>alert("x")</script><img src=x onerror=alert(1)>`
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		hdr := map[string]string{"MCP-Protocol-Version": era}
		if era < "2026-07-28" {
			resp, _ := post(t, srv.URL+"/mcp/demo", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+era+`","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
			hdr["Mcp-Session-Id"] = resp.Header.Get("Mcp-Session-Id")
		}
		params := map[string]any{"name": "echo", "arguments": map[string]any{"message": script}}
		if era >= "2026-07-28" {
			params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": era, "io.modelcontextprotocol/clientInfo": map[string]any{"name": "x", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
			hdr["Mcp-Method"], hdr["Mcp-Name"] = "tools/call", "echo"
		}
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
		resp, body := rawPost(t, http.DefaultClient, srv.URL+"/mcp/demo", hdr, string(msg))
		ct := resp.Header.Get("Content-Type")
		if resp.StatusCode != 200 || !(strings.HasPrefix(ct, "application/json") || strings.HasPrefix(ct, "text/event-stream")) {
			t.Errorf("%s: tools/call with script: %d %q", era, resp.StatusCode, ct)
		}
		if strings.Contains(string(body), "<script>") {
			t.Errorf("%s: the answer holds the script unescaped in JSON (want \\u003c): %s", era, body)
		}
		if !strings.Contains(string(body), `\u003cscript\u003e`) {
			t.Errorf("%s: the answer does not echo the script (escaped): %s", era, body)
		}
	}
	q := url.QueryEscape(script)
	for _, p := range []string{"/mcp/meta/" + url.PathEscape(script), "/mcp/meta/demo?tool=" + q, "/mcp?x=" + q, "/mcp/" + url.PathEscape(script)} {
		for _, accept := range []string{"text/html", "application/json"} {
			req, _ := http.NewRequest("GET", srv.URL+p, nil)
			req.Header.Set("Accept", accept)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Contains(string(body), "<script>alert") || strings.Contains(string(body), "<img src=x") {
				t.Errorf("GET %s (%s): %d %s holds the script unescaped:\n%.600s", p, accept, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") && !strings.Contains(resp.Header.Get("Content-Security-Policy"), "script-src 'self'") {
				t.Errorf("GET %s: an HTML answer without the Content-Security-Policy", p)
			}
		}
	}
}

// T9.2: a browser GET on the endpoint redirects to the meta page; pages escape user text.
func TestT9_PagesAndRedirect(t *testing.T) {
	_, srv := newTestGateway(t)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest("GET", srv.URL+"/mcp/demo", nil)
	req.Header.Set("Accept", "text/html")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/mcp/meta/demo" {
		t.Errorf("redirect: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, p := range []string{"/mcp", "/mcp/meta/demo"} {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), "Demo &lt;b&gt;tools&lt;/b&gt;") || strings.Contains(string(b), "<b>tools") {
			t.Errorf("%s: %d escaping wrong", p, resp.StatusCode)
		}
		if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "script-src 'self'") {
			t.Errorf("%s: no CSP", p)
		}
	}
	resp, _ = http.Get(srv.URL + "/mcp/meta/nope")
	if resp.StatusCode != 404 {
		t.Errorf("unknown meta: %d", resp.StatusCode)
	}
}

// T9.4: the legacy HTTP+SSE transport at /mcp/{server}/sse.
func TestT9_4_LegacySSE(t *testing.T) {
	_, srv := newTestGateway(t)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.SSEClientTransport{Endpoint: srv.URL + "/mcp/demo/sse"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	r := call(t, cs, "echo", map[string]any{"message": "over sse"})
	if text(t, r) != "over sse\n" {
		t.Errorf("sse echo: %q", text(t, r))
	}
}

// T13.4: concurrent calls in both eras.
func TestT13_4_Concurrent(t *testing.T) {
	_, srv := newTestGateway(t)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := eras[i%len(eras)]
			c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/demo"}, &mcp.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				errs <- err.Error()
				return
			}
			defer cs.Close()
			for j := range 5 {
				msg := strings.Repeat("x", i) + string(rune('a'+j))
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": msg}})
				if err != nil || res.IsError {
					errs <- "call failed"
					return
				}
				if got := res.Content[0].(*mcp.TextContent).Text; got != msg+"\n" {
					errs <- "wrong answer " + got
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// Progress notifications reach a client that sent a progress token.
func TestProgress(t *testing.T) {
	srv := gatewaytest.Start(t, `
servers:
  p:
    kind: command
    description: progress
    tools:
      wait: {description: waits, inputSchema: {type: object}, argv: [sleep, "2.2"]}
`, gateway.Options{})
	var mu sync.Mutex
	var got []float64
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, req.Params.Progress)
			mu.Unlock()
		},
	})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/p"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	p := &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}}
	p.SetProgressToken("tok")
	if _, err := cs.CallTool(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) < 2 || got[1] <= got[0] {
		t.Errorf("progress = %v, want at least two increasing values", got)
	}
}

func initBody(v string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
}

// sseResult extracts the JSON-RPC message from a (possibly event-stream) response body.
func sseResult(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	s := string(b)
	if i := strings.Index(s, "data: "); i >= 0 {
		s = s[i+6:]
		if j := strings.Index(s, "\n"); j >= 0 {
			s = s[:j]
		}
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not JSON-RPC: %q", b)
	}
	return m
}

// T3: initialize returns server info and capabilities, and negotiates the version.
func TestT3_Initialize(t *testing.T) {
	_, srv := newTestGateway(t)
	u := srv.URL + "/mcp/demo"
	do := func(v string) map[string]any {
		req, _ := http.NewRequest("POST", u, strings.NewReader(initBody(v)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return sseResult(t, resp)["result"].(map[string]any)
	}
	r := do("2025-06-18")
	caps := r["capabilities"].(map[string]any)
	for _, c := range []string{"tools", "resources", "prompts"} {
		if caps[c] == nil {
			t.Errorf("T3.3: capability %s missing: %v", c, caps)
		}
	}
	if r["serverInfo"].(map[string]any)["name"] != "mcpbridge-demo" || r["protocolVersion"] != "2025-06-18" {
		t.Errorf("T3.1/T3.2: %v", r)
	}
	if !strings.Contains(r["instructions"].(string), "Demo <b>tools</b>") {
		t.Errorf("instructions: %v", r["instructions"])
	}
	// T3.2: an unknown version negotiates a supported one.
	if got := do("1999-01-01")["protocolVersion"]; got == "1999-01-01" || got == nil {
		t.Errorf("T3.2 unknown version: %v", got)
	}
}

// /metrics exposes call counts by outcome, durations and open sessions; /healthz answers ok.
func TestMetricsAndHealth(t *testing.T) {
	_, srv := newTestGateway(t)
	cs := connect(t, srv.URL+"/mcp/demo", "2025-11-25")
	call(t, cs, "echo", map[string]any{"message": "x"})
	call(t, cs, "fail", map[string]any{})
	call(t, cs, "echo", map[string]any{})
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`mcpbridge_tool_calls_total{outcome="ok",server="demo",tool="echo"} 1`,
		`mcpbridge_tool_calls_total{outcome="tool_error",server="demo",tool="fail"} 1`,
		`mcpbridge_tool_calls_total{outcome="invalid_arguments",server="demo",tool="echo"} 1`,
		`mcpbridge_tool_call_duration_seconds_count{server="demo",tool="echo"} 2`,
		`mcpbridge_open_sessions 1`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	resp, _ = http.Get(srv.URL + "/healthz")
	hb, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || strings.TrimSpace(string(hb)) != "ok" || resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("healthz: %d %q", resp.StatusCode, hb)
	}
}
