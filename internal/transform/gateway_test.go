package transform_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
	"github.com/mcpbridge/mcpbridge/internal/transform"
)

// connect starts a gateway for yaml with the files in dir and connects an MCP client to
// server s.
func connect(t *testing.T, files map[string]string, yaml string) *mcp.ClientSession {
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
	return cs
}

// Generated resources and prompts are served by the gateway as configured ones are (read,
// get with arguments, a prompt embedding a generated resource); a bad entry is left out;
// generated tools are listed marked generated.
func TestGatewayServesGeneratedLists(t *testing.T) {
	cs := connect(t, map[string]string{
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
}
