package gateway

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/admission"
	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// newEntry creates the go-sdk server and handlers of a server name; apply gives it content.
func (g *Gateway) newEntry(name, title, instructions string) *Entry {
	e := &Entry{Name: name, calls: admission.NewServerSlots(g.cfg.Limits.ConcurrentCalls)}
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
