// Package upstream is the backend kind "mcp": other MCP servers — a child process over
// stdio, or a Streamable HTTP or SSE endpoint — re-exposed with their tools, resources,
// resource templates and prompts.
//
// A server definition names one upstream (command or url), or several (upstreams:, each
// with a name) whose catalogs are merged with their tool and prompt names prefixed by the
// upstream's name and "__" (github__create_issue). Names that could split in two ways are
// refused, so merged names cannot collide.
//
// # Sessions
//
// With isolation: per-session (the default) every downstream MCP session — Streamable
// HTTP, HTTP+SSE or stdio — gets an upstream session of its own that speaks its era, and
// for a command a child process of its own; it is closed when the downstream session ends
// or after idle_timeout without calls. A stateless (2026-07-28) call has no session: its
// upstream session is kept per caller (the principal's owner; every anonymous caller
// shares one), and on a legacy upstream each call of a caller takes one no other call
// runs on (see connFor). With isolation: shared every caller uses one upstream session
// per era. Tool calls and prompt gets take the caller's upstream session. One more
// upstream session, the shared one, lists the catalog and follows the upstream's
// list_changed notifications; resource reads and completions go through it too, since
// the backend seam gives them no caller session.
//
// Children are supervised: a child that exits, or that sends something that is not
// JSON-RPC, is stopped; its calls in flight end with a tool error saying so, and it is
// started again on the next call (the shared one at once), after a backoff that doubles
// from 250ms to 30s while it keeps failing.
//
// # Forwarding
//
// Each tool call carries a progress token of its own, so progress notifications reach the
// call they belong to. Log notifications and the upstream's sampling, elicitation and roots
// requests carry nothing that says which call they belong to: they go to the connection's
// only caller (see conn.caller). The upstream is asked for every log level and the
// gateway applies the client's. Cancelling a call (or its timeout) cancels the upstream
// request. A 2026-07-28 upstream asks for input with input_required results: they are
// returned to a 2026-07-28 client, whose retry (inputResponses, requestState) is passed
// on, and fulfilled through the session of a legacy client, round after round.
//
// Values of env and headers may be secret references (secret:NAME, env:NAME, file:PATH);
// they are resolved when the backend opens and scrubbed from results, errors and logs. A
// downstream client's headers, its Authorization included, are never sent upstream.
package upstream

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/safehttp"
	"github.com/mcpbridge/mcpbridge/internal/secret"
	"github.com/mcpbridge/mcpbridge/internal/transform"
)

// statelessKey prefixes the key of the upstream session of stateless callers.
const statelessKey = "\x00stateless:"

// sharedLegacyKey is the key of the shared upstream session of legacy clients.
const sharedLegacyKey = "\x00shared-legacy"

// legacyVersion is the protocol version of the upstream sessions of legacy clients.
const legacyVersion = "2025-11-25"

// baseEnv are the variables of the gateway's environment a child gets, besides its env.
var baseEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "SYSTEMROOT"}

// Backend serves the catalogs of one or more upstream MCP servers. It is safe for
// concurrent use.
type Backend struct {
	// Lists are the resources and prompts its transforms generated (backend.Generator).
	*transform.Lists
	name    string
	log     *slog.Logger
	now     func() time.Time
	ups     []*upstream
	byName  map[string]*upstream // by prefix, when names are prefixed
	changes chan struct{}
	updates chan string // URIs of subscribed resources that changed
	scrub   *secret.Scrubber

	ctx    context.Context // ends when the backend closes
	cancel context.CancelFunc
	parkMu sync.Mutex
	parked map[string]*parked // calls waiting for a stateless client's input, by id
	wg     sync.WaitGroup
	closed atomic.Bool
	tokens atomic.Uint64
	tokPfx string
}

// upstream is one upstream server of a backend.
type upstream struct {
	b       *Backend
	src     *source
	label   string // "upstream everything" in messages
	log     *slog.Logger
	argv    []string
	env     []string
	dir     string
	client  *http.Client // for url
	sse     atomic.Bool  // the url speaks the 2024-11-05 HTTP+SSE transport
	shared  *conn
	mu      sync.Mutex
	perSess map[string]*conn
	// sharedLegacy is the 2025-11-25 session the calls of legacy clients share (isolation:
	// shared) when the shared session speaks 2026-07-28; nil until one calls.
	sharedLegacy *conn

	catMu       sync.RWMutex
	cat         rawCatalog
	refresh     chan struct{}
	refreshFrom atomic.Pointer[conn] // the shared connection that said the catalog changed

	subsMu sync.Mutex
	subs   map[string]bool // subscribed resource URIs
}

// rawCatalog is what an upstream lists, as it lists it.
type rawCatalog struct {
	tools     []*mcp.Tool
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	prompts   []*mcp.Prompt
	complete  bool // it offers completions
}

