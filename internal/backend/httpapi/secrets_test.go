package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	apiKey     = "sk-live-0123456789abcdef"
	cookieKey  = "ck/secret value+1"
	fileSecret = "file-secret-9876543210"
)

func TestSecrets(t *testing.T) {
	t.Setenv("MCPBRIDGE_SECRET_TEST_API_KEY", apiKey)
	t.Setenv("TEST_COOKIE_SECRET", cookieKey)
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "token")
	os.WriteFile(secretFile, []byte(fileSecret+"\n"), 0o600)
	up := newUpstream(t)
	other := newUpstream(t) // a second host, for a cross-host redirect
	b := mustOpen(t, fmt.Sprintf(`kind: http
description: secrets
base_url: %s
allow_private: true
headers: {X-Api-Key: secret:TEST_API_KEY}
tools:
  echo:
    description: the upstream echoes every header back
    inputSchema: {type: object, properties: {q: {type: string}}}
    method: GET
    path: /echo
    headers: {X-File-Token: "file:%s"}
    mappings:
      - {field: sid, in: cookie, constant: "env:TEST_COOKIE_SECRET"}
      - {field: key, in: query, constant: "secret:TEST_API_KEY"}
      - {field: q, in: query, direct: q}
  fail:
    description: the upstream echoes the key in a 401 body
    method: GET
    path: /status/401
  hop:
    description: redirect to another host
    inputSchema: {type: object, properties: {to: {type: string}}, required: [to]}
    method: GET
    path: /redirect
    mappings: [{field: to, in: query, direct: to}]
  gone:
    description: connection error whose message could carry the URL
    method: GET
    path: /status/{code}
    mappings: [{field: code, in: path, constant: "secret:TEST_API_KEY"}]
`, up.URL, secretFile))

	res := callTool(t, b, "echo", map[string]any{"q": "x"})
	if res.IsError {
		t.Fatal(resultText(res))
	}
	got := up.last(t)
	if got.Header.Get("X-Api-Key") != apiKey || got.Header.Get("X-File-Token") != fileSecret ||
		!strings.Contains(got.Header.Get("Cookie"), "sid=ck/secret%20value+1") || !strings.Contains(got.Query, "key="+apiKey) {
		t.Errorf("secrets not resolved into the request: %+v", got)
	}
	all := resultJSON(t, res)
	assertNoSecret(t, "echo result", all)
	if !strings.Contains(all, "[secret TEST_API_KEY]") || !strings.Contains(all, "[env TEST_COOKIE_SECRET]") || !strings.Contains(all, "[file token]") {
		t.Errorf("echoed secrets are not replaced by their names: %s", all)
	}

	res = callTool(t, b, "fail", nil)
	if !res.IsError {
		t.Fatal("401 is not an error")
	}
	assertNoSecret(t, "401 error", resultJSON(t, res))

	res = callTool(t, b, "gone", nil)
	assertNoSecret(t, "path secret error", resultJSON(t, res))
	if !strings.Contains(resultText(res), "/status/[secret TEST_API_KEY]") {
		t.Errorf("path not shown with the secret's name: %q", resultText(res))
	}

	// A redirect to another host does not carry the secret header along.
	res = callTool(t, b, "hop", map[string]any{"to": other.URL + "/echo"})
	if res.IsError {
		t.Fatal(resultText(res))
	}
	if k := other.last(t).Header.Get("X-Api-Key"); k != "" {
		t.Errorf("secret header followed a cross-host redirect: %q", k)
	}
	// ...but a same-host redirect keeps it.
	callTool(t, b, "hop", map[string]any{"to": "/echo"})
	if k := up.last(t).Header.Get("X-Api-Key"); k != apiKey {
		t.Errorf("same-host redirect lost the header: %q", k)
	}

	cat, err := b.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cj, _ := json.Marshal(cat)
	assertNoSecret(t, "catalog", string(cj))
}

func assertNoSecret(t *testing.T, where, s string) {
	t.Helper()
	for _, sec := range []string{apiKey, cookieKey, fileSecret, "ck%2Fsecret", "ck/secret"} {
		if strings.Contains(s, sec) {
			t.Errorf("%s contains secret %q: %s", where, sec, s)
		}
	}
}

func TestMissingSecret(t *testing.T) {
	t.Setenv("MCPBRIDGE_SECRET_PRESENT", "present-value-123")
	cases := []struct{ header, want string }{
		{"secret:ABSENT_KEY", "headers.X-Key: secret ABSENT_KEY is not set; set the environment variable MCPBRIDGE_SECRET_ABSENT_KEY"},
		{"env:ABSENT_VAR_XYZ", "environment variable ABSENT_VAR_XYZ is not set"},
		{"file:/nonexistent/token", "reading secret file: open /nonexistent/token"},
		{"secret:bad-name", `secret name "bad-name" is not valid`},
	}
	for _, c := range cases {
		_, err := openServer(t, fmt.Sprintf(`kind: http
description: d
base_url: http://127.0.0.1:1
headers: {X-Key: %q, X-Other: secret:PRESENT}
tools:
  t: {description: d, method: GET, path: /x}
`, c.header))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.header, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "present-value-123") {
			t.Errorf("error shows a secret value: %v", err)
		}
	}
}
