// Package lowdefy is the backend kind "lowdefy": a Lowdefy app used by agents the way a
// person uses it in a browser, through a small set of work-session tools (seeds 001/002):
// session_create, session_list, session_close, navigate, interact, get_state and get_pages;
// and through tools and resources generated from the app (seed 000): a form page's submit
// button becomes a tool (submit_{page}), a query page a resource (lowdefy://{page}/{name}),
// an API endpoint a tool (api_{endpointId}). The server's toolset (session, forms or both)
// chooses which are offered; the app's mcp section adjusts the generated ones.
//
// A work session is application data, not an MCP session: the headless engine's plain data
// (engine.Snapshot), the session's name and an audit trail of what was done, kept in the
// store (store.WorkSessions). Every call loads the session, restores it into a fresh engine,
// runs, and saves it back with the version it loaded, so any replica sharing the store can
// serve any call and a crash loses no finished call. A replica keeps the engines of the
// sessions it served last in memory with the version they match (at most
// DefaultCachedSessions) and skips the restore when the loaded version is still that one. A session belongs to the principal that
// created it; to anyone else it does not exist.
//
// The app's `auth.pages` rules apply to the calling principal: the engine's user (_user) is
// built from the principal (its user id, name, email and roles, a JWT's standard claims) and
// the app's `auth.userFields` (mapping a JWT's claims or a key's user record, as Lowdefy maps
// a provider's profile), so get_pages lists, and navigate opens, only the pages that user
// may see, and requests run as that user.
//
// Limits come from the app's `mcp.limits` (maxActionsPerCall, maxSessionsPerUser,
// sessionExpiryMinutes), defaulting to 100, 50 and 1,440 (see Limits).
package lowdefy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections/all"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/runtime"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/server"
	"github.com/mcpbridge/mcpbridge/internal/safehttp"
	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/transform"
)

// AnonymousOwner owns the work sessions of callers without a user id (authentication off):
// they all share one owner, which no authenticated caller's owner equals.
const AnonymousOwner = auth.AnonymousOwner

// pageRenderer renders the current page for the agent: agentRender (internal/lowdefy/render)
// in service; tests may use another.
type pageRenderer func(p *engine.Page) string

// Backend serves one Lowdefy app's work-session tools. It is safe for concurrent use:
// calls on different sessions run in parallel, calls on one session one after another
// (within this process; across replicas the store's versions catch a race).
type Backend struct {
	// Lists are the resources and prompts its transforms generated (backend.Generator).
	*transform.Lists
	name     string
	app      *app.App
	srv      *server.Server // for page authorisation (get_pages)
	runner   *server.Server // runs API endpoints (api_ tools), with the app's connections
	secrets  map[string]string
	pools    *connections.Pools
	client   func() *http.Client
	sessions store.WorkSessions
	limits   Limits
	render   pageRenderer
	now      func() time.Time
	log      *slog.Logger
	tools    []*mcp.Tool
	toolset  string
	gen      *generated

	locks sync.Map // session id → *sync.Mutex
	// cache keeps the engines of recently served sessions (see sessionCache).
	cache *sessionCache
}

// Open loads the app and creates the backend.
func (sp *spec) Open(ctx context.Context, deps backend.Deps) (backend.Backend, error) {
	if deps.WorkSessions == nil {
		return nil, errors.New("kind lowdefy keeps work sessions in the store, and this gateway has none: configure store (the default SQLite store works)")
	}
	a, err := loadApp(sp.appDir(deps.Dir))
	if err != nil {
		return nil, err
	}
	limits, err := limitsOf(a)
	if err != nil {
		return nil, err
	}
	secrets, err := sp.secrets(deps)
	if err != nil {
		return nil, err
	}
	log := deps.Log() // it names the server
	for _, w := range a.Warnings {
		log.Warn("lowdefy app warning", "problem", w.String())
	}
	if note := adapterNote(a); note != "" {
		log.Warn("lowdefy app auth adapter", "note", note)
	}
	for _, p := range runtime.Unsupported(a) {
		log.Warn("the lowdefy app uses what mcpbridge does not run", "problem", p.String())
	}
	for _, m := range unprovidedSecrets(a, sp.conf.Secrets) {
		// Lowdefy runs with it (the operator gives null); every request that needs it fails.
		log.Warn("the lowdefy app reads a secret the server does not provide; requests that need it will fail",
			"secret", m.name, "read_by", m.where, "fix", fmt.Sprintf("add %s: secret:%s under the server's secrets: (under mcpbridge app, set %s%s)", m.name, m.name, lowdefySecretEnv, m.name))
	}
	hc := deps.Client(sp.policy(), safehttp.Options{})
	gen := &generated{byName: map[string]*genTool{}, byURI: map[string]*genResource{}}
	if sp.conf.Toolset != ToolsetSession {
		if gen, err = generate(a, sessionToolNames(sp.conf.Toolset)); err != nil {
			return nil, fmt.Errorf("the app's generated tools: %w", err)
		}
	}
	pools := &connections.Pools{}
	client := func() *http.Client { return hc }
	b := &Backend{
		name:    sp.server.Name,
		app:     a,
		srv:     server.New(a, server.Options{Secrets: secrets}),
		secrets: secrets,
		pools:   pools,
		client:  client,
		toolset: sp.conf.Toolset,
		gen:     gen,
		runner: server.New(a, server.Options{
			Connections: all.Set(),
			Secrets:     secrets,
			Deps:        &connections.Deps{Logger: log, HTTPClient: client, Pools: pools},
			Logger:      log,
			Now:         deps.Clock(),
		}),
		sessions: deps.WorkSessions,
		limits:   limits,
		render:   agentRender,
		now:      deps.Clock(),
		log:      log,
		cache:    newSessionCache(DefaultCachedSessions),
	}
	if b.toolset != ToolsetForms {
		b.tools = sessionTools(limits, a.TimeZone.String())
	}
	if b.toolset != ToolsetSession {
		for _, t := range gen.tools {
			b.tools = append(b.tools, t.tool)
		}
		if len(gen.tools)+len(gen.resources) == 0 {
			log.Warn("the lowdefy app generates no tools or resources (no form, query page or API endpoint, or mcp.enabled is false)", "toolset", b.toolset)
		}
	}
	b.Lists = transform.GenerateLists(ctx, &transform.Server{Def: sp.server, Refs: sp.refs, Deps: deps})
	return b, nil
}