// Open resolves the secrets of the definition, starts the shared session of every
// upstream (waiting at most start_timeout for each) and lists their catalogs.
func (sp *spec) Open(ctx context.Context, deps backend.Deps) (backend.Backend, error) {
	bctx, cancel := context.WithCancel(context.Background())
	b := &Backend{
		name: sp.server.Name, log: deps.Log(), now: deps.Clock(), changes: make(chan struct{}, 1), updates: make(chan string, updatesBuffer),
		byName: map[string]*upstream{}, ctx: bctx, cancel: cancel, tokPfx: randomHex(6),
	}
	var secrets []secret.Secret
	res := func(where, v string) (string, error) {
		val, err := deps.Resolve(where, v)
		if err == nil && secret.IsRef(v) {
			secrets = append(secrets, secret.Secret{Value: val, Label: secret.Label(v)})
		}
		return val, err
	}
	for _, src := range sp.sources {
		u, err := newUpstream(b, src, deps, res)
		if err != nil {
			cancel()
			return nil, err
		}
		b.ups = append(b.ups, u)
		if src.prefix != "" {
			b.byName[src.prefix] = u
		}
	}
	b.scrub = secret.NewLabeledScrubber(secrets...)
	// Start every upstream at once; fail when one cannot start.
	errs := make([]error, len(b.ups))
	var wg sync.WaitGroup
	for i, u := range b.ups {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, u.src.StartTimeout+time.Second)
			defer cancel()
			if _, _, err := u.shared.session(ctx); err != nil {
				errs[i] = fmt.Errorf("%s cannot start: %s", u.label, u.describe(err, u.shared))
				return
			}
			if err := u.list(ctx, u.shared); err != nil {
				errs[i] = fmt.Errorf("%s: listing its catalog: %s", u.label, b.scrubString(err.Error()))
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		b.Close()
		return nil, err
	}
	b.Lists = transform.GenerateLists(ctx, &transform.Server{Def: sp.server, Refs: sp.refs, Deps: deps})
	for _, u := range b.ups {
		b.goBackground(u.refresher)
	}
	b.goBackground(b.reaper)
	return b, nil
}

func newUpstream(b *Backend, spec *source, deps backend.Deps, res func(where, v string) (string, error)) (*upstream, error) {
	src := new(source)
	*src = *spec // the defaults below are this backend's; the spec may be opened again
	label := "the upstream server"
	if src.Name != "" {
		label = "upstream " + src.Name
	}
	u := &upstream{b: b, src: src, label: label, perSess: map[string]*conn{}, refresh: make(chan struct{}, 1), subs: map[string]bool{}}
	u.log = b.log.With("upstream", cmpOr(src.Name, b.name))
	if src.Isolation == "" {
		src.Isolation = PerSession
	}
	if src.Timeout == 0 {
		src.Timeout = DefaultTimeout
	}
	if src.StartTimeout == 0 {
		src.StartTimeout = DefaultStartTimeout
	}
	if src.IdleTimeout == 0 {
		src.IdleTimeout = DefaultIdleTimeout
	}
	if src.MaxSessions == 0 {
		src.MaxSessions = DefaultMaxSessions
	}
	if src.MaxResponseBytes <= 0 {
		src.MaxResponseBytes = DefaultMaxResponseBytes
	}
	at := func(f string) string {
		if src.path == "" {
			return f
		}
		return src.path + "." + f
	}
	if len(src.Command) > 0 {
		u.dir = deps.Dir
		if src.Workdir != "" {
			u.dir = src.Workdir
			if !filepath.IsAbs(u.dir) && deps.Dir != "" {
				u.dir = filepath.Join(deps.Dir, u.dir)
			}
		}
		u.argv = append([]string(nil), src.Command...)
		if strings.ContainsRune(u.argv[0], '/') && !filepath.IsAbs(u.argv[0]) && u.dir != "" {
			u.argv[0] = filepath.Join(u.dir, u.argv[0])
		}
		for _, k := range baseEnv {
			if _, set := src.Env[k]; set {
				continue
			}
			if v, ok := os.LookupEnv(k); ok {
				u.env = append(u.env, k+"="+v)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(src.Env)) {
			v, err := res(at("env."+k), src.Env[k])
			if err != nil {
				return nil, err
			}
			u.env = append(u.env, k+"="+v)
		}
	} else {
		hs := http.Header{}
		for _, k := range slices.Sorted(maps.Keys(src.Headers)) {
			v, err := res(at("headers."+k), src.Headers[k])
			if err != nil {
				return nil, err
			}
			if !safehttp.ValidHeaderValue(v) {
				return nil, fmt.Errorf("%s: the value contains a control character (a line break?)", at("headers."+k))
			}
			hs.Set(k, v)
		}
		target, _ := url.Parse(src.URL)
		// The url is the operator's, not a model's: loopback and private addresses are
		// allowed; link-local and metadata addresses are still refused. Calls are bounded
		// by their context, not by a client timeout (an SSE stream stays open).
		base := deps.Client(safehttp.Policy{AllowPrivate: true}, safehttp.Options{ResponseHeaderTimeout: time.Hour})
		client := *base
		client.Timeout = 0
		client.Transport = &headerTransport{base: base.Transport, host: target.Host, headers: hs}
		u.client = &client
		u.sse.Store(src.Transport == "sse")
	}
	u.shared = newConn(u, "")
	return u, nil
}

// headerTransport adds the configured headers to requests for the upstream's host (never
// to a redirect elsewhere).
type headerTransport struct {
	base    http.RoundTripper
	host    string
	headers http.Header
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 && r.URL.Host == t.host {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header[k] = v
		}
	}
	resp, err := t.base.RoundTrip(r)
	countBody(r, resp)
	return resp, err
}

// sseTransport connects the 2024-11-05 SSE transport with a context that lasts as long as
// the connection (the transport ties its event stream to the context Connect gets), and
// gives up when the start's context ends first.
type sseTransport struct {
	t    *mcp.SSEClientTransport
	life context.Context
}

func (t *sseTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	life, cancel := context.WithCancel(t.life)
	stop := context.AfterFunc(ctx, cancel)
	conn, err := t.t.Connect(life)
	if !stop() || err != nil {
		cancel()
		if err == nil {
			conn.Close()
			err = ctx.Err()
		}
		return nil, err
	}
	return conn, nil
}

