package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
)

// Shutdown lets an in-flight call finish, refuses new calls while draining, and returns.
func TestGracefulShutdown(t *testing.T) {
	// The tool says it started (a file) and waits for the test to let it finish (another), so
	// the call is in flight when the shutdown starts and still runs while the gateway drains,
	// however slow the machine.
	dir := t.TempDir()
	started, release := filepath.Join(dir, "started"), filepath.Join(dir, "release")
	cfg, err := config.Parse("s.yaml", t.TempDir(), []byte(fmt.Sprintf(`
limits: {drain_period: 1m}
servers:
  s:
    kind: command
    description: slow
    tools:
      slow: {description: waits to be released then answers, inputSchema: {type: object}, argv: [sh, -c, "touch %s; while [ ! -e %s ]; do sleep 0.02; done; echo done"]}
`, started, release)), backend.Kinds())
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
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the tool did not start within a minute")
		}
	}
	cancel() // as on SIGTERM
	// A new request is refused once the drain has begun: poll until it is, then check how.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			break // the listener is closed
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("new requests still answered %d a minute after the shutdown began", resp.StatusCode)
		}
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-result:
		if r == nil || r.IsError || text(t, r) != "done\n" {
			t.Errorf("in-flight call result: %+v", r)
		}
	case <-time.After(time.Minute):
		t.Fatal("in-flight call did not finish")
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Serve did not return")
	}
}

// When the drain period is over, commands still running are killed and their clients get a
// JSON-RPC error saying the gateway shut down, not a broken connection.
func TestShutdownStopsRunningCommands(t *testing.T) {
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			dir := t.TempDir()
			cfg, err := config.Parse("s.yaml", dir, []byte(`
limits: {drain_period: 1s}
servers:
  s:
    kind: command
    description: hangs
    tools:
      hang:
        description: writes its pid and sleeps
        inputSchema: {type: object, properties: {dir: {type: string}}}
        argv: [sh, -c, 'echo $$ > "$0/pid"; exec sleep 30', {direct: dir}]
        timeout: 60s
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
			cs := connect(t, "http://"+ln.Addr().String()+"/mcp/s", era)
			called := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hang", Arguments: map[string]any{"dir": dir}})
				called <- err
			}()
			pidFile := filepath.Join(dir, "pid")
			var pid int
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				data, _ := os.ReadFile(pidFile)
				if n, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
					pid = n
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the command did not start")
				}
			}
			start := time.Now()
			cancel() // as on SIGTERM
			select {
			case err := <-called:
				var we *jsonrpc.Error
				if !errors.As(err, &we) || !strings.Contains(we.Message, "shutting down") {
					t.Errorf("the client got %v (%T), want a JSON-RPC error saying the gateway is shutting down", err, errors.Unwrap(err))
				}
				// Well before the command's 30 s: ended by the drain period (1s).
				if took := time.Since(start); took > 20*time.Second {
					t.Errorf("the call ended %s after shutdown began (drain period 1s)", took)
				}
			case <-time.After(25 * time.Second):
				t.Fatal("the call did not end")
			}
			if err := syscall.Kill(pid, 0); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("the command (pid %d) is still running after shutdown", pid)
			}
			select {
			case <-served:
			case <-time.After(5 * time.Second):
				t.Fatal("Serve did not return")
			}
		})
	}
}
