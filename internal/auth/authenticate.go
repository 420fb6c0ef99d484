package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
)

// ErrInvalidCredentials is returned by an [Authenticator] that recognises a request's
// credentials but finds them wrong (an expired token, a revoked key).
var ErrInvalidCredentials = errors.New("auth: invalid credentials")

// An Authenticator finds the principal that a request's credentials prove.
// Its methods must be safe for concurrent use.
type Authenticator interface {
	// Authenticate returns the principal of r. ok is false when r carries no credentials
	// this authenticator recognises (the request may still be someone else's to judge);
	// err is non-nil when it recognises credentials that are not valid.
	Authenticate(r *http.Request) (p Principal, ok bool, err error)
}

// Authenticators tries each authenticator in order; the first that recognises the request
// (or fails it) decides.
type Authenticators []Authenticator

// Authenticate implements [Authenticator].
func (as Authenticators) Authenticate(r *http.Request) (Principal, bool, error) {
	for _, a := range as {
		if p, ok, err := a.Authenticate(r); ok || err != nil {
			return p, ok, err
		}
	}
	return Anonymous, false, nil
}

// BearerToken returns the token of an "Authorization: Bearer TOKEN" header.
func BearerToken(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

// StaticKeys authenticates bearer tokens against a fixed set of secret keys, each proving
// the same principal (the admin keys of the gateway, for example). A bearer token that
// matches no key is not recognised rather than refused, so another authenticator (or an
// anonymous route) may still accept the request.
type StaticKeys struct {
	principal Principal
	sums      [][sha256.Size]byte
}

// NewStaticKeys returns an authenticator for keys; empty keys are ignored.
func NewStaticKeys(p Principal, keys ...string) *StaticKeys {
	s := &StaticKeys{principal: p}
	for _, k := range keys {
		if k != "" {
			s.sums = append(s.sums, sha256.Sum256([]byte(k)))
		}
	}
	return s
}

// Len reports how many keys s holds.
func (s *StaticKeys) Len() int { return len(s.sums) }

// Authenticate implements [Authenticator]. Tokens are compared by their SHA-256 sums in
// constant time against every key, so neither a key's content nor its length leaks through
// timing.
func (s *StaticKeys) Authenticate(r *http.Request) (Principal, bool, error) {
	tok, ok := BearerToken(r)
	if !ok || len(s.sums) == 0 {
		return Anonymous, false, nil
	}
	sum := sha256.Sum256([]byte(tok))
	match := 0
	for i := range s.sums {
		match |= subtle.ConstantTimeCompare(sum[:], s.sums[i][:])
	}
	if match != 1 {
		return Anonymous, false, nil
	}
	return s.principal, true, nil
}

// Middleware authenticates every request with a and puts the principal on its context
// ([Anonymous] when a recognises nothing). A request whose credentials a refuses is answered
// by deny and goes no further.
func Middleware(a Authenticator, deny func(w http.ResponseWriter, r *http.Request, err error)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, ok, err := a.Authenticate(r)
			if err != nil {
				deny(w, r, err)
				return
			}
			if ok {
				r = r.WithContext(WithPrincipal(r.Context(), p))
			}
			next.ServeHTTP(w, r)
		})
	}
}

// Require lets a request through only when allow holds for the principal on its context;
// other requests are answered by deny.
func Require(allow func(Principal) bool, deny http.Handler) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !allow(FromContext(r.Context())) {
				deny.ServeHTTP(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// IsAdmin reports whether p may use the admin API.
func IsAdmin(p Principal) bool { return p.Admin }