// dial starts a session with the upstream for c, whose forwardable notifications are
// counted into n.
func (u *upstream) dial(ctx context.Context, c *conn, n *notes) (*mcp.ClientSession, *process, error) {
	client := u.newClient(c, n)
	ctx = withNotes(ctx, n)
	opts := &mcp.ClientSessionOptions{ProtocolVersion: cmpOr(c.version, u.src.ProtocolVersion)}
	if len(u.argv) > 0 {
		cmd := exec.Command(u.argv[0], u.argv[1:]...)
		cmd.Env = u.env
		cmd.Dir = u.dir
		tail := &tailWriter{max: 4 << 10, log: u.log, scrub: u.b.scrubString}
		proc, t, err := startProcess(cmd, tail, n, u.src.MaxResponseBytes)
		if err != nil {
			return nil, nil, fmt.Errorf("starting %s: %w", u.argv[0], err)
		}
		cs, err := client.Connect(ctx, t, opts)
		if err != nil {
			timedOut := ctx.Err() != nil
			proc.kill()
			if timedOut {
				err = u.slowStart()
			} else {
				err = fmt.Errorf("%w (%s)", err, proc.exitReason())
			}
			if msg := tail.lastLine(300); msg != "" {
				err = fmt.Errorf("%w; its last output on stderr: %s", err, msg)
			}
			return nil, nil, err
		}
		u.afterConnect(ctx, cs)
		return cs, proc, nil
	}
	sse := &sseTransport{t: &mcp.SSEClientTransport{Endpoint: u.src.URL, HTTPClient: u.client, MaxEventSize: u.src.MaxResponseBytes}, life: withNotes(c.life, n)}
	if !u.sse.Load() {
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: u.src.URL, HTTPClient: u.client, MaxRetries: 2, MaxEventSize: u.src.MaxResponseBytes}, opts)
		if err == nil {
			u.afterConnect(ctx, cs)
			return cs, nil, nil
		}
		if u.src.Transport != "" || !maySpeakSSE(err) {
			return nil, nil, err
		}
		// An endpoint that refuses a Streamable HTTP POST may be a 2024-11-05 SSE server.
		cs, sseErr := client.Connect(ctx, sse, opts)
		if sseErr != nil {
			return nil, nil, fmt.Errorf("%w (and as an SSE endpoint: %v)", err, sseErr)
		}
		u.log.Info("the upstream speaks the 2024-11-05 HTTP+SSE transport", "url", u.src.URL)
		u.sse.Store(true)
		u.afterConnect(ctx, cs)
		return cs, nil, nil
	}
	cs, err := client.Connect(ctx, sse, opts)
	if err != nil {
		return nil, nil, err
	}
	u.afterConnect(ctx, cs)
	return cs, nil, nil
}

// slowStart is the error of a start that took longer than start_timeout.
func (u *upstream) slowStart() error {
	return fmt.Errorf("it did not complete the MCP handshake within start_timeout (%s)", u.src.StartTimeout)
}

// maySpeakSSE reports whether a failed Streamable HTTP connect may mean an SSE endpoint:
// the server answered, but not with what Streamable HTTP expects.
func maySpeakSSE(err error) bool {
	s := err.Error()
	if strings.Contains(s, "content type") {
		return true
	}
	for _, code := range []int{400, 404, 405, 406, 415} {
		if strings.Contains(s, fmt.Sprint(code)) || strings.Contains(s, http.StatusText(code)) {
			return true
		}
	}
	return false
}

// afterConnect asks a legacy upstream that logs for every level: the gateway applies each
// client's own level. (A 2026-07-28 upstream is asked per request.)
func (u *upstream) afterConnect(ctx context.Context, cs *mcp.ClientSession) {
	res := cs.InitializeResult()
	if res == nil || res.Capabilities == nil || res.Capabilities.Logging == nil || res.ProtocolVersion >= "2026-07-28" {
		return
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		u.log.Debug("setting the upstream's logging level failed", "error", err)
	}
}

// who is the caller of a tool call or prompt get: what picks its upstream session, and
// what it may be asked.
type who struct {
	owner  string // the principal's Owner
	sess   backend.Session
	client backend.Declared
}

func callerOf(call *backend.Call) who {
	return who{owner: call.Principal.Owner(), sess: call.Session, client: call.Client}
}

// caps is what the caller declared it can be asked (nil: nothing, or an internal call).
func (w who) caps() *mcp.ClientCapabilities {
	_, caps := backend.DeclaredBy(w.client)
	return caps
}

// connFor returns the connection a call uses — the shared one, or the one of its session
// (created on first use) — reserved for the call: the caller releases it when the call ends.
//
// A stateless caller's calls share the upstream session of its principal when it speaks
// 2026-07-28 (the upstream asks for input in results, which say whose they are). A
// legacy upstream asks with requests that say nothing of the call they belong to, and a
// call waiting for a stateless client's retry (see parked) holds its session until the
// retry or its timeout: so there each call of a stateless caller takes a session of the
// principal's no call is running on, and another is started when all are busy (up to
// max_sessions; idle ones are closed after idle_timeout).
func (u *upstream) connFor(w who) (*conn, error) {
	if u.src.Isolation == Shared {
		c, err := u.sharedFor(w)
		if err == nil {
			c.reserve()
		}
		return c, err
	}
	key := w.sess.ID()
	u.shared.mu.Lock()
	legacyShared := !u.shared.modern // as its last session spoke: the stateless ones ask for the same
	u.shared.mu.Unlock()
	u.mu.Lock()
	defer u.mu.Unlock()
	if key == "" {
		key = statelessKey + w.owner
		if legacyShared {
			key = u.freeStatelessKey(key)
		}
	}
	if c := u.perSess[key]; c != nil {
		// Reserved under u.mu: the reaper and max_sessions, which take u.mu too, must not
		// close it before the call ends ("the server is being closed").
		c.reserve()
		return c, nil
	}
	if u.b.closed.Load() {
		return nil, errClosed
	}
	if len(u.perSess) >= u.src.MaxSessions {
		// Make room by closing the session idle the longest.
		var oldest *conn
		var oldestKey string
		var oldestUse time.Time
		for k, c := range u.perSess {
			if used := c.used(); c.idle(u.b.now()) && (oldest == nil || used.Before(oldestUse)) {
				oldest, oldestKey, oldestUse = c, k, used
			}
		}
		if oldest == nil {
			return nil, fmt.Errorf("%s already serves %d sessions, each with a call running (max_sessions)", u.label, u.src.MaxSessions)
		}
		delete(u.perSess, oldestKey)
		u.b.goBackground(oldest.close)
	}
	c := newConn(u, key)
	if w.sess.ID() != "" && u.src.ProtocolVersion == "" {
		// A legacy client's upstream session speaks the legacy protocol too, so that what
		// the upstream asks in the middle of a call (sampling, elicitation, roots) comes as
		// requests its session can carry, whichever way the upstream asks.
		c.version = legacyVersion
	}
	if w.sess.ID() != "" {
		// One legacy session, whose declarations do not change: the upstream session
		// declares the same at initialize.
		c.info, c.caps = backend.DeclaredBy(w.client)
	}
	u.perSess[key] = c
	c.reserve()
	return c, nil
}

