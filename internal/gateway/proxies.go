package gateway

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/config"
)

// proxies says who the client of a request is when reverse proxies stand in front of the
// gateway (trusted_proxies, proxy_header): a request from a trusted proxy names its client in
// the proxy header; any other request's client is its connection's peer, whatever headers
// it sends.
type proxies struct {
	trusted []netip.Prefix
	header  string // canonical: X-Forwarded-For or Forwarded
}

func newProxies(cfg *config.Config) proxies {
	return proxies{trusted: cfg.TrustedNets(), header: cfg.ClientHeader()}
}

func (p proxies) isTrusted(a netip.Addr) bool {
	for _, n := range p.trusted {
		if n.Contains(a) {
			return true
		}
	}
	return false
}

// client returns the IP address of the client of r. It is the connection's peer unless the
// peer is a trusted proxy; then the hops of the proxy header are read from the right (each
// proxy appends the address it got the request from), trusted proxies are passed over, and
// the first address that is not a trusted proxy's is the client's. Everything left of it was
// written by someone the gateway does not trust, and is ignored. A hop that is not an
// address (unknown, an obfuscated name, garbage) ends the walk at the last address before
// it, which is a trusted proxy's; when every hop is a trusted proxy, the left-most one is
// the client.
func (p proxies) client(r *http.Request) string {
	peer, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		peer = r.RemoteAddr
	}
	if len(p.trusted) == 0 {
		return peer
	}
	addr, err := netip.ParseAddr(peer)
	if err != nil {
		return peer
	}
	addr = addr.Unmap().WithZone("")
	if !p.isTrusted(addr) {
		return peer
	}
	hops := p.hops(r.Header.Values(p.header))
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseHop(hops[i])
		if !ok {
			break
		}
		addr = a
		if !p.isTrusted(a) {
			break
		}
	}
	return addr.String()
}

// hops splits the values of the proxy header into its hops, left (the first client named)
// to right (the last proxy's peer): X-Forwarded-For lists addresses; Forwarded lists
// elements, whose for= parameter is the hop ("" when an element has none).
func (p proxies) hops(values []string) []string {
	var out []string
	for _, v := range values {
		for _, part := range splitUnquoted(v, ',') {
			part = strings.TrimSpace(part)
			if p.header != config.HeaderForwarded {
				out = append(out, part)
				continue
			}
			hop := ""
			for _, pair := range splitUnquoted(part, ';') {
				k, val, _ := strings.Cut(strings.TrimSpace(pair), "=")
				if strings.EqualFold(strings.TrimSpace(k), "for") {
					hop = strings.Trim(strings.TrimSpace(val), `"`)
				}
			}
			out = append(out, hop)
		}
	}
	return out
}

// splitUnquoted splits s at sep outside double-quoted strings.
func splitUnquoted(s string, sep byte) []string {
	var out []string
	quoted, escaped, start := false, false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
		case quoted && c == '\\':
			escaped = true
		case c == '"':
			quoted = !quoted
		case c == sep && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// parseHop reads one hop: an IPv4 or IPv6 address, with or without a port, IPv6 in
// brackets or not.
func parseHop(h string) (netip.Addr, bool) {
	h = strings.TrimSpace(h)
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Unmap().WithZone(""), true
	}
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	} else {
		h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	}
	a, err := netip.ParseAddr(h)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}
