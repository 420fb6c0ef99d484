package gateway_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
)

// Issue 12.7: concurrent_calls bounds the tool calls of a server; calls wait up to
// call_queue_wait for a slot and are then refused with a JSON-RPC error that says to retry.
// A JSON-RPC batch counts like single calls. Other servers and other requests are answered
// throughout.
func TestAttackConcurrentCalls(t *testing.T) {
	var lb *loopback
	cfg := func(dir string) string {
		return limitsSection("{concurrent_calls: 2, call_queue_wait: 600ms, drain_period: 1s}") + `servers:
  slow:
    kind: command
    description: slow
    tools:
      nap: {description: sleeps 1.5s, inputSchema: {type: object}, argv: [sh, -c, "echo started >> ` + filepath.Join(dir, "started.log") + `; sleep 1.5; echo done"], timeout: 10s}
      quick: {description: quick, inputSchema: {type: object}, argv: [sh, -c, "sleep 0.05; echo quick"]}
  other:
    kind: command
    description: other
    tools:
      echo: {description: echo, inputSchema: {type: object, properties: {message: {type: string}}}, argv: [echo, {direct: message}]}
`
	}
	dir := t.TempDir()
	lb = serveLoopback(t, cfg(dir), gateway.Options{}, nil)
	started := func() int {
		b, _ := os.ReadFile(filepath.Join(dir, "started.log"))
		return bytes.Count(b, []byte("\n"))
	}

	// Single calls, modern era, eight at once.
	cs := connectFrom(t, "127.0.0.1", lb.base+"/mcp/slow", "2026-07-28")
	var wg sync.WaitGroup
	var okCalls, busy atomic.Int32
	var busyMsg atomic.Value
	t0 := time.Now()
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nap", Arguments: map[string]any{}})
			switch {
			case err == nil && !r.IsError:
				okCalls.Add(1)
			case err != nil && strings.Contains(err.Error(), "busy"):
				busy.Add(1)
				busyMsg.Store(err.Error())
			default:
				t.Errorf("call: %v %v", r, err)
			}
		}()
	}
	// The gateway answers others meanwhile: once the burst runs (polled, not slept for).
	for deadline := time.Now().Add(time.Minute); started() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no call of the burst started within a minute")
		}
	}
	other := connectFrom(t, "127.0.0.2", lb.base+"/mcp/other", "2026-07-28")
	q0 := time.Now()
	if r := call(t, other, "echo", map[string]any{"message": "hi"}); text(t, r) != "hi\n" {
		t.Errorf("other server during the burst: %q", text(t, r))
	}
	otherLatency := time.Since(q0)
	wg.Wait()
	t.Logf("8 concurrent calls with concurrent_calls 2: %d ran, %d refused as busy, %d processes started, in %s; another server answered in %s",
		okCalls.Load(), busy.Load(), started(), time.Since(t0).Round(time.Millisecond), otherLatency.Round(time.Millisecond))
	if m, ok := busyMsg.Load().(string); ok {
		t.Logf("busy answer: %s", m)
		if !strings.Contains(m, "retry") {
			t.Errorf("busy answer does not say to retry: %s", m)
		}
	}
	if okCalls.Load() != 2 || busy.Load() != 6 || started() != 2 {
		t.Errorf("ran %d, busy %d, started %d; want 2, 6, 2", okCalls.Load(), busy.Load(), started())
	}

	// Calls that find a slot within call_queue_wait wait for it instead of failing.
	var queued atomic.Int32
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "quick", Arguments: map[string]any{}}); err == nil && !r.IsError {
				queued.Add(1)
			}
		}()
	}
	wg.Wait()
	if queued.Load() != 3 {
		t.Errorf("3 short calls with 2 slots and a 600ms queue: %d succeeded, want 3", queued.Load())
	}

	// One batch of 100 tools/call on a 2025-03-26 session.
	os.Remove(filepath.Join(dir, "started.log"))
	c := clientFrom("127.0.0.3")
	h := legacySession(t, c, lb.base+"/mcp/slow", "2025-03-26")
	var batch []string
	for i := range 100 {
		batch = append(batch, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"nap","arguments":{}}}`, i+1))
	}
	fdsBefore := openFDs()
	maxFDs := fdsBefore
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				maxFDs = max(maxFDs, openFDs())
			}
		}
	}()
	t0 = time.Now()
	resp, b := rawPost(t, c, lb.base+"/mcp/slow", h, "["+strings.Join(batch, ",")+"]")
	close(stop)
	<-sampled
	ran, refused := 0, 0
	for _, r := range replies(t, b) {
		switch {
		case r.Error != nil && strings.Contains(r.Error.Message, "busy"):
			refused++
		case r.Result != nil && !bytes.Contains(r.Result, []byte(`"isError":true`)):
			ran++
		}
	}
	t.Logf("one batch of 100 tools/call: HTTP %d in %s, %d ran, %d refused as busy, %d processes started; descriptors %d, peak %d",
		resp.StatusCode, time.Since(t0).Round(time.Millisecond), ran, refused, started(), fdsBefore, maxFDs)
	if ran != 2 || refused != 98 || started() != 2 {
		t.Errorf("batch: ran %d, busy %d, started %d; want 2, 98, 2", ran, refused, started())
	}
}