// freeStatelessKey returns the key of the first upstream session of a stateless
// principal (base, then base#2, base#3, …) that no call runs on, or the first key that has
// no session yet. u.mu is held.
func (u *upstream) freeStatelessKey(base string) string {
	for n := 1; ; n++ {
		key := base
		if n > 1 {
			key = fmt.Sprintf("%s#%d", base, n)
		}
		if c := u.perSess[key]; c == nil || !c.busy() {
			return key
		}
	}
}

// sharedFor returns the shared connection a call uses: the shared session, or for a
// legacy client, when that session speaks 2026-07-28, a shared session that speaks
// 2025-11-25, so that what the upstream asks in the middle of a call (sampling,
// elicitation, roots) comes as requests the client's session can carry.
func (u *upstream) sharedFor(w who) (*conn, error) {
	u.shared.mu.Lock()
	modern := u.shared.modern
	u.shared.mu.Unlock()
	if w.sess.ID() == "" || !modern || u.src.ProtocolVersion != "" {
		return u.shared, nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.sharedLegacy == nil {
		if u.b.closed.Load() {
			return nil, errClosed
		}
		u.sharedLegacy = newConn(u, sharedLegacyKey)
		u.sharedLegacy.version = legacyVersion
	}
	return u.sharedLegacy, nil
}

// restartLater starts the shared connection again after its backoff, and lists the
// catalog once it is up, since the upstream may offer something else now.
func (u *upstream) restartLater(c *conn) {
	u.b.goBackground(func() {
		c.mu.Lock()
		wait := c.retryAt.Sub(u.b.now())
		c.mu.Unlock()
		t := time.NewTimer(max(wait, 0))
		defer t.Stop()
		select {
		case <-t.C:
		case <-u.b.ctx.Done():
			return
		}
		ctx, cancel := context.WithTimeout(u.b.ctx, u.src.StartTimeout+time.Second)
		defer cancel()
		if cs, _, err := c.session(ctx); err == nil {
			u.resubscribe(ctx, cs)
			u.requestRefresh(c)
		}
	})
}

// requestRefresh asks the refresher to list the catalog again, through the shared
// connection c.
func (u *upstream) requestRefresh(c *conn) {
	u.refreshFrom.Store(c)
	select {
	case u.refresh <- struct{}{}:
	default:
	}
}

// refresher lists the catalog again when asked (list_changed, a restart) and tells the
// gateway when it changed.
func (u *upstream) refresher() {
	for {
		select {
		case <-u.b.ctx.Done():
			return
		case <-u.refresh:
		}
		// Let a burst of notifications settle into one listing.
		select {
		case <-u.b.ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
		ctx, cancel := context.WithTimeout(u.b.ctx, u.src.Timeout)
		from := u.refreshFrom.Load()
		if from == nil {
			from = u.shared
		}
		err := u.list(ctx, from)
		cancel()
		if err != nil {
			u.log.Warn("listing the upstream's changed catalog failed; serving the previous one", "error", u.b.scrubString(err.Error()))
			continue
		}
		u.b.signal()
	}
}

// list lists the upstream's catalog through one of its shared sessions.
func (u *upstream) list(ctx context.Context, from *conn) error {
	cs, _, err := from.session(ctx)
	if err != nil {
		return err
	}
	var cat rawCatalog
	caps := &mcp.ServerCapabilities{}
	if res := cs.InitializeResult(); res != nil && res.Capabilities != nil {
		caps = res.Capabilities
	}
	if caps.Tools != nil {
		if cat.tools, err = bounded(u, "tools", cs.Tools(ctx, nil)); err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
	}
	if caps.Resources != nil {
		if cat.resources, err = bounded(u, "resources", cs.Resources(ctx, nil)); err != nil {
			return fmt.Errorf("resources/list: %w", err)
		}
		if cat.templates, err = bounded(u, "resource templates", cs.ResourceTemplates(ctx, nil)); err != nil {
			return fmt.Errorf("resources/templates/list: %w", err)
		}
	}
	if caps.Prompts != nil {
		if cat.prompts, err = bounded(u, "prompts", cs.Prompts(ctx, nil)); err != nil {
			return fmt.Errorf("prompts/list: %w", err)
		}
	}
	cat.complete = caps.Completions != nil
	u.catMu.Lock()
	u.cat = cat
	u.catMu.Unlock()
	return nil
}

// MaxListEntries bounds each list an upstream hands on (tools, resources, resource
// templates, prompts): the entries past it are not read (no further page is asked for)
// and a warning is logged.
const MaxListEntries = 10000

// bounded collects the entries of an upstream's list, at most MaxListEntries of them.
func bounded[T any](u *upstream, what string, all iter.Seq2[T, error]) ([]T, error) {
	var out []T
	for x, err := range all {
		if err != nil {
			return nil, err
		}
		if len(out) == MaxListEntries {
			u.log.Warn("the upstream lists more "+what+" than the gateway serves; the rest are dropped", "served", MaxListEntries)
			break
		}
		out = append(out, x)
	}
	return out, nil
}

// signal tells the gateway that the catalog changed.
func (b *Backend) signal() {
	select {
	case b.changes <- struct{}{}:
	default:
	}
}

// Changes receives a value when an upstream's catalog changed. It is closed when the
// backend is closed.
func (b *Backend) Changes() <-chan struct{} { return b.changes }

// reaper closes per-session connections idle for longer than their idle_timeout.
func (b *Backend) reaper() {
	every := time.Minute
	for _, u := range b.ups {
		every = min(every, max(u.src.IdleTimeout/4, 50*time.Millisecond))
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-b.ctx.Done():
			return
		case <-t.C:
		}
		for _, u := range b.ups {
			cutoff := b.now().Add(-u.src.IdleTimeout)
			u.mu.Lock()
			for k, c := range u.perSess {
				if c.idle(cutoff) {
					delete(u.perSess, k)
					u.log.Debug("closing an idle upstream session", "session", c.logKey())
					b.goBackground(c.close)
				}
			}
			u.mu.Unlock()
		}
	}
}

// SessionEnded closes the upstream sessions of a downstream session that ended.
func (b *Backend) SessionEnded(id string) {
	if id == "" {
		return
	}
	for _, u := range b.ups {
		u.mu.Lock()
		c := u.perSess[id]
		delete(u.perSess, id)
		u.mu.Unlock()
		if c != nil {
			b.goBackground(c.close)
		}
	}
}

// Close closes every upstream session (stopping the children) and waits for the
// backend's goroutines to end.
func (b *Backend) Close() error {
	if b.closed.Swap(true) {
		return nil
	}
	b.cancel()
	b.dropParked()
	var wg sync.WaitGroup
	for _, u := range b.ups {
		u.mu.Lock()
		conns := []*conn{u.shared}
		if u.sharedLegacy != nil {
			conns = append(conns, u.sharedLegacy)
		}
		for k, c := range u.perSess {
			conns = append(conns, c)
			delete(u.perSess, k)
		}
		u.mu.Unlock()
		for _, c := range conns {
			wg.Go(c.close)
		}
	}
	wg.Wait()
	b.wg.Wait()
	close(b.changes) // whoever follows Changes stops (nothing signals any more)
	return nil
}

// goBackground runs f in a goroutine that Close waits for.
func (b *Backend) goBackground(f func()) {
	b.wg.Go(f)
}

func (b *Backend) newToken() string {
	return fmt.Sprintf("mcpbridge-%s-%d", b.tokPfx, b.tokens.Add(1))
}

func (b *Backend) scrubString(s string) string { return b.scrub.String(s) }

// describe says why a connection could not be used, for a client or the log.
func (u *upstream) describe(err error, c *conn) string {
	var msg string
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		c.mu.Lock()
		switch {
		case c.startErr != nil:
			msg = c.startErr.Error()
		case c.starting != nil:
			// The caller's time ran out while the start (bounded by start_timeout) goes on.
			msg = "it was still starting (the MCP handshake had not finished) when the call's time ran out; the start goes on in the background"
		default:
			msg = u.slowStart().Error()
		}
		c.mu.Unlock()
	case errors.Is(err, errClosed):
		msg = "the server is being closed"
	default:
		msg = err.Error()
	}
	return u.b.scrubString(msg)
}