// sessionToolNames are the names the work-session tools take under a toolset.
func sessionToolNames(toolset string) []string {
	if toolset == ToolsetForms {
		return nil
	}
	var out []string
	for _, t := range sessionTools(DefaultLimits, "UTC") {
		out = append(out, t.Name)
	}
	return out
}

// Catalog returns the tools of the server's toolset, and the generated resources unless
// the toolset is session.
func (b *Backend) Catalog(context.Context) (*backend.Catalog, error) {
	cat := &backend.Catalog{Tools: b.tools}
	if b.toolset != ToolsetSession {
		for _, r := range b.gen.resources {
			cat.Resources = append(cat.Resources, r.res)
		}
	}
	return cat, nil
}

// Close closes the app's database pools.
func (b *Backend) Close() error { return b.pools.Close() }

// CallTool runs one of the server's tools.
func (b *Backend) CallTool(ctx context.Context, c *backend.Call) (*mcp.CallToolResult, error) {
	if b.toolset != ToolsetSession {
		if t := b.gen.byName[c.Name]; t != nil {
			return b.callGenerated(ctx, c, t)
		}
	}
	if b.toolset == ToolsetForms {
		return backend.ErrorResult("unknown tool %q: tools/list lists this server's tools", c.Name), nil
	}
	switch c.Name {
	case "session_create":
		return b.sessionCreate(ctx, c)
	case "session_list":
		return b.sessionList(ctx, c)
	case "session_close":
		return b.sessionClose(ctx, c)
	case "navigate":
		return b.navigate(ctx, c)
	case "interact":
		return b.interact(ctx, c)
	case "get_state":
		return b.getState(ctx, c)
	case "get_pages":
		return b.getPages(ctx, c)
	}
	return backend.ErrorResult("unknown tool %q: this server offers session_create, session_list, session_close, navigate, interact, get_state and get_pages", c.Name), nil
}

// owner is the store owner of the caller's sessions: the principal's owner, namespaced by
// how it authenticated (auth.Principal.Owner).
func owner(p auth.Principal) string { return p.Owner() }

// newEngine returns a fresh engine for the caller.
func (b *Backend) newEngine(p auth.Principal) *engine.Engine {
	return runtime.NewEngine(b.app, runtime.Options{
		User:       b.user(p),
		Now:        b.now,
		Logger:     b.log,
		HTTPClient: b.client,
		Secrets:    b.secrets,
		Pools:      b.pools,
	})
}

// lock serialises the calls on one session within this process.
func (b *Backend) lock(id string) func() {
	m, _ := b.locks.LoadOrStore(id, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// Limits bound what agents may do with an app's work sessions (the app's `mcp.limits`).
type Limits struct {
	// MaxActionsPerCall bounds the actions of one interact call (default 100).
	MaxActionsPerCall int
	// MaxSessionsPerUser bounds the open sessions of one user on this app (default 50).
	MaxSessionsPerUser int
	// SessionExpiry is how long a session may stay idle before it lapses (default 1,440
	// minutes).
	SessionExpiry time.Duration
}

// DefaultLimits are the limits of seed 001.
var DefaultLimits = Limits{MaxActionsPerCall: 100, MaxSessionsPerUser: 50, SessionExpiry: 1440 * time.Minute}

// limitsOf reads the app's mcp.limits.
func limitsOf(a *app.App) (Limits, error) {
	l := DefaultLimits
	if a.MCP == nil {
		return l, nil
	}
	lv, ok := a.MCP.Get("limits")
	if !ok || lv == nil {
		return l, nil
	}
	lo, ok := lv.(*jsvalue.Object)
	if !ok {
		return l, fmt.Errorf("the app's mcp.limits must be an object such as {maxActionsPerCall: 100, maxSessionsPerUser: 50, sessionExpiryMinutes: 1440}")
	}
	for _, k := range lo.Keys() {
		n, ok := lo.Prop(k).(float64)
		if !ok || n < 1 || n != float64(int(n)) {
			return l, fmt.Errorf("the app's mcp.limits.%s must be a whole number of at least 1, got %s", k, jsvalue.ToString(lo.Prop(k)))
		}
		switch k {
		case "maxActionsPerCall":
			l.MaxActionsPerCall = int(n)
		case "maxSessionsPerUser":
			l.MaxSessionsPerUser = int(n)
		case "sessionExpiryMinutes":
			l.SessionExpiry = time.Duration(n) * time.Minute
		default:
			return l, fmt.Errorf("the app's mcp.limits has no setting %q (there are maxActionsPerCall, maxSessionsPerUser and sessionExpiryMinutes)", k)
		}
	}
	return l, nil
}
