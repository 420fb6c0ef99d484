package server

import (
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
)

// Authorize tells whether user (nil when nobody is signed in) may use what auth
// protects, following Lowdefy's createAuthorize: `public: true` allows everyone;
// `public: false` allows any signed-in user, or, when `roles` is given, a signed-in
// user with one of those roles (the user's `roles` field). Any other auth is invalid
// configuration: a ServerError.
func (s *Server) Authorize(user *jsvalue.Object, auth *jsvalue.Object) (bool, error) {
	return authorize(user, auth)
}

func authorize(user *jsvalue.Object, auth *jsvalue.Object) (bool, error) {
	switch auth.Prop("public") {
	case true:
		return true, nil
	case false:
		authenticated := user != nil
		roles, hasRoles := auth.Get("roles")
		if !hasRoles || !jsvalue.Truthy(roles) {
			return authenticated, nil
		}
		if !authenticated {
			return false, nil
		}
		required, _ := roles.([]any)
		have := user.Prop("roles")
		for _, r := range required {
			if hasRole(have, r) {
				return true, nil
			}
		}
		return false, nil
	}
	return false, &Error{Kind: "ServerError", Message: "Invalid auth configuration"}
}

// hasRole is `roles.includes(role)` on the user's roles (`?? []`): an array holds the
// role, and — as in JavaScript — a string includes it as a substring.
func hasRole(roles, role any) bool {
	switch rs := roles.(type) {
	case []any:
		for _, r := range rs {
			if jsvalue.SameValueZero(r, role) {
				return true
			}
		}
	case string:
		return strings.Contains(rs, jsvalue.ToString(role))
	}
	return false
}

// pageAuth returns the auth object of a page as its artifact carries it.
func pageAuth(p *app.Page) *jsvalue.Object {
	if a, ok := p.Config.Prop("auth").(*jsvalue.Object); ok {
		return a
	}
	auth := jsvalue.ObjectOf("public", p.Auth.Public)
	if p.Auth.Roles != nil {
		roles := make([]any, len(p.Auth.Roles))
		for i, r := range p.Auth.Roles {
			roles[i] = r
		}
		auth.Set("roles", roles)
	}
	return auth
}

// PageAllowed tells whether user may open page pageID. An unknown page, or one with an
// invalid auth configuration, is not allowed.
func (s *Server) PageAllowed(user *jsvalue.Object, pageID string) bool {
	p := s.app.Page(pageID)
	if p == nil {
		return false
	}
	ok, err := authorize(user, pageAuth(p))
	return ok && err == nil
}

// Pages returns the ids of the pages user may open, in config order (the pages a menu
// shows them and getPageConfig serves them).
func (s *Server) Pages(user *jsvalue.Object) []string {
	var out []string
	for _, p := range s.app.Pages {
		if ok, err := authorize(user, pageAuth(p)); ok && err == nil {
			out = append(out, p.ID)
		}
	}
	return out
}

// Endpoints returns the ids of the API endpoints user may call, in config order.
func (s *Server) Endpoints(user *jsvalue.Object) []string {
	var out []string
	for _, id := range s.endpointOrder() {
		if ok, err := authorize(user, s.endpoints[id].auth); ok && err == nil {
			out = append(out, id)
		}
	}
	return out
}

// apiAuth computes the auth of each endpoint from `auth.api` the way the build does
// for pages from `auth.pages`: `public: [ids]` protects every other endpoint,
// `protected: true` all, `protected: [ids]` those; an endpoint listed under a role
// gets `{public: false, roles: [...]}`; with nothing configured endpoints are public.
func apiAuth(a *app.App, ids []string) map[string]*jsvalue.Object {
	cfg, _ := a.Auth.Prop("api").(*jsvalue.Object)
	prot, pub := cfg.Prop("protected"), cfg.Prop("public")
	_, pubList := pub.([]any)
	_, protList := prot.([]any)
	publicIDs := strList(pub)
	protected := map[string]bool{}
	switch {
	case pubList:
		for _, id := range ids {
			protected[id] = !slices.Contains(publicIDs, id)
		}
	case prot == true:
		for _, id := range ids {
			protected[id] = true
		}
	case protList:
		for _, id := range strList(prot) {
			protected[id] = true
		}
	}
	roles := map[string][]any{}
	if rs, ok := cfg.Prop("roles").(*jsvalue.Object); ok {
		for role, list := range rs.Range {
			for _, id := range strList(list) {
				roles[id] = append(roles[id], role)
			}
		}
	}
	out := map[string]*jsvalue.Object{}
	for _, id := range ids {
		switch {
		case len(roles[id]) > 0:
			out[id] = jsvalue.ObjectOf("public", false, "roles", roles[id])
		case protected[id]:
			out[id] = jsvalue.ObjectOf("public", false)
		default:
			out[id] = jsvalue.ObjectOf("public", true)
		}
	}
	return out
}

func strList(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
