package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// Secrets of the redirect tests; each is sent once in its own place.
const (
	rdQueryKey  = "rd-query-key-7a1c9e5b3d"  // query parameter, from a secret: constant
	rdHeaderKey = "rd-header-key-2f8e6c4a0b" // server header, from a secret: reference
	rdCookieKey = "rd-cookie-key-9d3b7f1e5c" // cookie, from a secret: constant
	rdBodyKey   = "rd-body-key-4e0a8c2f6d"   // JSON body field, from a secret: constant
	rdAuth      = "Bearer rd-plain-auth-token"
)

func redirectSecretsServer(base string) string {
	return fmt.Sprintf(`kind: http
description: redirects
base_url: %s
allow_private: true
headers: {X-Api-Key: secret:RD_HEADER_KEY, Authorization: %q}
tools:
  hop:
    description: the API answers 302 to the address in to
    inputSchema: {type: object, properties: {to: {type: string}}, required: [to]}
    method: GET
    path: /redirect
    mappings:
      - {field: to, in: query, direct: to}
      - {field: api_key, in: query, constant: "secret:RD_QUERY_KEY"}
      - {field: sid, in: cookie, constant: "secret:RD_COOKIE_KEY"}
  bounce:
    description: the API answers 302 to the address in to, keeping the whole query
    inputSchema: {type: object, properties: {to: {type: string}}, required: [to]}
    method: GET
    path: /bounce
    mappings:
      - {field: to, in: query, direct: to}
      - {field: api_key, in: query, constant: "secret:RD_QUERY_KEY"}
  post:
    description: the API answers 307 to the address in to (the body is sent again)
    inputSchema: {type: object, properties: {to: {type: string}}, required: [to]}
    method: POST
    path: /redirect307
    body: json
    mappings:
      - {field: to, in: query, direct: to}
      - {field: token, in: body, constant: "secret:RD_BODY_KEY"}
`, base, rdAuth)
}

func setRedirectSecrets(t *testing.T) {
	t.Setenv("MCPBRIDGE_SECRET_RD_QUERY_KEY", rdQueryKey)
	t.Setenv("MCPBRIDGE_SECRET_RD_HEADER_KEY", rdHeaderKey)
	t.Setenv("MCPBRIDGE_SECRET_RD_COOKIE_KEY", rdCookieKey)
	t.Setenv("MCPBRIDGE_SECRET_RD_BODY_KEY", rdBodyKey)
}

// redirectUpstream is a recording upstream with redirecting endpoints: /redirect (302 to
// ?to), /bounce (302 to ?to keeping the rest of the query), /redirect307 (307 to ?to) and
// /echo.
func redirectUpstream(t *testing.T) *upstream {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/bounce", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		to := q.Get("to")
		q.Del("to")
		http.Redirect(w, r, to+"?"+q.Encode(), http.StatusFound)
	})
	mux.HandleFunc("/redirect307", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "ok")
	})
	u := &upstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.reqs = append(u.reqs, seen{Method: r.Method, RawPath: r.URL.EscapedPath(), Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: string(body)})
		u.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

// assertNoRedirectSecret fails if a request holds any secret of these tests anywhere.
func assertNoRedirectSecret(t *testing.T, where string, got seen) {
	t.Helper()
	all := fmt.Sprintf("%s %s?%s %v %s", got.Method, got.RawPath, got.Query, got.Header, got.Body)
	for _, s := range []string{rdQueryKey, rdHeaderKey, rdCookieKey, rdBodyKey, rdAuth, "rd-plain-auth-token"} {
		if strings.Contains(all, s) {
			t.Errorf("%s received secret %q: %s", where, s, all)
		}
	}
	for _, h := range []string{"Referer", "Authorization", "Cookie", "X-Api-Key"} {
		if v := got.Header.Get(h); v != "" {
			t.Errorf("%s received %s: %q", where, h, v)
		}
	}
}

