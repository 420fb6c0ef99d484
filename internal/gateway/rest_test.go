package gateway_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

const restConfig = `
servers:
  tools:
    kind: command
    description: REST test server
    tools:
      greet:
        description: greets someone
        argv: [echo, hello, {direct: name}]
        inputSchema:
          type: object
          properties: {name: {type: string}}
          required: [name]
    resources:
      readme: {uri: "doc://readme", text: "read me"}
    prompts:
      ask:
        description: asks a question
        arguments: [{name: topic, required: true}]
        messages: [{role: user, text: "Tell me about {{topic}}"}]
`

// restDo sends one request to a REST route and decodes its JSON answer.
func restDo(t *testing.T, client *http.Client, method, url, body string, header map[string]string) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, url, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: Content-Type %q, body %s", method, url, ct, b)
	}
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return resp.StatusCode, out
}

// The REST routes of seed 003 answer from the same sources as /mcp/{server}, with errors
// as JSON that say what to do.
func TestRESTRoutes(t *testing.T) {
	srv := gatewaytest.Start(t, restConfig, gateway.Options{})
	base := srv.URL + "/api/mcp/tools"

	status, out := restDo(t, nil, "GET", base+"/tools", "", nil)
	if tools, _ := out["tools"].([]any); status != 200 || len(tools) != 1 || tools[0].(map[string]any)["name"] != "greet" {
		t.Errorf("tools = %d %v", status, out)
	}

	status, out = restDo(t, nil, "POST", base+"/tools/call", `{"name":"greet","arguments":{"name":"Ada"}}`, nil)
	if c, _ := out["content"].([]any); status != 200 || len(c) != 1 || !strings.Contains(c[0].(map[string]any)["text"].(string), "hello Ada") || out["isError"] == true {
		t.Errorf("call = %d %v", status, out)
	}
	// Invalid arguments are a tool result with isError, as over MCP.
	status, out = restDo(t, nil, "POST", base+"/tools/call", `{"name":"greet","arguments":{}}`, nil)
	if status != 200 || out["isError"] != true {
		t.Errorf("call without the required argument = %d %v", status, out)
	}

	status, out = restDo(t, nil, "GET", base+"/resources", "", nil)
	if rs, _ := out["resources"].([]any); status != 200 || len(rs) != 1 || rs[0].(map[string]any)["uri"] != "doc://readme" {
		t.Errorf("resources = %d %v", status, out)
	}
	status, out = restDo(t, nil, "POST", base+"/resources/read", `{"uri":"doc://readme"}`, nil)
	if c, _ := out["contents"].([]any); status != 200 || len(c) != 1 || c[0].(map[string]any)["text"] != "read me" {
		t.Errorf("read = %d %v", status, out)
	}

	status, out = restDo(t, nil, "GET", base+"/prompts", "", nil)
	if ps, _ := out["prompts"].([]any); status != 200 || len(ps) != 1 {
		t.Errorf("prompts = %d %v", status, out)
	}
	status, out = restDo(t, nil, "POST", base+"/prompts/get", `{"name":"ask","arguments":{"topic":"owls"}}`, nil)
	if b, _ := json.Marshal(out); status != 200 || !strings.Contains(string(b), "Tell me about owls") {
		t.Errorf("prompt = %d %s", status, b)
	}

	status, out = restDo(t, nil, "POST", base+"/initialize", "", nil)
	if info, _ := out["serverInfo"].(map[string]any); status != 200 || info["name"] != "mcpbridge-tools" || out["capabilities"] == nil {
		t.Errorf("initialize = %d %v", status, out)
	}

	status, out = restDo(t, nil, "GET", base+"/openapi.json", "", nil)
	if paths, _ := out["paths"].(map[string]any); status != 200 || out["openapi"] != "3.1.0" || len(paths) != 7 || paths["/api/mcp/tools/tools/call"] == nil {
		t.Errorf("openapi = %d %v", status, out)
	}

	// Errors: JSON with a status and a message saying what to do.
	for _, c := range []struct {
		name, method, url, body string
		header                  map[string]string
		status                  int
		want                    string
	}{
		{"unknown tool", "POST", base + "/tools/call", `{"name":"nope","arguments":{}}`, nil, 404, "GET /api/mcp/tools/tools lists the tools"},
		{"no name", "POST", base + "/tools/call", `{"arguments":{}}`, nil, 400, `needs "name"`},
		{"not JSON", "POST", base + "/tools/call", `name=greet`, nil, 400, "not the JSON object"},
		{"two values", "POST", base + "/tools/call", `{"name":"greet","arguments":{"name":"a"}} {"name":"greet"}`, nil, 400, "more than one JSON value"},
		{"wrong content type", "POST", base + "/tools/call", `{}`, map[string]string{"Content-Type": "text/plain"}, 415, "as JSON"},
		{"unknown resource", "POST", base + "/resources/read", `{"uri":"doc://nope"}`, nil, 404, "lists them"},
		{"unknown prompt", "POST", base + "/prompts/get", `{"name":"nope"}`, nil, 404, "lists the prompts"},
		{"unknown server", "GET", srv.URL + "/api/mcp/nope/tools", "", nil, 404, "GET /mcp lists the servers"},
		{"unknown route", "GET", base + "/everything", "", nil, 404, "the routes of a server are"},
		{"wrong method", "GET", base + "/tools/call", "", nil, 404, "with the method shown"},
		{"foreign origin", "GET", base + "/tools", "", map[string]string{"Origin": "https://evil.example"}, 403, ""},
		{"foreign host", "GET", base + "/tools", "", map[string]string{"Host": "evil.example"}, 403, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, c.url, strings.NewReader(c.body))
			if c.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			for k, v := range c.header {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			var e struct{ Error string }
			if resp.StatusCode != c.status || json.Unmarshal(b, &e) != nil || e.Error == "" || !strings.Contains(e.Error, c.want) {
				t.Errorf("%d %s, want %d with a JSON error containing %q", resp.StatusCode, b, c.status, c.want)
			}
		})
	}
}

