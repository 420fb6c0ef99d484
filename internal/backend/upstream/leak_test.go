package upstream_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("counting descriptors: %v", err)
	}
	return len(ents)
}

// After a load of sessions and calls — children started, crashed, timed out, reaped —
// and the gateway closed, the open descriptors and goroutines are back to where they were
// and no child is left running.
func TestNoLeaksAfterLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test")
	}
	url, stopHTTP := startNetServerStop(t, "http")
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	// Let the closed connections' goroutines end before the baseline. Too short a nap
	// leaves the baseline high, which can only make the check below pass falsely.
	time.Sleep(100 * time.Millisecond)
	baseFDs, baseG := openFDs(t), runtime.NumGoroutine()

	// The call timeout also covers waiting for a child to start, which on a loaded machine
	// takes seconds: it is generous, since the limit is not the subject here (the hang calls
	// still end by it, each costing the timeout once, in parallel).
	timeout := "10s"
	if raceOn {
		timeout = "20s"
	}
	yaml := fmt.Sprintf(`servers:
  stdio:
    kind: mcp
    description: d
    timeout: %s
    idle_timeout: 2s
    command: [%q, -test.run=^$]
    env: {UPSTREAM_TEST_SERVER: stdio}
  remote:
    kind: mcp
    description: d
    url: %s
`, timeout, self(t), url)
	g, _, err := gatewaytest.Open(t.TempDir(), yaml, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(g.Handler())

	var pidsMu sync.Mutex
	var pids, stateless []int
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Go(func() {
			era := "2025-11-25"
			if i%4 == 3 {
				era = "2026-07-28"
			}
			for _, server := range []string{"stdio", "remote"} {
				_, mc := newClient()
				cs, err := mc.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/" + server}, &mcp.ClientSessionOptions{ProtocolVersion: era})
				if err != nil {
					t.Error(err)
					return
				}
				for j := range 6 {
					wantText(t, cs, "echo", map[string]any{"text": "x"}, "x")
					wantText(t, cs, "progress", map[string]any{"steps": 2}, "done 2")
					wantText(t, cs, "ask", nil, "hello Ada (accept, state asked)")
					if server == "stdio" && j == 2 && i%3 == 0 && era != "2026-07-28" {
						callTool(t, cs, "crash", nil) // its own child (stateless callers share one)
					}
					if server == "stdio" && j == 4 && i%3 == 1 {
						callTool(t, cs, "hang", nil) // ends at the timeout
					}
				}
				if server == "stdio" {
					p := pidOf(t, cs, "pid")
					pidsMu.Lock()
					pids = append(pids, p)
					if era == "2026-07-28" {
						stateless = append(stateless, p)
					}
					pidsMu.Unlock()
				}
				cs.Close()
			}
		})
	}
	wg.Wait()
	// The stateless callers' shared child belongs to no session: it is reaped as idle. The
	// others were stopped as their sessions ended, or are at close.
	for _, p := range stateless {
		waitGone(t, p, "idle for idle_timeout")
	}
	srv.Close()
	g.Close()
	stopHTTP()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()

	for _, p := range pids {
		waitGone(t, p, "the gateway closed")
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		fds, gs := openFDs(t), runtime.NumGoroutine()
		if fds <= baseFDs+1 && gs <= baseG {
			t.Logf("descriptors %d → %d, goroutines %d → %d", baseFDs, fds, baseG, gs)
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("descriptors %d → %d, goroutines %d → %d after the load; goroutines:\n%s", baseFDs, fds, baseG, gs, goroutineSummary(string(buf[:n])))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// goroutineSummary keeps the first frame of each goroutine's stack.
func goroutineSummary(dump string) string {
	var out []string
	for _, g := range strings.Split(dump, "\n\n") {
		lines := strings.Split(g, "\n")
		if len(lines) >= 3 {
			out = append(out, lines[0]+" "+strings.TrimSpace(lines[1])+" @ "+strings.TrimSpace(lines[2]))
		}
	}
	return strings.Join(out, "\n")
}