// Catalog returns the merged catalogs of the upstreams, as they were last listed.
func (b *Backend) Catalog(context.Context) (*backend.Catalog, error) {
	return b.catalog(), nil
}

// QuietFor reports whether a call sends a client that declared caps nothing but its result
// (backend.QuietFor): the upstream's progress and log messages reach the client only with a
// progress token and a log level (the gateway checks those), and its requests — sampling,
// elicitation in either mode, roots — only when the client declared it can answer them
// (lacks); a client that declared none of them is never asked anything in the middle of a
// call. Only stdio upstreams qualify: a Streamable HTTP upstream may end a call's event
// stream early and ask to be polled, which relayPolling passes on to the client over the
// client's own event stream of the call.
func (b *Backend) QuietFor(caps *mcp.ClientCapabilities) bool {
	for _, u := range b.ups {
		if len(u.argv) == 0 {
			return false
		}
	}
	for _, ir := range quietProbes {
		if lacks(caps, ir) == "" {
			return false
		}
	}
	return true
}

// quietProbes are the requests an upstream can send that forward passes to the client.
var quietProbes = []mcp.InputRequest{
	&mcp.CreateMessageParams{}, &mcp.ElicitParams{}, &mcp.ElicitParams{Mode: "url"}, &mcp.ListRootsParams{},
}

// CallTool calls the tool on its upstream, through the caller's upstream session.
func (b *Backend) CallTool(ctx context.Context, call *backend.Call) (*mcp.CallToolResult, error) {
	res, err := b.callTool(ctx, call)
	return ownToolResult(res), err
}

// callTool is CallTool with the upstream's result as its client decoded it.
func (b *Backend) callTool(ctx context.Context, call *backend.Call) (*mcp.CallToolResult, error) {
	u, name := b.route(call.Name)
	if u == nil {
		return backend.ErrorResult("unknown tool %q", call.Name), nil
	}
	return u.callTool(ctx, call, name)
}

