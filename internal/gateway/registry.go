package gateway

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// An Entry is one served server: its go-sdk server and HTTP handlers, which live as long as
// the server's name is served, and its current state (definition, backend, catalog), which is
// replaced whole when the definition changes. Connected legacy sessions stay open across
// changes and are told about them with list_changed notifications.
type Entry struct {
	Name   string
	Server *mcp.Server

	legacy http.Handler // Streamable HTTP, sessions (2024-11-05 … 2025-11-25)
	modern http.Handler // Streamable HTTP, stateless (2026-07-28)
	sse    http.Handler // legacy HTTP+SSE (2024-11-05)

	impl *mcp.Implementation // as the go-sdk server reports it
	// infoMeta is {"io.modelcontextprotocol/serverInfo": impl} encoded: the _meta of a
	// 2026-07-28 result on the lean path.
	infoMeta []byte
	state    atomic.Pointer[entryState]
	applyMu  sync.Mutex // serialises apply
	calls    callSlots  // tool calls running (limits.concurrent_calls)

	// stored is set on a stored server that is not opened yet (lazy.go): such an entry has
	// only the definition's summary as its Config, no go-sdk server and no backend, and is
	// replaced in the registry by the opened entry on first use (Gateway.opened).
	stored *storedDef
}

// entryState is an immutable snapshot of what an entry serves.
type entryState struct {
	cfg     *config.Server
	backend backend.Backend // nil when disabled or unavailable
	live    *live           // the backend's lifetime; nil when there is no backend
	catalog *backend.Catalog
	schemas map[string]*jsonschema.Resolved
	// paramHeaders holds the tools whose input schema mirrors arguments into Mcp-Param-*
	// headers (x-mcp-header, SEP-2243), whose 2026-07-28 calls must carry them.
	paramHeaders map[string]*mcp.Tool
	// Who reads each resource (by URI) and template (by URI template), and who gets each
	// prompt: the backend, or the configured resources and prompts.
	readers   map[string]backend.ResourceReader
	templates map[string]backend.ResourceReader
	prompts   map[string]backend.PromptGetter
	// The roles the configured resources (by URI), templates (by URI template) and prompts
	// (by name) require; absent: none beyond the server's rule.
	resourceRoles map[string][]string
	templateRoles map[string][]string
	promptRoles   map[string][]string
	// unavailable says why the server cannot be served now ("" when it can).
	unavailable string
}

// enter counts a call in on the state's backend, reloading the entry's state once when the
// backend was retired meanwhile. It returns the state to call and whether a backend took it.
func (e *Entry) enter() (*entryState, bool) {
	for range 2 {
		st := e.state.Load()
		if st.live == nil {
			return st, false
		}
		if st.live.enter() {
			return st, true
		}
	}
	return e.state.Load(), false
}

// Unavailable says why the entry's server cannot be served ("" when it can).
func (e *Entry) Unavailable() string { return e.state.Load().unavailable }

// Config returns the entry's current definition.
func (e *Entry) Config() *config.Server { return e.state.Load().cfg }

// Backend returns the entry's current backend (nil when the server is disabled).
func (e *Entry) Backend() backend.Backend { return e.state.Load().backend }

// Catalog returns the tools, resources and prompts the entry serves (as listed to clients).
func (e *Entry) Catalog() *backend.Catalog {
	if c := e.state.Load().catalog; c != nil {
		return c
	}
	return &backend.Catalog{}
}

// registry maps server names to entries. Readers never block, and a writer costs the same
// whatever the number of servers: a replica with 10,000 stored servers replaces one entry
// each time a server is opened on first use.
type registry struct {
	entries sync.Map // name → *Entry
}

func (r *registry) get(name string) *Entry {
	e, _ := r.entries.Load(name)
	ent, _ := e.(*Entry)
	return ent
}

// all returns the entries, ordered by name.
func (r *registry) all() []*Entry {
	var es []*Entry
	r.entries.Range(func(_, v any) bool {
		es = append(es, v.(*Entry))
		return true
	})
	sort.Slice(es, func(i, j int) bool { return es[i].Name < es[j].Name })
	return es
}

// each calls f for every entry, in no order.
func (r *registry) each(f func(*Entry)) {
	r.entries.Range(func(_, v any) bool {
		f(v.(*Entry))
		return true
	})
}

