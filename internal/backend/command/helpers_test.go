package command_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

// open parses a config holding one command server named s and opens its backend.
func open(t testing.TB, yaml string) backend.Backend {
	t.Helper()
	dir := t.TempDir()
	cfg, err := config.Parse("test.yaml", dir, []byte(yaml), backend.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	b, err := backend.Open(context.Background(), cfg.Servers["s"], backend.Deps{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// call runs tool name with raw JSON arguments through the backend.
func call(t *testing.T, b backend.Backend, name, raw string) *mcp.CallToolResult {
	t.Helper()
	return callCtx(context.Background(), t, b, name, raw)
}

func callCtx(ctx context.Context, t *testing.T, b backend.Backend, name, raw string) *mcp.CallToolResult {
	t.Helper()
	r, err := b.CallTool(ctx, &backend.Call{Name: name, Arguments: json.RawMessage(raw), Session: backend.NoSession{}})
	if err != nil {
		t.Fatalf("CallTool %s: %v", name, err)
	}
	return r
}

// text joins the text contents of a result.
func text(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "")
}
