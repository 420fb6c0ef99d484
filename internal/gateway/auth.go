package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

// setupAuth builds the authenticators, in the order they are asked: the admin keys, the
// API keys declared in the config, the store's API keys, and JWTs.
func (g *Gateway) setupAuth() error {
	g.adminKeys = auth.NewStaticKeys(auth.Principal{User: "admin", Admin: true, Via: "admin-key"}, g.opts.AdminKeys...)
	as := auth.Authenticators{g.adminKeys}
	a := g.cfg.Auth
	if a != nil && len(a.Keys) > 0 {
		d, err := auth.ConfigKeys(a.Keys)
		if err != nil {
			return err
		}
		as = append(as, d)
	}
	if g.opts.Keys != nil {
		as = append(as, auth.StoreKeys{Keys: g.opts.Keys})
	}
	if a != nil && a.JWT != nil {
		j := a.JWT
		g.jwt = &auth.JWTVerifier{
			Issuer:     j.Issuer,
			Audiences:  g.audiences,
			RolesClaim: j.RolesClaim,
			Algorithms: j.Algorithms,
			Leeway:     j.Leeway,
			Keys: &auth.JWKS{URL: j.JWKSURL, File: underDir(g.cfg.Dir, j.JWKSFile), Refresh: j.JWKSRefresh,
				Client: g.opts.JWKSClient, Logger: g.log.With("component", "jwks")},
		}
		as = append(as, g.jwt)
	}
	g.authn = as
	return nil
}

// underDir resolves a relative path against the config's directory.
func underDir(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// serverOfPath returns the server an MCP path (/mcp/NAME, /mcp/NAME/sse, /api/mcp/NAME/…)
// is for, or "".
func serverOfPath(p string) string {
	for _, prefix := range []string{"/mcp/", "/api/mcp/", "/.well-known/oauth-protected-resource/mcp/"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			name, _, _ := strings.Cut(rest, "/")
			if name != "meta" && config.NamePattern.Get().MatchString(name) {
				return name
			}
		}
	}
	return ""
}

// audiences are the aud values a JWT on r may carry: auth.jwt.audience when set, else the
// canonical URL of the server the request is for and the gateway's own public URL.
func (g *Gateway) audiences(r *http.Request) []string {
	a := g.cfg.Auth
	if a.JWT.Audience != "" {
		return []string{a.JWT.Audience}
	}
	auds := []string{strings.TrimSuffix(a.PublicURL, "/")}
	if s := serverOfPath(r.URL.Path); s != "" {
		auds = append(auds, a.ResourceURL(s))
	}
	return auds
}

// serverRule is who may use a server (see config.Config.ServerRule).
func (g *Gateway) serverRule(s *config.Server) auth.Rule {
	public, roles := g.cfg.ServerRule(s)
	return auth.Rule{Public: public, Roles: roles}
}

// publicBase is the gateway's URL for the URLs it gives out: auth.public_url, else the
// address the connection came in on.
func (g *Gateway) publicBase(r *http.Request) string {
	if a := g.cfg.Auth; a != nil && a.PublicURL != "" {
		return strings.TrimSuffix(a.PublicURL, "/")
	}
	return baseURL(r)
}

// metadataURL is the RFC 9728 metadata URL of a server, or "" when the gateway has no
// authorization server to point clients to (no auth.jwt).
func (g *Gateway) metadataURL(r *http.Request, server string) string {
	if g.jwt == nil {
		return ""
	}
	return g.publicBase(r) + "/.well-known/oauth-protected-resource/mcp/" + server
}

