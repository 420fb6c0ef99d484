// Package gateway serves every configured server at /mcp/{server}: Streamable HTTP in both
// protocol eras (sessions up to 2025-11-25, stateless from 2026-07-28) and legacy HTTP+SSE
// at /mcp/{server}/sse, plus the HTML pages, /healthz, /metrics and the admin API. It owns
// the HTTP server and its limits (connections, timeouts, sessions, concurrent calls, rate
// limits per caller and per server, call durations), the routes and the middleware chain
// (request id, Host, Origin, authentication, caller, body cap; see Handler), the JSON-RPC envelope checks, and the registry that maps server names to their
// backends and go-sdk servers.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/admission"
	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/secret"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// Options configure a Gateway. The zero value is usable.
type Options struct {
	// RequireSecrets makes New fail when a server of cfg cannot open because a secret
	// reference it names is not provided (serve and stdio); otherwise, and for stored
	// servers always, such a server is served as unavailable like any other that cannot open.
	RequireSecrets bool
	// Logger receives the gateway's logs; nil discards them.
	Logger *slog.Logger
	// Version is reported as the servers' implementation version.
	Version string
	// Blobs serves cid:// resources; nil means cid:// resources cannot be read.
	Blobs BlobGetter
	// SessionTimeout, when not zero, overrides limits.session_idle: legacy sessions idle
	// this long are closed, and a negative value keeps them until the client ends them.
	SessionTimeout time.Duration
	// DisableLocalhostProtection turns off the DNS-rebinding guard: the refusal of a
	// non-loopback Host on a loopback connection (tests only).
	DisableLocalhostProtection bool
	// ConfigLabel is how pages refer to the configuration (a path for setup snippets).
	ConfigLabel string
	// StdioArgs, when set, gives the arguments of the command that serves server over
	// stdio, for the desktop snippet of its page (mcpbridge app serves its one app with
	// "app DIR"); nil means "stdio --config ConfigLabel NAME".
	StdioArgs func(server string) []string
	// Definitions, when set, holds servers defined through the admin API; they are served
	// beside the file's servers and followed live (Watch).
	Definitions store.Definitions
	// AdminKeys are the secrets that authorise the admin API; the API is off when empty.
	AdminKeys []string
	// WorkSessions, when set, is given to backends that keep work sessions.
	WorkSessions store.WorkSessions
	// StoreFile is the SQLite store's database file, if the store is SQLite. It, its -wal,
	// -shm and -journal files, and the default mcpbridge.db beside the config are never
	// served as file resources.
	StoreFile string
	// Audit, when set, receives one entry per tool call (who, what, how long, how it ended),
	// written in the background.
	Audit AuditRecorder
	// Keys, when set, holds the API keys made by `mcpbridge keys create`; a bearer token
	// that looks like one is looked up there.
	Keys store.Keys
	// JWKSClient fetches auth.jwt.jwks_url; nil uses a client with a 10s timeout.
	JWKSClient *http.Client
	// SweepInterval is how often Serve deletes audit rows older than audit.retention (when
	// Audit can prune) and expired work sessions; zero means DefaultSweepInterval, a
	// negative value turns the sweep off.
	SweepInterval time.Duration
}

// Gateway serves a configuration's servers over HTTP.
type Gateway struct {
	// openSlots bounds the stored servers that open at once (maxOpenings, lazy.go).
	openSlots chan struct{}
	cfg       *config.Config
	opts      Options
	log       *slog.Logger
	sdkLog    *slog.Logger // the SDK's chatty per-session logs, at warning level and above
	reg       registry
	metrics   *metrics
	origins   map[string]bool
	// storeFiles are the store's files, never served as file resources.
	storeFiles []string
	// originHosts are the hosts (host[:port]) of the configured origins, also accepted as
	// Host on loopback connections.
	originHosts map[string]bool

	authn     auth.Authenticator
	adminKeys *auth.StaticKeys
	jwt       *auth.JWTVerifier // nil without auth.jwt

	sessions  *sessionTable
	proxies   proxies       // trusted_proxies: who a request's client is
	stopSweep chan struct{} // ends the idle-session sweeper
	closeOnce sync.Once
	sseOwners sseOwners    // who opened each HTTP+SSE session
	rates     rateLimits   // limits.rate
	callers   callerBounds // limits.concurrent_calls_per_principal

	leanOff    bool         // serve every 2026-07-28 request through the SDK (tests compare the two)
	leanServed atomic.Int64 // requests the lean path answered

	dyn      dynamic
	watch    watches // subscribed file resources
	audit    *auditor
	draining atomic.Bool
	inflight atomic.Int64 // MCP POSTs being served

	// secrets are every secret the gateway holds, whichever server resolved them: every
	// output of a backend and every log line is scrubbed of them (scrub.go).
	secrets *secret.Set

	events mcp.EventStore // legacy SSE events kept for Last-Event-ID resumption (events.go)
	// calls is cancelled with errShuttingDown when the drain period is over: running tool
	// calls are stopped and answered with a JSON-RPC error.
	calls     context.Context
	stopCalls context.CancelCauseFunc
}

// errShuttingDown is the cause of the cancellation of tool calls still running when the
// drain period is over.
var errShuttingDown = errors.New("gateway: shutting down")

