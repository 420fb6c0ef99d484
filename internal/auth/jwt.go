package auth

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	_ "crypto/sha256" // SHA-256 for RS256, PS256, ES256
	_ "crypto/sha512" // SHA-384 and SHA-512
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"time"
)

// maxTokenBytes bounds a bearer JWT.
const maxTokenBytes = 16 << 10

// JWTVerifier verifies bearer JWTs (RFC 7519) signed by an issuer's keys: the signature
// with an allow-listed asymmetric algorithm (never none, never HMAC, so a public key can
// never be used as an HMAC secret), the issuer, the audience, and exp/nbf/iat with a
// bounded leeway. A verified token becomes a principal: sub is the user, name and email
// describe it, and RolesClaim holds the roles.
type JWTVerifier struct {
	Issuer string
	// Audiences returns the audiences a token on r may have (one of them must be in aud).
	Audiences func(r *http.Request) []string
	Keys      *JWKS
	// RolesClaim is the claim with the roles, a dotted path for nested objects; a string
	// value is split on spaces (OAuth's scope).
	RolesClaim string
	Algorithms []string // accepted algorithms; nil: all of SupportedAlgorithms
	Leeway     time.Duration
	Now        func() time.Time
}

// SupportedAlgorithms are the JWS algorithms JWTVerifier can check.
var SupportedAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// LooksLikeJWT reports whether tok has the shape of a compact JWS (three base64url parts,
// a JSON header).
func LooksLikeJWT(tok string) bool {
	return strings.Count(tok, ".") == 2 && strings.HasPrefix(tok, "eyJ")
}

// Authenticate implements [Authenticator]: a bearer token shaped like a JWT is verified
// (and refused when it fails); other tokens are not recognised.
func (v *JWTVerifier) Authenticate(r *http.Request) (Principal, bool, error) {
	tok, ok := BearerToken(r)
	if !ok || !LooksLikeJWT(tok) {
		return Anonymous, false, nil
	}
	var auds []string
	if v.Audiences != nil {
		auds = v.Audiences(r)
	}
	p, err := v.Verify(r.Context(), tok, auds)
	if err != nil {
		return Anonymous, false, err
	}
	return p, true, nil
}

// A TokenError says why a token was refused. Its text never contains the token.
type TokenError struct{ Reason string }

func (e *TokenError) Error() string { return "invalid token: " + e.Reason }

// Unwrap makes a TokenError an ErrInvalidCredentials.
func (e *TokenError) Unwrap() error { return ErrInvalidCredentials }

func invalid(format string, args ...any) error {
	return &TokenError{Reason: fmt.Sprintf(format, args...)}
}

type jwtHeader struct {
	Alg  string          `json:"alg"`
	Kid  string          `json:"kid"`
	Typ  string          `json:"typ"`
	Crit json.RawMessage `json:"crit"`
}

// Verify checks a compact JWT and returns its principal. audiences are the accepted aud
// values; a token must name one of them.
func (v *JWTVerifier) Verify(ctx context.Context, token string, audiences []string) (Principal, error) {
	if len(token) > maxTokenBytes {
		return Anonymous, invalid("longer than %d bytes", maxTokenBytes)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return Anonymous, invalid("not a compact JWS (three dot-separated parts)")
	}
	var h jwtHeader
	if err := decodePart(parts[0], &h); err != nil {
		return Anonymous, invalid("header: %v", err)
	}
	algs := v.Algorithms
	if algs == nil {
		algs = SupportedAlgorithms
	}
	if !slices.Contains(SupportedAlgorithms, h.Alg) || !slices.Contains(algs, h.Alg) {
		return Anonymous, invalid("algorithm %q is not accepted (accepted: %s)", h.Alg, strings.Join(algs, ", "))
	}
	if len(h.Crit) > 0 {
		return Anonymous, invalid("critical header extensions are not supported")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return Anonymous, invalid("signature is not base64url")
	}
	if v.Keys == nil {
		return Anonymous, fmt.Errorf("%w: no key set configured", ErrUnavailable)
	}
	keys, err := v.Keys.Keys(ctx, h.Kid)
	if err != nil {
		return Anonymous, err
	}
	if len(keys) == 0 {
		return Anonymous, invalid("no key with id %q in the issuer's key set", h.Kid)
	}
	signed := []byte(parts[0] + "." + parts[1])
	verified := false
	for _, k := range keys {
		if k.Alg != "" && k.Alg != h.Alg {
			continue
		}
		if verifySignature(h.Alg, k.Key, signed, sig) {
			verified = true
			break
		}
	}
	if !verified {
		return Anonymous, invalid("signature does not verify with the issuer's %s key %q", h.Alg, h.Kid)
	}
	var claims map[string]any
	dec := json.NewDecoder(bytes.NewReader(mustDecode(parts[1])))
	dec.UseNumber()
	if err := dec.Decode(&claims); err != nil || claims == nil {
		return Anonymous, invalid("claims are not a JSON object")
	}
	if err := v.checkClaims(claims, audiences); err != nil {
		return Anonymous, err
	}
	p := Principal{User: str(claims["sub"]), Name: str(claims["name"]), Email: str(claims["email"]), Via: "jwt", Issuer: v.Issuer, Claims: claims}
	if p.Name == "" {
		p.Name = str(claims["preferred_username"])
	}
	rc := v.RolesClaim
	if rc == "" {
		rc = "roles"
	}
	p.Roles = rolesFrom(claims, rc)
	return p, nil
}

