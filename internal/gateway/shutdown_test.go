package gateway_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
)

// Shutdown lets an in-flight call finish, refuses new calls while draining, and returns.
func TestGracefulShutdown(t *testing.T) {
	cfg, err := config.Parse("s.yaml", t.TempDir(), []byte(`
limits: {drain_period: 5s}
servers:
  s:
    kind: command
    description: slow
    tools:
      slow: {description: sleeps a second then answers, inputSchema: {type: object}, argv: [sh, -c, "sleep 1; echo done"]}
`), backend.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	g, err := gateway.New(context.Background(), cfg, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- g.Serve(ctx, ln) }()
	url := "http://" + ln.Addr().String() + "/mcp/s"
	cs := connect(t, url, "2026-07-28")
	result := make(chan *mcp.CallToolResult, 1)
	go func() {
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
		if err != nil {
			t.Errorf("in-flight call: %v", err)
		}
		result <- r
	}()
	time.Sleep(300 * time.Millisecond)
	cancel() // as on SIGTERM
	time.Sleep(100 * time.Millisecond)
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err == nil {
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("new request while draining: %d", resp.StatusCode)
		}
		resp.Body.Close()
	}
	select {
	case r := <-result:
		if r == nil || r.IsError || text(t, r) != "done\n" {
			t.Errorf("in-flight call result: %+v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("in-flight call did not finish")
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return")
	}
}
