// Package admission decides whether a request may run now: the rate limits per caller and
// per server (limits.rate, token buckets), the tool calls one caller runs at once
// (limits.concurrent_calls_per_principal) and one server runs at once
// (limits.concurrent_calls), and the JSON-RPC errors of a refusal (code -32029, data
// {"limit", "retryAfterSeconds"}). Who a caller is, and when a request is charged, is the
// gateway's to say.
package admission

import (
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpbridge/mcpbridge/internal/config"
)

// CodeBusy is the JSON-RPC error code of a request refused by a limit.
const CodeBusy = -32029

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

// Limiter applies limits.rate: per caller on each server, and per server.
type Limiter struct {
	mu      sync.Mutex
	now     func() time.Time
	servers map[string]*serverRates
}

// NewLimiter returns a Limiter without buckets; now is its clock (nil: time.Now).
func NewLimiter(now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{now: now, servers: map[string]*serverRates{}}
}

// Allow takes a token from caller's bucket on server and from the server's bucket, both or
// neither. When one is empty it returns the limit's name (rate.per_principal or
// rate.per_server) and how long until a token is there.
func (l *Limiter) Allow(server string, rate config.Rate, caller string) (limit string, wait time.Duration) {
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

// RetrySeconds is a wait rounded up to whole seconds, at least 1 (Retry-After).
func RetrySeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

// LimitError is the JSON-RPC error of a request refused by a limit: code -32029, a message
// that says which limit and when to retry, and data {"limit", "retryAfterSeconds"}.
func LimitError(limit string, retry int, msg string) *jsonrpc.Error {
	data, _ := json.Marshal(map[string]any{"limit": limit, "retryAfterSeconds": retry})
	return &jsonrpc.Error{Code: CodeBusy, Message: msg, Data: data}
}

// LimitOf returns the limit and retry seconds in the data of a limit error.
func LimitOf(e *jsonrpc.Error) (limit string, retry int) {
	var d struct {
		Limit string `json:"limit"`
		Retry int    `json:"retryAfterSeconds"`
	}
	if e == nil || e.Code != CodeBusy || json.Unmarshal(e.Data, &d) != nil {
		return "", 0
	}
	return d.Limit, d.Retry
}

// RateRefusal says what a caller refused by limit must do.
func RateRefusal(server, limit string, rate config.Rate, retry int) string {
	switch limit {
	case "rate.per_principal":
		return fmt.Sprintf("rate limit: you sent server %s more than %s requests (limits.rate.per_principal); retry in %d s", server, rate.PerPrincipal, retry)
	default:
		return fmt.Sprintf("rate limit: server %s takes at most %s requests from all callers (limits.rate.per_server); retry in %d s", server, rate.PerServer, retry)
	}
}
