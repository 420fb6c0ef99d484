// Package authtest makes real signing keys, their JWKS, and signed JWTs for tests of
// JWT authentication (in internal/auth and in the gateway).
package authtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// A Key is a private signing key with its JWS algorithm and key id.
type Key struct {
	Alg    string
	KID    string
	Signer crypto.Signer
}

// NewKey makes a fresh key for alg (RS*, PS*: RSA 2048; ES256/384/512: P-256/384/521;
// EdDSA: Ed25519).
func NewKey(t testing.TB, alg, kid string) *Key {
	t.Helper()
	var s crypto.Signer
	var err error
	switch alg {
	case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512":
		s, err = rsa.GenerateKey(rand.Reader, 2048)
	case "ES256":
		s, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "ES384":
		s, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case "ES512":
		s, err = ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	case "EdDSA":
		_, s, err = ed25519.GenerateKey(rand.Reader)
	default:
		t.Fatalf("authtest: unknown algorithm %q", alg)
	}
	if err != nil {
		t.Fatal(err)
	}
	return &Key{Alg: alg, KID: kid, Signer: s}
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// JWK returns the public JWK of k.
func (k *Key) JWK() map[string]any {
	m := map[string]any{"kid": k.KID, "use": "sig", "alg": k.Alg}
	switch pub := k.Signer.Public().(type) {
	case *rsa.PublicKey:
		m["kty"], m["n"], m["e"] = "RSA", b64(pub.N.Bytes()), b64(big.NewInt(int64(pub.E)).Bytes())
	case *ecdsa.PublicKey:
		size := (pub.Curve.Params().BitSize + 7) / 8
		raw, _ := pub.Bytes()
		m["kty"], m["crv"] = "EC", pub.Curve.Params().Name
		m["x"], m["y"] = b64(raw[1:1+size]), b64(raw[1+size:])
	case ed25519.PublicKey:
		m["kty"], m["crv"], m["x"] = "OKP", "Ed25519", b64(pub)
	}
	return m
}

// JWKS returns a key set document of keys.
func JWKS(keys ...*Key) []byte {
	var list []map[string]any
	for _, k := range keys {
		list = append(list, k.JWK())
	}
	b, _ := json.Marshal(map[string]any{"keys": list})
	return b
}

// Sign returns a compact JWT of claims signed by k, with extra header fields.
func (k *Key) Sign(t testing.TB, claims map[string]any, header ...map[string]any) string {
	t.Helper()
	h := map[string]any{"alg": k.Alg, "typ": "JWT", "kid": k.KID}
	for _, x := range header {
		for n, v := range x {
			if v == nil {
				delete(h, n)
			} else {
				h[n] = v
			}
		}
	}
	hb, _ := json.Marshal(h)
	cb, _ := json.Marshal(claims)
	signing := b64(hb) + "." + b64(cb)
	return signing + "." + b64(k.signature(t, []byte(signing)))
}

func (k *Key) signature(t testing.TB, data []byte) []byte {
	if k.Alg == "EdDSA" {
		return ed25519.Sign(k.Signer.(ed25519.PrivateKey), data)
	}
	var hf crypto.Hash
	var h hash.Hash
	switch k.Alg[2:] {
	case "256":
		hf, h = crypto.SHA256, sha256.New()
	case "384":
		hf, h = crypto.SHA384, sha512.New384()
	case "512":
		hf, h = crypto.SHA512, sha512.New()
	}
	h.Write(data)
	d := h.Sum(nil)
	switch k.Alg[:2] {
	case "RS":
		sig, err := rsa.SignPKCS1v15(rand.Reader, k.Signer.(*rsa.PrivateKey), hf, d)
		if err != nil {
			t.Fatal(err)
		}
		return sig
	case "PS":
		sig, err := rsa.SignPSS(rand.Reader, k.Signer.(*rsa.PrivateKey), hf, d, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash})
		if err != nil {
			t.Fatal(err)
		}
		return sig
	}
	priv := k.Signer.(*ecdsa.PrivateKey)
	r, s, err := ecdsa.Sign(rand.Reader, priv, d)
	if err != nil {
		t.Fatal(err)
	}
	size := (priv.Curve.Params().BitSize + 7) / 8
	out := make([]byte, 2*size)
	r.FillBytes(out[:size])
	s.FillBytes(out[size:])
	return out
}

// Issuer serves a JWKS over HTTP on loopback and counts its fetches; its keys can be
// replaced (a key roll).
type Issuer struct {
	*httptest.Server
	mu      sync.Mutex
	keys    []*Key
	Fetches atomic.Int64
}

// NewIssuer starts an issuer serving keys at /jwks.json, closed with the test.
func NewIssuer(t testing.TB, keys ...*Key) *Issuer {
	is := &Issuer{keys: keys}
	is.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/jwks.json" {
			http.NotFound(w, r)
			return
		}
		is.Fetches.Add(1)
		is.mu.Lock()
		body := JWKS(is.keys...)
		is.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(is.Close)
	return is
}

// JWKSURL is the URL of the issuer's key set.
func (is *Issuer) JWKSURL() string { return is.URL + "/jwks.json" }

// SetKeys replaces the keys served.
func (is *Issuer) SetKeys(keys ...*Key) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.keys = keys
}

// String describes the issuer.
func (is *Issuer) String() string { return fmt.Sprintf("issuer at %s", is.URL) }
