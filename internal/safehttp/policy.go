package safehttp

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// Policy says which destination addresses upstream calls may reach. The zero value allows
// public addresses only. Whatever the policy, link-local and cloud metadata addresses,
// unspecified, broadcast and multicast addresses are refused. An IPv6 address carrying an
// IPv4 address (mapped, compatible, translated, NAT64, 6to4, Teredo) is judged as that IPv4
// address (see the package documentation).
type Policy struct {
	// AllowPrivate allows loopback (127.0.0.0/8, ::1), private (RFC 1918, fc00::/7),
	// shared (CGNAT, 100.64.0.0/10) and other reserved, non-public ranges.
	AllowPrivate bool
	// AllowHosts lists host names ("api.internal", "*.corp.example") and IP addresses or
	// CIDR prefixes ("10.1.0.0/16", "192.168.1.5") that may be reached even when they are
	// private. It never allows the always-refused addresses.
	AllowHosts []string
}

// BlockedError reports a destination refused by the policy. Callers can show it to the
// user as is: "refused to connect to 169.254.169.254 (link-local/metadata address)".
type BlockedError struct {
	// Host is the host name or address being connected to, as written in the URL.
	Host string
	// IP is the refused address (after DNS resolution), invalid when the refusal is not
	// about an address (e.g. a redirect to an unsupported scheme).
	IP netip.Addr
	// Reason names the kind of address: "link-local/metadata address", "loopback address", ...
	Reason string
}

// Error returns a sentence naming the address, the host if different, and the reason.
func (e *BlockedError) Error() string {
	var b strings.Builder
	b.WriteString("refused to connect to ")
	switch {
	case !e.IP.IsValid():
		b.WriteString(e.Host)
	case e.Host == "" || e.Host == e.IP.String():
		b.WriteString(e.IP.String())
	default:
		fmt.Fprintf(&b, "%s (%s)", e.Host, e.IP)
	}
	fmt.Fprintf(&b, ": %s", e.Reason)
	if e.IP.IsValid() && !alwaysRefused(e.IP) {
		b.WriteString("; allow it with allow_private or by listing the host in allow_hosts")
	}
	return b.String()
}

// Reasons used in BlockedError.Reason.
const (
	reasonMetadata    = "link-local/metadata address"
	reasonUnspecified = "unspecified address"
	reasonMulticast   = "multicast/broadcast address"
	reasonLoopback    = "loopback address"
	reasonPrivate     = "private address"
	reasonShared      = "shared (CGNAT) address"
	reasonReserved    = "reserved, non-public address"
)

var (
	// metadataAddrs are cloud metadata endpoints outside the link-local ranges.
	metadataAddrs = []netip.Addr{
		netip.MustParseAddr("fd00:ec2::254"),   // AWS IMDS over IPv6
		netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud metadata
	}
	thisNetwork  = netip.MustParsePrefix("0.0.0.0/8")
	broadcast    = netip.MustParseAddr("255.255.255.255")
	sharedPrefix = netip.MustParsePrefix("100.64.0.0/10")
	reserved     = []netip.Prefix{
		netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
		netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
		netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
		netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
		netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
		netip.MustParsePrefix("240.0.0.0/4"),     // reserved
		netip.MustParsePrefix("2001:db8::/32"),   // documentation
		netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
		netip.MustParsePrefix("100::/64"),        // discard-only
	}
)

// IPv6 forms that carry an IPv4 address: a connection to one of them can end at that IPv4
// address (through the kernel, a translator or a tunnel), so they are judged by it.
var (
	compatPrefix     = netip.MustParsePrefix("::/96")           // IPv4-compatible, ::a.b.c.d (RFC 4291, deprecated)
	siitPrefix       = netip.MustParsePrefix("::ffff:0:0:0/96") // IPv4-translated, ::ffff:0:a.b.c.d (SIIT, RFC 2765)
	nat64Prefix      = netip.MustParsePrefix("64:ff9b::/96")    // NAT64 well-known prefix (RFC 6052)
	nat64LocalPrefix = netip.MustParsePrefix("64:ff9b:1::/48")  // NAT64 local-use prefix (RFC 8215)
	sixToFourPrefix  = netip.MustParsePrefix("2002::/16")       // 6to4, 2002:AABB:CCDD::/48 (RFC 3056)
	teredoPrefix     = netip.MustParsePrefix("2001::/32")       // Teredo, client address inverted in the last 32 bits (RFC 4380)
)

// canonical returns the address ip is judged as: without zone, and the IPv4 address it
// carries when it is an IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d, but not
// :: or ::1), IPv4-translated (::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d, and the last 32
// bits of 64:ff9b:1::/48), 6to4 (2002:AABB:CCDD::) or Teredo (2001:0::, the client address)
// address, so a refused IPv4 address cannot be reached through an IPv6 spelling.
func canonical(ip netip.Addr) netip.Addr {
	ip = ip.Unmap().WithZone("")
	if !ip.Is6() {
		return ip
	}
	b := ip.As16()
	switch {
	case nat64Prefix.Contains(ip), nat64LocalPrefix.Contains(ip), siitPrefix.Contains(ip),
		compatPrefix.Contains(ip) && ip != netip.IPv6Unspecified() && ip != netip.IPv6Loopback():
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	case sixToFourPrefix.Contains(ip):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})
	case teredoPrefix.Contains(ip):
		return netip.AddrFrom4([4]byte{b[12] ^ 0xff, b[13] ^ 0xff, b[14] ^ 0xff, b[15] ^ 0xff})
	}
	return ip
}

