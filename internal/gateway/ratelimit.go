package gateway

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/admission"
	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

// Internal headers the edge sets on an MCP request before the go-sdk handlers see it (any a
// client sends are removed first); method handlers read them from the request's
// RequestExtra.Header.
const (
	// admittedHeader says the edge already charged the request's rate limits and holds its
	// caller's call slot: the message was the request's only one.
	admittedHeader = "Mcpbridge-Admitted"
	// clientHeader carries the client's address key, which identifies an anonymous caller.
	clientHeader = "Mcpbridge-Client"
	// clientAddrHeader carries the client's IP address, which the audit log records.
	clientAddrHeader = "Mcpbridge-Client-Addr"
)

// rateLimits charges requests to limits.rate (admission.Limiter): Allow takes a token from
// caller's bucket on server and from the server's bucket, or names the limit that refused
// and how long until a token is there.
type rateLimits interface {
	Allow(server string, rate config.Rate, caller string) (limit string, wait time.Duration)
}

// callerBounds bounds the tool calls one caller runs at once (admission.CallerSlots):
// Acquire returns the function that gives the slot back, or nil when the caller already
// runs Max calls (0: no bound).
type callerBounds interface {
	Max() int
	Acquire(caller string) (release func())
}

// serverBounds bounds the tool calls one server runs at once (admission.ServerSlots):
// Acquire waits up to wait for a slot, or returns the JSON-RPC error saying the server is
// busy.
type serverBounds interface {
	Acquire(ctx context.Context, server string, wait time.Duration) (release func(), err error)
}

// clientCtx is the context key of the request's client: its address key and address.
type clientCtx struct{}

type clientID struct{ key, addr string }

// withCaller strips the internal headers a client may have sent and records who the
// client is (its address key, and its address) on the request and its context: the
// connection's peer, or the client a trusted proxy names (proxies.client).
func (g *Gateway) withCaller(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(admittedHeader)
		addr := g.proxies.client(r)
		cl := clientID{key: clientKey(addr), addr: addr}
		r.Header.Set(clientHeader, cl.key)
		r.Header.Set(clientAddrHeader, cl.addr)
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), clientCtx{}, cl)))
	})
}

// clientAddr is the IP address of the client of an MCP request: from the request's
// headers, or, for the HTTP+SSE transport, from ctx; empty for stdio.
func clientAddr(ctx context.Context, h http.Header) string {
	if a := h.Get(clientAddrHeader); a != "" {
		return a
	}
	cl, _ := ctx.Value(clientCtx{}).(clientID)
	return cl.addr
}

// callerKey identifies a caller for the per-caller limits: the principal's owner (its user
// id in the namespace of how it authenticated), else the client's address key (an IPv4
// address or an IPv6 /64).
func callerKey(p auth.Principal, client string) string {
	if p.Authenticated() {
		return "user:" + p.Owner()
	}
	if client == "" {
		client = "local"
	}
	return "client:" + client
}

// callerOf is the caller key of an MCP request: its principal, and the client address from
// the request's headers (or, for the HTTP+SSE transport and stdio, from ctx).
func callerOf(ctx context.Context, h http.Header) string {
	client := ""
	if h != nil {
		client = h.Get(clientHeader)
	}
	if client == "" {
		cl, _ := ctx.Value(clientCtx{}).(clientID)
		client = cl.key
	}
	return callerKey(auth.FromContext(ctx), client)
}

// checkRate charges one request of the caller of r to server e: it reports true, or
// answers 429 with Retry-After (through fail, in the route's form) and reports false.
func (g *Gateway) checkRate(w http.ResponseWriter, r *http.Request, e *Entry, fail func(status int, msg string, data *jsonrpc.Error)) bool {
	rate := g.cfg.RateFor(e.Config())
	if rate.Off() {
		return true // the common case: no lock, no caller key
	}
	limit, wait := g.rates.Allow(e.Name, rate, callerOf(r.Context(), r.Header))
	if limit == "" {
		return true
	}
	g.metrics.refused(limit)
	retry := admission.RetrySeconds(wait)
	w.Header().Set("Retry-After", fmt.Sprint(retry))
	msg := admission.RateRefusal(e.Name, limit, rate, retry)
	fail(http.StatusTooManyRequests, msg, admission.LimitError(limit, retry, msg))
	return false
}

// principalSlotError is the refusal of a call over limits.concurrent_calls_per_principal.
func (g *Gateway) principalSlotError() *jsonrpc.Error {
	n := g.cfg.Limits.ConcurrentCallsPerPrincipal
	return admission.LimitError("concurrent_calls_per_principal", 1, fmt.Sprintf("too many calls at once: you already run %d tool calls, your limit (limits.concurrent_calls_per_principal); wait for one to finish, then retry", n))
}

// requestHeader is the HTTP header of an MCP request (nil over stdio and the HTTP+SSE
// transport).
func requestHeader(req mcp.Request) http.Header {
	if req == nil {
		return nil
	}
	if ex := req.GetExtra(); ex != nil {
		return ex.Header
	}
	return nil
}

// admitted reports whether the HTTP edge checked a request's per-caller limits (admit).
func admitted(req mcp.Request) bool {
	return requestHeader(req).Get(admittedHeader) != ""
}

// chargeMessage charges the rate limits of one MCP request that the HTTP edge could not
// charge: an item of a batch, a message of the HTTP+SSE transport, or a request over stdio.
// Over the limit, the request is answered with a JSON-RPC error that says which limit and
// when to retry (data.retryAfterSeconds). Notifications are free.
func (g *Gateway) chargeMessage(ctx context.Context, e *Entry, method string, req mcp.Request) error {
	if strings.HasPrefix(method, "notifications/") || admitted(req) {
		return nil
	}
	rate := g.cfg.RateFor(e.Config())
	if rate.Off() {
		return nil
	}
	limit, wait := g.rates.Allow(e.Name, rate, callerOf(ctx, requestHeader(req)))
	if limit == "" {
		return nil
	}
	g.metrics.refused(limit)
	retry := admission.RetrySeconds(wait)
	return admission.LimitError(limit, retry, admission.RateRefusal(e.Name, limit, rate, retry))
}
