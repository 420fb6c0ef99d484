package httpapi_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func redirectServer(base string, allowPrivate bool) string {
	return fmt.Sprintf(`kind: http
description: redirects
base_url: %s
allow_private: %v
tools:
  hop:
    description: redirect to a target
    inputSchema: {type: object, properties: {to: {type: string}}, required: [to]}
    method: GET
    path: /redirect
    mappings: [{field: to, in: query, direct: to}]
  get_user:
    description: d
    inputSchema: {type: object, properties: {id: {type: string}}, required: [id]}
    method: GET
    path: /users/{id}
    mappings: [{field: id, in: path, direct: id}]
`, base, allowPrivate)
}

func TestRedirectFollowed(t *testing.T) {
	up := newUpstream(t)
	b := mustOpen(t, redirectServer(up.URL, true))
	res := callTool(t, b, "hop", map[string]any{"to": "/users/7"})
	if res.IsError || !strings.Contains(resultText(res), `"id":"7"`) {
		t.Errorf("got %s", resultJSON(t, res))
	}
	if got := up.last(t).RawPath; got != "/users/7" {
		t.Errorf("last request %s, want the redirect target", got)
	}
}

func TestRedirectToMetadataRefused(t *testing.T) {
	up := newUpstream(t)
	b := mustOpen(t, redirectServer(up.URL, true)) // even with allow_private
	for _, target := range []string{"http://169.254.169.254/latest/meta-data/", "http://[fe80::1]/"} {
		res := callTool(t, b, "hop", map[string]any{"to": target})
		got := resultText(res)
		t.Logf("%s", got)
		host := strings.Trim(strings.SplitN(strings.TrimPrefix(target, "http://"), "/", 2)[0], "[]")
		if !res.IsError || !strings.Contains(got, host) || !strings.Contains(got, "can never be reached") {
			t.Errorf("redirect to %s: isError %v %q", target, res.IsError, got)
		}
	}
}

func TestTooManyRedirects(t *testing.T) {
	up := newUpstream(t)
	b := mustOpen(t, redirectServer(up.URL, true))
	target := "/users/1"
	for range 6 { // 1 + 6 redirects, more than the 5 allowed
		target = "/redirect?to=" + url.QueryEscape(target)
	}
	res := callTool(t, b, "hop", map[string]any{"to": target})
	t.Logf("%s", resultText(res))
	if !res.IsError || !strings.Contains(resultText(res), "redirects") {
		t.Errorf("7 redirects: isError %v %q", res.IsError, resultText(res))
	}
}

func TestPrivateAddressRefused(t *testing.T) {
	up := newUpstream(t)
	b := mustOpen(t, redirectServer(up.URL, false))
	before := up.count()
	res := callTool(t, b, "get_user", map[string]any{"id": "1"})
	got := resultText(res)
	t.Logf("%s", got)
	if !res.IsError || !strings.Contains(got, "127.0.0.1") || !strings.Contains(got, "allow_private") {
		t.Errorf("isError %v %q", res.IsError, got)
	}
	if up.count() != before {
		t.Errorf("the request reached the private upstream")
	}
}

func TestAllowHosts(t *testing.T) {
	up := newUpstream(t)
	b := mustOpen(t, strings.Replace(redirectServer(up.URL, false), "tools:", "allow_hosts: [127.0.0.1]\ntools:", 1))
	res := callTool(t, b, "get_user", map[string]any{"id": "5"})
	if res.IsError || !strings.Contains(resultText(res), `"id":"5"`) {
		t.Errorf("allow_hosts did not allow the upstream: %q", resultText(res))
	}
	// The always-refused addresses stay refused.
	res = callTool(t, b, "hop", map[string]any{"to": "http://169.254.169.254/"})
	if !res.IsError || !strings.Contains(resultText(res), "redirect was not followed") {
		t.Errorf("metadata redirect with allow_hosts: %q", resultText(res))
	}
}