// authorizeServer lets a request for server e through, or answers 401 (no credentials)
// or 403 (a principal without a role the server requires, or limited to other servers)
// with the Bearer challenge of RFC 6750 and RFC 9728, and reports false.
func (g *Gateway) authorizeServer(w http.ResponseWriter, r *http.Request, e *Entry) bool {
	s := e.Config()
	rule := g.serverRule(s)
	p := auth.FromContext(r.Context())
	d := auth.AuthorizeServer(p, e.Name, rule)
	if d == auth.Allow {
		return true
	}
	params := []string{}
	if d == auth.Forbidden {
		params = append(params, `error="insufficient_scope"`)
	}
	if len(rule.Roles) > 0 {
		params = append(params, fmt.Sprintf("scope=%q", strings.Join(rule.Roles, " ")))
	}
	if u := g.metadataURL(r, e.Name); u != "" {
		params = append(params, fmt.Sprintf("resource_metadata=%q", u))
	}
	if len(params) == 0 {
		params = append(params, `realm="mcpbridge"`)
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	switch {
	case d == auth.Unauthenticated:
		msg := fmt.Sprintf("server %q needs credentials: send Authorization: Bearer with an API key", e.Name)
		if g.jwt != nil {
			msg += " or an access token (its OAuth metadata is at " + g.metadataURL(r, e.Name) + ")"
		}
		refuse(w, r, http.StatusUnauthorized, msg)
	case !p.MayUseServer(e.Name):
		g.log.InfoContext(r.Context(), "request refused: credentials limited to other servers", "server", e.Name, "user", p.User, "via", p.Via, "request_id", requestID(r.Context()))
		refuse(w, r, http.StatusForbidden, fmt.Sprintf("these credentials may not be used on server %q", e.Name))
	default:
		g.log.InfoContext(r.Context(), "request refused: missing role", "server", e.Name, "user", p.User, "via", p.Via, "request_id", requestID(r.Context()))
		refuse(w, r, http.StatusForbidden, fmt.Sprintf("server %q requires one of the roles %s", e.Name, strings.Join(rule.Roles, ", ")))
	}
	return false
}

// denyCredentials answers a request whose credentials were refused: 401 with
// error="invalid_token" (the reason goes to the log, never the token), or 503 when they
// could not be checked (the store or the issuer's key set did not answer).
func (g *Gateway) denyCredentials(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, auth.ErrUnavailable) {
		g.log.WarnContext(r.Context(), "credentials could not be checked", "error", err, "request_id", requestID(r.Context()))
		w.Header().Set("Retry-After", "5")
		refuse(w, r, http.StatusServiceUnavailable, "the credentials cannot be checked now; retry shortly")
		return
	}
	g.log.InfoContext(r.Context(), "credentials refused", "path", r.URL.Path, "reason", err.Error(), "request_id", requestID(r.Context()))
	params := []string{`error="invalid_token"`}
	if s := serverOfPath(r.URL.Path); s != "" {
		if u := g.metadataURL(r, s); u != "" {
			params = append(params, fmt.Sprintf("resource_metadata=%q", u))
		}
	} else {
		params = append(params, `realm="mcpbridge"`)
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	refuse(w, r, http.StatusUnauthorized, "the credentials are not valid (unknown, revoked or expired key or token)")
}

// serveResourceMetadata serves the OAuth 2.0 Protected Resource Metadata (RFC 9728) of a
// server: its resource identifier, the authorization servers that issue tokens for it,
// and the scopes (roles) it knows.
func (g *Gateway) serveResourceMetadata(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("server")
	e := g.reg.get(name)
	if g.jwt == nil || e == nil || !config.NamePattern.Get().MatchString(name) {
		http.NotFound(w, r)
		return
	}
	s := e.Config()
	var scopes []string
	if a := s.Auth; a != nil {
		scopes = append(scopes, a.Roles...)
	}
	for _, t := range s.Tools {
		if t != nil {
			scopes = append(scopes, t.Roles...)
		}
	}
	slices.Sort(scopes)
	md := oauthex.ProtectedResourceMetadata{
		Resource:               g.publicBase(r) + "/mcp/" + name,
		AuthorizationServers:   g.cfg.Auth.JWT.AuthorizationServers,
		ScopesSupported:        slices.Compact(scopes),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           cmpOr(s.Title, name),
		ResourceDocumentation:  g.publicBase(r) + "/mcp/meta/" + name,
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Cache-Control", "max-age=300")
	json.NewEncoder(w).Encode(md)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// bearerPrincipal is the principal a request's credentials bind a legacy session to: an
// authenticated principal that came with a bearer token (ok), else none. It serves both
// withTokenInfo and bearerUser, so the session the SDK binds and the owner the lean path
// checks are the same.
func bearerPrincipal(r *http.Request) (p auth.Principal, ok bool) {
	p = auth.FromContext(r.Context())
	if !p.Authenticated() {
		return auth.Principal{}, false
	}
	if _, ok := auth.BearerToken(r); !ok {
		return auth.Principal{}, false
	}
	return p, true
}

// bearerUser is the owner a request's credentials bind a legacy session to, as
// withTokenInfo hands it to the SDK: the principal's owner (auth.Principal.Owner: its user
// id in the namespace of how it authenticated) when it came with a bearer token, else "".
func bearerUser(r *http.Request) string {
	p, ok := bearerPrincipal(r)
	if !ok {
		return ""
	}
	return p.Owner()
}

// principalKey is where the principal rides in a go-sdk TokenInfo.
const principalExtra = "mcpbridge.principal"

// withTokenInfo hands the request's principal to the go-sdk handlers as a TokenInfo: the
// SDK binds a legacy session to the user that opened it (a request on it from another
// user gets 403) and passes the TokenInfo of each request to the method handlers, where
// principalMiddleware takes the principal from it.
func withTokenInfo(h http.Handler, r *http.Request) http.Handler {
	p, ok := bearerPrincipal(r)
	if !ok {
		return h
	}
	ti := &sdkauth.TokenInfo{UserID: p.Owner(), Extra: map[string]any{principalExtra: p}}
	return sdkauth.RequireBearerToken(func(context.Context, string, *http.Request) (*sdkauth.TokenInfo, error) {
		return ti, nil
	}, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
}

// principalOf is the principal of one MCP request: the one its HTTP request carried (on a
// legacy session, each request's own), else the one on ctx (stdio, the SSE transport, the
// session's first request).
func principalOf(ctx context.Context, req mcp.Request) auth.Principal {
	if req != nil {
		if ex := req.GetExtra(); ex != nil && ex.TokenInfo != nil {
			if p, ok := ex.TokenInfo.Extra[principalExtra].(auth.Principal); ok {
				return p
			}
		}
	}
	return auth.FromContext(ctx)
}

// principalMiddleware puts each MCP request's principal (and its client, which a
// server:// read charges and audits as the tools/call it makes) on its context, charges the
// rate limits of requests the HTTP edge did not (see chargeMessage), and filters the lists
// — tools, resources, resource templates, prompts — to what the principal may use (their
// roles); calls, reads and gets are checked again when they are made.
func (g *Gateway) principalMiddleware(e *Entry) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			p := principalOf(ctx, req)
			ctx = auth.WithPrincipal(ctx, p)
			if h := requestHeader(req); h.Get(clientHeader) != "" {
				ctx = context.WithValue(ctx, clientCtx{}, clientID{key: h.Get(clientHeader), addr: h.Get(clientAddrHeader)})
			}
			if err := g.chargeMessage(ctx, e, method, req); err != nil {
				return nil, err
			}
			res, err := next(ctx, method, req)
			if method == "logging/setLevel" && err == nil && req.GetSession() != nil {
				g.sessions.setLogging(req.GetSession().ID()) // calls may log: no lean path
			}
			if err != nil {
				return res, err
			}
			st := e.state.Load()
			switch lr := res.(type) {
			case *mcp.ListToolsResult:
				if lr != nil {
					lr.Tools = keep(lr.Tools, func(t *mcp.Tool) bool { return mayCall(p, st, t.Name) })
				}
			case *mcp.ListResourcesResult:
				if lr != nil {
					lr.Resources = keep(lr.Resources, func(r *mcp.Resource) bool { return g.listable(p, st, r.URI, false) })
				}
			case *mcp.ListResourceTemplatesResult:
				if lr != nil {
					lr.ResourceTemplates = keep(lr.ResourceTemplates, func(t *mcp.ResourceTemplate) bool { return g.listable(p, st, t.URITemplate, true) })
				}
			case *mcp.ListPromptsResult:
				if lr != nil {
					lr.Prompts = keep(lr.Prompts, func(pr *mcp.Prompt) bool { return mayGetPrompt(p, st, pr.Name) })
				}
			}
			return res, nil
		}
	}
}

// keep returns the items of xs that ok accepts, in a new slice (never nil).
func keep[T any](xs []T, ok func(T) bool) []T {
	out := make([]T, 0, len(xs))
	for _, x := range xs {
		if ok(x) {
			out = append(out, x)
		}
	}
	return out
}

// mayRead reports whether principal p may read the resource of st whose URI (or, when
// template, URI template) is key: it has one of the roles a configured resource asks for.
// A server:// resource's read is then checked as the tools/call it makes
// (readServerOutput).
func mayRead(p auth.Principal, st *entryState, key string, template bool) bool {
	roles := st.resourceRoles[key]
	if template {
		roles = st.templateRoles[key]
	}
	return auth.MayCallTool(p, roles)
}

// listable reports whether the resource (or template) key of st is listed to principal p:
// p may read it (mayRead), and a configured server:// resource runs a tool p may call
// (mayRunTarget) — what p cannot read is not offered.
func (g *Gateway) listable(p auth.Principal, st *entryState, key string, template bool) bool {
	if !mayRead(p, st, key, template) {
		return false
	}
	reader := st.readers[key]
	if template {
		reader = st.templates[key]
	}
	if _, conf := reader.(configured); !conf {
		return true
	}
	server, tool, ok := serverTarget(key)
	return !ok || g.mayRunTarget(p, server, tool)
}

// mayGetPrompt reports whether principal p may see and get prompt name of st: it has one
// of the roles the configured prompt asks for.
func mayGetPrompt(p auth.Principal, st *entryState, name string) bool {
	return auth.MayCallTool(p, st.promptRoles[name])
}

// serverTarget returns the server and tool a server://SERVER/TOOL?… URI (or URI
// template) names; ok is false for another URI, or one whose server or tool is a template
// variable.
func serverTarget(uri string) (server, tool string, ok bool) {
	rest, found := strings.CutPrefix(uri, "server://")
	if !found {
		return "", "", false
	}
	server, path, _ := strings.Cut(rest, "/")
	if i := strings.IndexAny(path, "?{#"); i >= 0 {
		path = path[:i]
	}
	tool = strings.Trim(path, "/")
	if server == "" || tool == "" || strings.ContainsAny(server, "{}") {
		return "", "", false
	}
	return server, tool, true
}

// mayRunTarget reports whether principal p may call tool of server as a tools/call on that
// server: the server's rule and p's server list admit it, and it may call the tool (the
// tool's roles, the backend's rules). A server or tool that does not exist says yes: the
// read itself says what is wrong.
func (g *Gateway) mayRunTarget(p auth.Principal, server, tool string) bool {
	e := g.reg.get(server)
	if e == nil {
		return true
	}
	if auth.AuthorizeServer(p, e.Name, g.serverRule(e.Config())) != auth.Allow {
		return false
	}
	if e, _ = g.opened(context.Background(), e); e == nil { // its tools' rules are needed
		return true
	}
	st := e.state.Load()
	if _, known := st.schemas[tool]; !known {
		return true
	}
	return mayCall(p, st, tool)
}

// mayCall reports whether principal p may see and call tool name of st: it has one of the
// roles the tool's config asks for, and the backend lets it (backend.ToolGate).
func mayCall(p auth.Principal, st *entryState, name string) bool {
	if !auth.MayCallTool(p, toolRoles(st, name)) {
		return false
	}
	if gate, ok := st.backend.(backend.ToolGate); ok {
		return gate.ToolAllowed(p, name)
	}
	return true
}

// toolRoles are the roles a tool of st requires (none: any principal the server admits).
func toolRoles(st *entryState, name string) []string {
	if st == nil || st.cfg == nil {
		return nil
	}
	if t := st.cfg.Tools[name]; t != nil {
		return t.Roles
	}
	return nil
}
