package safehttp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// MaxRedirects is the number of redirects a client follows; the next one is an error.
const MaxRedirects = 5

// MaxHeaderBytes bounds the header of one answer; a longer one fails the request.
const MaxHeaderBytes = 1 << 20

// Options tunes the shared transport and the client. Zero fields take the defaults shown.
type Options struct {
	// Timeout bounds a whole request including reading the body (http.Client.Timeout).
	// Default 30s. Per-call deadlines should come from the request context.
	Timeout time.Duration
	// DialTimeout bounds DNS resolution plus TCP connect. Default 10s.
	DialTimeout time.Duration
	// TLSHandshakeTimeout. Default 10s.
	TLSHandshakeTimeout time.Duration
	// ResponseHeaderTimeout bounds the wait for response headers. Default 30s.
	ResponseHeaderTimeout time.Duration
	// IdleConnTimeout closes keep-alive connections idle this long. Default 90s.
	IdleConnTimeout time.Duration
	// MaxIdleConnsPerHost keeps this many idle connections per host, enough for that many
	// concurrent callers to reuse connections. Default 32.
	MaxIdleConnsPerHost int
	// MaxIdleConns bounds idle connections over all hosts. Default 256.
	MaxIdleConns int
}

func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Timeout, 30*time.Second)
	def(&o.DialTimeout, 10*time.Second)
	def(&o.TLSHandshakeTimeout, 10*time.Second)
	def(&o.ResponseHeaderTimeout, 30*time.Second)
	def(&o.IdleConnTimeout, 90*time.Second)
	if o.MaxIdleConnsPerHost <= 0 {
		o.MaxIdleConnsPerHost = 32
	}
	if o.MaxIdleConns <= 0 {
		o.MaxIdleConns = 256
	}
	return o
}

// transports caches what clients of one (policy, options) share, so every tool with the
// same policy shares connections.
var transports struct {
	sync.Mutex
	m map[string]*shared
}

// shared is what the clients of one (policy, options) share: the transport.
type shared struct {
	http *http.Transport
}

// sharedFor returns the transports of (c, opts), creating them on first use; opts has its
// defaults.
func sharedFor(c compiled, opts Options) *shared {
	key := fmt.Sprintf("%s|%+v", c.key(), opts)
	transports.Lock()
	defer transports.Unlock()
	if s, ok := transports.m[key]; ok {
		return s
	}
	if transports.m == nil {
		transports.m = make(map[string]*shared)
	}
	t := newTransport(c, opts)
	s := &shared{http: t}
	transports.m[key] = s
	return s
}

// NewClient returns a client whose connections go only where p allows: every address is
// checked after DNS resolution, at dial time, and every redirect is checked (at most
// MaxRedirects are followed). Refusals are *BlockedError values (wrapped in *url.Error by
// net/http; use errors.As). The client shares one transport with all clients of the same
// policy and options; creating many clients is cheap and opens no connections. Proxies from
// the environment are never used (they would bypass the checks).
func NewClient(p Policy, opts Options) *http.Client {
	opts = opts.withDefaults()
	c := compilePolicy(p)
	s := sharedFor(c, opts)
	return &http.Client{
		Transport:     s.http,
		CheckRedirect: c.checkRedirect,
		Timeout:       opts.Timeout,
	}
}

// SharedTransport returns the transport shared by all clients with this policy and these
// options, creating it on first use. It is safe for concurrent use; do not modify it.
func SharedTransport(p Policy, opts Options) *http.Transport {
	return sharedFor(compilePolicy(p), opts.withDefaults()).http
}

func newTransport(c compiled, opts Options) *http.Transport {
	d := &guardedDialer{
		policy: c,
		dialer: net.Dialer{
			Timeout:   opts.DialTimeout,
			KeepAlive: 30 * time.Second,
		},
	}
	d.dialer.Control = d.control
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           d.dialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          opts.MaxIdleConns,
		MaxIdleConnsPerHost:   opts.MaxIdleConnsPerHost,
		IdleConnTimeout:       opts.IdleConnTimeout,
		TLSHandshakeTimeout:   opts.TLSHandshakeTimeout,
		ResponseHeaderTimeout: opts.ResponseHeaderTimeout,
		ExpectContinueTimeout: time.Second,
		// An answer's header is bounded: a hostile upstream that sends an endless header
		// fails the request instead of growing memory.
		MaxResponseHeaderBytes: MaxHeaderBytes,
	}
}

// guardedDialer resolves the host itself, checks every address, and dials only checked
// addresses; the socket Control hook checks the final address once more.
type guardedDialer struct {
	policy compiled
	dialer net.Dialer
}

// testHookDial, when set by tests, observes every socket about to connect.
var testHookDial func(network, address string)

func (d *guardedDialer) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("dialing %s: %w", addr, err)
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("dialing %s: invalid port %q", addr, portStr)
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		ips, err = net.DefaultResolver.LookupNetIP(ctx, ipNetwork(network), host)
		if err != nil {
			return nil, fmt.Errorf("resolving %s: %w", host, err)
		}
	}
	var firstBlock, lastErr error
	for _, ip := range ips {
		if err := d.policy.check(host, ip); err != nil {
			if firstBlock == nil {
				firstBlock = err
			}
			continue
		}
		conn, err := d.dialer.DialContext(ctx, network, netip.AddrPortFrom(ip, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		lastErr = err
	}
	if lastErr != nil {
		return nil, lastErr
	}
	if firstBlock != nil {
		return nil, firstBlock
	}
	return nil, fmt.Errorf("resolving %s: no addresses", host)
}

// control runs just before connect(2): a second check on the exact address.
func (d *guardedDialer) control(network, address string, _ syscall.RawConn) error {
	if testHookDial != nil {
		testHookDial(network, address)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("checking %s: %w", address, err)
	}
	// The policy (including host-name allowances) was applied in dialContext; here the
	// always-refused classes are enforced once more on the exact address being connected.
	reason, always := classify(ap.Addr())
	if always {
		return &BlockedError{Host: ap.Addr().String(), IP: ap.Addr(), Reason: reason}
	}
	return nil
}

func ipNetwork(network string) string {
	switch network {
	case "tcp4":
		return "ip4"
	case "tcp6":
		return "ip6"
	}
	return "ip"
}

// errTooManyRedirects is wrapped by the redirect error.
var errTooManyRedirects = errors.New("too many redirects")

// checkRedirect refuses a redirect beyond MaxRedirects, to a scheme other than http(s), or
// to an address literal the policy refuses (names are checked when dialed).
func (c compiled) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return fmt.Errorf("stopped after %d redirects (the limit is %d): %w", MaxRedirects, MaxRedirects, errTooManyRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return &BlockedError{Host: req.URL.Host, Reason: fmt.Sprintf("redirect to unsupported scheme %q", req.URL.Scheme)}
	}
	host := req.URL.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if err := c.check(host, ip); err != nil {
			return err
		}
	}
	return nil
}