// count returns how many servers are served and how many of them are not opened yet.
func (r *registry) count() (served, unopened int) {
	r.each(func(e *Entry) {
		served++
		if e.stored != nil {
			unopened++
		}
	})
	return served, unopened
}

func (r *registry) put(e *Entry) (old *Entry) {
	prev, _ := r.entries.Swap(e.Name, e)
	old, _ = prev.(*Entry)
	return old
}

// putAll adds entries.
func (r *registry) putAll(es []*Entry) {
	for _, e := range es {
		r.entries.Store(e.Name, e)
	}
}

func (r *registry) remove(name string) (old *Entry) {
	prev, _ := r.entries.LoadAndDelete(name)
	old, _ = prev.(*Entry)
	return old
}

// retireEntry ends a server taken out of the registry: its backend is closed once its calls
// in flight have finished, and its sessions are closed. An unopened entry has neither.
func (g *Gateway) retireEntry(e *Entry) {
	if l := e.state.Load().live; l != nil {
		l.retire(closerOf(e.Backend()), nil)
	}
	if e.Server != nil {
		for ss := range e.Server.Sessions() {
			ss.Close()
		}
	}
}

// newEntry creates the go-sdk server and handlers of a server name; apply gives it content.
func (g *Gateway) newEntry(name, title, instructions string) *Entry {
	e := &Entry{Name: name, calls: make(callSlots, g.cfg.Limits.ConcurrentCalls)}
	if title == "" {
		title = name
	}
	e.impl = &mcp.Implementation{Name: "mcpbridge-" + name, Title: title, Version: g.opts.Version}
	e.infoMeta, _ = json.Marshal(mcp.Meta{mcp.MetaKeyServerInfo: e.impl})
	srv := mcp.NewServer(e.impl, &mcp.ServerOptions{
		Instructions: instructions,
		// completion/complete goes to the backend that completes.
		CompletionHandler: func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			st, entered := e.enter()
			if entered {
				defer st.live.exit()
			}
			// The source that offers the prompt or template completes it; else the backend.
			var owner any = st.backend
			if ref := req.Params.Ref; ref != nil {
				p := auth.FromContext(ctx)
				switch ref.Type {
				case "ref/prompt":
					if owner = st.prompts[ref.Name]; !mayGetPrompt(p, st, ref.Name) {
						owner = nil // what the principal may not get, it may not complete
					}
				case "ref/resource":
					if owner = st.templates[ref.URI]; !mayRead(p, st, ref.URI, true) {
						owner = nil
					}
				}
			}
			if c, ok := owner.(backend.Completer); ok {
				return g.scrubCompletion(c.Complete(ctx, req.Params))
			}
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
		},
		// A configured file resource that changes is announced to its subscribers.
		SubscribeHandler:   g.subscribe(e),
		UnsubscribeHandler: g.unsubscribe(e),
		// The backend learns when a client session ends (on every transport: see sessionID).
		InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
			ss := req.Session
			if ss == nil {
				return
			}
			id := sessionID(ss)
			if id == "" {
				return
			}
			go func() {
				_ = ss.Wait()
				if se, ok := e.state.Load().backend.(backend.SessionEnder); ok {
					se.SessionEnded(id)
				}
			}()
		},
		Logger:   g.sdkLog.With("server", name),
		PageSize: g.cfg.Limits.PageSize,
		// ttlMs and cacheScope of lists and reads, as the REST read says them too.
		SetCacheable: func(ctx context.Context, _ mcp.Request, c *mcp.Cacheable) { cacheControl(ctx, c) },
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			Prompts:   &mcp.PromptCapabilities{ListChanged: true},
			Logging:   &mcp.LoggingCapabilities{},
		},
	})
	srv.AddReceivingMiddleware(g.principalMiddleware(e)) // principal per request; tools/list by role
	e.Server = srv
	get := func(*http.Request) *mcp.Server { return srv }
	e.legacy = mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Logger: g.sdkLog.With("server", name),
		// Idle sessions are closed by the gateway (sessionTable.sweep), which also sees the
		// calls its lean path answers without the SDK.
		MaxRequestBodyBytes:        g.cfg.Limits.MaxBody,
		DisableLocalhostProtection: true, // checkHost guards every route
		EventStore:                 g.events,
	})
	e.modern = mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		Logger:                     g.sdkLog.With("server", name),
		MaxRequestBodyBytes:        g.cfg.Limits.MaxBody,
		DisableLocalhostProtection: true, // checkHost guards every route
		// A 2026-07-28 client cancels a call by closing its request's stream: end the
		// call's context with the HTTP request, which stops the backend's work.
		PropagateRequestCancellation: true,
	})
	e.sse = mcp.NewSSEHandler(get, nil)
	e.state.Store(&entryState{cfg: &config.Server{Name: name}, catalog: &backend.Catalog{}})
	return e
}

