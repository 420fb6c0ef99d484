package gateway_test

// Attacks on the inputs added lately: REST tool details, the legacy lean path, audited
// arguments, the HTTP+SSE message endpoint and a slow REST body.

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
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

// attackPost sends one POST with the given credentials and headers (Accept included: an
// empty value is left out) and returns the status, the headers and the whole body.
func attackPost(t *testing.T, c *http.Client, u string, hdr map[string]string, body string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", u, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, resp.Header, string(b)
}

// A tools/call on a legacy session, where the lean path may answer it: a 10 KB session id,
// another user's session, a huge progressToken in _meta, and each Accept form. The owner
// check holds on the lean path as on the SDK's, nothing long is echoed, and Accept picks the
// body's form.
func TestAttackLegacyLeanCall(t *testing.T) {
	f := newAuthFixture(t)
	u := f.srv.URL + "/mcp/crm"
	alice := &http.Client{Transport: bearer(f.secret["alice"])}
	root := &http.Client{Transport: bearer(f.secret["root"])}
	resp := authInit(t, u, f.secret["alice"])
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	call := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read","arguments":{}}}`
	h := func(sid, accept string) map[string]string {
		return map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25", "Accept": accept}
	}
	const both = "application/json, text/event-stream"

	// Accept: application/json alone: answered, a JSON body.
	status, hdr, body := attackPost(t, alice, u, h(sid, "application/json"), call)
	if status != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") || !strings.Contains(body, `"read\n"`) && !strings.Contains(body, `read`) {
		t.Errorf("Accept application/json: %d %q %s", status, hdr.Get("Content-Type"), body)
	}
	// Accept: text/event-stream alone: the SDK's path, which wants both.
	status, hdr, body = attackPost(t, alice, u, h(sid, "text/event-stream"), call)
	t.Logf("Accept text/event-stream: %d %q %.200s", status, hdr.Get("Content-Type"), body)
	if status != 400 || !strings.Contains(body, "Accept must contain both 'application/json' and 'text/event-stream'") {
		t.Errorf("Accept text/event-stream: %d %s, want the SDK's 400", status, body)
	}

	// Another user on alice's session: 403 on the SDK's path. With Accept: application/json
	// alone the lean path declines it and the SDK refuses the Accept (400) before looking at
	// the session, as it does for a session that does not exist: no answer, no tell.
	// A 10 KB session id: 404 (400 for the Accept), not echoed.
	long := strings.Repeat("s", 10<<10)
	for _, tc := range []struct {
		who    *http.Client
		sid    string
		accept string
		status int
	}{
		{root, sid, both, 403},
		{root, sid, "application/json", 400},
		{alice, long, both, 404},
		{alice, long, "application/json", 400},
		{root, long, "application/json", 400},
	} {
		status, _, body = attackPost(t, tc.who, u, h(tc.sid, tc.accept), call)
		if status != tc.status || strings.Contains(body, "result") || len(body) > 1000 {
			t.Errorf("session id of %d bytes, Accept %s: %d, a %d-byte body %.200s; want %d", len(tc.sid), tc.accept, status, len(body), body, tc.status)
		}
	}

	// A 500 KB progressToken: the SDK's path answers (the lean one leaves _meta to it),
	// and the token is not echoed into the answer.
	token := strings.Repeat("p", 500<<10)
	withMeta := `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"read","arguments":{},"_meta":{"progressToken":"` + token + `"}}}`
	start := time.Now()
	status, _, body = attackPost(t, alice, u, h(sid, both), withMeta)
	t.Logf("500 KB progressToken: %d, a %d-byte answer in %s", status, len(body), time.Since(start).Round(time.Millisecond))
	if status != 200 || !strings.Contains(body, "result") || len(body) > 10_000 {
		t.Errorf("500 KB progressToken: %d, a %d-byte answer %.300s", status, len(body), body)
	}
}

