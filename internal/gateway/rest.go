package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/restapi"
)

// restRoutes serves the plain REST routes of the servers (internal/restapi) at
// /api/mcp/{server}/…: the same tool handler, resource readers and prompt getters as
// /mcp/{server}, behind the same checks.
func (g *Gateway) restRoutes(mux *http.ServeMux) {
	api := &restapi.API{
		Servers:         restServers{g},
		Version:         g.opts.Version,
		ReadTimeout:     g.cfg.Limits.ReadTimeout,
		Unavailable:     func(e *jsonrpc.Error) bool { return unavailableReason(e) != "" },
		StoreRetryAfter: storeRetryAfter,
	}
	api.Routes(mux)
}

// restError answers a REST route's request with {"error": msg}.
func restError(w http.ResponseWriter, status int, msg string) { restapi.Error(w, status, msg) }

// restServers are the gateway's servers as the REST routes use them.
type restServers struct{ g *Gateway }

// Enter finds the route's server, checks that it may be used by the caller and is being
// served, and enters it (the route calls Exit), or answers and reports false.
func (rs restServers) Enter(w http.ResponseWriter, r *http.Request, name string) (restapi.Server, bool) {
	g := rs.g
	e := g.usableEntry(w, r, name, restError)
	if e == nil {
		return nil, false
	}
	if !g.checkRate(w, r, e, func(status int, msg string, je *jsonrpc.Error) { restapi.LimitError(w, status, je) }) {
		return nil, false
	}
	st, ok := e.enter()
	if !ok {
		w.Header().Set("Retry-After", "1")
		restError(w, http.StatusServiceUnavailable, fmt.Sprintf("server %q is being replaced; retry", name))
		return nil, false
	}
	if o := r.Header.Get("Origin"); o != "" { // checkOrigin let it through
		w.Header().Set("Access-Control-Allow-Origin", o)
		w.Header().Add("Vary", "Origin")
	}
	return &restServer{g: g, e: e, st: st}, true
}

// restServer is one entered server of a REST request.
type restServer struct {
	g  *Gateway
	e  *Entry
	st *entryState
}

func (s *restServer) Name() string { return s.e.Name }

func (s *restServer) Exit() { s.st.live.exit() }

func (s *restServer) Tools(p auth.Principal) []*mcp.Tool {
	return keep(s.st.catalog.Tools, func(t *mcp.Tool) bool { return mayCall(p, s.st, t.Name) })
}

func (s *restServer) CallTool(ctx context.Context, header http.Header, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	return s.g.toolHandler(s.e, name)(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: name, Arguments: args}, Extra: &mcp.RequestExtra{Header: header}})
}

func (s *restServer) Resources(p auth.Principal) ([]*mcp.Resource, []*mcp.ResourceTemplate) {
	resources := keep(s.st.catalog.Resources, func(x *mcp.Resource) bool { return s.g.listable(p, s.st, x.URI, false) })
	templates := keep(s.st.catalog.Templates, func(t *mcp.ResourceTemplate) bool { return s.g.listable(p, s.st, t.URITemplate, true) })
	return resources, templates
}

func (s *restServer) ReadResource(ctx context.Context, p auth.Principal, uri string) (*mcp.ReadResourceResult, bool, error) {
	key, template := uri, false
	reader := s.st.readers[uri]
	if reader == nil {
		for tmpl, rd := range s.st.templates {
			if t, err := uritemplate.New(tmpl); err == nil && t.Match(uri) != nil {
				key, template, reader = tmpl, true, rd
				break
			}
		}
	}
	if reader == nil || !mayRead(p, s.st, key, template) {
		return nil, false, nil
	}
	res, err := s.g.scrubRead(reader.ReadResource(ctx, p, uri))
	if err == nil && res != nil {
		cacheControl(ctx, &res.Cacheable) // as a 2026-07-28 resources/read says it
	}
	return res, true, err
}

func (s *restServer) Prompts(p auth.Principal) []*mcp.Prompt {
	return keep(s.st.catalog.Prompts, func(x *mcp.Prompt) bool { return mayGetPrompt(p, s.st, x.Name) })
}

func (s *restServer) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	return s.g.promptHandler(s.e, name)(ctx, &mcp.GetPromptRequest{Params: &mcp.GetPromptParams{Name: name, Arguments: args}})
}

func (s *restServer) Info() (*mcp.Implementation, string) { return s.e.impl, s.st.cfg.Description }
