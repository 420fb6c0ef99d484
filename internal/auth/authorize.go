package auth

import "fmt"

// A Rule says who may use something: a server, a tool, a page.
type Rule struct {
	// Public admits anyone, anonymous callers included.
	Public bool
	// Roles, when not empty, admits only principals with at least one of them; when empty
	// (and not Public), any authenticated principal is admitted.
	Roles []string
}

// A Decision is the outcome of [Authorize].
type Decision int

const (
	// Allow lets the principal through.
	Allow Decision = iota
	// Unauthenticated refuses an anonymous principal: credentials are needed (HTTP 401).
	Unauthenticated
	// Forbidden refuses an authenticated principal that lacks a role or is limited to other
	// servers (HTTP 403).
	Forbidden
)

func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Unauthenticated:
		return "unauthenticated"
	case Forbidden:
		return "forbidden"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// Authorize decides whether p may use what r guards. It is the one rule behind server
// access, tool filtering and calls, and Lowdefy page protection.
func Authorize(p Principal, r Rule) Decision {
	if r.Public {
		return Allow
	}
	if !p.Authenticated() {
		return Unauthenticated
	}
	if len(r.Roles) > 0 && !p.HasAnyRole(r.Roles) {
		return Forbidden
	}
	return Allow
}

// AuthorizeServer is Authorize for a server, which also honours a principal limited to
// some servers (an API key with a server list): such a principal gets Forbidden on any
// other server, public ones included.
func AuthorizeServer(p Principal, server string, r Rule) Decision {
	if p.Authenticated() && !p.MayUseServer(server) {
		return Forbidden
	}
	return Authorize(p, r)
}

// MayCallTool reports whether p may see and call a tool that requires roles (any
// principal may when roles is empty: the server's rule has admitted it already).
func MayCallTool(p Principal, roles []string) bool {
	return len(roles) == 0 || p.HasAnyRole(roles)
}
