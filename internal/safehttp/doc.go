// Package safehttp provides the HTTP client used for upstream API calls: one tuned,
// shared transport per policy, guarded against server-side request forgery (SSRF).
//
//	client := safehttp.NewClient(safehttp.Policy{AllowHosts: []string{"api.internal"}}, safehttp.Options{})
//	resp, err := client.Do(req)
//	var blocked *safehttp.BlockedError
//	if errors.As(err, &blocked) { /* "refused to connect to 169.254.169.254: link-local/metadata address" */ }
//
// # What is refused
//
// The dialer resolves host names itself and checks every resolved address before
// connecting (so DNS rebinding cannot slip a private address past a check done earlier), then
// dials the checked address; a socket Control hook checks the address once more. Redirects
// are checked before they are followed: at most [MaxRedirects], only http and https, and
// address literals against the policy (names are checked when dialed). Proxies from the
// environment are never used.
//
// Always refused, whatever the [Policy]: link-local addresses (169.254.0.0/16, fe80::/10)
// including the cloud metadata endpoints 169.254.169.254, fd00:ec2::254 and 100.100.100.200;
// unspecified addresses (0.0.0.0/8, ::); multicast and broadcast.
//
// IPv6 addresses that carry an IPv4 address are judged as that IPv4 address, so a refused
// IPv4 address cannot be reached through an IPv6 spelling: IPv4-mapped (::ffff:a.b.c.d),
// IPv4-compatible (::a.b.c.d, such as ::7f00:1 for 127.0.0.1; :: and ::1 keep their IPv6
// meaning), IPv4-translated (SIIT, ::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d, and the
// local-use prefix 64:ff9b:1::/48), 6to4 (2002:AABB:CCDD::/48 carries AA.BB.CC.DD) and
// Teredo (2001:0::/32; the client address, stored inverted in the last 32 bits). In the
// local-use NAT64 prefix, whose translator prefix length is not known, the last 32 bits
// decide, and a loopback, private, shared or link-local/metadata address at the /48, /56 or
// /64 position of RFC 6052 is refused too. A prefix in [Policy.AllowHosts] may name the
// IPv4 address or the IPv6 one.
//
// Refused unless [Policy.AllowPrivate] is set or [Policy.AllowHosts] lists the host name or
// a prefix containing the address: loopback, private (RFC 1918, fc00::/7), shared (CGNAT
// 100.64.0.0/10) and reserved or documentation ranges.
//
// # Sharing
//
// [NewClient] is cheap: clients with equal policies and options share one *http.Transport
// ([SharedTransport]) and therefore its keep-alive connections. The default keeps 32 idle
// connections per host, so 16 or more concurrent callers of one upstream reuse connections
// instead of opening a descriptor per call.
package safehttp
