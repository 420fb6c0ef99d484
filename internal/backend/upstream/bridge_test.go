package upstream_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A legacy upstream's elicitation reaches a stateless client as an input request; the
// client's retry takes the waiting call up. A requestState that names no waiting call
// (made up, already used, or expired after timeout) is refused with a JSON-RPC error.
func TestParkedCalls(t *testing.T) {
	// timeout bounds every call and how long a parked call waits for its retry (the subject
	// at the end). 3 s leaves a loaded machine room for the calls that must succeed.
	logs := &syncBuffer{}
	srv := gatewaytest.Start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n    timeout: 3s\n"+stdioUpstream(t, map[string]string{"UPSTREAM_TEST_LEGACY": "1"}, ""),
		gateway.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	mc := mcp.NewClient(&mcp.Implementation{Name: "raw", Version: "1"}, &mcp.ClientOptions{
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, errors.New("unused") },
	})
	ctx := context.Background()
	cs, err := mc.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/up"}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	// The child starts on the first call; a start slower than timeout is not this test's
	// subject, so call echo until the child answers.
	for deadline := time.Now().Add(30 * time.Second); ; {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}})
		if err == nil && !r.IsError && text(r) == "x" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the upstream did not answer echo within 30s: %v, %v", r, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.InputRequests) != 1 || !strings.HasPrefix(first.RequestState, "mcpbridge-parked:") {
		t.Fatalf("first round = %+v, want one input request and a parked requestState", first)
	}
	var key string
	for k, ir := range first.InputRequests {
		key = k
		if p, ok := ir.(*mcp.ElicitParams); !ok || p.Message != "Your name?" {
			t.Errorf("input request %s = %#v", k, ir)
		}
	}
	answer := mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Lin"}}}
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}, InputResponses: answer, RequestState: first.RequestState})
	if err != nil || text(r) != "hello Lin (accept, state asked)" {
		t.Fatalf("retry = %v, %v", r, err)
	}

	refused := func(state string) {
		t.Helper()
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}, InputResponses: answer, RequestState: state})
		// The kind refuses with -32602 "…names no call waiting for input…"; the gateway
		// answers a backend's error as its own internal error for now.
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) {
			t.Errorf("retry with requestState %q: %v, want it refused with a JSON-RPC error", state, err)
		}
	}
	refused(first.RequestState)            // already answered
	refused("mcpbridge-parked:0123456789") // made up

	again, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	if err != nil || len(again.InputRequests) != 1 {
		t.Fatalf("second call = %+v, %v", again, err)
	}
	// The parked call expires after the server's timeout; the backend logs it. A retry
	// before that would take the call up, so wait for the log line, not for a fixed time.
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(logs.String(), "a call waiting for a client's input expired"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the parked call did not expire within 30s; logs:\n%s", logs)
		}
	}
	refused(again.RequestState)
}
