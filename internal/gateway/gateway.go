// Package gateway serves every configured server at /mcp/{server}: Streamable HTTP in both
// protocol eras (sessions up to 2025-11-25, stateless from 2026-07-28) and legacy HTTP+SSE
// at /mcp/{server}/sse, plus the HTML pages, /healthz and /metrics. It owns the HTTP server,
// the middleware (Origin, content type, body size, JSON-RPC envelope), and the registry that
// maps server names to their backends and go-sdk servers.
package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/web"
)

// Options configure a Gateway. The zero value is usable.
type Options struct {
	// Logger receives the gateway's logs; nil discards them.
	Logger *slog.Logger
	// Version is reported as the servers' implementation version.
	Version string
	// Blobs serves cid:// resources; nil means cid:// resources cannot be read.
	Blobs BlobGetter
	// SessionTimeout closes legacy sessions idle this long; zero means 30 minutes and a
	// negative value keeps idle sessions until the client ends them.
	SessionTimeout time.Duration
	// DisableLocalhostProtection turns off the SDK's DNS-rebinding guard (tests only).
	DisableLocalhostProtection bool
	// ConfigLabel is how pages refer to the configuration (a path for setup snippets).
	ConfigLabel string
	// Definitions, when set, holds servers defined through the admin API; they are served
	// beside the file's servers and followed live (Watch).
	Definitions store.Definitions
	// AdminKeys are the secrets that authorise the admin API; the API is off when empty.
	AdminKeys []string
	// Audit, when set, receives one entry per tool call (who, what, how long, how it ended),
	// written in the background.
	Audit AuditRecorder
}

// Gateway serves a configuration's servers over HTTP.
type Gateway struct {
	cfg     *config.Config
	opts    Options
	log     *slog.Logger
	sdkLog  *slog.Logger // the SDK's chatty per-session logs, at warning level and above
	reg     registry
	metrics *metrics
	origins map[string]bool

	dyn      dynamic
	audit    *auditor
	draining atomic.Bool
	inflight atomic.Int64 // MCP POSTs being served

	// calls is cancelled with errShuttingDown when the drain period is over: running tool
	// calls are stopped and answered with a JSON-RPC error.
	calls     context.Context
	stopCalls context.CancelCauseFunc
}

// errShuttingDown is the cause of the cancellation of tool calls still running when the
// drain period is over.
var errShuttingDown = errors.New("gateway: shutting down")

// New opens the backends of every server in cfg and returns a gateway ready to serve them.
func New(ctx context.Context, cfg *config.Config, opts Options) (*Gateway, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.SessionTimeout == 0 {
		opts.SessionTimeout = 30 * time.Minute
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	g := &Gateway{cfg: cfg, opts: opts, log: opts.Logger, origins: map[string]bool{}}
	g.calls, g.stopCalls = context.WithCancelCause(context.Background())
	g.sdkLog = slog.New(minLevel{opts.Logger.Handler(), slog.LevelWarn})
	for _, o := range cfg.Origins {
		g.origins[strings.ToLower(strings.TrimSuffix(o, "/"))] = true
	}
	g.metrics = newMetrics(g)
	if opts.Audit != nil {
		g.audit = newAuditor(opts.Audit, g.log)
	}
	for _, name := range cfg.ServerNames() {
		s := cfg.Servers[name]
		st, err := g.openState(ctx, s)
		if err != nil {
			return nil, err
		}
		e := g.newEntry(name, s.Title, s.Description)
		g.apply(e, st)
		g.reg.put(e)
	}
	g.dyn = dynamic{applied: map[string]int64{}, invalid: map[string]string{}}
	if opts.Definitions != nil {
		if err := g.loadStored(ctx); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// Watch follows changes to stored servers until ctx ends; Serve starts it.
func (g *Gateway) Watch(ctx context.Context) {
	if g.opts.Definitions != nil {
		g.watchStored(ctx)
	}
}

// Entry returns the served entry of a server, or nil.
func (g *Gateway) Entry(name string) *Entry { return g.reg.get(name) }

// Handler returns the gateway's HTTP handler.
func (g *Gateway) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", g.serveMCPTree)
	mux.HandleFunc("/mcp/", g.serveMCPTree)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if g.draining.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "draining")
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(g.metrics.reg, promhttp.HandlerOpts{}))
	mux.Handle("GET /_mcpbridge/static/", web.Static())
	mux.HandleFunc("/admin/api/", g.serveAdmin)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" && r.Method == http.MethodGet {
			http.Redirect(w, r, "/mcp", http.StatusFound)
			return
		}
		http.NotFound(w, r)
	})
	return g.withRequestID(mux)
}

// serveMCPTree routes /mcp, /mcp/meta/{server}, /mcp/{server} and /mcp/{server}/sse.
func (g *Gateway) serveMCPTree(w http.ResponseWriter, r *http.Request) {
	rest := strings.Trim(strings.TrimPrefix(r.URL.Path, "/mcp"), "/")
	parts := strings.Split(rest, "/")
	switch {
	case rest == "":
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeRPCError(w, http.StatusNotFound, nil, codeInvalidRequest, "each server has its own endpoint: send MCP requests to /mcp/{server}; GET /mcp lists the servers")
			return
		}
		g.serveIndex(w, r)
	case len(parts) == 2 && parts[0] == "meta":
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		g.serveMeta(w, r, parts[1])
	case len(parts) == 1:
		g.track(w, r, func() { g.serveEndpoint(w, r, parts[0], false) })
	case len(parts) == 2 && parts[1] == "sse":
		g.track(w, r, func() { g.serveEndpoint(w, r, parts[0], true) })
	default:
		writeRPCError(w, http.StatusNotFound, nil, codeInvalidRequest, "not found; MCP endpoints are /mcp/{server}, pages are /mcp and /mcp/meta/{server}")
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

type requestIDKey struct{}

var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

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

// Serve serves on ln until ctx is cancelled, then drains: it stops taking new MCP requests,
// waits up to the configured drain period for in-flight calls, and closes.
func (g *Gateway) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           g.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(g.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go g.Watch(wctx)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	g.draining.Store(true)
	g.log.Info("shutting down: waiting for in-flight calls", "max_wait", g.cfg.Limits.DrainPeriod)
	deadline := time.Now().Add(g.cfg.Limits.DrainPeriod)
	for g.inflight.Load() > 0 {
		if time.Now().After(deadline) {
			g.log.Warn("drain period over; stopping the calls still running", "in_flight", g.inflight.Load())
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Stop what still runs (commands are killed) and give the handlers a moment to answer
	// their clients with an error before the connections close.
	g.stopCalls(errShuttingDown)
	for stopDeadline := time.Now().Add(2 * time.Second); g.inflight.Load() > 0 && time.Now().Before(stopDeadline); {
		time.Sleep(10 * time.Millisecond)
	}
	sctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		g.log.Warn("shutdown", "error", err)
	}
	srv.Close()
	return nil
}

// Close flushes the audit log and releases the backends.
func (g *Gateway) Close() error {
	g.audit.close()
	var errs []error
	for _, e := range g.reg.all() {
		if c, ok := e.Backend().(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// minLevel drops records below a level.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, min(l, slog.LevelWarn))
}

// Handle logs the SDK's errors as warnings: they are mostly about what a client sent (a
// method from another protocol era, a bad session), not faults of the gateway.
func (h minLevel) Handle(ctx context.Context, r slog.Record) error {
	if r.Level > slog.LevelWarn {
		r.Level = slog.LevelWarn
	}
	return h.Handler.Handle(ctx, r)
}

func (h minLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(as), h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.min}
}
