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
// unspecified addresses (0.0.0.0/8, ::); multicast and broadcast. IPv4-mapped
// (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) spellings are judged as their IPv4 address.
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
