package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"os"
	"sync"
	"time"
)

// A JWK is one public key of a key set, ready for verification.
type JWK struct {
	KeyID string
	Alg   string // the key's alg member; "" when the set does not say
	Key   crypto.PublicKey
}

// minRSABits is the smallest RSA modulus accepted.
const minRSABits = 2048

// maxJWKSBytes bounds a key set document.
const maxJWKSBytes = 1 << 20

// ParseJWKS parses a JSON Web Key Set (RFC 7517). Keys that cannot verify signatures here
// (encryption keys, symmetric keys, unknown types or curves, RSA below 2048 bits) are
// skipped, and their reasons returned; an invalid document is an error.
func ParseJWKS(data []byte) (keys []JWK, skipped []string, err error) {
	var doc struct {
		Keys []map[string]any `json:"keys"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, nil, fmt.Errorf("the key set is not a JWKS JSON document: %w", err)
	}
	if doc.Keys == nil {
		return nil, nil, errors.New(`the key set has no "keys" member`)
	}
	for i, m := range doc.Keys {
		k, err := parseJWK(m)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("key %d (kid %q): %v", i, str(m["kid"]), err))
			continue
		}
		keys = append(keys, k)
	}
	return keys, skipped, nil
}

func str(v any) string { s, _ := v.(string); return s }

func b64(m map[string]any, name string) ([]byte, error) {
	s := str(m[name])
	if s == "" {
		return nil, fmt.Errorf("missing %s", name)
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%s is not base64url: %w", name, err)
	}
	return b, nil
}

func parseJWK(m map[string]any) (JWK, error) {
	k := JWK{KeyID: str(m["kid"]), Alg: str(m["alg"])}
	if use := str(m["use"]); use != "" && use != "sig" {
		return k, fmt.Errorf("use %q is not sig", use)
	}
	switch kty := str(m["kty"]); kty {
	case "RSA":
		n, err := b64(m, "n")
		if err != nil {
			return k, err
		}
		e, err := b64(m, "e")
		if err != nil {
			return k, err
		}
		if len(e) > 4 {
			return k, errors.New("RSA exponent too large")
		}
		pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		if pub.N.BitLen() < minRSABits {
			return k, fmt.Errorf("RSA key of %d bits; at least %d are required", pub.N.BitLen(), minRSABits)
		}
		if pub.E < 3 || pub.E%2 == 0 {
			return k, errors.New("invalid RSA exponent")
		}
		k.Key = pub
	case "EC":
		var curve elliptic.Curve
		switch crv := str(m["crv"]); crv {
		case "P-256":
			curve = elliptic.P256()
		case "P-384":
			curve = elliptic.P384()
		case "P-521":
			curve = elliptic.P521()
		default:
			return k, fmt.Errorf("unsupported curve %q", crv)
		}
		x, err := b64(m, "x")
		if err != nil {
			return k, err
		}
		y, err := b64(m, "y")
		if err != nil {
			return k, err
		}
		size := (curve.Params().BitSize + 7) / 8
		if len(x) != size || len(y) != size {
			return k, errors.New("EC coordinates of the wrong length")
		}
		pub, err := ecdsa.ParseUncompressedPublicKey(curve, append(append([]byte{4}, x...), y...))
		if err != nil {
			return k, fmt.Errorf("invalid EC key: %w", err)
		}
		k.Key = pub
	case "OKP":
		if crv := str(m["crv"]); crv != "Ed25519" {
			return k, fmt.Errorf("unsupported OKP curve %q", crv)
		}
		x, err := b64(m, "x")
		if err != nil {
			return k, err
		}
		if len(x) != ed25519.PublicKeySize {
			return k, errors.New("Ed25519 key of the wrong length")
		}
		k.Key = ed25519.PublicKey(x)
	case "oct":
		return k, errors.New("symmetric (oct) keys are never accepted")
	default:
		return k, fmt.Errorf("unsupported key type %q", kty)
	}
	return k, nil
}

// JWKS is an issuer's key set, read from a URL or a file, cached and refreshed: every
// Refresh, and at once (at most every MinRefetch) when a token names a key id the set
// does not have, which is how issuers roll keys.
type JWKS struct {
	URL        string        // fetched with Client
	File       string        // or read from this file
	Client     *http.Client  // nil: a client with a 10s timeout
	Refresh    time.Duration // default 1h
	MinRefetch time.Duration // default 30s
	Logger     *slog.Logger  // nil: discard
	Now        func() time.Time

	mu          sync.Mutex
	keys        []JWK
	fetched     time.Time // when keys were loaded
	lastAttempt time.Time // when a load was last tried
}

func (s *JWKS) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *JWKS) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// Keys returns the candidate keys for a token's kid: the key with that id, or every key
// when kid is "". It loads the set when it is missing or stale, and loads it again (rate
// limited) when kid is not in it. An error wraps ErrUnavailable when no key set could be
// loaded at all.
func (s *JWKS) Keys(ctx context.Context, kid string) ([]JWK, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	refresh := s.Refresh
	if refresh <= 0 {
		refresh = time.Hour
	}
	minRefetch := s.MinRefetch
	if minRefetch <= 0 {
		minRefetch = 30 * time.Second
	}
	now := s.now()
	if s.keys == nil || now.Sub(s.fetched) >= refresh {
		if s.keys == nil || now.Sub(s.lastAttempt) >= minRefetch {
			s.loadLocked(ctx)
		}
	}
	if s.keys == nil {
		return nil, fmt.Errorf("%w: the issuer's key set could not be loaded (the log says why)", ErrUnavailable)
	}
	if found := s.match(kid); len(found) > 0 || kid == "" {
		return found, nil
	}
	if s.now().Sub(s.lastAttempt) >= minRefetch {
		s.loadLocked(ctx)
	}
	return s.match(kid), nil
}

func (s *JWKS) match(kid string) []JWK {
	if kid == "" {
		return s.keys
	}
	for _, k := range s.keys {
		if k.KeyID == kid {
			return []JWK{k}
		}
	}
	return nil
}

// loadLocked loads the key set; on failure the previous set stays in use.
func (s *JWKS) loadLocked(ctx context.Context) {
	s.lastAttempt = s.now()
	data, err := s.read(ctx)
	if err == nil {
		var keys []JWK
		var skipped []string
		keys, skipped, err = ParseJWKS(data)
		for _, why := range skipped {
			s.log().Warn("JWKS: key skipped", "source", s.source(), "reason", why)
		}
		if err == nil {
			if keys == nil {
				keys = []JWK{}
			}
			s.keys, s.fetched = keys, s.now()
			s.log().Debug("JWKS loaded", "source", s.source(), "keys", len(keys))
			return
		}
	}
	s.log().Warn("JWKS: loading the issuer's key set failed; keeping the previous one", "source", s.source(), "error", err, "have_keys", s.keys != nil)
}

func (s *JWKS) source() string {
	if s.URL != "" {
		return s.URL
	}
	return s.File
}

func (s *JWKS) read(ctx context.Context) ([]byte, error) {
	if s.URL == "" {
		data, err := os.ReadFile(s.File)
		if err != nil {
			return nil, fmt.Errorf("reading jwks_file: %w", err)
		}
		return data, nil
	}
	c := s.Client
	if c == nil {
		c = &http.Client{Timeout: 10 * time.Second}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, application/jwk-set+json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching jwks_url: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching jwks_url: HTTP %d", resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetching jwks_url: %w", err)
	}
	if len(data) > maxJWKSBytes {
		return nil, fmt.Errorf("fetching jwks_url: the key set is larger than %d bytes", maxJWKSBytes)
	}
	return data, nil
}
