// Package auth identifies who is calling: principals from API keys and tokens, and the
// authorization rule shared by tool filtering, Lowdefy page protection and the admin API.
package auth

import (
	"context"
	"slices"
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
}

// Anonymous is the principal of an unauthenticated request.
var Anonymous = Principal{}

// Authenticated reports whether p is someone (not [Anonymous]).
func (p Principal) Authenticated() bool { return p.User != "" }

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
