package gateway_test

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

// The route table answers every method and path as before the move to ServeMux patterns:
// JSON-RPC errors under /mcp/, JSON errors under /admin/api/, 405 with Allow where a path
// exists but the method does not.
func TestRoutes(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, base := startGateway(t, st)
	cases := []struct {
		method, path, key string
		status            int
		contentType       string // prefix
		allow             string
		bodyHas           string
	}{
		{"GET", "/", "", 302, "", "", ""},
		{"GET", "/mcp", "", 200, "text/html", "", "filed"},
		{"GET", "/mcp/", "", 200, "text/html", "", "filed"},
		{"HEAD", "/mcp", "", 200, "text/html", "", ""},
		{"POST", "/mcp", "", 404, "application/json", "", "each server has its own endpoint"},
		{"GET", "/mcp/meta/filed", "", 200, "text/html", "", "filed"},
		{"POST", "/mcp/meta/filed", "", 405, "text/plain", "GET, HEAD", ""},
		{"GET", "/mcp/meta/nope", "", 404, "text/html", "", ""},
		{"GET", "/mcp/filed/other", "", 404, "application/json", "", "not found"},
		{"GET", "/mcp/a/b/c", "", 404, "application/json", "", "not found"},
		{"POST", "/mcp/nope", "", 404, "application/json", "", `no server named \"nope\"`},
		{"GET", "/nowhere", "", 404, "text/plain", "", ""},
		{"GET", "/healthz", "", 200, "text/plain", "", "ok"},
		{"POST", "/healthz", "", 404, "text/plain", "", ""},
		{"GET", "/metrics", "", 200, "text/plain", "", "mcpbridge_open_sessions"},
		{"GET", "/admin/api/servers", "", 401, "application/json", "", "admin key"},
		{"GET", "/admin/api/servers", adminKey, 200, "application/json", "", `"filed"`},
		{"PATCH", "/admin/api/servers", adminKey, 405, "application/json", "GET, POST", ""},
		{"PATCH", "/admin/api/servers/x", adminKey, 405, "application/json", "GET, PUT, DELETE", ""},
		{"GET", "/admin/api/servers/filed", adminKey, 200, "application/json", "", `"file"`},
		{"POST", "/admin/api/audit", adminKey, 404, "application/json", "", "unknown admin API path"},
		{"GET", "/admin/api/nothing", adminKey, 404, "application/json", "", "unknown admin API path"},
		{"GET", "/admin/api/nothing", "", 401, "application/json", "", ""},
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, base+c.path, nil)
		req.Header.Set("Accept", "text/html")
		if c.key != "" {
			req.Header.Set("Authorization", "Bearer "+c.key)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), c.contentType) ||
			resp.Header.Get("Allow") != c.allow || !strings.Contains(string(b), c.bodyHas) {
			t.Errorf("%s %s: %d %q Allow=%q %.200s; want %d %q Allow=%q containing %q", c.method, c.path,
				resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Allow"), b, c.status, c.contentType, c.allow, c.bodyHas)
		}
	}
}
