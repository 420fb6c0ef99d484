package gateway

import (
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

	state atomic.Pointer[entryState]
}

// entryState is an immutable snapshot of what an entry serves.
type entryState struct {
	cfg     *config.Server
	backend backend.Backend // nil when disabled
	catalog *backend.Catalog
	schemas map[string]*jsonschema.Resolved
}

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

// registry maps server names to entries. Readers never block: the map is replaced whole.
type registry struct {
	mu      sync.Mutex // serialises writers
	entries atomic.Pointer[map[string]*Entry]
}

func (r *registry) get(name string) *Entry {
	m := r.entries.Load()
	if m == nil {
		return nil
	}
	return (*m)[name]
}

func (r *registry) all() []*Entry {
	m := r.entries.Load()
	if m == nil {
		return nil
	}
	es := make([]*Entry, 0, len(*m))
	for _, e := range *m {
		es = append(es, e)
	}
	sort.Slice(es, func(i, j int) bool { return es[i].Name < es[j].Name })
	return es
}

func (r *registry) put(e *Entry) (old *Entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	next := map[string]*Entry{}
	if m := r.entries.Load(); m != nil {
		for k, v := range *m {
			next[k] = v
		}
	}
	old = next[e.Name]
	next[e.Name] = e
	r.entries.Store(&next)
	return old
}

func (r *registry) remove(name string) (old *Entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	next := map[string]*Entry{}
	if m := r.entries.Load(); m != nil {
		for k, v := range *m {
			next[k] = v
		}
	}
	old = next[name]
	delete(next, name)
	r.entries.Store(&next)
	return old
}

// newEntry creates the go-sdk server and handlers of a server name; apply gives it content.
func (g *Gateway) newEntry(name, title, instructions string) *Entry {
	e := &Entry{Name: name}
	if title == "" {
		title = name
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "mcpbridge-" + name, Title: title, Version: g.opts.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       g.sdkLog.With("server", name),
		PageSize:     g.cfg.Limits.PageSize,
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true},
			Prompts:   &mcp.PromptCapabilities{ListChanged: true},
			Logging:   &mcp.LoggingCapabilities{},
		},
	})
	e.Server = srv
	get := func(*http.Request) *mcp.Server { return srv }
	e.legacy = mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Logger:                     g.sdkLog.With("server", name),
		SessionTimeout:             max(g.opts.SessionTimeout, 0),
		MaxRequestBodyBytes:        g.cfg.Limits.MaxBody,
		DisableLocalhostProtection: g.opts.DisableLocalhostProtection,
	})
	e.modern = mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		Logger:                     g.sdkLog.With("server", name),
		MaxRequestBodyBytes:        g.cfg.Limits.MaxBody,
		DisableLocalhostProtection: g.opts.DisableLocalhostProtection,
	})
	e.sse = mcp.NewSSEHandler(get, nil)
	e.state.Store(&entryState{cfg: &config.Server{Name: name}, catalog: &backend.Catalog{}})
	return e
}