// New opens the backends of every server in cfg and returns a gateway ready to serve them.
// A server whose backend cannot be opened is logged and served as unavailable (HTTP 503
// with the reason), unless opts.RequireSecrets and the reason is a secret this environment
// does not provide: New then fails, naming it.
func New(ctx context.Context, cfg *config.Config, opts Options) (*Gateway, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.Limits.SetDefaults() // for configs not made by config.Parse
	if cfg.Audit.Retention == 0 {
		cfg.Audit.Retention = config.DefaultAuditRetention
	}
	if opts.SessionTimeout == 0 {
		opts.SessionTimeout = cfg.Limits.SessionIdle
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	secrets := new(secret.Set)
	secrets.AddEnviron(os.Environ(), map[string]string{"MCPBRIDGE_ADMIN_KEY": "admin key"})
	for _, k := range opts.AdminKeys {
		secrets.Add(k, "admin key")
	}
	logs := scrubHandler{h: opts.Logger.Handler(), set: secrets}
	g := &Gateway{cfg: cfg, opts: opts, log: slog.New(logs), secrets: secrets, origins: map[string]bool{}, events: newEventStore()}
	g.calls, g.stopCalls = context.WithCancelCause(context.Background())
	g.sdkLog = slog.New(minLevel{logs, slog.LevelWarn})
	g.storeFiles = storeFiles(cfg, opts)
	g.originHosts = map[string]bool{}
	for _, o := range cfg.Origins {
		g.origins[strings.ToLower(strings.TrimSuffix(o, "/"))] = true
		if u, err := url.Parse(o); err == nil && u.Host != "" {
			g.originHosts[strings.ToLower(u.Host)] = true
		}
	}
	if err := g.setupAuth(); err != nil {
		return nil, err
	}
	g.metrics = newMetrics(g)
	g.sessions = newSessionTable(cfg.Limits.Sessions, cfg.Limits.SessionsPerClient)
	g.proxies = newProxies(cfg)
	g.stopSweep = make(chan struct{})
	if opts.SessionTimeout > 0 {
		go g.sessions.sweep(opts.SessionTimeout, g.stopSweep)
	}
	g.rates = admission.NewLimiter(nil)
	g.openSlots = make(chan struct{}, maxOpenings)
	g.callers = admission.NewCallerSlots(cfg.Limits.ConcurrentCallsPerPrincipal)
	if opts.Audit != nil {
		ao := auditOptions{spillDir: cfg.Audit.SpillDir, spillMax: cfg.Audit.SpillMax, required: cfg.Audit.Required}
		if ao.spillDir == "off" {
			ao.spillDir = ""
		}
		if ao.spillMax <= 0 {
			ao.spillMax = config.DefaultAuditSpillMax
		}
		g.audit = newAuditorWith(opts.Audit, g.log, ao)
	}
	for _, name := range cfg.ServerNames() {
		s := cfg.Servers[name]
		st, err := g.openState(ctx, s)
		if opts.RequireSecrets && errors.Is(err, secret.ErrNotSet) {
			// A secret the config names and this environment lacks is the operator's to
			// provide before the gateway starts (check only warns about it, for CI).
			g.Close()
			return nil, fmt.Errorf("%w (or set enabled: false on server %q to start without it)", err, name)
		}
		if err != nil {
			// One server that cannot open for another reason does not stop the others: it
			// is served as unavailable, with the reason, until its definition changes.
			g.log.Error("server cannot be opened; serving it as unavailable", "server", name, "error", err)
			st = unavailableState(s, err.Error())
		}
		e := g.newEntry(name, s.Title, s.Description)
		g.apply(e, st)
		g.reg.put(e)
	}
	g.dyn = dynamic{applied: map[string]int64{}, invalid: map[string]string{}, slugs: map[string]*sync.Mutex{}}
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

// Entry returns the served entry of a server, or nil. A stored server not opened yet is
// opened first (its first use).
func (g *Gateway) Entry(name string) *Entry {
	e, _ := g.opened(context.Background(), g.reg.get(name))
	return e
}

// Serve serves on ln until ctx is cancelled, then drains: it stops taking new MCP requests,
// waits up to the configured drain period for in-flight calls, and closes.
func (g *Gateway) Serve(ctx context.Context, ln net.Listener) error {
	l := g.cfg.Limits
	// ReadTimeout bounds the headers and body of a request; the server lifts the deadline once
	// the body has been read, so long tool calls and event streams are not cut by it.
	srv := &http.Server{
		Handler:           g.Handler(),
		ReadHeaderTimeout: l.HeaderTimeout,
		ReadTimeout:       l.ReadTimeout,
		IdleTimeout:       l.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(g.log.Handler(), slog.LevelWarn),
	}
	ln = newConnLimiter(ln, g.maxConnections(), l.ConnectionsPerClient, g.metrics.refused)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go g.Watch(wctx)
	go g.sweep(wctx)
	go releaseWhenIdle(wctx)
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

// maxConnections is limits.connections, or by default half the open-file limit (the other
// half is for tool processes, upstream calls and the store), at most 4096.
func (g *Gateway) maxConnections() int {
	if n := g.cfg.Limits.Connections; n > 0 {
		return n
	}
	if n := openFileLimit() / 2; n > 0 {
		return min(n, maxDefaultConnections)
	}
	return maxDefaultConnections
}

// Close flushes the audit log and releases the backends.
func (g *Gateway) Close() error {
	g.closeOnce.Do(func() { close(g.stopSweep) })
	// A request answered a moment ago may still be writing its audit row (the lean paths
	// answer first): give those a moment before the audit log closes.
	for deadline := time.Now().Add(2 * time.Second); g.inflight.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	g.audit.close()
	g.watch.stopWatching()
	var errs []error
	for _, e := range g.reg.all() {
		if st := e.state.Load(); st != nil && st.live != nil {
			st.live.stopWatchers()
		}
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
