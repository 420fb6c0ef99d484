package upstream

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
)

// pollingVersion is the first protocol version whose clients are asked to poll (SEP-1699):
// a server may end a request's event stream before the answer, with a retry delay, and the
// client takes the answer up with a GET and Last-Event-ID.
const pollingVersion = "2025-11-25"

// relayPolling returns ctx for an upstream call made for client (the downstream request):
// when a Streamable HTTP upstream ends the call's event stream before its answer and asks
// to be polled (a retry delay), the client's stream of the call is ended in turn, with the
// same delay, so that the client polls the gateway as the upstream asked to be polled. The
// gateway's event store keeps what the call sends meanwhile, its answer included: the
// upstream's, when the go-sdk client could resume the upstream stream; else the tool error
// saying that the upstream's answer was lost. Only a client on a Streamable HTTP session at
// 2025-11-25 or later is asked (one with an event stream to end, and that knows to poll).
func relayPolling(ctx context.Context, client backend.Declared) context.Context {
	r, ok := client.(interface {
		GetExtra() *mcp.RequestExtra
		GetSession() mcp.Session
	})
	if !ok {
		return ctx
	}
	extra := r.GetExtra()
	if extra == nil || extra.CloseSSEStream == nil {
		return ctx
	}
	ss, ok := r.GetSession().(*mcp.ServerSession)
	if !ok || ss == nil || ss.InitializeParams() == nil || ss.InitializeParams().ProtocolVersion < pollingVersion {
		return ctx
	}
	return mcp.WithStreamEndedHandler(ctx, func(retry time.Duration, _ bool) {
		if retry > 0 {
			extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: retry})
		}
	})
}