// localNAT64Others returns the IPv4 addresses an address of the local-use NAT64 prefix
// 64:ff9b:1::/48 carries at the positions RFC 6052 gives for translator prefixes of length
// 48, 56 and 64 (bits 64-71 are skipped). The prefix length a translator uses is not
// known here, and translators ignore the bits after the IPv4 address, so an address can
// carry a public IPv4 address in its last 32 bits (the /96 position, judged by canonical)
// and a refused one at another position.
func localNAT64Others(ip netip.Addr) []netip.Addr {
	ip = ip.Unmap().WithZone("")
	if !nat64LocalPrefix.Contains(ip) {
		return nil
	}
	b := ip.As16()
	return []netip.Addr{
		netip.AddrFrom4([4]byte{b[6], b[7], b[9], b[10]}),   // /48
		netip.AddrFrom4([4]byte{b[7], b[9], b[10], b[11]}),  // /56
		netip.AddrFrom4([4]byte{b[9], b[10], b[11], b[12]}), // /64
	}
}

// classify returns why ip is not public ("" when it is public) and whether it is refused
// whatever the policy.
func classify(ip netip.Addr) (reason string, always bool) {
	reason, always, _ = judge(ip)
	return reason, always
}

// judge classifies ip as canonical(ip), and also returns the address the verdict is about.
// In the local-use NAT64 prefix, a loopback, private, shared or link-local/metadata IPv4
// address at another position (localNAT64Others) is refused as well; the other classes
// are not looked for there, since the zero bits of ordinary addresses read as 0.0.0.0/8.
func judge(ip netip.Addr) (reason string, always bool, as netip.Addr) {
	as = canonical(ip)
	reason, always = classifyAddr(as)
	if always {
		return reason, always, as
	}
	for _, other := range localNAT64Others(ip) {
		switch r, a := classifyAddr(other); {
		case a && r == reasonMetadata:
			return r, true, other
		case reason == "" && (r == reasonLoopback || r == reasonPrivate || r == reasonShared):
			reason, as = r, other
		}
	}
	return reason, false, as
}

// classifyAddr classifies ip as it is (see classify).
func classifyAddr(ip netip.Addr) (reason string, always bool) {
	switch {
	case !ip.IsValid():
		return "invalid address", true
	case ip.IsUnspecified() || thisNetwork.Contains(ip):
		return reasonUnspecified, true
	case ip.IsMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsLinkLocalMulticast() || ip == broadcast:
		return reasonMulticast, true
	case ip.IsLinkLocalUnicast() || slices.Contains(metadataAddrs, ip):
		return reasonMetadata, true
	case ip.IsLoopback():
		return reasonLoopback, false
	case ip.IsPrivate():
		return reasonPrivate, false
	case sharedPrefix.Contains(ip):
		return reasonShared, false
	}
	for _, p := range reserved {
		if p.Contains(ip) {
			return reasonReserved, false
		}
	}
	return "", false
}

func alwaysRefused(ip netip.Addr) bool {
	_, always := classify(ip)
	return always
}

// compiled is a Policy prepared for checks.
type compiled struct {
	allowPrivate bool
	names        []string // exact host names, lower case, no trailing dot
	suffixes     []string // from "*.example.com": ".example.com"
	prefixes     []netip.Prefix
}

func compilePolicy(p Policy) compiled {
	c := compiled{allowPrivate: p.AllowPrivate}
	for _, h := range p.AllowHosts {
		h = normalizeHost(h)
		if h == "" {
			continue
		}
		if pfx, err := netip.ParsePrefix(h); err == nil {
			c.prefixes = append(c.prefixes, pfx.Masked())
			continue
		}
		if ip, err := netip.ParseAddr(h); err == nil {
			ip = canonical(ip)
			c.prefixes = append(c.prefixes, netip.PrefixFrom(ip, ip.BitLen()))
			continue
		}
		if rest, ok := strings.CutPrefix(h, "*."); ok {
			c.suffixes = append(c.suffixes, "."+rest)
			continue
		}
		c.names = append(c.names, h)
	}
	return c
}

// key identifies a policy for the transport cache.
func (c compiled) key() string {
	var parts []string
	for _, n := range c.names {
		parts = append(parts, "n:"+n)
	}
	for _, s := range c.suffixes {
		parts = append(parts, "s:"+s)
	}
	for _, p := range c.prefixes {
		parts = append(parts, "p:"+p.String())
	}
	slices.Sort(parts)
	return fmt.Sprintf("private=%t;%s", c.allowPrivate, strings.Join(parts, ","))
}

func normalizeHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	h = strings.TrimSuffix(h, ".")
	return strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
}

func (c compiled) hostAllowed(host string) bool {
	host = normalizeHost(host)
	if slices.Contains(c.names, host) {
		return true
	}
	for _, s := range c.suffixes {
		if strings.HasSuffix(host, s) {
			return true
		}
	}
	return false
}

// check returns a *BlockedError when connecting to ip (resolved from host) is refused.
func (c compiled) check(host string, ip netip.Addr) error {
	reason, always, as := judge(ip)
	if reason == "" {
		return nil
	}
	if !always {
		if c.allowPrivate || c.hostAllowed(host) {
			return nil
		}
		// An allowed prefix may name the address judged (the IPv4 address an IPv6 one
		// carries) or the address as written.
		raw := ip.Unmap().WithZone("")
		for _, p := range c.prefixes {
			if p.Contains(as) || p.Contains(raw) {
				return nil
			}
		}
	}
	return &BlockedError{Host: host, IP: ip, Reason: reason}
}

// Check reports whether the policy allows connecting to ip for host (the name in the URL,
// or the address itself). It returns nil or a *BlockedError.
func (p Policy) Check(host string, ip netip.Addr) error {
	return compilePolicy(p).check(host, ip)
}