// TestRedirectToOtherHostCarriesNoSecret is the attack of issue 12 point 4: a redirect to
// another allowed host (another port of 127.0.0.1, which net/http treats as the same host
// for Authorization and Cookie) received the secrets of the first request.
func TestRedirectToOtherHostCarriesNoSecret(t *testing.T) {
	setRedirectSecrets(t)
	a, other := redirectUpstream(t), redirectUpstream(t)
	b := mustOpen(t, redirectSecretsServer(a.URL))

	// A 302 to the other host: the Referer held ?api_key=<secret>; cookies and
	// Authorization followed.
	res := callTool(t, b, "hop", map[string]any{"to": other.URL + "/echo"})
	if res.IsError {
		t.Fatalf("hop: %s", resultText(res))
	}
	if got := a.last(t); got.Header.Get("X-Api-Key") != rdHeaderKey || !strings.Contains(got.Query, rdQueryKey) ||
		!strings.Contains(got.Header.Get("Cookie"), rdCookieKey) || got.Header.Get("Authorization") != rdAuth {
		t.Fatalf("the first request lacks its secrets: %+v", got)
	}
	assertNoRedirectSecret(t, "other host after 302", other.last(t))

	// A 302 whose Location copies the secret query parameter to the other host is refused.
	before := other.count()
	res = callTool(t, b, "bounce", map[string]any{"to": other.URL + "/echo"})
	t.Logf("bounce: %s", resultText(res))
	if !res.IsError || !strings.Contains(resultText(res), "redirect") || !strings.Contains(resultText(res), "secret") {
		t.Errorf("bounce: want a refused redirect, got isError %v: %s", res.IsError, resultText(res))
	}
	if other.count() != before {
		assertNoRedirectSecret(t, "other host after a 302 keeping the query", other.last(t))
	}
	assertNoSecretIn(t, "bounce result", resultJSON(t, res))

	// A 307 sends the body again: a body holding a secret is not sent to the other host.
	before = other.count()
	res = callTool(t, b, "post", map[string]any{"to": other.URL + "/echo"})
	t.Logf("307: %s", resultText(res))
	if !res.IsError || !strings.Contains(resultText(res), "redirect") {
		t.Errorf("307: want a refused redirect, got isError %v: %s", res.IsError, resultText(res))
	}
	if other.count() != before {
		assertNoRedirectSecret(t, "other host after 307", other.last(t))
	}
	assertNoSecretIn(t, "307 result", resultJSON(t, res))
}

// TestRedirectBackCarriesNoSecret: once a redirect chain has left the configured host, a
// later redirect back to it (chosen by the other host) does not get the secrets back.
func TestRedirectBackCarriesNoSecret(t *testing.T) {
	setRedirectSecrets(t)
	a, other := redirectUpstream(t), redirectUpstream(t)
	b := mustOpen(t, redirectSecretsServer(a.URL))
	res := callTool(t, b, "hop", map[string]any{"to": other.URL + "/redirect?to=" + url.QueryEscape(a.URL+"/echo")})
	if res.IsError {
		t.Fatalf("hop: %s", resultText(res))
	}
	assertNoRedirectSecret(t, "other host", other.last(t))
	got := a.last(t)
	if got.RawPath != "/echo" {
		t.Fatalf("the chain did not come back: %+v", got)
	}
	assertNoRedirectSecret(t, "configured host after a detour", got)
}

// TestRedirectSameHostKeepsSecretsButNoReferer: a redirect on the same host keeps the
// configured credentials, and no Referer is ever sent.
func TestRedirectSameHostKeepsSecretsButNoReferer(t *testing.T) {
	setRedirectSecrets(t)
	a := redirectUpstream(t)
	b := mustOpen(t, redirectSecretsServer(a.URL))
	for _, tool := range []string{"hop", "bounce"} {
		res := callTool(t, b, tool, map[string]any{"to": "/echo"})
		if res.IsError {
			t.Fatalf("%s: %s", tool, resultText(res))
		}
		got := a.last(t)
		if got.RawPath != "/echo" {
			t.Fatalf("%s: the redirect was not followed: %+v", tool, got)
		}
		if r := got.Header.Get("Referer"); r != "" {
			t.Errorf("%s: same-host redirect sent Referer %q", tool, r)
		}
		if got.Header.Get("X-Api-Key") != rdHeaderKey || got.Header.Get("Authorization") != rdAuth {
			t.Errorf("%s: same-host redirect lost the configured credentials: %v", tool, got.Header)
		}
		assertNoSecretIn(t, tool+" result", resultJSON(t, res))
	}
	res := callTool(t, b, "post", map[string]any{"to": "/echo"})
	if res.IsError {
		t.Fatalf("post: %s", resultText(res))
	}
	if got := a.last(t); !strings.Contains(got.Body, rdBodyKey) || got.Header.Get("Referer") != "" {
		t.Errorf("same-host 307: body %q, Referer %q", got.Body, got.Header.Get("Referer"))
	}
}

func assertNoSecretIn(t *testing.T, where, s string) {
	t.Helper()
	for _, sec := range []string{rdQueryKey, rdHeaderKey, rdCookieKey, rdBodyKey} {
		if strings.Contains(s, sec) {
			t.Errorf("%s contains secret %q: %s", where, sec, s)
		}
	}
}