// openState opens the backend of s and computes what it serves, without touching any entry.
func (g *Gateway) openState(ctx context.Context, s *config.Server) (*entryState, error) {
	if !s.IsEnabled() {
		return &entryState{cfg: s, catalog: &backend.Catalog{}}, nil
	}
	if err := g.checkResourceFiles(s); err != nil {
		return nil, err
	}
	b, err := backend.Open(ctx, s, g.deps(s))
	if err != nil {
		return nil, err
	}
	cat, err := b.Catalog(ctx)
	if err != nil {
		closeBackend(b)
		return nil, fmt.Errorf("server %s: listing tools: %w", s.Name, err)
	}
	st, err := g.stateFor(s, b, newLive(), cat)
	if err != nil {
		closeBackend(b)
		return nil, err
	}
	return st, nil
}

// unavailableState is served for a definition whose backend could not be opened.
func unavailableState(s *config.Server, reason string) *entryState {
	return &entryState{cfg: s, catalog: &backend.Catalog{}, unavailable: reason}
}

// deps are the services a server's backend gets (backend.NewDeps, the one place they are
// built).
func (g *Gateway) deps(s *config.Server) backend.Deps {
	sv := backend.Services{Logger: g.log, WorkSessions: g.opts.WorkSessions, Secrets: g.secrets}
	if b, ok := g.opts.Blobs.(store.Blobs); ok {
		sv.Blobs = b
	}
	return backend.NewDeps(g.cfg, s, sv)
}

