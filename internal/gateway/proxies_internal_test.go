package gateway

import (
	"net/http/httptest"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/config"
)

// The client of a request: the peer unless it is a trusted proxy; from a trusted proxy, the
// right-most hop of the configured header that is not a trusted proxy's.
func TestProxiesClient(t *testing.T) {
	xff := newProxies(&config.Config{TrustedProxies: []string{"10.0.0.0/8", "192.0.2.1", "2001:db8:ffff::/48"}})
	fwd := newProxies(&config.Config{TrustedProxies: []string{"10.0.0.0/8"}, ProxyHeader: "forwarded"})
	none := newProxies(&config.Config{})
	for _, c := range []struct {
		name   string
		p      proxies
		peer   string
		header map[string][]string
		want   string
	}{
		{"no proxies: the peer, whatever it says", none, "10.1.2.3:5000", map[string][]string{"X-Forwarded-For": {"203.0.113.9"}}, "10.1.2.3"},
		{"untrusted peer: its header is ignored", xff, "198.51.100.7:5000", map[string][]string{"X-Forwarded-For": {"203.0.113.9"}}, "198.51.100.7"},
		{"trusted peer, one hop", xff, "10.0.0.5:5000", map[string][]string{"X-Forwarded-For": {"203.0.113.9"}}, "203.0.113.9"},
		{"a single trusted address", xff, "192.0.2.1:5000", map[string][]string{"X-Forwarded-For": {"203.0.113.9"}}, "203.0.113.9"},
		{"trusted peer without the header", xff, "10.0.0.5:5000", nil, "10.0.0.5"},
		{"right-most untrusted hop, not what the client wrote", xff, "10.0.0.5:5000", map[string][]string{"X-Forwarded-For": {"6.6.6.6, 203.0.113.9, 10.9.9.9"}}, "203.0.113.9"},
		{"hops over several header lines", xff, "10.0.0.5:5000", map[string][]string{"X-Forwarded-For": {"6.6.6.6", "203.0.113.9", "10.9.9.9"}}, "203.0.113.9"},
		{"every hop trusted: the left-most", xff, "10.0.0.5:5000", map[string][]string{"X-Forwarded-For": {"10.1.1.1, 10.2.2.2"}}, "10.1.1.1"},
		{"garbage hop ends the walk at the trusted hop after it", xff, "10.0.0.5:5000", map[string][]string{"X-Forwarded-For": {"6.6.6.6, not-an-ip, 10.7.7.7"}}, "10.7.7.7"},
		{"garbage right after the peer: the peer", xff, "10.0.0.5:5000", map[string][]string{"X-Forwarded-For": {"6.6.6.6, <script>"}}, "10.0.0.5"},
		{"ports and brackets", xff, "10.0.0.5:5000", map[string][]string{"X-Forwarded-For": {"[2001:db8::7]:443"}}, "2001:db8::7"},
		{"IPv4-mapped peer", xff, "[::ffff:10.0.0.5]:5000", map[string][]string{"X-Forwarded-For": {"203.0.113.9:1234"}}, "203.0.113.9"},
		{"IPv6 trusted proxy", xff, "[2001:db8:ffff::2]:5000", map[string][]string{"X-Forwarded-For": {"203.0.113.9"}}, "203.0.113.9"},
		{"XFF ignored when the proxy header is Forwarded", fwd, "10.0.0.5:5000", map[string][]string{"X-Forwarded-For": {"203.0.113.9"}}, "10.0.0.5"},
		{"Forwarded", fwd, "10.0.0.5:5000", map[string][]string{"Forwarded": {`for=6.6.6.6, for="[2001:db8::1]:4711";proto=https;by=10.0.0.5`}, "X-Forwarded-For": {"1.1.1.1"}}, "2001:db8::1"},
		{"Forwarded: unknown ends the walk", fwd, "10.0.0.5:5000", map[string][]string{"Forwarded": {`for=203.0.113.9, for=unknown`}}, "10.0.0.5"},
		{"Forwarded: a quoted comma does not split", fwd, "10.0.0.5:5000", map[string][]string{"Forwarded": {`for=203.0.113.9;by="a,b"`}}, "203.0.113.9"},
		{"Forwarded: an element without for", fwd, "10.0.0.5:5000", map[string][]string{"Forwarded": {`for=203.0.113.9, proto=https`}}, "10.0.0.5"},
	} {
		r := httptest.NewRequest("GET", "/mcp", nil)
		r.RemoteAddr = c.peer
		for k, vs := range c.header {
			for _, v := range vs {
				r.Header.Add(k, v)
			}
		}
		if got := c.p.client(r); got != c.want {
			t.Errorf("%s: client %q, want %q", c.name, got, c.want)
		}
	}
}
