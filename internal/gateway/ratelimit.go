package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

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

// maxBuckets bounds the per-caller buckets one server keeps: past it, full buckets (callers
// idle long enough to be back at their burst, the same as no bucket) are dropped, then
// arbitrary ones.
const maxBuckets = 100_000

// bucketSweepEvery is how often full buckets are dropped even below maxBuckets.
const bucketSweepEvery = time.Minute

// tokenBuckets are token buckets of one rate and size, by key.
type tokenBuckets struct {
	perSecond float64
	burst     float64
	buckets   map[string]*tokenBucket
	swept     time.Time
}

type tokenBucket struct {
	tokens float64
	at     time.Time // when tokens was computed
}

func newTokenBuckets(perSecond float64, burst int) *tokenBuckets {
	if perSecond <= 0 {
		return nil
	}
	return &tokenBuckets{perSecond: perSecond, burst: float64(burst), buckets: map[string]*tokenBucket{}}
}

// level returns key's bucket, filled up to now (a new one is full).
func (b *tokenBuckets) level(key string, now time.Time) *tokenBucket {
	t := b.buckets[key]
	if t == nil {
		if len(b.buckets) >= maxBuckets || now.Sub(b.swept) > bucketSweepEvery {
			b.sweep(now)
		}
		t = &tokenBucket{tokens: b.burst, at: now}
		b.buckets[key] = t
		return t
	}
	if d := now.Sub(t.at); d > 0 {
		t.tokens = min(b.burst, t.tokens+d.Seconds()*b.perSecond)
		t.at = now
	}
	return t
}

// wait is how long until bucket t holds one token.
func (b *tokenBuckets) wait(t *tokenBucket) time.Duration {
	return time.Duration((1 - t.tokens) / b.perSecond * float64(time.Second))
}

// sweep drops full buckets, and arbitrary ones while there are still maxBuckets or more.
func (b *tokenBuckets) sweep(now time.Time) {
	b.swept = now
	for k, t := range b.buckets {
		if t.tokens+now.Sub(t.at).Seconds()*b.perSecond >= b.burst {
			delete(b.buckets, k)
		}
	}
	for k := range b.buckets {
		if len(b.buckets) < maxBuckets*3/4 {
			break
		}
		delete(b.buckets, k)
	}
}

// serverRates are the buckets of one server.
type serverRates struct {
	rate      config.Rate   // what the buckets were made for
	principal *tokenBuckets // per caller; nil without a per-caller limit
	server    *tokenBuckets // one bucket, key ""; nil without a per-server limit
}

// rateLimiter applies limits.rate: per caller on each server, and per server.
type rateLimiter struct {
	mu      sync.Mutex
	now     func() time.Time
	servers map[string]*serverRates
}

func newRateLimiter(now func() time.Time) *rateLimiter {
	if now == nil {
		now = time.Now
	}
	return &rateLimiter{now: now, servers: map[string]*serverRates{}}
}

// allow takes a token from caller's bucket on server and from the server's bucket, both or
// neither. When one is empty it returns the limit's name (rate.per_principal or
// rate.per_server) and how long until a token is there.
func (l *rateLimiter) allow(server string, rate config.Rate, caller string) (limit string, wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	sr := l.servers[server]
	if sr == nil || sr.rate != rate {
		// New, or the server's limits changed with its definition: start afresh.
		pps, pb := rate.PrincipalBucket()
		sps, sb := rate.ServerBucket()
		sr = &serverRates{rate: rate, principal: newTokenBuckets(pps, pb), server: newTokenBuckets(sps, sb)}
		if sr.principal == nil && sr.server == nil {
			delete(l.servers, server)
			return "", 0
		}
		l.servers[server] = sr
	}
	now := l.now()
	var p, s *tokenBucket
	if sr.principal != nil {
		if p = sr.principal.level(caller, now); p.tokens < 1 {
			return "rate.per_principal", sr.principal.wait(p)
		}
	}
	if sr.server != nil {
		if s = sr.server.level("", now); s.tokens < 1 {
			return "rate.per_server", sr.server.wait(s)
		}
	}
	if p != nil {
		p.tokens--
	}
	if s != nil {
		s.tokens--
	}
	return "", 0
}

// callerSlots bounds the tool calls one caller runs at once (limits.
// concurrent_calls_per_principal), on all servers together.
type callerSlots struct {
	mu      sync.Mutex
	max     int // 0: no bound
	running map[string]int
}

// acquire takes one of caller's slots and returns the function that gives it back, or
// nil when the caller already runs max calls.
func (c *callerSlots) acquire(caller string) (release func()) {
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

// retrySeconds is a wait rounded up to whole seconds, at least 1 (Retry-After).
func retrySeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

// limitError is the JSON-RPC error of a request refused by a limit: code -32029, a message
// that says which limit and when to retry, and data {"limit", "retryAfterSeconds"}.
func limitError(limit string, retry int, msg string) *jsonrpc.Error {
	data, _ := json.Marshal(map[string]any{"limit": limit, "retryAfterSeconds": retry})
	return &jsonrpc.Error{Code: codeBusy, Message: msg, Data: data}
}

// limitOf returns the limit and retry seconds in the data of a limit error.
func limitOf(e *jsonrpc.Error) (limit string, retry int) {
	var d struct {
		Limit string `json:"limit"`
		Retry int    `json:"retryAfterSeconds"`
	}
	if e == nil || e.Code != codeBusy || json.Unmarshal(e.Data, &d) != nil {
		return "", 0
	}
	return d.Limit, d.Retry
}

// rateRefusal says what a caller refused by limit must do.
func rateRefusal(server, limit string, rate config.Rate, retry int) string {
	switch limit {
	case "rate.per_principal":
		return fmt.Sprintf("rate limit: you sent server %s more than %s requests (limits.rate.per_principal); retry in %d s", server, rate.PerPrincipal, retry)
	default:
		return fmt.Sprintf("rate limit: server %s takes at most %s requests from all callers (limits.rate.per_server); retry in %d s", server, rate.PerServer, retry)
	}
}

// checkRate charges one request of the caller of r to server e: it reports true, or
// answers 429 with Retry-After (through fail, in the route's form) and reports false.
func (g *Gateway) checkRate(w http.ResponseWriter, r *http.Request, e *Entry, fail func(status int, msg string, data *jsonrpc.Error)) bool {
	rate := g.cfg.RateFor(e.Config())
	if rate.Off() {
		return true // the common case: no lock, no caller key
	}
	limit, wait := g.rates.allow(e.Name, rate, callerOf(r.Context(), r.Header))
	if limit == "" {
		return true
	}
	g.metrics.refused(limit)
	retry := retrySeconds(wait)
	w.Header().Set("Retry-After", fmt.Sprint(retry))
	msg := rateRefusal(e.Name, limit, rate, retry)
	fail(http.StatusTooManyRequests, msg, limitError(limit, retry, msg))
	return false
}

// principalSlotError is the refusal of a call over limits.concurrent_calls_per_principal.
func (g *Gateway) principalSlotError() *jsonrpc.Error {
	n := g.cfg.Limits.ConcurrentCallsPerPrincipal
	return limitError("concurrent_calls_per_principal", 1, fmt.Sprintf("too many calls at once: you already run %d tool calls, your limit (limits.concurrent_calls_per_principal); wait for one to finish, then retry", n))
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
	limit, wait := g.rates.allow(e.Name, rate, callerOf(ctx, requestHeader(req)))
	if limit == "" {
		return nil
	}
	g.metrics.refused(limit)
	retry := retrySeconds(wait)
	return limitError(limit, retry, rateRefusal(e.Name, limit, rate, retry))
}
