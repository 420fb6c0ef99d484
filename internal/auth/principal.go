// Package auth identifies who is calling: principals from API keys and tokens, and the
// authorization rule shared by tool filtering, Lowdefy page protection and the admin API.
package auth

import (
	"context"
	"slices"
	"strings"
)

// A Principal is the identity a request runs as.
type Principal struct {
	User  string   // a stable user id; "" for anonymous
	Name  string   // the user's display name, if known
	Email string   // the user's email address, if known
	Roles []string // the roles granted to the user
	// Servers, when not nil, are the only servers the principal may use (an API key
	// limited to some servers); nil means any server its roles allow.
	Servers []string
	Admin   bool // may use the admin API
	// Via says how the principal was established, for logs and audit: "admin-key",
	// "key:ID" (an API key), "jwt" or "env" (stdio). It never holds a secret.
	Via string
	// Issuer is the iss of the JWT the principal came from ("" for other sources): the
	// namespace its User (the token's sub) is unique in.
	Issuer string
	// Claims are the verified claims of the JWT the principal came from (numbers as
	// json.Number), nil for other sources. Backends read them (a Lowdefy app's
	// auth.userFields maps them into _user); nothing may change them.
	Claims map[string]any
}

// Anonymous is the principal of an unauthenticated request.
var Anonymous = Principal{}

// AnonymousOwner is the [Principal.Owner] of every unauthenticated caller: they all share
// it. No authenticated principal's owner equals it.
const AnonymousOwner = "anonymous"

// Authenticated reports whether p is someone (not [Anonymous]).
func (p Principal) Authenticated() bool { return p.User != "" }

// Owner names p as the owner of what is kept for it — Lowdefy work sessions, an upstream's
// per-caller connections, legacy MCP sessions — and as the caller the per-caller limits
// count: the source p authenticated with and its id there. "key:USER" for an API key
// (declared or stored; the keys of one user share, so a rotated key keeps them),
// "jwt:ISSUER#SUB" for a JWT, "env:USER" for stdio's environment, "admin-key:admin", and
// [AnonymousOwner] for everyone else. A source's name holds no colon and AnonymousOwner
// none at all, so an id of one source (a JWT whose sub is "anonymous", a key whose user is
// some token's sub) never collides with another source's or with the anonymous owner.
func (p Principal) Owner() string {
	if !p.Authenticated() {
		return AnonymousOwner
	}
	source, _, _ := strings.Cut(p.Via, ":")
	switch source {
	case "":
		source = "user"
	case "jwt":
		return "jwt:" + p.Issuer + "#" + p.User
	}
	return source + ":" + p.User
}

type principalKey struct{}

// WithPrincipal returns a context carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the principal on ctx, or Anonymous.
func FromContext(ctx context.Context) Principal {
	p, ok := ctx.Value(principalKey{}).(Principal)
	if !ok {
		return Anonymous
	}
	return p
}

// HasRole reports whether p has the role r.
func (p Principal) HasRole(r string) bool { return slices.Contains(p.Roles, r) }

// HasAnyRole reports whether p has at least one of roles.
func (p Principal) HasAnyRole(roles []string) bool {
	for _, r := range roles {
		if p.HasRole(r) {
			return true
		}
	}
	return false
}

// MayUseServer reports whether p's server list (if it has one) includes server.
func (p Principal) MayUseServer(server string) bool {
	return p.Servers == nil || slices.Contains(p.Servers, server)
}
