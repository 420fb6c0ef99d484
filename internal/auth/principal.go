// Package auth identifies who is calling: principals from API keys and tokens, and the
// authorization rule shared by tool filtering, Lowdefy page protection and the admin API.
package auth

import "context"

// A Principal is the identity a request runs as.
type Principal struct {
	User  string   // a stable user id; "" for anonymous
	Roles []string // the roles granted to the user
	Admin bool     // may use the admin API
}

// Anonymous is the principal of an unauthenticated request.
var Anonymous = Principal{}

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
func (p Principal) HasRole(r string) bool {
	for _, x := range p.Roles {
		if x == r {
			return true
		}
	}
	return false
}
