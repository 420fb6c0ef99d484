package httpapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/safehttp"
	"github.com/mcpbridge/mcpbridge/internal/secret"
)

func policyOf(s serverSection) safehttp.Policy {
	hosts := append([]string(nil), s.AllowHosts...)
	sort.Strings(hosts)
	return safehttp.Policy{AllowPrivate: s.AllowPrivate, AllowHosts: hosts}
}

// newClient returns the backend's HTTP client: one from the gateway's factory (clients of a
// policy share a connection pool), whose redirects carry no Referer and none of a call's
// secrets to another host (see guardRedirect).
func newClient(deps backend.Deps, p safehttp.Policy) *http.Client {
	// Per-call deadlines come from the tool's timeout on the request context (call), which
	// also bounds reading the body; the client's own limits are set beyond any sensible tool
	// timeout so they never cut a call short. The client has no Timeout of its own: net/http
	// would start a timer and a goroutine for every request to enforce it.
	base := deps.Client(p, safehttp.Options{Timeout: clientCeiling, ResponseHeaderTimeout: clientCeiling})
	c := *base
	c.Timeout = 0
	next := base.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if next != nil {
			if err := next(req, via); err != nil {
				return err
			}
		}
		return guardRedirect(req, via)
	}
	return &c
}

// clientCeiling is the client-level bound of a request; tool timeouts are shorter.
const clientCeiling = 24 * time.Hour

// guardKey is the context key of a call's *redirectGuard.
type guardKey struct{}

// redirectGuard is what the shared client needs to know about one call to keep its secrets
// on the configured host when the API redirects.
type redirectGuard struct {
	strip map[string]bool  // headers whose values came from secret references
	scrub *secret.Scrubber // the backend's secret values, to find them in URLs, headers and bodies
}

// guardRedirects returns the request of bt carrying, on its context, what guardRedirect
// needs to know about the call's secrets.
func guardRedirects(bt *built, sc scrubber) *http.Request {
	g := &redirectGuard{strip: bt.stripOnRedirect, scrub: sc.sc}
	return bt.req.WithContext(context.WithValue(bt.req.Context(), guardKey{}, g))
}

// credentialHeaders are dropped on a redirect to another host whatever their origin.
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Cookie2"}

// guardRedirect is the part of CheckRedirect that protects a call's secrets.
//
// net/http sets a Referer on every redirect from the previous URL, query included (where a
// secret may sit): it is removed, so a tool never sends a Referer it was not configured
// with. Once the chain has left the origin of the first request (scheme, host and port; an
// upgrade from http to https on the same host and default ports counts as the same
// origin), every later request goes without Authorization, Proxy-Authorization, Cookie and
// Cookie2, without every header whose value came from a secret reference, and without any
// other header whose value holds a secret. net/http alone keeps Authorization and Cookie
// for a subdomain or another port of the same host name. A redirect to another origin whose
// URL holds a secret (a secret query parameter copied into Location), or that would send
// again a request body holding a secret (307, 308), is refused: dropping part of a URL or
// body would send a different request than the one configured.
func guardRedirect(req *http.Request, via []*http.Request) error {
	if len(via) == 0 {
		return nil
	}
	first := via[0]
	if first.Header.Get("Referer") == "" {
		req.Header.Del("Referer")
	}
	away := !sameOrigin(first.URL, req.URL)
	for _, r := range via[1:] {
		away = away || !sameOrigin(first.URL, r.URL)
	}
	if !away {
		return nil
	}
	for _, h := range credentialHeaders {
		req.Header.Del(h)
	}
	g, _ := req.Context().Value(guardKey{}).(*redirectGuard)
	if g == nil {
		return nil
	}
	for h := range g.strip {
		req.Header.Del(h)
	}
	for h, vs := range req.Header {
		for _, v := range vs {
			if g.scrub.Contains(v) {
				req.Header.Del(h)
				break
			}
		}
	}
	if urlHoldsSecret(g.scrub, req.URL) {
		return fmt.Errorf("the API redirected to %s, and the redirect was not followed: its URL carries a secret of the request (a secret: value), and secrets are only sent to %s. If the API has moved, set base_url to the new address", req.URL.Host, first.URL.Host)
	}
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return fmt.Errorf("reading the request body again for a redirect: %w", err)
		}
		data, err := io.ReadAll(body)
		body.Close()
		if err != nil {
			return fmt.Errorf("reading the request body again for a redirect: %w", err)
		}
		if g.scrub.Contains(string(data)) {
			return fmt.Errorf("the API redirected to %s with a %d status, which sends the request body again, and the redirect was not followed: the body carries a secret of the request (a secret: value), and secrets are only sent to %s. If the API has moved, set base_url to the new address", req.URL.Host, req.Response.StatusCode, first.URL.Host)
		}
	}
	return nil
}

// urlHoldsSecret reports whether a secret appears anywhere in u: as written, or decoded in
// its path, query or user information.
func urlHoldsSecret(sc *secret.Scrubber, u *url.URL) bool {
	if sc.Contains(u.String()) || sc.Contains(u.Path) || (u.User != nil && sc.Contains(u.User.String())) {
		return true
	}
	if q, err := url.QueryUnescape(u.RawQuery); err == nil && sc.Contains(q) {
		return true
	}
	if f, err := url.PathUnescape(u.EscapedFragment()); err == nil && sc.Contains(f) {
		return true
	}
	for k, vs := range u.Query() {
		if sc.Contains(k) || slices.ContainsFunc(vs, sc.Contains) {
			return true
		}
	}
	return false
}

// sameOrigin reports whether b is on the origin of a: the same scheme, host name and port,
// or an upgrade of a from http to https on the same host name with the default ports.
func sameOrigin(a, b *url.URL) bool {
	ah, bh := normalHost(a.Hostname()), normalHost(b.Hostname())
	if ah != bh {
		return false
	}
	as, bs := strings.ToLower(a.Scheme), strings.ToLower(b.Scheme)
	ap, bp := portOf(as, a), portOf(bs, b)
	if as == bs {
		return ap == bp
	}
	return as == "http" && bs == "https" && ap == "80" && bp == "443"
}

func normalHost(h string) string { return strings.TrimSuffix(strings.ToLower(h), ".") }

// portOf returns u's port, or the default port of its scheme.
func portOf(scheme string, u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch scheme {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}
