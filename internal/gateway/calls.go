package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// callSlots bounds the tool calls one server runs at once (limits.concurrent_calls). Calls
// in a JSON-RPC batch take slots one by one like any other.
type callSlots chan struct{}

// acquire takes a slot, waiting up to wait for one. It returns the function that gives the
// slot back, or a JSON-RPC error saying the server is busy and when to retry.
func (s callSlots) acquire(ctx context.Context, server string, wait time.Duration) (release func(), err error) {
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
		return nil, &jsonrpc.Error{Code: codeBusy, Message: fmt.Sprintf("the call was cancelled while it waited for server %s to finish another", server)}
	}
	retry := max(1, int(math.Ceil(wait.Seconds())))
	data, _ := json.Marshal(map[string]any{"retryAfterSeconds": retry, "limit": "concurrent_calls"})
	return nil, &jsonrpc.Error{
		Code:    codeBusy,
		Message: fmt.Sprintf("server %s is busy: it already runs %d tool calls, its limit (limits.concurrent_calls), and none finished within %s; retry in a few seconds", server, cap(s), wait),
		Data:    data,
	}
}
