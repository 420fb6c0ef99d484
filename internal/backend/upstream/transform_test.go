package upstream_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// An upstream's resources and prompts can be generated too (its tools come from the
// upstream): they are served beside the upstream's own.
func TestTransformResourcesPrompts(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"res.js": `export default (serverName, context) => [{name: "gen", uri: "docs://" + serverName + "/gen", mimeType: "text/plain", text: "generated for " + context.kind}]`,
		"p.js":   `export default () => [{name: "gen_prompt", description: "generated", messages: [{role: "user", text: "hi"}]}]`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv := gatewaytest.StartIn(t, dir, "servers:\n  up:\n    kind: mcp\n    description: d\n    resources_transform: res.js\n    prompts_transform: p.js\n"+stdioUpstream(t, nil, ""), gateway.Options{})
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/up", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	rs, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rs.Resources, func(r *mcp.Resource) bool { return r.URI == "docs://up/gen" }) || len(rs.Resources) < 2 {
		t.Fatalf("resources = %d, want the generated docs://up/gen beside the upstream's", len(rs.Resources))
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://up/gen"})
	if err != nil || rr.Contents[0].Text != "generated for mcp" {
		t.Fatalf("read = %v, %v", rr, err)
	}
	ps, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(ps.Prompts, func(p *mcp.Prompt) bool { return p.Name == "gen_prompt" }) {
		t.Fatalf("prompts lack gen_prompt")
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("the upstream's tools: %v, %v", tools, err)
	}
	// Its tools come from the upstream: a tools_transform is refused.
	_, err = config.Parse("t.yaml", dir, []byte("servers:\n  up:\n    kind: mcp\n    tools_transform: res.js\n    command: [x]\n"), backend.Kinds())
	if err == nil || !strings.Contains(err.Error(), "gets its tools elsewhere") {
		t.Errorf("tools_transform on kind mcp: %v", err)
	}
}
