package config

import (
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Auth configures who may call the gateway: API keys declared by hash, JWTs from an OAuth
// authorization server, and the gateway's public URL. Keys made with `mcpbridge keys
// create` live in the store and need no configuration.
//
// When a config has an auth section, a server without its own auth requires an
// authenticated caller; without one, such a server is public (the behaviour before auth
// existed, so a first `mcpbridge serve` works at once).
type Auth struct {
	// PublicURL is the gateway's canonical URL as clients reach it (https://mcp.example.com):
	// the base of each server's resource identifier (PublicURL/mcp/NAME), which JWTs must
	// name as their audience, and of the OAuth metadata URLs.
	PublicURL string `yaml:"public_url"`
	// Keys are API keys declared by the SHA-256 hash of their secret.
	Keys []DeclaredKey `yaml:"keys"`
	// JWT accepts bearer JWTs signed by an authorization server's keys.
	JWT *JWT `yaml:"jwt"`
}

// DeclaredKey is an API key written in the config by its hash.
type DeclaredKey struct {
	ID      string   `yaml:"id"`      // names the key in logs and audit
	Hash    string   `yaml:"hash"`    // sha256:HEX of the secret (`mcpbridge keys hash`)
	User    KeyUser  `yaml:"user"`    // who the key authenticates as
	Roles   []string `yaml:"roles"`   // the user's roles
	Servers []string `yaml:"servers"` // when set, the only servers the key may use
	Admin   bool     `yaml:"admin"`   // may use the admin API
}

// KeyUser is the user an API key authenticates as.
type KeyUser struct {
	ID    string `yaml:"id"`
	Name  string `yaml:"name"`
	Email string `yaml:"email"`
}

// JWT configures the verification of bearer JWTs (OAuth 2.1 access tokens).
type JWT struct {
	// Issuer must equal the token's iss claim.
	Issuer string `yaml:"issuer"`
	// Audience must be one of the token's aud values; by default each server's canonical
	// URL (auth.public_url + /mcp/NAME), so a token for one server is refused by another.
	Audience string `yaml:"audience"`
	// JWKSURL or JWKSFile is where the issuer's public keys are (exactly one).
	JWKSURL  string `yaml:"jwks_url"`
	JWKSFile string `yaml:"jwks_file"`
	// JWKSRefresh is how often the key set is fetched again; default 1h. An unknown key id
	// fetches it at once (at most every 30s).
	JWKSRefresh time.Duration `yaml:"jwks_refresh"`
	// RolesClaim is the claim that holds the user's roles (a list, or a space-separated
	// string such as OAuth's scope); a dotted path reaches into objects
	// (realm_access.roles). Default "roles".
	RolesClaim string `yaml:"roles_claim"`
	// Algorithms narrows the signature algorithms accepted (default: all of RS256, RS384,
	// RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA). none and HMAC never are.
	Algorithms []string `yaml:"algorithms"`
	// Leeway is the clock skew allowed on exp, nbf and iat; default 60s, at most 5m.
	Leeway time.Duration `yaml:"leeway"`
	// AuthorizationServers are listed in the OAuth protected resource metadata; default
	// the issuer.
	AuthorizationServers []string `yaml:"authorization_servers"`
}

// ServerAuth says who may use one server.
type ServerAuth struct {
	// Public admits anyone, without credentials.
	Public bool `yaml:"public"`
	// Roles admits principals with at least one of these roles (none: any authenticated
	// principal).
	Roles []string `yaml:"roles"`
}

// JWTAlgorithms are the signature algorithms mcpbridge can verify.
var JWTAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// Defaults of the auth section.
const (
	DefaultJWKSRefresh = time.Hour
	DefaultJWTLeeway   = time.Minute
	MaxJWTLeeway       = 5 * time.Minute
	DefaultRolesClaim  = "roles"
)

// ResourceURL is the canonical URL of a server (public_url/mcp/NAME), or "" without
// public_url.
func (a *Auth) ResourceURL(server string) string {
	if a == nil || a.PublicURL == "" {
		return ""
	}
	return strings.TrimSuffix(a.PublicURL, "/") + "/mcp/" + server
}

func (a *Auth) validate(file string, servers map[string]*Server) Problems {
	var ps Problems
	add := func(path, format string, args ...any) {
		ps = append(ps, Problem{File: file, Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	if a.PublicURL != "" {
		u, err := url.Parse(a.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			add("auth.public_url", "expected the gateway's URL such as https://mcp.example.com, got %q", a.PublicURL)
		}
	}
	ids := map[string]bool{}
	for i, k := range a.Keys {
		p := fmt.Sprintf("auth.keys[%d]", i)
		if k.ID == "" {
			add(p+".id", "missing id: name the key (it appears in logs and audit, never the secret)")
		} else if ids[k.ID] {
			add(p+".id", "duplicate key id %q", k.ID)
		}
		ids[k.ID] = true
		h := strings.TrimPrefix(k.Hash, "sha256:")
		if b, err := hex.DecodeString(h); err != nil || len(b) != 32 {
			add(p+".hash", "expected sha256: and 64 hex digits (print it with `mcpbridge keys hash`, reading the key on stdin); never write the key itself")
		}
		if k.User.ID == "" {
			add(p+".user.id", "missing user id: the user the key authenticates as")
		}
		for j, s := range k.Servers {
			if _, ok := servers[s]; !ok {
				ps = append(ps, Problem{File: file, Path: fmt.Sprintf("%s.servers[%d]", p, j), Msg: fmt.Sprintf("no server named %q in this config (a stored server is fine)", s), Warning: true})
			}
		}
	}
	if j := a.JWT; j != nil {
		if j.Issuer == "" {
			add("auth.jwt.issuer", "missing issuer: the iss claim tokens must carry, e.g. https://idp.example.com/")
		}
		switch {
		case j.JWKSURL == "" && j.JWKSFile == "":
			add("auth.jwt", "give jwks_url (the issuer's key set, e.g. https://idp.example.com/.well-known/jwks.json) or jwks_file")
		case j.JWKSURL != "" && j.JWKSFile != "":
			add("auth.jwt", "give jwks_url or jwks_file, not both")
		case j.JWKSURL != "":
			if u, err := url.Parse(j.JWKSURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				add("auth.jwt.jwks_url", "expected an https URL, got %q", j.JWKSURL)
			}
		}
		if j.Audience == "" && a.PublicURL == "" {
			add("auth.jwt", "give audience, or auth.public_url so that each server's URL is its audience: a token must be refused when it was issued for another resource")
		}
		for i, alg := range j.Algorithms {
			if !slices.Contains(JWTAlgorithms, alg) {
				add(fmt.Sprintf("auth.jwt.algorithms[%d]", i), "algorithm %q is not accepted; use some of %s (none and HMAC are never accepted)", alg, strings.Join(JWTAlgorithms, ", "))
			}
		}
		if j.Leeway < 0 || j.Leeway > MaxJWTLeeway {
			add("auth.jwt.leeway", "must be between 0 and %s", MaxJWTLeeway)
		}
		if j.JWKSRefresh < 0 {
			add("auth.jwt.jwks_refresh", "must not be negative")
		}
	}
	return ps
}

// setDefaults fills the auth section's defaults.
func (a *Auth) setDefaults() {
	if a == nil || a.JWT == nil {
		return
	}
	j := a.JWT
	orDefault(&j.JWKSRefresh, DefaultJWKSRefresh)
	orDefault(&j.Leeway, DefaultJWTLeeway)
	if j.RolesClaim == "" {
		j.RolesClaim = DefaultRolesClaim
	}
	if len(j.Algorithms) == 0 {
		j.Algorithms = append([]string(nil), JWTAlgorithms...)
	}
	if len(j.AuthorizationServers) == 0 && j.Issuer != "" {
		j.AuthorizationServers = []string{j.Issuer}
	}
}

func validateServerAuth(a *ServerAuth, p string, add func(path, format string, args ...any)) {
	if a == nil {
		return
	}
	if a.Public && len(a.Roles) > 0 {
		add(p+".auth", "public: true admits everyone; remove it or the roles")
	}
	for i, r := range a.Roles {
		if strings.TrimSpace(r) == "" {
			add(fmt.Sprintf("%s.auth.roles[%d]", p, i), "empty role")
		}
	}
}
