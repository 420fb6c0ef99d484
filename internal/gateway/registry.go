package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

// An Entry is one served server: its definition, backend, MCP server and HTTP handlers.
type Entry struct {
	Config  *config.Server
	Backend backend.Backend
	Server  *mcp.Server

	catalog *backend.Catalog
	schemas map[string]*jsonschema.Resolved
	legacy  http.Handler // Streamable HTTP, sessions (2024-11-05 … 2025-11-25)
	modern  http.Handler // Streamable HTTP, stateless (2026-07-28)
	sse     http.Handler // legacy HTTP+SSE (2024-11-05)
}

// Catalog returns the tools, resources and prompts the entry serves (as listed to clients).
func (e *Entry) Catalog() *backend.Catalog { return e.catalog }

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
	sort.Slice(es, func(i, j int) bool { return es[i].Config.Name < es[j].Config.Name })
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
	old = next[e.Config.Name]
	next[e.Config.Name] = e
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

// buildEntry opens the backend of s and builds its MCP server and handlers.
func (g *Gateway) buildEntry(ctx context.Context, s *config.Server) (*Entry, error) {
	e := &Entry{Config: s}
	if !s.IsEnabled() {
		return e, nil
	}
	b, err := backend.Open(ctx, s, backend.Deps{Dir: g.cfg.Dir, Variables: g.cfg.Variables})
	if err != nil {
		return nil, err
	}
	e.Backend = b
	cat, err := b.Catalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("server %s: listing tools: %w", s.Name, err)
	}
	e.catalog = &backend.Catalog{Tools: cat.Tools, Templates: cat.Templates}
	impl := &mcp.Implementation{Name: "mcpbridge-" + s.Name, Title: s.Title, Version: g.opts.Version}
	if impl.Title == "" {
		impl.Title = s.Name
	}
	srv := mcp.NewServer(impl, &mcp.ServerOptions{
		Instructions: s.Description,
		Logger:       g.sdkLog.With("server", s.Name),
		PageSize:     g.cfg.Limits.PageSize,
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true},
			Prompts:   &mcp.PromptCapabilities{ListChanged: true},
			Logging:   &mcp.LoggingCapabilities{},
		},
	})
	e.Server = srv
	e.schemas = map[string]*jsonschema.Resolved{}
	for _, t := range cat.Tools {
		rs, err := resolveToolSchema(t)
		if err != nil {
			return nil, fmt.Errorf("server %s: tool %s: %w", s.Name, t.Name, err)
		}
		e.schemas[t.Name] = rs
		srv.AddTool(t, g.toolHandler(e, t.Name))
	}
	for _, name := range s.ResourceNames() {
		r := s.Resources[name]
		res := &mcp.Resource{URI: r.URI, Name: firstNonEmpty(r.Name, name), Title: r.Title, Description: r.Description, MIMEType: r.MimeType}
		if r.Text != nil {
			res.Size = int64(len(*r.Text))
		} else if r.Blob != nil {
			res.Size = int64(len(r.Blob))
		}
		srv.AddResource(res, g.resourceHandler(s, r))
		e.catalog.Resources = append(e.catalog.Resources, res)
	}
	for _, r := range cat.Resources {
		e.catalog.Resources = append(e.catalog.Resources, r)
	}
	for _, name := range s.PromptNames() {
		p := s.Prompts[name]
		mp := &mcp.Prompt{Name: name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			mp.Arguments = append(mp.Arguments, &mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		srv.AddPrompt(mp, promptHandler(name, p))
		e.catalog.Prompts = append(e.catalog.Prompts, mp)
	}
	get := func(*http.Request) *mcp.Server { return srv }
	e.legacy = mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Logger:                     g.sdkLog.With("server", s.Name),
		SessionTimeout:             g.opts.SessionTimeout,
		MaxRequestBodyBytes:        g.cfg.Limits.MaxBody,
		DisableLocalhostProtection: g.opts.DisableLocalhostProtection,
	})
	e.modern = mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		Logger:                     g.sdkLog.With("server", s.Name),
		MaxRequestBodyBytes:        g.cfg.Limits.MaxBody,
		DisableLocalhostProtection: g.opts.DisableLocalhostProtection,
	})
	e.sse = mcp.NewSSEHandler(get, nil)
	return e, nil
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
	server := e.Config.Name
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		res, outcome, err := g.callTool(ctx, e, name, req)
		g.metrics.observe(server, name, outcome, time.Since(start))
		return res, err
	}
}

func (g *Gateway) callTool(ctx context.Context, e *Entry, name string, req *mcp.CallToolRequest) (*mcp.CallToolResult, string, error) {
	raw := req.Params.Arguments
	args, msg := validateArgs(e.schemas[name], raw)
	if msg != "" {
		return backend.ErrorResult("invalid arguments for tool %s: %s", name, msg), "invalid_arguments", nil
	}
	if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
		sess := req.Session
		ctx = backend.WithProgress(ctx, func(p, total float64, m string) {
			_ = sess.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: p, Total: total, Message: m})
		})
	}
	res, err := e.Backend.CallTool(ctx, auth.FromContext(ctx), name, args)
	if err != nil {
		id := requestID(ctx)
		g.log.ErrorContext(ctx, "tool call failed", "server", e.Config.Name, "tool", name, "error", err, "request_id", id)
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

func promptHandler(name string, p *config.Prompt) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
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

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}

var errNoStore = errors.New("no content store is configured")

var _ = slog.Default
