package transform_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
	"github.com/mcpbridge/mcpbridge/internal/transform"
)

// connect starts a gateway for yaml with the files in dir and connects an MCP client to
// server s.
func connect(t *testing.T, files map[string]string, yaml string) (*mcp.ClientSession, string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv := gatewaytest.StartIn(t, dir, yaml, gateway.Options{})
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/s", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, srv.URL
}

// Generated resources and prompts are served by the gateway as configured ones are (read,
// get with arguments, a prompt embedding a generated resource); a bad entry is left out;
// generated tools are listed marked generated.
func TestGatewayServesGeneratedLists(t *testing.T) {
	cs, base := connect(t, map[string]string{
		"res.js": `export default function (serverName) {
  return [
    {name: "readme", uri: "docs://s/readme", mimeType: "text/markdown", text: "# from " + serverName},
    {name: "empty", uri: "docs://s/empty"},
  ];
}`,
		"prompts.js": `export default () => [
  {name: "greet", description: "Greet someone", arguments: [{name: "who", required: true}], messages: [{role: "user", text: "Hello {{who}}"}]},
  {name: "embed", description: "The readme", messages: [{role: "user", resource: "docs://s/readme"}]},
  {name: "bad", description: "no messages", messages: []},
]`,
		"tools.js": `export default () => [{name: "gen", description: "generated", argv: ["echo", "gen"]}]`,
	}, `
servers:
  s:
    kind: command
    tools_transform: tools.js
    resources_transform: res.js
    prompts_transform_cid: prompts.js
    tools:
      static: {description: written, argv: [echo, static]}
`)
	ctx := context.Background()
	rs, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range rs.Resources {
		uris = append(uris, r.URI)
	}
	if !slices.Equal(uris, []string{"docs://s/readme"}) {
		t.Fatalf("resources = %v, want only docs://s/readme", uris)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://s/readme"})
	if err != nil || rr.Contents[0].Text != "# from s" {
		t.Fatalf("read = %v, %v", rr, err)
	}
	ps, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range ps.Prompts {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"embed", "greet"}) {
		t.Fatalf("prompts = %v, want embed, greet", names)
	}
	gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "Ann"}})
	if err != nil || gp.Messages[0].Content.(*mcp.TextContent).Text != "Hello Ann" {
		t.Fatalf("greet = %v, %v", gp, err)
	}
	gp, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "embed"})
	if err != nil {
		t.Fatal(err)
	}
	if er, ok := gp.Messages[0].Content.(*mcp.EmbeddedResource); !ok || er.Resource.Text != "# from s" {
		t.Fatalf("embed = %#v", gp.Messages[0].Content)
	}
	ts, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range ts.Tools {
		if gen := tl.Meta[transform.MetaGenerated] != nil; gen != (tl.Name == "gen") {
			t.Errorf("tool %s: _meta %v", tl.Name, tl.Meta)
		}
	}
	if len(ts.Tools) != 2 {
		t.Errorf("tools = %d, want 2", len(ts.Tools))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "gen", Arguments: map[string]any{}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "gen\n" {
		t.Fatalf("call gen = %v, %v", res, err)
	}
	// The REST routes answer from the same lists.
	rest := func(method, path, body string) string {
		t.Helper()
		req, _ := http.NewRequest(method, base+"/api/mcp/s/"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		return string(b)
	}
	if got := rest("GET", "tools", ""); !strings.Contains(got, `"name":"gen"`) || !strings.Contains(got, `"io.mcpbridge/generated":"tools.js"`) {
		t.Errorf("GET tools = %s", got)
	}
	if got := rest("POST", "tools/call", `{"name": "gen", "arguments": {}}`); !strings.Contains(got, `gen\n`) {
		t.Errorf("POST tools/call = %s", got)
	}
	if got := rest("GET", "resources", ""); !strings.Contains(got, "docs://s/readme") {
		t.Errorf("GET resources = %s", got)
	}
	if got := rest("POST", "resources/read", `{"uri": "docs://s/readme"}`); !strings.Contains(got, "# from s") {
		t.Errorf("POST resources/read = %s", got)
	}
	if got := rest("POST", "prompts/get", `{"name": "greet", "arguments": {"who": "Bo"}}`); !strings.Contains(got, "Hello Bo") {
		t.Errorf("POST prompts/get = %s", got)
	}
}

// The server page marks generated tools and says why a transform failed.
func TestServerPage(t *testing.T) {
	page := func(module string) string {
		t.Helper()
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "gen.js"), []byte(module), 0o600); err != nil {
			t.Fatal(err)
		}
		srv := gatewaytest.StartIn(t, dir, `
servers:
  s:
    kind: command
    tools_transform: gen.js
    tools:
      static: {description: written, argv: [echo, static]}
`, gateway.Options{})
		resp, err := http.Get(srv.URL + "/mcp/meta/s")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ok := page(`export default () => [{name: "gen", description: "generated", argv: ["echo", "gen"]}]`)
	if strings.Count(ok, `title="generated by gen.js">generated</span>`) != 1 || strings.Contains(ok, "transform failed") {
		t.Errorf("page of a working transform: want one tool marked generated by gen.js, no failure:\n%s", ok)
	}
	failed := page(`export default () => { throw new Error("no <tools>") }`)
	if !strings.Contains(failed, "transform failed") || !strings.Contains(failed, "threw Error: no &lt;tools&gt;") || strings.Contains(failed, ">generated</span>") {
		t.Errorf("page of a failed transform: want the escaped error and no generated tool:\n%s", failed)
	}
}
