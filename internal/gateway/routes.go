package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/web"
)

// Handler returns the gateway's HTTP handler: the routes behind the middleware chain.
func (g *Gateway) Handler() http.Handler {
	mux := http.NewServeMux()
	g.routes(mux)
	return chain(mux, g.middleware()...)
}

// middleware is the HTTP chain every request passes, outermost first. Authentication is one
// link of it: a route sees the principal on its request's context.
func (g *Gateway) middleware() []func(http.Handler) http.Handler {
	return []func(http.Handler) http.Handler{
		g.withRequestID, // X-Request-Id in and out; the request log line
		g.checkHost,     // Host on loopback connections (DNS rebinding)
		g.checkOrigin,   // browser Origin allow-list
		g.authenticate,  // credentials → auth.Principal on the context
		g.withCaller,    // the client's address (a trusted proxy's header), for limits and audit
		g.limitRequest,  // request body cap
	}
}

// chain wraps h in mws so that mws[0] runs first.
func chain(h http.Handler, mws ...func(http.Handler) http.Handler) http.Handler {
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h
}

// routes registers every route on mux.
func (g *Gateway) routes(mux *http.ServeMux) {
	// Pages and MCP endpoints. "/mcp/meta/{server}" and "/mcp/{server}/sse" overlap on
	// /mcp/meta/sse, which ServeMux refuses to register, so both share one two-segment
	// pattern ("meta" is a reserved server name).
	mux.HandleFunc("GET /mcp", g.serveIndex)
	mux.HandleFunc("GET /mcp/{$}", g.serveIndex)
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeRPCError(w, http.StatusNotFound, nil, codeInvalidRequest, "each server has its own endpoint: send MCP requests to /mcp/{server}; GET /mcp lists the servers")
	})
	mux.HandleFunc("/mcp/{server}", func(w http.ResponseWriter, r *http.Request) {
		g.track(w, r, func() { g.serveEndpoint(w, r, r.PathValue("server"), false) })
	})
	mux.HandleFunc("/mcp/{server}/{sub}", func(w http.ResponseWriter, r *http.Request) {
		switch server, sub := r.PathValue("server"), r.PathValue("sub"); {
		case server == "meta":
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				w.Header().Set("Allow", "GET, HEAD")
				http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
				return
			}
			if e := g.reg.get(sub); e != nil && !g.authorizeServer(w, r, e) {
				return
			}
			g.serveMeta(w, r, sub)
		case sub == "sse":
			g.track(w, r, func() { g.serveEndpoint(w, r, server, true) })
		default:
			serveMCPNotFound(w, r)
		}
	})
	mux.HandleFunc("/mcp/", serveMCPNotFound)

	g.restRoutes(mux) // /api/mcp/{server}/…: the same servers for callers that do not speak MCP

	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp/{server}", g.serveResourceMetadata)

	mux.HandleFunc("GET /healthz", g.serveHealth)
	mux.Handle("GET /metrics", promhttp.HandlerFor(g.metrics.reg, promhttp.HandlerOpts{}))
	mux.Handle("GET /_mcpbridge/static/", web.Static())

	g.adminRoutes(mux)

	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/mcp", http.StatusFound)
	})
	mux.HandleFunc("/", http.NotFound)
}

func serveMCPNotFound(w http.ResponseWriter, r *http.Request) {
	writeRPCError(w, http.StatusNotFound, nil, codeInvalidRequest, "not found; MCP endpoints are /mcp/{server}, pages are /mcp and /mcp/meta/{server}")
}

// storePingTimeout bounds the store round trip of /healthz.
const storePingTimeout = 2 * time.Second

// serveHealth answers ok, or 503 with the reason while draining or when the store does not
// answer.
func (g *Gateway) serveHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if g.draining.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "draining")
		return
	}
	if reason := g.pingStore(r.Context()); reason != "" {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "store unreachable: "+reason)
		return
	}
	fmt.Fprintln(w, "ok")
}

// pinger is a store that can be asked whether it answers.
type pinger interface {
	Ping(ctx context.Context) error
}

// pingStore makes one round trip to the store (a Ping when it has one, else the read of a
// definition that need not exist) and returns "" or why it failed. The detail of a failure
// goes to the log: /healthz answers anyone who can reach it.
func (g *Gateway) pingStore(ctx context.Context) string {
	d := g.opts.Definitions
	if d == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, storePingTimeout)
	defer cancel()
	var err error
	if p, ok := d.(pinger); ok {
		err = p.Ping(ctx)
	} else if _, err = d.Get(ctx, "healthz-probe"); errors.Is(err, store.ErrNotFound) {
		err = nil
	}
	switch {
	case err == nil:
		return ""
	case ctx.Err() != nil:
		g.log.Warn("healthz: the store did not answer", "timeout", storePingTimeout, "error", err)
		return fmt.Sprintf("no answer within %s", storePingTimeout)
	default:
		g.log.Warn("healthz: the store failed", "error", err)
		return "it answered with an error (the gateway log has it)"
	}
}

// track counts in-flight requests for graceful shutdown and refuses new ones while draining.
func (g *Gateway) track(w http.ResponseWriter, r *http.Request, f func()) {
	if g.draining.Load() {
		w.Header().Set("Retry-After", "1")
		writeRPCError(w, http.StatusServiceUnavailable, nil, codeInternalError, "the gateway is shutting down; retry on another instance")
		return
	}
	if r.Method == http.MethodPost {
		g.inflight.Add(1)
		defer g.inflight.Add(-1)
	}
	f()
}