func mustDecode(s string) []byte {
	b, _ := base64.RawURLEncoding.DecodeString(s)
	return b
}

func decodePart(s string, out any) error {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return errors.New("not base64url")
	}
	if err := json.Unmarshal(b, out); err != nil {
		return errors.New("not a JSON object")
	}
	return nil
}

func (v *JWTVerifier) checkClaims(c map[string]any, audiences []string) error {
	now := time.Now()
	if v.Now != nil {
		now = v.Now()
	}
	if iss := str(c["iss"]); iss != v.Issuer {
		return invalid("issuer %q is not the configured issuer %q", iss, v.Issuer)
	}
	if !audienceMatches(c["aud"], audiences) {
		return invalid("issued for another audience (want one of %s)", strings.Join(audiences, ", "))
	}
	if str(c["sub"]) == "" {
		return invalid("no sub claim (the user)")
	}
	exp, ok := numericDate(c["exp"])
	if !ok {
		return invalid("no exp claim: tokens must expire")
	}
	if !now.Before(exp.Add(v.Leeway)) {
		return invalid("expired at %s", exp.UTC().Format(time.RFC3339))
	}
	if _, present := c["nbf"]; present {
		nbf, ok := numericDate(c["nbf"])
		if !ok {
			return invalid("nbf is not a number")
		}
		if now.Add(v.Leeway).Before(nbf) {
			return invalid("not valid before %s", nbf.UTC().Format(time.RFC3339))
		}
	}
	if _, present := c["iat"]; present {
		iat, ok := numericDate(c["iat"])
		if !ok {
			return invalid("iat is not a number")
		}
		if now.Add(v.Leeway).Before(iat) {
			return invalid("issued in the future (%s)", iat.UTC().Format(time.RFC3339))
		}
	}
	return nil
}

func numericDate(v any) (time.Time, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return time.Time{}, false
	}
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1e11 {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), true
}

func audienceMatches(aud any, want []string) bool {
	var have []string
	switch a := aud.(type) {
	case string:
		have = []string{a}
	case []any:
		for _, x := range a {
			if s, ok := x.(string); ok {
				have = append(have, s)
			}
		}
	}
	for _, h := range have {
		for _, w := range want {
			if w != "" && strings.TrimSuffix(h, "/") == strings.TrimSuffix(w, "/") {
				return true
			}
		}
	}
	return false
}

// rolesFrom reads the roles at a dotted claim path: a list of strings, or a string split
// on spaces.
func rolesFrom(c map[string]any, path string) []string {
	var v any = c
	for _, seg := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[seg]
	}
	var roles []string
	switch x := v.(type) {
	case string:
		roles = strings.Fields(x)
	case []any:
		for _, r := range x {
			if s, ok := r.(string); ok && s != "" {
				roles = append(roles, s)
			}
		}
	}
	return roles
}

// verifySignature checks sig over signed with key under alg; the key's type must be the
// algorithm's (an RSA key never verifies an ES256 signature, and so on).
func verifySignature(alg string, key crypto.PublicKey, signed, sig []byte) bool {
	var hash crypto.Hash
	switch alg[len(alg)-3:] {
	case "256":
		hash = crypto.SHA256
	case "384":
		hash = crypto.SHA384
	case "512":
		hash = crypto.SHA512
	}
	if alg == "EdDSA" {
		k, ok := key.(ed25519.PublicKey)
		return ok && len(sig) == ed25519.SignatureSize && ed25519.Verify(k, signed, sig)
	}
	h := hash.New()
	h.Write(signed)
	digest := h.Sum(nil)
	switch alg[:2] {
	case "RS":
		k, ok := key.(*rsa.PublicKey)
		return ok && rsa.VerifyPKCS1v15(k, hash, digest, sig) == nil
	case "PS":
		k, ok := key.(*rsa.PublicKey)
		return ok && rsa.VerifyPSS(k, hash, digest, sig, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash, Hash: hash}) == nil
	case "ES":
		k, ok := key.(*ecdsa.PublicKey)
		if !ok {
			return false
		}
		want := map[string]int{"ES256": 256, "ES384": 384, "ES512": 521}[alg]
		if k.Curve.Params().BitSize != want {
			return false
		}
		size := (want + 7) / 8
		if len(sig) != 2*size {
			return false
		}
		r := new(big.Int).SetBytes(sig[:size])
		s := new(big.Int).SetBytes(sig[size:])
		return ecdsa.Verify(k, digest, r, s)
	}
	return false
}