// Internal headers sent by a client (Mcpbridge-Admitted, Mcpbridge-Client) do not lift a
// rate limit or split one caller into many, on the modern path, a legacy session's lean
// path and the REST routes.
func TestAttackSpoofedInternalHeaders(t *testing.T) {
	lb := serveLoopback(t, rateServers, gateway.Options{}, nil)
	u := lb.base + "/mcp/demo"
	n := 0
	spoof := func(h map[string]string) map[string]string {
		n++
		out := map[string]string{"Mcpbridge-Admitted": "1", "Mcpbridge-Client": fmt.Sprintf("spoofed-%d", n)}
		for k, v := range h {
			out[k] = v
		}
		return out
	}
	// Modern: a burst of 3, then 429.
	a := clientFrom("127.0.0.7")
	for i := range 3 {
		if resp, b := rawPost(t, a, u, spoof(modernHeaders), modernCall); resp.StatusCode != 200 {
			t.Fatalf("modern call %d: %d %s", i+1, resp.StatusCode, b)
		}
	}
	resp, b := rawPost(t, a, u, spoof(modernHeaders), modernCall)
	checkRefused(t, "modern 4th call with spoofed headers", resp, b, "rate.per_principal", 3000)

	// Legacy session, lean path (Accept: application/json): initialize is the 1st request.
	c := clientFrom("127.0.0.8")
	lh := legacySession(t, c, u, "2025-11-25")
	lh["Accept"] = "application/json"
	legacyCall := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`
	for i := range 2 {
		if resp, b := rawPost(t, c, u, spoof(lh), legacyCall); resp.StatusCode != 200 {
			t.Fatalf("legacy call %d: %d %s", i+1, resp.StatusCode, b)
		}
	}
	resp, b = rawPost(t, c, u, spoof(lh), legacyCall)
	checkRefused(t, "legacy call past the burst with spoofed headers", resp, b, "rate.per_principal", 3000)

	// A batch, whose items the edge leaves to the method handlers: claiming the edge has
	// admitted it does not spare them (3 of 4 tokens left after initialize: 3 answered).
	bc := clientFrom("127.0.0.10")
	bu := lb.base + "/mcp/batchy"
	bh := legacySession(t, bc, bu, "2025-03-26")
	var items []string
	for i := range 5 {
		items = append(items, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 10+i))
	}
	resp, b = rawPost(t, bc, bu, spoof(bh), "["+strings.Join(items, ",")+"]")
	refused := strings.Count(string(b), `"rate.per_principal"`)
	if resp.StatusCode != 200 || refused != 2 {
		t.Errorf("a batch of 5 with spoofed headers and 3 tokens left: %d, %d refused, want 2:\n%s", resp.StatusCode, refused, b)
	}

	// REST.
	r := clientFrom("127.0.0.9")
	for i := range 4 {
		req, _ := http.NewRequest("POST", lb.base+"/api/mcp/demo/tools/call", strings.NewReader(`{"name":"echo","arguments":{"message":"hi"}}`))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range spoof(nil) {
			req.Header.Set(k, v)
		}
		resp, err := r.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := map[bool]int{true: 429, false: 200}[i == 3]; resp.StatusCode != want {
			t.Errorf("REST call %d with spoofed headers: %d, want %d", i+1, resp.StatusCode, want)
		}
	}
}

// POSTs to the HTTP+SSE message endpoint with guessed or garbage session ids: a 10 KB id,
// repeated ids naming another user's session, and no credentials on a server that needs
// them. Unknown ids are 404 without an echo; a known one of another user is 403 whichever
// of the repeated ids the gateway and the SDK read; no credentials is 401.
func TestAttackSSESessionIDs(t *testing.T) {
	f := newAuthFixture(t)
	alice := &http.Client{Transport: bearer(f.secret["alice"])}
	root := &http.Client{Transport: bearer(f.secret["root"])}

	// Alice's stream on crm, and its endpoint.
	req, _ := http.NewRequestWithContext(t.Context(), "GET", f.srv.URL+"/mcp/crm/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := alice.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	endpoint := ""
	events := bufio.NewReader(resp.Body)
	for endpoint == "" {
		line, err := events.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the endpoint event (%d): %v", resp.StatusCode, err)
		}
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			endpoint = d
		}
	}
	_, sid, _ := strings.Cut(endpoint, "sessionid=")
	path, _, _ := strings.Cut(endpoint, "?")
	long := strings.Repeat("g", 10<<10)
	msg := initBody("2024-11-05")
	for _, tc := range []struct {
		who    string
		c      *http.Client
		query  string
		status int
	}{
		{"alice, a 10 KB id", alice, "sessionid=" + long, 404},
		{"root, a 10 KB id", root, "sessionid=" + long, 404},
		{"anonymous, a 10 KB id", http.DefaultClient, "sessionid=" + long, 401},
		{"anonymous, alice's id", http.DefaultClient, "sessionid=" + sid, 401},
		{"root, alice's id", root, "sessionid=" + sid, 403},
		{"root, alice's id then a garbage one", root, "sessionid=" + sid + "&sessionid=x", 403},
		{"root, a garbage id then alice's", root, "sessionid=x&sessionid=" + sid, 404},
		{"root, no id", root, "", 400},
	} {
		status, _, body := attackPost(t, tc.c, f.srv.URL+path+"?"+tc.query, nil, msg)
		t.Logf("%s: %d %.150s", tc.who, status, body)
		if status != tc.status || len(body) > 1000 || strings.Contains(body, "protocolVersion") {
			t.Errorf("%s: %d, a %d-byte body %.200s; want %d", tc.who, status, len(body), body, tc.status)
		}
	}
}
