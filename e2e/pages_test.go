package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// pagesReport is the JSON that tools/node/pages-check.mjs prints.
type pagesReport struct {
	Checks []struct {
		Name   string `json:"name"`
		OK     bool   `json:"ok"`
		Detail string `json:"detail"`
	} `json:"checks"`
	Screenshots []string `json:"screenshots"`
}

// runPagesCheck runs tools/node/pages-check.mjs against base (and the extra arguments) and
// returns its report and exit error.
func runPagesCheck(t *testing.T, base, out string, extra ...string) (pagesReport, error) {
	t.Helper()
	tools := requireNodeTools(t)
	browser := requireChromium(t)
	script := filepath.Join(tools.Dir, "pages-check.mjs")
	start := time.Now()
	args := append([]string{script, "--base", base, "--out", out, "--chromium", browser,
		"--server", "tools-demo", "--tool", "echo", "--hostile-server", "xss-demo"}, extra...)
	for _, c := range canaryValues() {
		args = append(args, "--canary", c)
	}
	stdout, stderr, err := runLogged(context.Background(), 120*time.Second, tools.Dir, []string{"HOME=" + t.TempDir()}, tools.Node, args...)
	t.Logf("pages-check.mjs: %s (exit: %v)", time.Since(start).Round(time.Millisecond), err)
	var report pagesReport
	if jerr := json.Unmarshal(stdout, &report); jerr != nil || len(report.Checks) == 0 {
		t.Fatalf("pages-check.mjs gave no report (%v, exit %v)\nstdout:\n%s\nstderr:\n%s", jerr, err, tail(stdout, 40), tail(stderr, 40))
	}
	return report, err
}

// TestPagesChromium opens the HTML pages (/mcp and /mcp/meta/{server}) in headless Debian
// Chromium through tools/node/pages-check.mjs: no console or page errors or failed requests, the
// server and tool lists, the try-it form of echo with an HTML message (shown as text, no dialog),
// the meta page of a server whose description is HTML; every page /mcp links to: no injected
// script runs and no canary secret shows; and the page at scale: a gateway of its own serves a
// server of gatewaytest.ManyToolsServer (1,223 tools), whose page is checked for search, table
// of contents, copy buttons, the forms built from schemas, text and image results, hostile text
// and sideways scroll (see pages-check.mjs). Screenshots go to the test's artifact directory and
// their paths are logged.
func TestPagesChromium(t *testing.T) {
	requireNodeTools(t)
	requireChromium(t)
	gw := sharedGateway(t)
	scale := startScaleGateway(t)
	report, err := runPagesCheck(t, gw.Base, artifactDir(t), "--scale-base", scale.Base, "--scale-server", "many")
	failed := 0
	for _, c := range report.Checks {
		if c.OK {
			t.Logf("ok    %s", c.Name)
			continue
		}
		failed++
		t.Errorf("FAIL  %s: %s", c.Name, c.Detail)
	}
	for _, s := range report.Screenshots {
		t.Logf("screenshot: %s", s)
	}
	if failed == 0 && err != nil {
		t.Errorf("pages-check.mjs exited with %v although every check passed", err)
	}
	if failed > 0 {
		t.Logf("gateway log tail:\n%s", gw.LogTail())
		t.Logf("scale gateway log tail:\n%s", scale.LogTail())
	}
}

// startScaleGateway serves a config of one server, "many", with gatewaytest.ManyToolsCount
// tools, on a gateway of the test's own, stopped when the test ends.
func startScaleGateway(t *testing.T) *gateway {
	t.Helper()
	src := filepath.Join(t.TempDir(), "many.yaml")
	if err := os.WriteFile(src, []byte("servers:\n"+gatewaytest.ManyToolsServer("many")), 0o644); err != nil {
		t.Fatal(err)
	}
	gw, err := startGateway(mcpbridgeBinary(t), src, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gw.stop)
	return gw
}

