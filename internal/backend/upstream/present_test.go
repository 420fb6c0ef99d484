package upstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The upstream sees the downstream client as it declared itself (name and capabilities),
// refuses what needs a capability the client did not declare with the protocol's error,
// which reaches the client as a JSON-RPC error, and a prompt that asks for input gets its
// answers: from a 2026-07-28 client's retry, or asked over a legacy client's session.
func TestClientDeclarations(t *testing.T) {
	for _, up := range []variant{
		{"stdio-2026", stdioUpstream(t, nil, "")},
		{"stdio-2026-shared", stdioUpstream(t, nil, "    isolation: shared\n")},
		{"http-2026", "    url: " + startHTTPServer(t) + "\n"},
		{"http-2026-shared", "    url: " + startHTTPServer(t) + "\n    isolation: shared\n"},
		// A legacy upstream learns a legacy client's declarations at initialize, when the
		// client has an upstream session of its own.
		{"stdio-2025", stdioUpstream(t, map[string]string{"UPSTREAM_TEST_LEGACY": "1"}, "")},
	} {
		t.Run(up.name, func(t *testing.T) {
			srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n"+up.yaml)
			for _, era := range []string{"2025-11-25", "2026-07-28"} {
				if up.name == "stdio-2025" && era >= "2026-07-28" {
					continue // the upstream session of stateless callers is the gateway's
				}
				t.Run(era, func(t *testing.T) {
					testDeclarations(t, srv.URL+"/mcp/up", era, strings.HasSuffix(up.name, "-shared"))
				})
			}
		})
	}
}

func testDeclarations(t *testing.T, url, era string, shared bool) {
	ctx := context.Background()
	// A client that can elicit, and nothing else.
	narrow := mcp.NewClient(&mcp.Implementation{Name: "narrow-client", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "billing"}}, nil
		},
	})
	cs, err := narrow.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if shared && era < "2026-07-28" {
		// Legacy clients share one legacy upstream session, which declared at initialize
		// everything the gateway forwards.
		wantText(t, cs, "whoami", nil, "mcpbridge [sampling elicitation roots]")
	} else {
		wantText(t, cs, "whoami", nil, "narrow-client [elicitation]")
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "needs_sampling", Arguments: map[string]any{}})
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeMissingRequiredClientCapabilities {
			t.Fatalf("needs_sampling: %v, want JSON-RPC error %d", err, mcp.CodeMissingRequiredClientCapabilities)
		}
		var data struct {
			RequiredCapabilities map[string]any `json:"requiredCapabilities"`
		}
		if err := json.Unmarshal(rpcErr.Data, &data); err != nil || data.RequiredCapabilities["sampling"] == nil {
			t.Errorf("error data = %s, want requiredCapabilities naming sampling", rpcErr.Data)
		}
	}

	// A client that declares sampling is served.
	_, full := newClient()
	fs, err := full.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	if shared && era < "2026-07-28" {
		wantText(t, fs, "whoami", nil, "mcpbridge [sampling elicitation roots]")
	} else {
		wantText(t, fs, "whoami", nil, "downstream [sampling elicitation roots]")
	}
	wantText(t, fs, "needs_sampling", nil, "can sample")

	// A prompt that asks for input.
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "ask_prompt"})
	if err != nil {
		t.Fatalf("ask_prompt: %v", err)
	}
	if len(pr.Messages) != 1 || pr.Messages[0].Content.(*mcp.TextContent).Text != "context billing (state prompted)" {
		t.Errorf("ask_prompt = %+v", pr.Messages)
	}
}