// stateFor computes what an entry serves from a backend's catalog (b may be nil) and the
// configured resources and prompts, which are one more source.
func (g *Gateway) stateFor(s *config.Server, b backend.Backend, l *live, cat *backend.Catalog) (*entryState, error) {
	st := &entryState{
		cfg: s, backend: b, live: l, catalog: &backend.Catalog{},
		schemas:       map[string]*jsonschema.Resolved{},
		readers:       map[string]backend.ResourceReader{},
		templates:     map[string]backend.ResourceReader{},
		prompts:       map[string]backend.PromptGetter{},
		resourceRoles: map[string][]string{}, templateRoles: map[string][]string{}, promptRoles: map[string][]string{},
	}
	filter := s.Filter()
	for _, t := range cat.Tools {
		if !filter.Keep(t.Name) {
			continue // tools_include / tools_exclude
		}
		rs, err := resolveToolSchema(t)
		if err != nil {
			return nil, fmt.Errorf("server %s: tool %s: %w", s.Name, t.Name, err)
		}
		// The go-sdk refuses (panics on) a tool whose annotations are invalid; config
		// checks them, and a kind's own tools are checked here.
		headers, err := config.ParamHeaders(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("server %s: tool %s: input schema: %w", s.Name, t.Name, err)
		}
		if len(headers) > 0 {
			if st.paramHeaders == nil {
				st.paramHeaders = map[string]*mcp.Tool{}
			}
			st.paramHeaders[t.Name] = t
		}
		st.schemas[t.Name] = rs
		st.catalog.Tools = append(st.catalog.Tools, t)
	}
	if r, ok := b.(backend.ResourceReader); ok {
		for _, res := range cat.Resources {
			st.readers[res.URI] = r
			st.catalog.Resources = append(st.catalog.Resources, res)
		}
		for _, t := range cat.Templates {
			st.templates[t.URITemplate] = r
			st.catalog.Templates = append(st.catalog.Templates, t)
		}
	}
	if p, ok := b.(backend.PromptGetter); ok {
		for _, pr := range cat.Prompts {
			st.prompts[pr.Name] = p
			st.catalog.Prompts = append(st.catalog.Prompts, pr)
		}
	}
	ls := listsOf(s, b) // the configured lists, or the definition with generated ones in
	conf := configured{g: g, s: ls}
	for _, name := range ls.ResourceNames() {
		r := ls.Resources[name]
		if r.URITemplate != "" {
			st.catalog.Templates = append(st.catalog.Templates, &mcp.ResourceTemplate{URITemplate: r.URITemplate, Name: cmp.Or(r.Name, name), Title: r.Title, Description: r.Description, MIMEType: r.MimeType})
			st.templates[r.URITemplate] = conf
			if len(r.Roles) > 0 {
				st.templateRoles[r.URITemplate] = r.Roles
			}
			continue
		}
		res := &mcp.Resource{URI: r.URI, Name: cmp.Or(r.Name, name), Title: r.Title, Description: r.Description, MIMEType: r.MimeType}
		if r.Text != nil {
			res.Size = int64(len(*r.Text))
		} else if r.Blob != nil {
			res.Size = int64(len(r.Blob))
		}
		if _, dup := st.readers[r.URI]; !dup {
			st.catalog.Resources = append(st.catalog.Resources, res)
		}
		st.readers[r.URI] = conf
		if len(r.Roles) > 0 {
			st.resourceRoles[r.URI] = r.Roles
		} else {
			delete(st.resourceRoles, r.URI)
		}
	}
	for _, name := range ls.PromptNames() {
		p := ls.Prompts[name]
		mp := &mcp.Prompt{Name: name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			mp.Arguments = append(mp.Arguments, &mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		if _, dup := st.prompts[name]; !dup {
			st.catalog.Prompts = append(st.catalog.Prompts, mp)
		}
		st.prompts[name] = conf
		if len(p.Roles) > 0 {
			st.promptRoles[name] = p.Roles
		}
	}
	return st, nil
}

// apply makes e serve st: it swaps the state, then brings the go-sdk server's tools,
// resources, templates and prompts in line (which notifies connected sessions), and retires
// the old backend: it is closed once its calls in flight have finished. A new backend that
// watches its catalog is followed until it is retired.
func (g *Gateway) apply(e *Entry, st *entryState) {
	e.applyMu.Lock()
	defer e.applyMu.Unlock()
	g.applyLocked(e, st)
}

func (g *Gateway) applyLocked(e *Entry, st *entryState) {
	old := e.state.Swap(st)
	srv := e.Server
	// Remove what is gone.
	toolName := func(t *mcp.Tool) string { return t.Name }
	if gone := missing(old.catalog.Tools, st.catalog.Tools, toolName); len(gone) > 0 {
		srv.RemoveTools(gone...)
	}
	resURI := func(r *mcp.Resource) string { return r.URI }
	if gone := missing(old.catalog.Resources, st.catalog.Resources, resURI); len(gone) > 0 {
		srv.RemoveResources(gone...)
	}
	tmplURI := func(t *mcp.ResourceTemplate) string { return t.URITemplate }
	if gone := missing(old.catalog.Templates, st.catalog.Templates, tmplURI); len(gone) > 0 {
		srv.RemoveResourceTemplates(gone...)
	}
	promptName := func(p *mcp.Prompt) string { return p.Name }
	if gone := missing(old.catalog.Prompts, st.catalog.Prompts, promptName); len(gone) > 0 {
		srv.RemovePrompts(gone...)
	}
	// Add (or replace) what is served now.
	for _, t := range st.catalog.Tools {
		srv.AddTool(t, g.toolHandler(e, t.Name))
	}
	for _, res := range st.catalog.Resources {
		srv.AddResource(res, g.resourceHandler(e, res.URI))
	}
	for _, t := range st.catalog.Templates {
		srv.AddResourceTemplate(t, g.templateHandler(e, t.URITemplate))
	}
	for _, p := range st.catalog.Prompts {
		srv.AddPrompt(p, g.promptHandler(e, p.Name))
	}
	// A configured resource whose content changed with the definition (a reload, an admin
	// API write of a stored server) is announced to its subscribers.
	for _, uri := range changedResources(old.cfg, st.cfg) {
		_ = srv.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri})
	}
	if old.live != nil && old.live != st.live {
		old.live.retire(closerOf(old.backend), nil)
	}
	if st.live != nil && st.live != old.live {
		g.watchCatalog(e, st)
		g.watchResources(e, st)
	}
}