// maxRounds bounds the input rounds mcpbridge fulfils for a legacy client in one call.
const maxRounds = 10

func (u *upstream) callTool(ctx context.Context, call *backend.Call, name string) (*mcp.CallToolResult, error) {
	w := callerOf(call)
	if id, ok := isParked(call.RequestState); ok && call.Session.ID() == "" {
		p, o, err := u.b.resume(ctx, u, w, "tools/call", call.Name, id, call.InputResponses)
		if err != nil {
			return nil, err
		}
		return u.toolOutcome(ctx, p, o)
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, u.src.Timeout)
	defer cancel()
	c, err := u.connFor(w)
	if err != nil {
		return backend.ErrorResult("%s", u.b.scrubString(err.Error())), nil
	}
	defer c.release()
	cs, notes, err := c.session(ctx)
	if err != nil {
		if parent.Err() != nil {
			return backend.ErrorResult("the call was cancelled"), nil
		}
		return backend.ErrorResult("%s is not available: %s. Try again later.", u.label, u.describe(err, c)), nil
	}
	c.mu.Lock()
	modern, logMeta := c.modern, c.modern && c.logs
	c.mu.Unlock()
	caps := w.caps()
	if call.Session.ID() == "" && !modern {
		p := u.startParked(parent, w, "tools/call", call.Name, c, cs, notes, call.InputResponses, call.RequestState, func(ctx context.Context, tok string) (mcp.Result, error) {
			params := &mcp.CallToolParams{Name: name, Arguments: call.Arguments, InputResponses: call.InputResponses, RequestState: call.RequestState}
			params.SetProgressToken(tok)
			return cs.CallTool(ctx, params)
		})
		return u.toolOutcome(parent, p, p.round(parent))
	}
	f := c.begin(ctx, call.Session, caps)
	defer c.end(f)
	ctx = withNotes(ctx, notes) // an HTTP response stream's notifications are counted
	// The upstream's definition of the tool, so that its Mcp-Param-* headers are sent.
	ctx = mcp.WithToolDefinition(ctx, u.listedTool(name))
	ctx = relayPolling(ctx, call.Client) // an upstream that asks to be polled is relayed
	params := &mcp.CallToolParams{Name: name, Arguments: call.Arguments, InputResponses: call.InputResponses, RequestState: call.RequestState}
	for round := 1; ; round++ {
		params.SetProgressToken(f.token)
		if logMeta {
			params.Meta[mcp.MetaKeyLogLevel] = "debug"
		}
		if modern {
			params.Meta = present(params.Meta, call.Client)
		}
		res, err := cs.CallTool(ctx, params)
		if why := f.refusal(); err != nil && why != "" && parent.Err() == nil {
			return u.needsInput(why), nil
		}
		if e := u.clientError(err, params.InputResponses, params.RequestState); e != nil {
			return nil, e
		}
		if err != nil {
			return u.failure(parent, ctx.Err() != nil, notes, c, cs, "tools/call", err), nil
		}
		notes.drain() // forward the notifications that came before the result
		if len(res.InputRequests) > 0 {
			// Input requests reach only a client that declared it can answer them.
			if why := lacksAny(caps, res.InputRequests); why != "" {
				return u.needsInput(why), nil
			}
		}
		if len(res.InputRequests) == 0 || call.Session.ID() == "" || round >= maxRounds {
			// A 2026-07-28 client gets the input requests and retries itself.
			return u.checkedResult(res, f), nil
		}
		// A legacy client cannot read input requests: ask it over its session, and retry.
		responses, err := fulfil(ctx, call.Session, res.InputRequests)
		if err != nil {
			if parent.Err() != nil {
				return backend.ErrorResult("the call was cancelled"), nil
			}
			return backend.ErrorResult("%s asked the client for input, which failed: %s", u.label, u.b.scrubString(err.Error())), nil
		}
		params = &mcp.CallToolParams{Name: name, Arguments: call.Arguments, InputResponses: responses, RequestState: res.RequestState}
	}
}

// clientError returns the upstream's JSON-RPC error when it is a protocol error of the
// client's, to be passed on as it is rather than as a tool failure for the model to read:
// a capability the client did not declare (MissingRequiredClientCapabilityError), or a
// retry the upstream refuses (a stale or tampered requestState). It returns nil for
// anything else.
func (u *upstream) clientError(err error, responses mcp.InputResponseMap, state string) *jsonrpc.Error {
	var rpcErr *jsonrpc.Error
	if err == nil || !upstreamError(err, &rpcErr) {
		return nil
	}
	if rpcErr.Code != mcp.CodeMissingRequiredClientCapabilities && len(responses) == 0 && state == "" {
		return nil
	}
	e := *rpcErr
	e.Message = u.b.scrubString(e.Message)
	return &e
}

// longLine is how long a message still arriving when a call's time runs out must be for
// the call to be said to have answered too much, rather than nothing.
const longLine = 1 << 20