// openState opens the backend of s and computes what it serves, without touching any entry.
func (g *Gateway) openState(ctx context.Context, s *config.Server) (*entryState, error) {
	st := &entryState{cfg: s, catalog: &backend.Catalog{}, schemas: map[string]*jsonschema.Resolved{}}
	if !s.IsEnabled() {
		return st, nil
	}
	b, err := backend.Open(ctx, s, backend.Deps{Dir: g.cfg.Dir, Variables: g.cfg.Variables})
	if err != nil {
		return nil, err
	}
	cat, err := b.Catalog(ctx)
	if err != nil {
		closeBackend(b)
		return nil, fmt.Errorf("server %s: listing tools: %w", s.Name, err)
	}
	st.backend = b
	st.catalog = &backend.Catalog{Tools: cat.Tools, Templates: cat.Templates}
	for _, t := range cat.Tools {
		rs, err := resolveToolSchema(t)
		if err != nil {
			closeBackend(b)
			return nil, fmt.Errorf("server %s: tool %s: %w", s.Name, t.Name, err)
		}
		st.schemas[t.Name] = rs
	}
	for _, name := range s.ResourceNames() {
		r := s.Resources[name]
		res := &mcp.Resource{URI: r.URI, Name: cmp.Or(r.Name, name), Title: r.Title, Description: r.Description, MIMEType: r.MimeType}
		if r.Text != nil {
			res.Size = int64(len(*r.Text))
		} else if r.Blob != nil {
			res.Size = int64(len(r.Blob))
		}
		st.catalog.Resources = append(st.catalog.Resources, res)
	}
	for _, name := range s.PromptNames() {
		p := s.Prompts[name]
		mp := &mcp.Prompt{Name: name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			mp.Arguments = append(mp.Arguments, &mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		st.catalog.Prompts = append(st.catalog.Prompts, mp)
	}
	return st, nil
}

// apply makes e serve st: it swaps the state, then brings the go-sdk server's tools,
// resources and prompts in line (which notifies connected sessions), and closes the old
// backend.
func (g *Gateway) apply(e *Entry, st *entryState) {
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
	for _, p := range st.catalog.Prompts {
		srv.AddPrompt(p, g.promptHandler(e, p.Name))
	}
	if old.backend != nil && old.backend != st.backend {
		closeBackend(old.backend)
	}
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
	server := e.Name
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		res, outcome, err := g.callTool(ctx, e, name, req)
		d := time.Since(start)
		g.metrics.observe(server, name, outcome, d)
		if g.audit != nil {
			entry := store.Entry{Time: start, Server: server, Tool: name, Principal: auth.FromContext(ctx).User, Outcome: outcome, Duration: d}
			if res != nil && res.IsError {
				entry.Error = truncate(resultText(res), 200)
			} else if err != nil {
				entry.Error = "gateway error (request id " + requestID(ctx) + ")"
			}
			g.audit.record(entry)
		}
		return res, err
	}
}

func (g *Gateway) callTool(ctx context.Context, e *Entry, name string, req *mcp.CallToolRequest) (*mcp.CallToolResult, string, error) {
	st := e.state.Load()
	schema, ok := st.schemas[name]
	if !ok || st.backend == nil {
		return nil, "unknown_tool", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
	}
	raw := req.Params.Arguments
	args, msg := validateArgs(schema, raw)
	if msg != "" {
		return backend.ErrorResult("invalid arguments for tool %s: %s", name, msg), "invalid_arguments", nil
	}
	if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
		sess := req.Session
		ctx = backend.WithProgress(ctx, func(p, total float64, m string) {
			_ = sess.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: p, Total: total, Message: m})
		})
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(g.calls, func() { cancel(context.Cause(g.calls)) })()
	res, err := st.backend.CallTool(ctx, auth.FromContext(ctx), name, args)
	if errors.Is(context.Cause(ctx), errShuttingDown) {
		return nil, "shutdown", &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the gateway is shutting down and stopped %s before it finished; retry the call", name)}
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
			return nil, strings.TrimPrefix(err.Error(), "validating root: ") + "; check the tool's inputSchema"
		}
	}
	return raw, ""
}

func (g *Gateway) promptHandler(e *Entry, name string) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		p := e.Config().Prompts[name]
		if p == nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", name)}
		}
		args := req.Params.Arguments
		for _, a := range p.Arguments {
			if a.Required && args[a.Name] == "" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("prompt %s: missing required argument %q", name, a.Name)}
			}
		}
		known := map[string]bool{}
		for _, a := range p.Arguments {
			known[a.Name] = true
		}
		for k := range args {
			if !known[k] {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("prompt %s: unknown argument %q", name, k)}
			}
		}
		res := &mcp.GetPromptResult{Description: p.Description}
		for _, m := range p.Messages {
			res.Messages = append(res.Messages, &mcp.PromptMessage{Role: mcp.Role(m.Role), Content: &mcp.TextContent{Text: config.Expand(m.Text, args)}})
		}
		return res, nil
	}
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
