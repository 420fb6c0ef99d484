package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// ServerSlots bounds the tool calls one server runs at once (limits.concurrent_calls). Calls
// in a JSON-RPC batch take slots one by one like any other.
type ServerSlots chan struct{}

// NewServerSlots bounds a server to n calls at once.
func NewServerSlots(n int) ServerSlots { return make(ServerSlots, n) }

// Acquire takes a slot, waiting up to wait for one. It returns the function that gives the
// slot back, or a JSON-RPC error saying the server is busy and when to retry.
func (s ServerSlots) Acquire(ctx context.Context, server string, wait time.Duration) (release func(), err error) {
	release = func() { <-s }
	select {
	case s <- struct{}{}:
		return release, nil
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case s <- struct{}{}:
		return release, nil
	case <-t.C:
	case <-ctx.Done():
		return nil, &jsonrpc.Error{Code: CodeBusy, Message: fmt.Sprintf("the call was cancelled while it waited for server %s to finish another", server)}
	}
	retry := max(1, int(math.Ceil(wait.Seconds())))
	data, _ := json.Marshal(map[string]any{"retryAfterSeconds": retry, "limit": "concurrent_calls"})
	return nil, &jsonrpc.Error{
		Code:    CodeBusy,
		Message: fmt.Sprintf("server %s is busy: it already runs %d tool calls, its limit (limits.concurrent_calls), and none finished within %s; retry in a few seconds", server, cap(s), wait),
		Data:    data,
	}
}

// CallerSlots bounds the tool calls one caller runs at once (limits.
// concurrent_calls_per_principal), on all servers together.
type CallerSlots struct {
	mu      sync.Mutex
	max     int // 0: no bound
	running map[string]int
}

// NewCallerSlots bounds each caller to max calls at once; 0 or less is no bound.
func NewCallerSlots(max int) *CallerSlots {
	return &CallerSlots{max: max, running: map[string]int{}}
}

// Max is the bound of each caller (0: none).
func (c *CallerSlots) Max() int { return c.max }

// Acquire takes one of caller's slots and returns the function that gives it back, or
// nil when the caller already runs max calls.
func (c *CallerSlots) Acquire(caller string) (release func()) {
	if c.max <= 0 {
		return func() {}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running[caller] >= c.max {
		return nil
	}
	c.running[caller]++
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.running[caller]--; c.running[caller] <= 0 {
				delete(c.running, caller)
			}
		})
	}
}