// TestPagesCheckCatchesUnsafePages runs pages-check.mjs against deliberately unsafe pages (HTML
// pasted unescaped, a result shown with innerHTML, a console error) and checks it reports
// exactly those problems: the browser check can fail.
func TestPagesCheckCatchesUnsafePages(t *testing.T) {
	requireNodeTools(t)
	requireChromium(t)
	srv := httptest.NewServer(unsafePages())
	t.Cleanup(srv.Close)

	report, err := runPagesCheck(t, srv.URL, t.TempDir())
	if err == nil {
		t.Errorf("pages-check.mjs exited 0 on unsafe pages")
	}
	var failed []string
	for _, c := range report.Checks {
		if !c.OK {
			failed = append(failed, c.Name)
		}
	}
	want := []string{
		"/mcp shows the hostile description as text",
		"/mcp has no injected <img src=x>",
		"/mcp: no console errors", // Chromium logs the failed load of src=x
		"/mcp: no failed requests",
		"/mcp: no dialog opened",
		"try-it result is the tools/call result as JSON",
		"try-it result text contains the message",
		"try-it result shows the message as text (no <script> element)",
		"try-it result HTML escapes the message",
		"/mcp/meta/tools-demo: no console errors",
		"/mcp/meta/xss-demo shows the description literally",
		"/mcp/meta/xss-demo has no injected <img src=x>",
		"/mcp/meta/xss-demo shows the tool description literally",
		"/mcp/meta/xss-demo: no console errors",
		"/mcp/meta/xss-demo: no failed requests",
		"/mcp/meta/xss-demo: no dialog opened",
		// every page /mcp links to, again
		"every page: /mcp: no injected <img src=x>",
		"every page: /mcp: no console errors",
		"every page: /mcp: no failed requests",
		"every page: /mcp: no dialog opened",
		"every page: /mcp/meta/tools-demo: no console errors",
		"every page: /mcp/meta/xss-demo: no injected <img src=x>",
		"every page: /mcp/meta/xss-demo: no console errors",
		"every page: /mcp/meta/xss-demo: no failed requests",
		"every page: /mcp/meta/xss-demo: no dialog opened",
	}
	if diff := cmp.Diff(want, failed); diff != "" {
		t.Errorf("failed checks on unsafe pages (-want +got):\n%s", diff)
	}
}

// unsafePages serves pages with the interface of mcpbridge's pages but none of its care: the
// hostile description is pasted as HTML, the try-it result is set with innerHTML, and the meta
// page logs a console error.
func unsafePages() http.Handler {
	const hostile = `Hostile <img src=x onerror=alert(1)> description`
	mux := http.NewServeMux()
	page := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><link rel="icon" href="data:,"><title>unsafe</title></head><body>%s</body></html>`, body)
	}
	mux.HandleFunc("GET /mcp", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<a href="/mcp/meta/tools-demo">tools-demo</a> Small local tools
<a href="/mcp/meta/xss-demo">xss-demo</a> `+hostile)
	})
	mux.HandleFunc("GET /mcp/meta/tools-demo", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<h1>tools-demo</h1><h3>echo</h3><p>Echo a message back</p>
<form class="try-it" data-tool="echo"><textarea name="arguments">{}</textarea><button type="submit">Call echo</button></form>
<pre class="try-it-result" data-tool="echo"></pre>
<script>
console.error("deliberate console error");
document.querySelector("form.try-it").addEventListener("submit", function (ev) {
  ev.preventDefault();
  var args = JSON.parse(document.querySelector("textarea").value);
  fetch("/mcp/tools-demo", {method: "POST", body: JSON.stringify(args)}).then(function (r) { return r.json(); }).then(function (res) {
    var out = document.querySelector("pre.try-it-result");
    out.innerHTML = JSON.stringify(res) + " " + res.content[0].text;
    out.setAttribute("data-status", "ok");
  });
});
</script>`)
	})
	mux.HandleFunc("POST /mcp/tools-demo", func(w http.ResponseWriter, r *http.Request) {
		var args struct {
			Message string `json:"message"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &args)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"content": []map[string]string{{"type": "text", "text": args.Message}}})
	})
	mux.HandleFunc("GET /mcp/meta/xss-demo", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<h1>xss-demo</h1><p>`+hostile+`</p><h3>shout</h3><p>Prints <script>alert(2)</script> as text</p>`)
	})
	return mux
}