// watchCatalog follows a backend whose catalog changes (backend.Watcher) until the backend
// is retired: each change lists the catalog again and applies it, which tells connected
// clients with list_changed notifications.
func (g *Gateway) watchCatalog(e *Entry, st *entryState) {
	w, ok := st.backend.(backend.Watcher)
	if !ok {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	st.live.setStop(cancel)
	go func() {
		ch := w.Changes()
		for {
			select {
			case <-ctx.Done():
				return
			case _, open := <-ch:
				if !open {
					return
				}
			}
			cat, err := st.backend.Catalog(ctx)
			if err != nil {
				g.log.Warn("listing a changed catalog failed; serving the previous one", "server", e.Name, "error", err)
				continue
			}
			next, err := g.stateFor(st.cfg, st.backend, st.live, cat)
			if err != nil {
				g.log.Warn("a changed catalog is invalid; serving the previous one", "server", e.Name, "error", err)
				continue
			}
			e.applyMu.Lock() // only while this backend is current
			if cur := e.state.Load(); cur.live == st.live && ctx.Err() == nil {
				g.applyLocked(e, next)
				st = next
			}
			e.applyMu.Unlock()
		}
	}()
}

// changedResources returns the URIs of the configured resources that both definitions
// serve with different content.
func changedResources(old, cur *config.Server) []string {
	if old == nil || cur == nil || old == cur {
		return nil
	}
	before := map[string]*config.Resource{}
	for _, r := range old.Resources {
		if r != nil && r.URI != "" {
			before[r.URI] = r
		}
	}
	var out []string
	for _, name := range cur.ResourceNames() {
		r := cur.Resources[name]
		b := before[r.URI]
		if r.URI == "" || b == nil {
			continue
		}
		if b.File != r.File || b.MimeType != r.MimeType || !bytes.Equal(b.Blob, r.Blob) || (b.Text == nil) != (r.Text == nil) || (b.Text != nil && *b.Text != *r.Text) {
			out = append(out, r.URI)
		}
	}
	return out
}

// closerOf returns b as an io.Closer, or nil.
func closerOf(b backend.Backend) io.Closer {
	c, _ := b.(io.Closer)
	return c
}

// missing returns the keys of the items in old that are not in cur.
func missing[T any](old, cur []T, key func(T) string) []string {
	keep := make(map[string]bool, len(cur))
	for _, x := range cur {
		keep[key(x)] = true
	}
	var gone []string
	for _, x := range old {
		if k := key(x); !keep[k] {
			gone = append(gone, k)
		}
	}
	return gone
}

func closeBackend(b backend.Backend) {
	if c, ok := b.(io.Closer); ok {
		c.Close()
	}
}

func resolveToolSchema(t *mcp.Tool) (*jsonschema.Resolved, error) {
	b, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	return rs, nil
}

// toolHandler validates arguments, calls the backend and records the outcome.
func (g *Gateway) toolHandler(e *Entry, name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, rec, err := g.runTool(ctx, e, name, req)
		g.report(ctx, e, name, req, rec, res, err)
		return res, err
	}
}

// callRecord is what a tool call leaves for its log line and audit row.
type callRecord struct {
	start    time.Time
	duration time.Duration
	outcome  string
}

// runTool calls a tool and counts it in the metrics; report logs and audits it. The SDK's
// handler does both before answering; the lean paths write the answer first and report
// after, so the client does not wait for the log line.
func (g *Gateway) runTool(ctx context.Context, e *Entry, name string, req *mcp.CallToolRequest) (*mcp.CallToolResult, callRecord, error) {
	start := time.Now()
	res, outcome, err := g.callTool(ctx, e, name, req)
	if outcome == "busy" {
		var je *jsonrpc.Error
		errors.As(err, &je)
		limit, _ := limitOf(je)
		g.metrics.refused(cmp.Or(limit, "concurrent_calls"))
	}
	d := time.Since(start)
	g.metrics.observe(e.Name, name, outcome, d)
	return res, callRecord{start: start, duration: d, outcome: outcome}, err
}

