package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// ErrUnavailable wraps the failure of a credential check that could not be made (the
// store did not answer, the JWKS could not be fetched): the request is refused with 503,
// not 401, because its credentials may well be good.
var ErrUnavailable = errors.New("auth: credentials cannot be checked now")

// KeyPrincipal is the principal an API key proves.
func KeyPrincipal(k store.KeyInfo) Principal {
	p := Principal{User: k.User, Name: k.UserName, Email: k.UserEmail, Roles: k.Roles, Admin: k.Admin, Via: "key:" + k.ID}
	if len(k.Servers) > 0 {
		p.Servers = k.Servers
	}
	return p
}

// StoreKeys authenticates the API keys of a store (made by `mcpbridge keys create`): a
// bearer token that starts with store.KeyPrefix is looked up by its SHA-256 hash, and an
// unknown or revoked one is refused. Other tokens are not recognised.
type StoreKeys struct {
	Keys store.Keys
}

// Authenticate implements [Authenticator].
func (s StoreKeys) Authenticate(r *http.Request) (Principal, bool, error) {
	tok, ok := BearerToken(r)
	if !ok || s.Keys == nil || !strings.HasPrefix(tok, store.KeyPrefix) {
		return Anonymous, false, nil
	}
	return s.Lookup(r.Context(), tok)
}

// Lookup returns the principal of an API key secret (for stdio, which reads it from the
// environment).
func (s StoreKeys) Lookup(ctx context.Context, secret string) (Principal, bool, error) {
	k, err := s.Keys.Lookup(ctx, secret)
	switch {
	case errors.Is(err, store.ErrNotFound):
		// The store's error names the key id of a revoked key, never the secret.
		return Anonymous, false, fmt.Errorf("%w: %v", ErrInvalidCredentials, err)
	case err != nil:
		return Anonymous, false, fmt.Errorf("%w: looking up an API key: %v", ErrUnavailable, err)
	}
	return KeyPrincipal(k), true, nil
}

// A DeclaredKey is an API key written in the configuration by its SHA-256 hash.
type DeclaredKey struct {
	ID   string
	Hash string // 64 lowercase hex digits, optionally prefixed "sha256:"
	Principal
}

// DeclaredKeys authenticates bearer tokens against keys declared by hash. A token that
// matches none is not recognised (another authenticator may know it).
type DeclaredKeys struct {
	keys []declared
}

type declared struct {
	sum [sha256.Size]byte
	p   Principal
}

// NewDeclaredKeys checks and indexes keys.
func NewDeclaredKeys(keys []DeclaredKey) (*DeclaredKeys, error) {
	d := &DeclaredKeys{}
	for i, k := range keys {
		sum, err := ParseKeyHash(k.Hash)
		if err != nil {
			return nil, fmt.Errorf("auth.keys[%d] (%s): %w", i, k.ID, err)
		}
		p := k.Principal
		p.Via = "key:" + k.ID
		d.keys = append(d.keys, declared{sum: sum, p: p})
	}
	return d, nil
}

// ParseKeyHash parses "sha256:HEX" or "HEX" (64 hex digits).
func ParseKeyHash(h string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	hexPart := strings.TrimPrefix(strings.TrimSpace(h), "sha256:")
	b, err := hex.DecodeString(hexPart)
	if err != nil || len(b) != sha256.Size {
		return sum, fmt.Errorf("hash must be sha256: followed by 64 hex digits (`mcpbridge keys hash` prints it), got %d characters", len(h))
	}
	copy(sum[:], b)
	return sum, nil
}

// Len reports how many keys d holds.
func (d *DeclaredKeys) Len() int { return len(d.keys) }

// Authenticate implements [Authenticator]. The token's hash is compared with every key's
// in constant time.
func (d *DeclaredKeys) Authenticate(r *http.Request) (Principal, bool, error) {
	tok, ok := BearerToken(r)
	if !ok {
		return Anonymous, false, nil
	}
	p, ok := d.Lookup(tok)
	return p, ok, nil
}

// Lookup returns the principal of a declared key's secret.
func (d *DeclaredKeys) Lookup(secret string) (Principal, bool) {
	if d == nil || len(d.keys) == 0 {
		return Anonymous, false
	}
	sum := sha256.Sum256([]byte(secret))
	found := -1
	for i := range d.keys {
		if subtle.ConstantTimeCompare(sum[:], d.keys[i].sum[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return Anonymous, false
	}
	return d.keys[found].p, true
}

// ConfigKeys indexes the keys of a config's auth.keys.
func ConfigKeys(keys []config.DeclaredKey) (*DeclaredKeys, error) {
	var ds []DeclaredKey
	for _, k := range keys {
		p := Principal{User: k.User.ID, Name: k.User.Name, Email: k.User.Email, Roles: k.Roles, Admin: k.Admin}
		if len(k.Servers) > 0 {
			p.Servers = k.Servers
		}
		ds = append(ds, DeclaredKey{ID: k.ID, Hash: k.Hash, Principal: p})
	}
	return NewDeclaredKeys(ds)
}
