package upstream_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// addDirectAskers adds the tools of the test server that ask the client the way servers
// written for the legacy protocol do: with requests in the middle of the call
// (ServerSession.Elicit, CreateMessage), which a 2026-07-28 session refuses ("cannot be
// sent while serving a request").
func addDirectAskers(srv *mcp.Server) {
	srv.AddTool(&mcp.Tool{Name: "ask_direct", Description: "asks the user and the model with requests", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			el, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
				Message:         "Your name?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
			})
			if err != nil {
				return nil, fmt.Errorf("elicitation failed: %w", err)
			}
			sm, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
			if err != nil {
				return nil, fmt.Errorf("sampling failed: %w", err)
			}
			said := ""
			if tc, ok := sm.Content.(*mcp.TextContent); ok {
				said = tc.Text
			}
			return textResult("name %v, model %s said %s", el.Content["name"], sm.Model, said), nil
		})
}

// directAnswer is what ask_direct answers a client of newClient.
const directAnswer = "name Ada, model test-model said hello from the model"

// mcpbridgeStdio starts `mcpbridge stdio SERVER` (this test binary, running the real
// command) with the config yaml, and connects a client to it at a protocol version.
func mcpbridgeStdio(t *testing.T, mc *mcp.Client, yaml, server, version string) *mcp.ClientSession {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcpbridge.yaml")
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self(t), "stdio", "--config", cfg, server)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MCPBRIDGE_") && !strings.HasPrefix(kv, "UPSTREAM_TEST_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "UPSTREAM_TEST_MCPBRIDGE=1")
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mc.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("mcpbridge stdio: %v; its stderr:\n%s", err, stderr)
	}
	t.Cleanup(func() {
		cs.Close()
		if t.Failed() {
			t.Logf("mcpbridge stdio's stderr:\n%s", stderr)
		}
	})
	return cs
}

// connectSSE opens a downstream session over the legacy HTTP+SSE transport.
func connectSSE(t *testing.T, mc *mcp.Client, srv *gatewaytest.Server, name, version string) *mcp.ClientSession {
	t.Helper()
	cs, err := mc.Connect(context.Background(), &mcp.SSEClientTransport{Endpoint: srv.URL + "/mcp/" + name + "/sse"}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s over SSE (%s): %v", name, version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Issue 20 point 11: a legacy client gets a legacy upstream session on every transport —
// Streamable HTTP, HTTP+SSE and `mcpbridge stdio` — so an upstream that asks it for
// elicitation and sampling with requests in the middle of a call (which a 2026-07-28
// upstream session refuses) reaches it, and its answers reach the upstream.
func TestLegacyClientsGetLegacyUpstreamSessions(t *testing.T) {
	ups := []variant{
		{"stdio-upstream", stdioUpstream(t, nil, "")},
		{"http-upstream", "    url: " + startHTTPServer(t) + "\n"},
	}
	for _, up := range ups {
		t.Run(up.name, func(t *testing.T) {
			yaml := "servers:\n  up:\n    kind: mcp\n    description: d\n" + up.yaml
			srv := start(t, yaml)
			for _, version := range []string{"2025-11-25", "2025-06-18"} {
				t.Run("streamable-"+version, func(t *testing.T) {
					_, cs := connect(t, srv, "up", version)
					wantText(t, cs, "ask_direct", nil, directAnswer)
				})
				t.Run("sse-"+version, func(t *testing.T) {
					_, mc := newClient()
					cs := connectSSE(t, mc, srv, "up", version)
					wantText(t, cs, "ask_direct", nil, directAnswer)
				})
			}
			if up.name == "stdio-upstream" {
				// Each SSE session has an upstream session (a child) of its own, stopped
				// when the session ends.
				t.Run("sse-sessions", func(t *testing.T) {
					_, mc := newClient()
					a, b := connectSSE(t, mc, srv, "up", "2025-11-25"), connectSSE(t, mc, srv, "up", "2025-11-25")
					pa, pb := pidOf(t, a, "pid"), pidOf(t, b, "pid")
					if pa == pb {
						t.Fatalf("two SSE sessions share the child %d", pa)
					}
					wantText(t, a, "count", nil, "1")
					wantText(t, a, "count", nil, "2")
					wantText(t, b, "count", nil, "1")
					a.Close()
					waitGone(t, pa, "its SSE session ended")
					if !alive(pb) {
						t.Error("the other SSE session's child stopped too")
					}
				})
			}
			t.Run("stdio", func(t *testing.T) {
				_, mc := newClient()
				cs := mcpbridgeStdio(t, mc, yaml, "up", "2025-11-25")
				wantText(t, cs, "ask_direct", nil, directAnswer)
			})
		})
	}
}
