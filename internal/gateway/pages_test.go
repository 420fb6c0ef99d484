package gateway_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// maxScalePage is the most HTML the page of a server with gatewaytest.ManyToolsCount tools
// may weigh: it lists every tool but loads a tool's schema and form only when opened.
const maxScalePage = 600 << 10

// getPage GETs a page and returns its status, headers and body.
func getPage(t *testing.T, client *http.Client, url string) (int, http.Header, string) {
	t.Helper()
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading %s: %v", url, err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// The page of a server with 1,223 tools lists every tool yet stays small.
func TestPageSizeAtScale(t *testing.T) {
	srv := gatewaytest.Start(t, "servers:\n"+gatewaytest.ManyToolsServer("big"), gateway.Options{})
	status, _, page := getPage(t, nil, srv.URL+"/mcp/meta/big")
	if status != 200 {
		t.Fatalf("GET /mcp/meta/big: %d", status)
	}
	t.Logf("page of a %d-tool server: %d bytes (%.0f KB)", gatewaytest.ManyToolsCount, len(page), float64(len(page))/1024)
	if len(page) > maxScalePage {
		t.Errorf("the page is %d bytes, want at most %d", len(page), maxScalePage)
	}
	for _, name := range []string{"echo", "pixel", "hostile", "repos_list_0008", "users_delete_1211"} {
		if !strings.Contains(page, `data-tool="`+name+`"`) {
			t.Errorf("the page does not list tool %s", name)
		}
	}
	if n := strings.Count(page, `<li class="tool"`); n != gatewaytest.ManyToolsCount {
		t.Errorf("the page lists %d tools, want %d", n, gatewaytest.ManyToolsCount)
	}
}

// The page of a large server has a search box and a table of contents by name prefix, and
// shows HTML in a tool's description as text.
func TestPageTableOfContents(t *testing.T) {
	srv := gatewaytest.Start(t, "servers:\n"+gatewaytest.ManyToolsServer("big"), gateway.Options{})
	_, _, page := getPage(t, nil, srv.URL+"/mcp/meta/big")
	for _, want := range []string{
		`<input type="search" id="search-tools"`,
		`<nav class="toc"`,
		`<a href="#group-repos">repos</a>`,
		`<section class="tool-group" id="group-repos">`,
		`<li class="tool" id="tool-repos_list_0008" data-tool="repos_list_0008">`,
		`List repos number 8 of the organisation, with paging and filters.</span>`, // the first line only
		`&lt;script&gt;alert(&#34;tool&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(4)&gt; is shown as text`,
		`<script src="/_mcpbridge/static/page.js"></script>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, bad := range []string{"<script>alert", "<img src=x", "The caller needs read access"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	if i, j := strings.Index(page, `id="setup"`), strings.Index(page, `id="tools"`); i < 0 || j < 0 || i > j {
		t.Errorf("'Connect a client' (at %d) is not above the tools (at %d)", i, j)
	}
}

// One tool's details (what the page loads when a tool is opened) come from
// GET /api/mcp/{server}/tools?name=TOOL: the same credentials and roles as the list, 404 for
// a tool that does not exist or that the caller may not call.
func TestPageToolDetails(t *testing.T) {
	f := newAuthFixture(t)
	as := func(user string) *http.Client {
		if user == "" {
			return http.DefaultClient
		}
		return &http.Client{Transport: bearer(f.secret[user])}
	}
	url := f.srv.URL + "/api/mcp/crm/tools?name="
	for _, c := range []struct {
		user, tool string
		status     int
	}{
		{"", "read", 401},
		{"nobody", "read", 403},
		{"alice", "read", 200},
		{"alice", "wipe", 404}, // admin only
		{"root", "wipe", 200},
		{"root", "nope", 404},
		{"root", "", 404},
	} {
		status, out := restDo(t, as(c.user), "GET", url+c.tool, "", nil)
		tools, _ := out["tools"].([]any)
		if status != c.status || (status == 200 && (len(tools) != 1 || tools[0].(map[string]any)["name"] != c.tool)) {
			t.Errorf("%q asking for %q: %d %v, want %d", c.user, c.tool, status, out, c.status)
		}
		if status == 404 && !strings.Contains(fmt.Sprint(out["error"]), "GET /api/mcp/crm/tools lists the tools") {
			t.Errorf("%q asking for %q: error %v does not say where the tools are listed", c.user, c.tool, out)
		}
	}
	// The page lists what the caller may call, like the index and tools/list.
	for user, want := range map[string][]string{"alice": {"read"}, "root": {"read", "wipe"}} {
		_, _, page := getPage(t, as(user), f.srv.URL+"/mcp/meta/crm")
		for _, tool := range []string{"read", "wipe"} {
			if got := strings.Contains(page, `data-tool="`+tool+`"`); got != slices.Contains(want, tool) {
				t.Errorf("page for %s lists %s: %v, want %v", user, tool, got, !got)
			}
		}
	}
}

// A tool's details are JSON with HTML characters escaped, never HTML.
func TestPageToolDetailsEscaping(t *testing.T) {
	srv := gatewaytest.Start(t, "servers:\n"+gatewaytest.ManyToolsServer("big"), gateway.Options{})
	status, h, body := getPage(t, nil, srv.URL+"/api/mcp/big/tools?name=hostile")
	if status != 200 || h.Get("Content-Type") != "application/json" || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("GET the hostile tool: %d %q %q", status, h.Get("Content-Type"), h.Get("X-Content-Type-Options"))
	}
	if strings.ContainsAny(body, "<>") {
		t.Errorf("the JSON carries raw < or >: %s", body)
	}
	var out struct {
		Tools []struct {
			Description string
			InputSchema struct {
				Title      string
				Properties map[string]struct{ Title, Description string }
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil || len(out.Tools) != 1 {
		t.Fatalf("decoding %s: %v", body, err)
	}
	tool := out.Tools[0]
	if !strings.HasPrefix(tool.Description, gatewaytest.ManyToolsHostile) || tool.InputSchema.Title != gatewaytest.ManyToolsHostile ||
		tool.InputSchema.Properties["note"].Description != gatewaytest.ManyToolsHostile {
		t.Errorf("the hostile text did not come through unchanged: %+v", tool)
	}
}

// The pages keep their Content-Security-Policy: no inline script or style, nothing from
// another origin, images only from the gateway or data: URLs (image results).
func TestPageCSPUnchanged(t *testing.T) {
	const want = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
	srv := gatewaytest.Start(t, "servers:\n"+gatewaytest.ManyToolsServer("big"), gateway.Options{})
	for _, p := range []string{"/mcp", "/mcp/meta/big", "/mcp/meta/nope"} {
		_, h, _ := getPage(t, nil, srv.URL+p)
		if got := h.Get("Content-Security-Policy"); got != want {
			t.Errorf("%s: Content-Security-Policy\n got %s\nwant %s", p, got, want)
		}
	}
}