// failure turns a failed upstream request into a tool error that says what happened.
// parent is the client's request; timedOut says whether the upstream request's own time
// (the server's timeout) had run out when it failed; n counts the session's messages.
func (u *upstream) failure(parent context.Context, timedOut bool, n *notes, c *conn, cs *mcp.ClientSession, method string, err error) *mcp.CallToolResult {
	var rpcErr *jsonrpc.Error
	switch {
	case parent.Err() != nil:
		return backend.ErrorResult("the call was cancelled")
	case upstreamError(err, &rpcErr):
		return backend.ErrorResult("%s refused the call: %s (JSON-RPC error %d)", u.label, u.b.scrubString(rpcErr.Message), rpcErr.Code)
	}
	// A child that died, or sent a line too long or not JSON-RPC, ends the call's context too
	// (a parked call's is the connection's): say what happened before blaming the time.
	if why := c.whyEnded(cs); why != "" {
		return backend.ErrorResult("%s stopped while running the call (%s); it is started again for the next call.", u.label, why)
	}
	if timedOut {
		if n != nil && n.line.Load() >= longLine {
			return backend.ErrorResult("%s was still sending its answer to %s when the call's time (%s) ran out: one message of %d MiB so far. "+
				"The tool answers too much at once; ask for less (narrower arguments, a page), or have the upstream page its results.", u.label, method, u.src.Timeout, n.line.Load()>>20)
		}
		return backend.ErrorResult("%s did not answer %s within %s, so the call was cancelled. Try again, or raise timeout in the server's definition if it needs longer.", u.label, method, u.src.Timeout)
	}
	if strings.Contains(err.Error(), "request terminated without response") {
		// The go-sdk client's words for a stream that ended before the answer and whose
		// events had no ids (the upstream keeps no event store): it cannot be resumed.
		return backend.ErrorResult("%s ended its event stream for %s before answering, without event ids to resume it from (it keeps no event store), so its answer is lost; the call may or may not have run. "+
			"Check before calling again if the tool changes anything.", u.label, method)
	}
	u.log.Warn("upstream request failed", "method", method, "error", u.b.scrubString(err.Error()))
	return backend.ErrorResult("%s failed to answer: %s", u.label, u.b.scrubString(err.Error()))
}

// rpcFailure turns a failed upstream request that is not a tool call into a JSON-RPC
// error: the upstream's own, or an internal error that says what happened. timedOut is
// as for failure.
func (u *upstream) rpcFailure(parent context.Context, timedOut bool, c *conn, cs *mcp.ClientSession, method string, err error) error {
	var rpcErr *jsonrpc.Error
	switch {
	case parent.Err() != nil:
		return parent.Err()
	case upstreamError(err, &rpcErr):
		e := *rpcErr
		e.Message = u.b.scrubString(e.Message)
		return &e
	case timedOut:
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s did not answer %s within %s", u.label, method, u.src.Timeout)}
	}
	msg := u.b.scrubString(err.Error())
	if cs != nil {
		if why := c.whyEnded(cs); why != "" {
			msg = "it stopped: " + why
		}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s failed to answer %s: %s", u.label, method, msg)}
}

// upstreamError reports whether err is a JSON-RPC error the upstream answered with, not
// one the client made up locally (the transport refused to send, the client is closing).
func upstreamError(err error, target **jsonrpc.Error) bool {
	if !errors.As(err, target) {
		return false
	}
	switch (*target).Code {
	case -32003, -32005: // client is closing; rejected by transport
		return false
	}
	return true
}

// ReadResource reads a resource from the upstream that lists it (or whose template
// matches it).
func (b *Backend) ReadResource(ctx context.Context, _ auth.Principal, uri string) (*mcp.ReadResourceResult, error) {
	res, err := b.readResource(ctx, uri)
	return ownReadResult(res), err
}

// readResource is ReadResource with the upstream's result as its client decoded it.
func (b *Backend) readResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	u := b.resourceOwner(uri)
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, u.src.Timeout)
	defer cancel()
	cs, _, err := u.shared.session(ctx)
	if err != nil {
		return nil, u.rpcFailure(parent, ctx.Err() != nil, u.shared, nil, "resources/read", err)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, u.rpcFailure(parent, ctx.Err() != nil, u.shared, cs, "resources/read", err)
	}
	if len(res.InputRequests) > 0 {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s asks for input to read %s, which mcpbridge cannot forward for resource reads", u.label, uri)}
	}
	return res, nil
}

// GetPrompt gets a prompt from its upstream, through the caller's upstream session, as
// a tool call goes: a prompt may ask the client for input, and the session decides how.
// On a 2026-07-28 upstream session the request carries the caller's declarations and the
// upstream asks in input_required results: a 2026-07-28 client gets the input requests
// and retries with its answers, which are passed on; a legacy client is asked over its
// session, round after round. A legacy upstream asks with requests: a legacy client's get
// runs on its own legacy upstream session, which forwards them over the client's session,
// and a stateless client's is parked (see parked).
func (b *Backend) GetPrompt(ctx context.Context, r *backend.PromptRequest) (*mcp.GetPromptResult, error) {
	res, err := b.getPrompt(ctx, r)
	return ownPromptResult(res), err
}