// The REST routes apply the same authentication and roles as the MCP endpoint: no
// credentials 401, a principal without the server's role 403, tools filtered by role and
// calls checked.
func TestRESTRoutesAuth(t *testing.T) {
	f := newAuthFixture(t)
	url := f.srv.URL + "/api/mcp/crm"
	if status, out := restDo(t, nil, "GET", url+"/tools", "", nil); status != 401 || out["error"] == nil {
		t.Errorf("no credentials: %d %v", status, out)
	}
	as := func(user string) *http.Client { return &http.Client{Transport: bearer(f.secret[user])} }
	if status, out := restDo(t, as("nobody"), "GET", url+"/tools", "", nil); status != 403 {
		t.Errorf("intern: %d %v", status, out)
	}
	_, out := restDo(t, as("alice"), "GET", url+"/tools", "", nil)
	if tools, _ := out["tools"].([]any); len(tools) != 1 || tools[0].(map[string]any)["name"] != "read" {
		t.Errorf("alice (sales) sees %v, want only read", out)
	}
	if status, out := restDo(t, as("alice"), "POST", url+"/tools/call", `{"name":"wipe"}`, nil); status != 404 {
		t.Errorf("alice calling wipe (admin only): %d %v", status, out)
	}
	if status, out := restDo(t, as("root"), "POST", url+"/tools/call", `{"name":"wipe"}`, nil); status != 200 || out["isError"] == true {
		t.Errorf("root calling wipe: %d %v", status, out)
	}
}

// The /mcp index lists each server's tools by name — only those the caller may call, on
// servers it may use.
func TestIndexListsTools(t *testing.T) {
	f := newAuthFixture(t)
	index := func(user string) map[string][]any {
		t.Helper()
		var c *http.Client
		if user != "" {
			c = &http.Client{Transport: bearer(f.secret[user])}
		}
		status, out := restDo(t, c, "GET", f.srv.URL+"/mcp", "", map[string]string{"Accept": "application/json"})
		if status != 200 {
			t.Fatalf("GET /mcp as %q: %d", user, status)
		}
		names := map[string][]any{}
		for _, s := range out["servers"].([]any) {
			m := s.(map[string]any)
			n, _ := m["toolNames"].([]any)
			names[m["name"].(string)] = n
		}
		return names
	}
	anon := index("")
	if len(anon["open"]) != 1 || anon["open"][0] != "hello" || len(anon["crm"]) != 0 {
		t.Errorf("anonymous sees %v, want hello on open and nothing of crm", anon)
	}
	alice := index("alice")
	if len(alice["crm"]) != 1 || alice["crm"][0] != "read" {
		t.Errorf("alice (sales) sees %v of crm, want read only", alice["crm"])
	}
	root := index("root")
	if len(root["crm"]) != 2 {
		t.Errorf("root (admin) sees %v of crm, want read and wipe", root["crm"])
	}
}
