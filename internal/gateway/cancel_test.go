package gateway_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// A tool that writes the pids of its shell and of a child sleep to a file, then waits: both
// must be gone once the call is cancelled.
const cancelConfig = `
servers:
  c:
    kind: command
    description: a command that runs until stopped
    tools:
      hang:
        description: writes its pids to pidfile, then sleeps 30 seconds
        inputSchema: {type: object, properties: {pidfile: {type: string}}, required: [pidfile]}
        argv: [sh, -c, 'sleep 30 & echo $$ $! > "$0.tmp" && mv "$0.tmp" "$0"; wait', {direct: pidfile}]
        timeout: 60s
`

// A client that cancels a running tools/call stops the command, in every protocol era: the
// legacy eras cancel with notifications/cancelled on the session, 2026-07-28 by closing the
// request's HTTP stream.
func TestCancelStopsCommand(t *testing.T) {
	srv := gatewaytest.Start(t, cancelConfig, gateway.Options{})
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			cs := connect(t, srv.URL+"/mcp/c", era)
			pidfile := filepath.Join(t.TempDir(), "pids")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hang", Arguments: map[string]any{"pidfile": pidfile}})
				errc <- err
			}()
			pids := waitPids(t, pidfile, 5*time.Second)
			t.Cleanup(func() { // leave nothing behind if the test fails
				for _, pid := range pids {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Errorf("CallTool after cancel: %v, want context.Canceled", err)
			}
			// A wide margin: the child goes at once; only one left running fails.
			deadline := time.Now().Add(30 * time.Second)
			for _, pid := range pids {
				for alive(pid) {
					if time.Now().After(deadline) {
						t.Fatalf("process %d still running 30 s after the client cancelled (pids %v)", pid, pids)
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
		})
	}
}

// waitPids waits for the tool to write its pids to path and returns them.
func waitPids(t *testing.T, path string, timeout time.Duration) []int {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			var pids []int
			for _, f := range strings.Fields(string(b)) {
				pid, err := strconv.Atoi(f)
				if err != nil {
					t.Fatalf("pid file %q: %v", b, err)
				}
				pids = append(pids, pid)
			}
			if len(pids) != 2 {
				t.Fatalf("pid file %q: want two pids", b)
			}
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tool did not start within %s: %v", timeout, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid is a running process. A zombie (killed, not yet reaped by its
// parent, which for an orphan may be a container's init) counts as gone.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name: "pid (comm) S ...".
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// notifications/cancelled stops a tools/call on a legacy session whose HTTP request stays
// open, whichever way the gateway serves the call: without a progress token or log level
// (the gateway's own lean path) and with a progress token (the SDK's).
func TestCancelNotificationStopsCommand(t *testing.T) {
	srv := gatewaytest.Start(t, cancelConfig, gateway.Options{})
	url := srv.URL + "/mcp/c"
	for _, tc := range []struct{ name, meta string }{
		{"plain", ``},
		{"progress", `,"_meta":{"progressToken":"tok"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, _ := rawPost(t, http.DefaultClient, url, nil, initBody("2025-11-25"))
			sid := resp.Header.Get("Mcp-Session-Id")
			if sid == "" {
				t.Fatalf("initialize answered %d without Mcp-Session-Id", resp.StatusCode)
			}
			hdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
			rawPost(t, http.DefaultClient, url, hdr, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			pidfile := filepath.Join(t.TempDir(), "pids")
			// The call's request stays open until the call ends: only the notification
			// can stop it.
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			t.Cleanup(func() { cancel(); <-done })
			go func() {
				defer close(done)
				body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hang","arguments":{"pidfile":` + strconv.Quote(pidfile) + `}` + tc.meta + `}}`
				req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				for k, v := range hdr {
					req.Header.Set(k, v)
				}
				if resp, err := http.DefaultClient.Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
			pids := waitPids(t, pidfile, 10*time.Second)
			t.Cleanup(func() {
				for _, pid := range pids {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			resp, _ = rawPost(t, http.DefaultClient, url, hdr, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"test"}}`)
			if resp.StatusCode != http.StatusAccepted {
				t.Errorf("notifications/cancelled answered %d, want 202", resp.StatusCode)
			}
			deadline := time.Now().Add(30 * time.Second)
			for _, pid := range pids {
				for alive(pid) {
					if time.Now().After(deadline) {
						t.Fatalf("process %d still running 30 s after notifications/cancelled (pids %v)", pid, pids)
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
		})
	}
}