// getPrompt is GetPrompt with the upstream's result as its client decoded it.
func (b *Backend) getPrompt(ctx context.Context, r *backend.PromptRequest) (*mcp.GetPromptResult, error) {
	u, pname := b.route(r.Name)
	if u == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", r.Name)}
	}
	sess := r.Session
	if sess == nil {
		sess = backend.NoSession{}
	}
	w := who{owner: r.Principal.Owner(), sess: sess, client: r.Client}
	if id, ok := isParked(r.RequestState); ok && sess.ID() == "" {
		p, o, err := b.resume(ctx, u, w, "prompts/get", r.Name, id, r.InputResponses)
		if err != nil {
			return nil, err
		}
		return u.promptOutcome(ctx, p, o)
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, u.src.Timeout)
	defer cancel()
	c, err := u.connFor(w)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s cannot get prompt %s: %s", u.label, r.Name, u.b.scrubString(err.Error()))}
	}
	defer c.release()
	cs, notes, err := c.session(ctx)
	if err != nil {
		return nil, u.rpcFailure(parent, ctx.Err() != nil, c, nil, "prompts/get", err)
	}
	c.mu.Lock()
	modern := c.modern
	c.mu.Unlock()
	caps := w.caps()
	if sess.ID() == "" && !modern {
		p := u.startParked(parent, w, "prompts/get", r.Name, c, cs, notes, r.InputResponses, r.RequestState, func(ctx context.Context, tok string) (mcp.Result, error) {
			params := &mcp.GetPromptParams{Name: pname, Arguments: r.Arguments, InputResponses: r.InputResponses, RequestState: r.RequestState}
			params.SetProgressToken(tok)
			return cs.GetPrompt(ctx, params)
		})
		return u.promptOutcome(parent, p, p.round(parent))
	}
	// While it runs, the prompt is a caller of the session: its progress and log
	// notifications reach the client, and so do a legacy upstream's requests.
	f := c.begin(ctx, sess, caps)
	defer c.end(f)
	ctx = withNotes(ctx, notes)
	params := &mcp.GetPromptParams{Name: pname, Arguments: r.Arguments, InputResponses: r.InputResponses, RequestState: r.RequestState}
	for round := 1; ; round++ {
		params.SetProgressToken(f.token)
		if modern {
			params.Meta = present(params.Meta, r.Client)
		}
		res, err := cs.GetPrompt(ctx, params)
		if err == nil {
			notes.drain()
		}
		if why := f.refusal(); err != nil && why != "" && parent.Err() == nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: u.needsInputText(why)}
		}
		if e := u.clientError(err, params.InputResponses, params.RequestState); e != nil {
			return nil, e
		}
		if err != nil {
			return nil, u.rpcFailure(parent, ctx.Err() != nil, c, cs, "prompts/get", err)
		}
		if len(res.InputRequests) > 0 {
			if why := lacksAny(caps, res.InputRequests); why != "" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: u.needsInputText(why)}
			}
		}
		if len(res.InputRequests) == 0 || sess.ID() == "" {
			return res, nil // a 2026-07-28 client answers input requests itself
		}
		if round >= maxRounds {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s still asked for input after %d rounds to get prompt %s", u.label, maxRounds, r.Name)}
		}
		responses, err := fulfil(ctx, sess, res.InputRequests)
		if err != nil {
			if parent.Err() != nil {
				return nil, parent.Err()
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s asked the client for input to get prompt %s, which failed: %s", u.label, r.Name, u.b.scrubString(err.Error()))}
		}
		params = &mcp.GetPromptParams{Name: pname, Arguments: r.Arguments, InputResponses: responses, RequestState: res.RequestState}
	}
}

// Complete completes a prompt or resource template argument on its upstream.
func (b *Backend) Complete(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	res, err := b.complete(ctx, p)
	return ownCompleteResult(res), err
}

// complete is Complete with the upstream's result as its client decoded it.
func (b *Backend) complete(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	if p == nil || p.Ref == nil {
		return &mcp.CompleteResult{}, nil
	}
	// Fresh params: the caller's _meta (its protocol version, its capabilities) is not
	// the upstream session's.
	ref := *p.Ref
	q := mcp.CompleteParams{Ref: &ref, Argument: p.Argument, Context: p.Context}
	var u *upstream
	switch ref.Type {
	case "ref/prompt":
		u, ref.Name = b.route(ref.Name)
	case "ref/resource":
		u = b.resourceOwner(ref.URI)
	}
	if u == nil {
		return &mcp.CompleteResult{}, nil
	}
	u.catMu.RLock()
	can := u.cat.complete
	u.catMu.RUnlock()
	if !can {
		return &mcp.CompleteResult{}, nil
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, u.src.Timeout)
	defer cancel()
	cs, _, err := u.shared.session(ctx)
	if err != nil {
		return nil, u.rpcFailure(parent, ctx.Err() != nil, u.shared, nil, "completion/complete", err)
	}
	res, err := cs.Complete(ctx, &q)
	if err != nil {
		return nil, u.rpcFailure(parent, ctx.Err() != nil, u.shared, cs, "completion/complete", err)
	}
	return res, nil
}

// scrubResult removes resolved secrets from a tool result.
func (b *Backend) scrubResult(r *mcp.CallToolResult) *mcp.CallToolResult {
	if r == nil || b.scrub == nil {
		return r
	}
	sc := b.scrub
	for _, c := range r.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			c.Text = sc.String(c.Text)
		case *mcp.ImageContent:
			c.Data = sc.Bytes(c.Data)
		case *mcp.AudioContent:
			c.Data = sc.Bytes(c.Data)
		case *mcp.EmbeddedResource:
			if rc := c.Resource; rc != nil {
				rc.Text, rc.Blob = sc.String(rc.Text), sc.Bytes(rc.Blob)
			}
		case *mcp.ResourceLink:
			c.URI, c.Description = sc.String(c.URI), sc.String(c.Description)
		}
	}
	if r.StructuredContent != nil {
		r.StructuredContent = b.scrubValue(r.StructuredContent)
	}
	return r
}

// scrubValue removes resolved secrets from a JSON value (through its JSON text).
func (b *Backend) scrubValue(v any) any {
	if b.scrub == nil || v == nil {
		return v
	}
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	s := b.scrub.String(string(data))
	if s == string(data) {
		return v
	}
	var out any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return v
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

var (
	_ backend.Backend        = (*Backend)(nil)
	_ backend.ResourceReader = (*Backend)(nil)
	_ backend.PromptGetter   = (*Backend)(nil)
	_ backend.Completer      = (*Backend)(nil)
	_ backend.Watcher        = (*Backend)(nil)
	_ backend.SessionEnder   = (*Backend)(nil)
	_ backend.Checker        = (*spec)(nil)
)
