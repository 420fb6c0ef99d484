package gateway_test

// Attacks on the inputs added lately: REST tool details, the legacy lean path, audited
// arguments, the HTTP+SSE message endpoint and a slow REST body.

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// GET /api/mcp/{server}/tools?name=NAME with hostile names: a tool the caller's role forbids
// answers exactly as an unknown one (no existence leak), and the 404 message quotes at most a
// short prefix of the name, so a 100 KB name is not echoed back.
func TestAttackRESTToolName(t *testing.T) {
	f := newAuthFixture(t)
	alice := &http.Client{Transport: bearer(f.secret["alice"])}
	base := f.srv.URL + "/api/mcp/crm/tools"
	get := func(rawQuery string) (int, string) {
		t.Helper()
		status, out := restDo(t, alice, "GET", base+"?"+rawQuery, "", nil)
		return status, fmt.Sprint(out["error"])
	}

	// Forbidden and unknown answer alike, but for the name quoted.
	sf, forbidden := get("name=wipe")
	su, unknown := get("name=wipf")
	if sf != 404 || su != 404 || strings.ReplaceAll(forbidden, "wipe", "wipf") != unknown {
		t.Errorf("a forbidden tool is told apart from an unknown one:\n %d %s\n %d %s", sf, forbidden, su, unknown)
	}

	huge := strings.Repeat("a", 100_000)
	status, msg := get("name=" + huge)
	t.Logf("100 KB name: %d, a %d-byte message", status, len(msg))
	if status != 404 || len(msg) > 400 || !strings.Contains(msg, "GET /api/mcp/crm/tools lists the tools") {
		t.Errorf("100 KB name: %d, a %d-byte message %.200q", status, len(msg), msg)
	}

	status, msg = get("name=" + url.QueryEscape(`<script>alert(1)</script>`))
	if status != 404 {
		t.Errorf("script name: %d %s", status, msg)
	}

	// Repeated name parameters: the first is the one asked for, never a union of both.
	status, out := restDo(t, alice, "GET", base+"?name=read&name=wipe", "", nil)
	if tools, _ := out["tools"].([]any); status != 200 || len(tools) != 1 || tools[0].(map[string]any)["name"] != "read" {
		t.Errorf("name=read&name=wipe: %d %v", status, out)
	}
	status, out = restDo(t, alice, "GET", base+"?name=wipe&name=read", "", nil)
	if status != 404 {
		t.Errorf("name=wipe&name=read: %d %v, want 404 (the first name counts)", status, out)
	}
}
