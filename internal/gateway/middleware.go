package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

type requestIDKey struct{}

var validRequestID = lazy.Regexp{Expr: `^[A-Za-z0-9._-]{1,64}$`}

// withRequestID gives every request an id (the client's X-Request-Id when it is sensible),
// returns it as X-Request-Id and logs the request at debug level.
func (g *Gateway) withRequestID(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if id == "" || !validRequestID.Get().MatchString(id) {
			id = newRequestID()
		}
		w.Header().Set("X-Request-Id", id)
		ctx := context.WithValue(r.Context(), requestIDKey{}, id)
		start := time.Now()
		h.ServeHTTP(w, r.WithContext(ctx))
		g.log.DebugContext(ctx, "request", "method", r.Method, "path", r.URL.Path, "request_id", id, "duration", time.Since(start))
	})
}

// Request ids are a random per-process prefix and a counter: unique, cheap, no syscall.
var (
	idPrefix  = func() string { var b [4]byte; rand.Read(b[:]); return hex.EncodeToString(b[:]) }()
	idCounter atomic.Uint64
)

func newRequestID() string {
	return idPrefix + "-" + strconv.FormatUint(idCounter.Add(1), 36)
}

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// checkHost guards against DNS rebinding: a request that reached the gateway on a loopback
// address must name a loopback host (localhost, 127.0.0.1, [::1]) or the host of a
// configured origin (a reverse proxy on the same machine that passes its public Host on).
// Otherwise a web page on any domain, resolved to 127.0.0.1 after it loaded, could read the
// pages and /metrics and call the tools. It covers every route; the SDK's own check, which
// covers only the MCP endpoints, is off.
func (g *Gateway) checkHost(h http.Handler) http.Handler {
	if g.opts.DisableLocalhostProtection {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && isLoopbackAddr(la) && !g.hostAllowed(r.Host) {
			refuse(w, r, http.StatusForbidden, "this gateway listens on a loopback address and answers only requests for localhost, 127.0.0.1 or [::1] (or the host of an origin listed in the config), as a guard against DNS rebinding")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// hostAllowed reports whether a Host header names a loopback host or a configured origin's
// host.
func (g *Gateway) hostAllowed(host string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
	return isLoopbackHost(name) || g.originHosts[strings.ToLower(host)]
}

func isLoopbackAddr(a net.Addr) bool {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.IsLoopback()
	}
	h, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// checkOrigin refuses a request whose Origin is not allowed (see originAllowed).
func (g *Gateway) checkOrigin(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.originAllowed(r) {
			refuse(w, r, http.StatusForbidden, "origin not allowed: add it to origins in the config to call this server from a browser page")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// authenticate puts the caller's principal on the request context: admin keys, API keys
// (declared in the config or in the store) and JWTs (see setupAuth). Refused credentials
// are answered by denyCredentials.
func (g *Gateway) authenticate(h http.Handler) http.Handler {
	return auth.Middleware(g.authn, g.denyCredentials)(h)
}

// limitRequest caps every request body at limits.max_body.
func (g *Gateway) limitRequest(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, g.cfg.Limits.MaxBody)
		}
		h.ServeHTTP(w, r)
	})
}

// refuse answers a request the middleware stops, in the form its route speaks: a JSON-RPC
// error on MCP endpoints, a JSON error on the admin API, plain text elsewhere.
func refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/admin/api/"):
		adminError(w, status, msg)
	case strings.HasPrefix(p, "/api/mcp/"):
		restError(w, status, msg)
	case strings.HasPrefix(p, "/mcp/") && !strings.HasPrefix(p, "/mcp/meta/"):
		writeRPCError(w, status, nil, codeInvalidRequest, msg)
	default:
		w.Header().Set("X-Content-Type-Options", "nosniff")
		http.Error(w, msg, status)
	}
}
