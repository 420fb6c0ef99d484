package httpapi

import (
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/safehttp"
)

// Clients are shared by SSRF policy: every backend with the same policy uses the same
// transport (one connection pool), so a tool call never opens a descriptor of its own that
// outlives it, and reloading a server does not leak pools.
var (
	clientsMu sync.Mutex
	clients   = map[string]*http.Client{}
)

func policyOf(s serverSection) safehttp.Policy {
	hosts := append([]string(nil), s.AllowHosts...)
	sort.Strings(hosts)
	return safehttp.Policy{AllowPrivate: s.AllowPrivate, AllowHosts: hosts}
}

func policyKey(p safehttp.Policy) string {
	var b strings.Builder
	if p.AllowPrivate {
		b.WriteString("private;")
	}
	b.WriteString(strings.Join(p.AllowHosts, ","))
	return b.String()
}

// clientFor returns the shared client of a policy, wrapped so that headers carrying secrets
// are not forwarded to another host on a redirect.
func clientFor(p safehttp.Policy) *http.Client {
	key := policyKey(p)
	clientsMu.Lock()
	defer clientsMu.Unlock()
	if c, ok := clients[key]; ok {
		return c
	}
	// Per-call deadlines come from the tool's timeout on the request context; the client's own
	// limits are set beyond any sensible tool timeout so they never cut a call short.
	base := safehttp.NewClient(p, safehttp.Options{Timeout: clientCeiling, ResponseHeaderTimeout: clientCeiling})
	c := *base
	next := base.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if next != nil {
			if err := next(req, via); err != nil {
				return err
			}
		}
		if strip, _ := req.Context().Value(stripKey{}).(map[string]bool); len(strip) > 0 && len(via) > 0 &&
			!strings.EqualFold(req.URL.Host, via[0].URL.Host) {
			for h := range strip {
				req.Header.Del(h)
			}
		}
		return nil
	}
	clients[key] = &c
	return &c
}

// clientCeiling is the client-level bound of a request; tool timeouts are shorter.
const clientCeiling = 24 * time.Hour

// stripKey carries, on a request's context, the headers to drop on a cross-host redirect.
type stripKey struct{}
