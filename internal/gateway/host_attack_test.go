package gateway_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
)

// Issue 12.9: DNS rebinding. On a loopback listener, pages, /metrics and /healthz refuse a
// foreign Host like the MCP endpoints do.
func TestAttackHostHeader(t *testing.T) {
	lb := serveLoopback(t, limitsSection("{drain_period: 1s}")+echoServers, gateway.Options{}, nil)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range []string{"/mcp", "/mcp/meta/demo", "/metrics", "/healthz", "/mcp/demo", "/_mcpbridge/static/style.css", "/"} {
		for _, host := range []string{"evil.example", "evil.example:" + strings.Split(lb.addr, ":")[1], "127.0.0.1.evil.example"} {
			req, _ := http.NewRequest("GET", lb.base+p, nil)
			req.Host = host
			req.Header.Set("Accept", "text/html")
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("GET %s with Host %s: %d %.80q, want 403", p, host, resp.StatusCode, b)
			}
		}
		for _, host := range []string{lb.addr, "localhost:" + strings.Split(lb.addr, ":")[1], "[::1]:1"} {
			req, _ := http.NewRequest("GET", lb.base+p, nil)
			req.Host = host
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusForbidden {
				t.Errorf("GET %s with Host %s: 403", p, host)
			}
		}
	}
	// Behind a reverse proxy on the same machine that passes its public Host on, the host
	// of a configured origin is accepted too.
	proxied := serveLoopback(t, "origins: [https://mcp.example.com]\n"+limitsSection("{drain_period: 1s}")+echoServers, gateway.Options{}, nil)
	for host, want := range map[string]int{"mcp.example.com": 200, "other.example.com": 403} {
		req, _ := http.NewRequest("GET", proxied.base+"/healthz", nil)
		req.Host = host
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("origins [https://mcp.example.com], Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
}

// Issue 12.9: the copy-paste snippets name the address the gateway listens on, never what a
// request's Host or X-Forwarded-* headers say.
func TestAttackSnippetReflection(t *testing.T) {
	for _, c := range []struct {
		name string
		opts gateway.Options
		host string
	}{
		{"loopback host name", gateway.Options{}, "localhost"},
		{"host check off", gateway.Options{DisableLocalhostProtection: true}, "evil.example"},
	} {
		t.Run(c.name, func(t *testing.T) {
			lb := serveLoopback(t, limitsSection("{drain_period: 1s}")+echoServers, c.opts, nil)
			port := strings.Split(lb.addr, ":")[1]
			req, _ := http.NewRequest("GET", lb.base+"/mcp/meta/demo", nil)
			req.Host = c.host + ":" + port
			req.Header.Set("X-Forwarded-Host", "forwarded.example")
			req.Header.Set("X-Forwarded-Proto", "https")
			req.Header.Set("Forwarded", "host=forwarded2.example;proto=https")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			page := string(b)
			want := "http://" + lb.addr + "/mcp/demo"
			for _, bad := range []string{c.host + ":" + port, "forwarded.example", "forwarded2.example", "https://"} {
				if strings.Contains(page, bad) {
					t.Errorf("Host %s: the page reflects %q", req.Host, bad)
				}
			}
			if resp.StatusCode != 200 || !strings.Contains(page, want) {
				t.Errorf("Host %s: %d; the snippets do not name %s", req.Host, resp.StatusCode, want)
			}
			t.Logf("Host %s: endpoints in the page: %q", req.Host, regexp.MustCompile(`https?://[^ <"'\\]+/mcp/demo`).FindAllString(page, 3))
		})
	}
}
