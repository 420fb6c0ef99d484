package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/auth"
)

type requestIDKey struct{}

var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// withRequestID gives every request an id (the client's X-Request-Id when it is sensible),
// returns it as X-Request-Id and logs the request at debug level.
func (g *Gateway) withRequestID(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if id == "" || !validRequestID.MatchString(id) {
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

// authenticate puts the caller's principal on the request context. Today the only
// credentials are the admin keys; API keys and JWTs join as further authenticators.
func (g *Gateway) authenticate(h http.Handler) http.Handler {
	return auth.Middleware(g.authn, func(w http.ResponseWriter, r *http.Request, err error) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcpbridge"`)
		refuse(w, r, http.StatusUnauthorized, "the credentials are not valid")
	})(h)
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
	case strings.HasPrefix(p, "/mcp/") && !strings.HasPrefix(p, "/mcp/meta/"):
		writeRPCError(w, status, nil, codeInvalidRequest, msg)
	default:
		w.Header().Set("X-Content-Type-Options", "nosniff")
		http.Error(w, msg, status)
	}
}