// report writes a call's log line and audit row.
func (g *Gateway) report(ctx context.Context, e *Entry, name string, req *mcp.CallToolRequest, rec callRecord, res *mcp.CallToolResult, err error) {
	server, outcome, d := e.Name, rec.outcome, rec.duration
	// One line per call answers "what happened to my call?"; argument values are never
	// logged, a failure's reason is (secrets are scrubbed from results by the kinds).
	attrs := []any{"server", server, "tool", name, "outcome", outcome, "duration", d.Round(time.Microsecond), "request_id", requestID(ctx)}
	reason := ""
	if res != nil && res.IsError {
		reason = resultText(res)
		if outcome == "invalid_arguments" {
			reason = withoutArgumentValues(reason)
		}
	}
	switch {
	case res != nil && res.IsError:
		g.log.InfoContext(ctx, "tool call", append(attrs, "reason", truncate(reason, 300))...)
	case err != nil:
		g.log.WarnContext(ctx, "tool call", append(attrs, "error", err.Error())...)
	default:
		g.log.InfoContext(ctx, "tool call", attrs...)
	}
	if g.audit != nil {
		p := auth.FromContext(ctx)
		entry := store.Entry{Time: rec.start, Server: server, Tool: name, Principal: p.User, Via: p.Via,
			Client: clientAddr(ctx, requestHeader(req)), Outcome: outcome, Duration: d}
		if a := e.Config().Audit; a != nil && a.Arguments && req.Params != nil {
			entry.Arguments = auditArguments(req.Params.Arguments)
		}
		if res != nil && res.IsError {
			entry.Error = truncate(reason, 200)
		} else if err != nil {
			entry.Error = "gateway error (request id " + requestID(ctx) + ")"
		}
		g.audit.record(entry)
	}
}

func (g *Gateway) callTool(ctx context.Context, e *Entry, name string, req *mcp.CallToolRequest) (*mcp.CallToolResult, string, error) {
	st, ok := e.enter()
	if !ok {
		return nil, "unknown_tool", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
	}
	defer st.live.exit()
	schema, ok := st.schemas[name]
	if !ok {
		return nil, "unknown_tool", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
	}
	if p := auth.FromContext(ctx); !mayCall(p, st, name) {
		// Answered as for a tool that does not exist: tools/list does not show it either.
		g.log.InfoContext(ctx, "tool call refused: not for this principal (roles or the backend's rules)", "server", e.Name, "tool", name, "user", p.User, "via", p.Via)
		return nil, "forbidden", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
	}
	raw := req.Params.Arguments
	args, msg := validateArgs(schema, raw)
	if msg != "" {
		return backend.ErrorResult("invalid arguments for tool %s: %s", name, msg), "invalid_arguments", nil
	}
	if why := g.audit.refusal(); why != "" {
		return nil, "audit_unavailable", auditRefusalError(name, why)
	}
	if !admitted(req) { // the edge holds the slot of a request it admitted
		mine := g.callers.acquire(callerOf(ctx, requestHeader(req)))
		if mine == nil {
			return nil, "busy", g.principalSlotError()
		}
		defer mine()
	}
	release, err := e.calls.acquire(ctx, e.Name, g.cfg.Limits.CallQueueWait)
	if err != nil {
		return nil, "busy", err
	}
	defer release()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(g.calls, func() { cancel(context.Cause(g.calls)) })()
	timeout := g.cfg.CallTimeoutFor(st.cfg)
	if timeout > 0 {
		stop := time.AfterFunc(timeout, func() { cancel(errCallTimeout) })
		defer stop.Stop()
	}
	res, err := g.scrubCall(st.backend.CallTool(ctx, &backend.Call{
		Name: name, Arguments: args, Principal: auth.FromContext(ctx), Session: g.scrubbedSession(newCallSession(req)),
		InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState,
		Client: req,
	}))
	if errors.Is(context.Cause(ctx), errShuttingDown) {
		return nil, "shutdown", &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the gateway is shutting down and stopped %s before it finished; retry the call", name)}
	}
	if errors.Is(context.Cause(ctx), errCallTimeout) {
		// Whatever the backend made of its cancelled context, the agent learns why.
		return backend.ErrorResult("the call to %s took longer than %s (limits.call_timeout of server %s) and was stopped; "+
			"ask for less at once (narrower arguments, a smaller range or page), or ask the operator to raise limits.call_timeout", name, timeout, e.Name), "timeout", nil
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		// A protocol error of the client's (a refused retry, an undeclared capability)
		// reaches it as it is.
		return nil, "refused", rpcErr
	}
	if err != nil && errors.Is(err, store.ErrUnavailable) {
		// The store is down or restarting: say so, so the agent retries instead of giving up.
		id := requestID(ctx)
		g.log.WarnContext(ctx, "tool call failed: store unavailable", "server", e.Name, "tool", name, "error", err, "request_id", id)
		return nil, "store_unavailable", storeUnavailableError("store_unavailable", fmt.Sprintf(
			"%s did not finish: the gateway's store (its database) cannot be reached right now; retry in a few seconds (request id %s)", name, id))
	}
	if err != nil {
		id := requestID(ctx)
		g.log.ErrorContext(ctx, "tool call failed", "server", e.Name, "tool", name, "error", err, "request_id", id)
		return nil, "gateway_error", &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error while calling %s (request id %s); the gateway log has the details", name, id)}
	}
	if res == nil {
		res = backend.TextResult("")
	}
	if res.IsError {
		return res, "tool_error", nil
	}
	return res, "ok", nil
}

