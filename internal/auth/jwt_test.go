package auth_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/auth/authtest"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

const (
	issuer   = "https://idp.example.test/"
	audience = "https://mcp.example.test/mcp/crm"
)

func claims(extra map[string]any) map[string]any {
	now := time.Now()
	c := map[string]any{
		"iss": issuer, "aud": audience, "sub": "user-42", "name": "Ada", "email": "ada@example.test",
		"exp": now.Add(5 * time.Minute).Unix(), "iat": now.Unix(), "roles": []string{"sales", "ops"},
	}
	for k, v := range extra {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

func verifier(is *authtest.Issuer) *auth.JWTVerifier {
	return &auth.JWTVerifier{Issuer: issuer, Keys: &auth.JWKS{URL: is.JWKSURL()}, Leeway: 30 * time.Second}
}

func TestSupportedAlgorithmsMatchConfig(t *testing.T) {
	if !slices.Equal(auth.SupportedAlgorithms, config.JWTAlgorithms) {
		t.Errorf("auth.SupportedAlgorithms %v != config.JWTAlgorithms %v", auth.SupportedAlgorithms, config.JWTAlgorithms)
	}
}

// Every supported algorithm verifies a token its key signed, and the token becomes a
// principal.
func TestJWTAlgorithms(t *testing.T) {
	var keys []*authtest.Key
	for _, alg := range auth.SupportedAlgorithms {
		keys = append(keys, authtest.NewKey(t, alg, "k-"+alg))
	}
	is := authtest.NewIssuer(t, keys...)
	v := verifier(is)
	for _, k := range keys {
		t.Run(k.Alg, func(t *testing.T) {
			p, err := v.Verify(t.Context(), k.Sign(t, claims(nil)), []string{audience})
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if p.User != "user-42" || p.Name != "Ada" || p.Email != "ada@example.test" || !slices.Equal(p.Roles, []string{"sales", "ops"}) || p.Via != "jwt" {
				t.Errorf("principal = %+v", p)
			}
		})
	}
	if n := is.Fetches.Load(); n != 1 {
		t.Errorf("JWKS fetched %d times, want once (cached)", n)
	}
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func TestJWTRefused(t *testing.T) {
	rsaKey := authtest.NewKey(t, "RS256", "rsa")
	ecKey := authtest.NewKey(t, "ES256", "ec")
	is := authtest.NewIssuer(t, rsaKey, ecKey)
	v := verifier(is)
	now := time.Now()

	// Algorithm confusion: an HS256 token whose HMAC secret is the RSA public key's JWK.
	pubJSON, _ := json.Marshal(rsaKey.JWK())
	hdr := b64([]byte(`{"alg":"HS256","typ":"JWT","kid":"rsa"}`))
	body, _ := json.Marshal(claims(nil))
	signing := hdr + "." + b64(body)
	mac := hmac.New(sha256.New, pubJSON)
	mac.Write([]byte(signing))
	hs256 := signing + "." + b64(mac.Sum(nil))
	none := b64([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + b64(body) + "."

	good := rsaKey.Sign(t, claims(nil))
	parts := strings.Split(good, ".")
	tampered, _ := json.Marshal(claims(map[string]any{"roles": []string{"admin"}}))

	other := authtest.NewKey(t, "RS256", "rsa") // same kid, key not in the set
	for name, c := range map[string]struct {
		tok, want string
	}{
		"alg none":                  {none, "algorithm"},
		"HS256 with the public key": {hs256, "algorithm"},
		"RS256 header, EC key id":   {rsaKey.Sign(t, claims(nil), map[string]any{"kid": "ec"}), "signature"},
		"ES256 header, RSA key id":  {ecKey.Sign(t, claims(nil), map[string]any{"kid": "rsa"}), "signature"},
		"foreign key, known kid":    {other.Sign(t, claims(nil)), "signature"},
		"tampered claims":           {parts[0] + "." + b64(tampered) + "." + parts[2], "signature"},
		"wrong audience":            {rsaKey.Sign(t, claims(map[string]any{"aud": "https://mcp.example.test/mcp/billing"})), "audience"},
		"audience list without us":  {rsaKey.Sign(t, claims(map[string]any{"aud": []string{"a", "b"}})), "audience"},
		"no audience":               {rsaKey.Sign(t, claims(map[string]any{"aud": nil})), "audience"},
		"wrong issuer":              {rsaKey.Sign(t, claims(map[string]any{"iss": "https://evil.test/"})), "issuer"},
		"expired":                   {rsaKey.Sign(t, claims(map[string]any{"exp": now.Add(-time.Minute).Unix()})), "expired"},
		"no exp":                    {rsaKey.Sign(t, claims(map[string]any{"exp": nil})), "exp"},
		"exp not a number":          {rsaKey.Sign(t, claims(map[string]any{"exp": "tomorrow"})), "exp"},
		"not yet valid":             {rsaKey.Sign(t, claims(map[string]any{"nbf": now.Add(2 * time.Minute).Unix()})), "not valid before"},
		"issued in the future":      {rsaKey.Sign(t, claims(map[string]any{"iat": now.Add(2 * time.Minute).Unix()})), "future"},
		"no sub":                    {rsaKey.Sign(t, claims(map[string]any{"sub": nil})), "sub"},
		"unknown kid":               {authtest.NewKey(t, "ES256", "nope").Sign(t, claims(nil)), "no key"},
		"crit header":               {rsaKey.Sign(t, claims(nil), map[string]any{"crit": []string{"b64"}}), "critical"},
		"two parts":                 {parts[0] + "." + parts[1], "compact"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := v.Verify(t.Context(), c.tok, []string{audience})
			if !errors.Is(err, auth.ErrInvalidCredentials) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Verify = %v; want an invalid-credentials error about %q", err, c.want)
			}
			if strings.Contains(err.Error(), c.tok) || (len(c.tok) > 40 && strings.Contains(err.Error(), c.tok[len(c.tok)-40:])) {
				t.Errorf("the error contains the token: %v", err)
			}
		})
	}

	// Within the leeway an expired token still passes; the allow-list narrows algorithms.
	if _, err := v.Verify(t.Context(), rsaKey.Sign(t, claims(map[string]any{"exp": now.Add(-10 * time.Second).Unix()})), []string{audience}); err != nil {
		t.Errorf("expired 10s ago with 30s leeway: %v", err)
	}
	narrow := verifier(is)
	narrow.Algorithms = []string{"ES256"}
	if _, err := narrow.Verify(t.Context(), good, []string{audience}); err == nil || !strings.Contains(err.Error(), "algorithm") {
		t.Errorf("RS256 with algorithms [ES256]: %v", err)
	}
}

// A token signed by a key the cached set lacks loads the set again (a key roll), at most
// once per MinRefetch.
func TestJWKSRefetchOnUnknownKid(t *testing.T) {
	old := authtest.NewKey(t, "ES256", "2026-01")
	next := authtest.NewKey(t, "ES256", "2026-02")
	is := authtest.NewIssuer(t, old)
	clock := time.Now()
	v := verifier(is)
	v.Keys.MinRefetch = time.Minute
	v.Keys.Now = func() time.Time { return clock }
	if _, err := v.Verify(t.Context(), old.Sign(t, claims(nil)), []string{audience}); err != nil {
		t.Fatal(err)
	}
	is.SetKeys(old, next)
	// Within MinRefetch of the first load, the unknown kid is refused without a fetch.
	if _, err := v.Verify(t.Context(), next.Sign(t, claims(nil)), []string{audience}); err == nil {
		t.Fatal("unknown kid accepted before a refetch")
	}
	if n := is.Fetches.Load(); n != 1 {
		t.Fatalf("fetches = %d, want 1 (rate limited)", n)
	}
	clock = clock.Add(2 * time.Minute)
	if _, err := v.Verify(t.Context(), next.Sign(t, claims(nil)), []string{audience}); err != nil {
		t.Fatalf("new kid after the rate limit: %v", err)
	}
	for range 5 {
		if _, err := v.Verify(t.Context(), authtest.NewKey(t, "ES256", "bogus").Sign(t, claims(nil)), []string{audience}); err == nil {
			t.Fatal("bogus kid accepted")
		}
	}
	if n := is.Fetches.Load(); n != 2 {
		t.Errorf("fetches = %d, want 2 (bogus kids do not hammer the issuer)", n)
	}
	// Refresh: the set is loaded again once it is older than Refresh.
	v.Keys.Refresh = time.Hour
	clock = clock.Add(61 * time.Minute)
	if _, err := v.Verify(t.Context(), old.Sign(t, claims(nil)), []string{audience}); err != nil {
		t.Fatal(err)
	}
	if n := is.Fetches.Load(); n != 3 {
		t.Errorf("fetches = %d, want 3 (refreshed after an hour)", n)
	}
	// An issuer that goes down leaves the cached set in use.
	is.Close()
	clock = clock.Add(2 * time.Hour)
	if _, err := v.Verify(t.Context(), old.Sign(t, claims(nil)), []string{audience}); err != nil {
		t.Errorf("cached key after the issuer went down: %v", err)
	}
}

func TestJWKSUnavailableAndFile(t *testing.T) {
	k := authtest.NewKey(t, "EdDSA", "ed")
	v := &auth.JWTVerifier{Issuer: issuer, Keys: &auth.JWKS{URL: "http://127.0.0.1:1/jwks.json"}}
	_, err := v.Verify(t.Context(), k.Sign(t, claims(nil)), []string{audience})
	if !errors.Is(err, auth.ErrUnavailable) || errors.Is(err, auth.ErrInvalidCredentials) {
		t.Errorf("unreachable JWKS: %v; want ErrUnavailable", err)
	}
	path := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(path, authtest.JWKS(k), 0o600); err != nil {
		t.Fatal(err)
	}
	v.Keys = &auth.JWKS{File: path}
	if _, err := v.Verify(t.Context(), k.Sign(t, claims(nil)), []string{audience}); err != nil {
		t.Errorf("jwks_file: %v", err)
	}
}

func TestParseJWKSSkipsUnusableKeys(t *testing.T) {
	good := authtest.NewKey(t, "ES384", "good")
	doc := map[string]any{"keys": []any{
		good.JWK(),
		map[string]any{"kty": "oct", "kid": "hmac", "k": "c2VjcmV0"},
		map[string]any{"kty": "RSA", "kid": "small", "n": b64(make([]byte, 128)), "e": "AQAB"},
		map[string]any{"kty": "EC", "kid": "offcurve", "crv": "P-256", "x": b64(make([]byte, 32)), "y": b64(make([]byte, 32))},
		map[string]any{"kty": "RSA", "kid": "enc", "use": "enc"},
	}}
	data, _ := json.Marshal(doc)
	keys, skipped, err := auth.ParseJWKS(data)
	if err != nil || len(keys) != 1 || keys[0].KeyID != "good" || len(skipped) != 4 {
		t.Fatalf("ParseJWKS = %d keys %v, skipped %q, %v", len(keys), keys, skipped, err)
	}
	if _, _, err := auth.ParseJWKS([]byte(`{"nokeys":1}`)); err == nil {
		t.Error("a document without keys parsed")
	}
}

func TestJWTRolesClaim(t *testing.T) {
	k := authtest.NewKey(t, "ES256", "k")
	is := authtest.NewIssuer(t, k)
	v := verifier(is)
	v.RolesClaim = "realm_access.roles"
	p, err := v.Verify(t.Context(), k.Sign(t, claims(map[string]any{"realm_access": map[string]any{"roles": []string{"a", "b"}}})), []string{audience})
	if err != nil || !slices.Equal(p.Roles, []string{"a", "b"}) {
		t.Errorf("dotted roles claim: %+v %v", p, err)
	}
	v.RolesClaim = "scope"
	p, err = v.Verify(t.Context(), k.Sign(t, claims(map[string]any{"scope": "crm:read  crm:write"})), []string{audience})
	if err != nil || !slices.Equal(p.Roles, []string{"crm:read", "crm:write"}) {
		t.Errorf("scope as roles: %+v %v", p, err)
	}
}

// Authenticate recognises only JWT-shaped bearer tokens and takes the audiences from the
// request.
func TestJWTAuthenticate(t *testing.T) {
	k := authtest.NewKey(t, "PS256", "k")
	is := authtest.NewIssuer(t, k)
	v := verifier(is)
	v.Audiences = func(r *http.Request) []string { return []string{"https://mcp.example.test" + r.URL.Path} }
	tok := k.Sign(t, claims(nil))
	req := httptest.NewRequest("POST", "/mcp/crm", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	if p, ok, err := v.Authenticate(req); !ok || err != nil || p.User != "user-42" {
		t.Errorf("on its audience: %+v %v %v", p, ok, err)
	}
	req = httptest.NewRequest("POST", "/mcp/billing", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	if _, ok, err := v.Authenticate(req); ok || !errors.Is(err, auth.ErrInvalidCredentials) {
		t.Errorf("on another server: %v %v", ok, err)
	}
	req.Header.Set("Authorization", "Bearer mcpb_notajwt")
	if _, ok, err := v.Authenticate(req); ok || err != nil {
		t.Errorf("a non-JWT token: %v %v", ok, err)
	}
}