// storeRetryAfter is the Retry-After (seconds) of answers that failed because the store
// cannot be reached: tool calls, the admin API and calls refused under audit.required.
const storeRetryAfter = 5

// storeUnavailableError is the JSON-RPC error of a call the store's outage stopped: data
// {"retryAfterSeconds", "reason"}; the REST routes answer it 503 with Retry-After.
func storeUnavailableError(reason, msg string) *jsonrpc.Error {
	data, _ := json.Marshal(map[string]any{"retryAfterSeconds": storeRetryAfter, "reason": reason})
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Data: data, Message: msg}
}

// auditRefusalError is the error of a call refused under audit.required.
func auditRefusalError(tool, why string) *jsonrpc.Error {
	return storeUnavailableError("audit_unavailable", fmt.Sprintf("%s was not run: its audit row cannot be recorded now (%s); retry in a few seconds", tool, why))
}

// unavailableReason returns the reason of a storeUnavailableError ("" for other errors).
func unavailableReason(e *jsonrpc.Error) string {
	var d struct {
		Reason string `json:"reason"`
	}
	if e.Code != jsonrpc.CodeInternalError || json.Unmarshal(e.Data, &d) != nil {
		return ""
	}
	switch d.Reason {
	case "store_unavailable", "audit_unavailable":
		return d.Reason
	}
	return ""
}

// validateArgs checks raw arguments against the tool's schema. It returns the normalised
// arguments (an object) or a message that says what to fix.
func validateArgs(rs *jsonschema.Resolved, raw json.RawMessage) (json.RawMessage, string) {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, "arguments are not valid JSON: " + err.Error()
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, "arguments must be a JSON object"
	}
	if rs != nil {
		if err := rs.Validate(v); err != nil {
			return nil, elide(strings.TrimPrefix(err.Error(), "validating root: "), 600) + "; check the tool's inputSchema"
		}
	}
	return raw, ""
}

// promptHandler gets a prompt from the source that offers it.
func (g *Gateway) promptHandler(e *Entry, name string) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		st, entered := e.enter()
		if entered {
			defer st.live.exit()
		}
		pg := st.prompts[name]
		if p := auth.FromContext(ctx); pg == nil || !mayGetPrompt(p, st, name) {
			// A prompt the principal may not get is answered as one that does not exist:
			// prompts/list does not show it either.
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", name)}
		}
		return g.scrubPrompt(pg.GetPrompt(ctx, &backend.PromptRequest{
			Name: name, Arguments: req.Params.Arguments, Principal: auth.FromContext(ctx), Session: g.scrubbedSession(newPromptSession(req)),
			InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState,
			Client: req,
		}))
	}
}

// elide shortens s to about n bytes by cutting out its middle, on rune boundaries: a
// message that quotes a long value keeps its start (what is wrong, where) and its end (what
// was wanted).
func elide(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i, j := n/2, len(s)-n/2
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	for j < len(s) && !utf8.RuneStart(s[j]) {
		j++
	}
	return s[:i] + " … " + s[j:]
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// errCallTimeout is the cause of the cancellation of a tool call that ran past
// limits.call_timeout.
var errCallTimeout = errors.New("gateway: call timeout")
