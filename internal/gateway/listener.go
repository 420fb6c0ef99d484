package gateway

import (
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// maxDefaultConnections caps the default of limits.connections (half the open-file limit).
const maxDefaultConnections = 4096

// clientKey names the client a remote address belongs to, for per-client limits: the IP
// address, or for IPv6 its /64 network (one host usually holds a whole /64).
func clientKey(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return host
	}
	if ip4 := ip.To4(); ip4 != nil {
		return ip4.String()
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// connLimiter caps the connections a listener hands to the HTTP server: in all and per
// client. A connection over a cap is answered at once with a minimal HTTP response (429 for
// the client's cap, 503 for the total, both with Retry-After) and closed, so one client
// cannot hold every descriptor of the process while others wait.
type connLimiter struct {
	net.Listener
	total, perClient int
	refused          func(limit string)

	mu       sync.Mutex
	open     int
	byClient map[string]int
}

func newConnLimiter(ln net.Listener, total, perClient int, refused func(limit string)) *connLimiter {
	return &connLimiter{Listener: ln, total: total, perClient: perClient, refused: refused, byClient: map[string]int{}}
}

// Accept returns the next connection within the limits.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := clientKey(c.RemoteAddr().String())
		l.mu.Lock()
		status := 0
		switch {
		case l.open >= l.total:
			status = http.StatusServiceUnavailable
		case l.byClient[key] >= l.perClient:
			status = http.StatusTooManyRequests
		default:
			l.open++
			l.byClient[key]++
		}
		l.mu.Unlock()
		if status == 0 {
			return &limitedConn{Conn: c, release: func() { l.release(key) }}, nil
		}
		l.refuse(c, status)
	}
}

func (l *connLimiter) release(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if l.byClient[key]--; l.byClient[key] <= 0 {
		delete(l.byClient, key)
	}
}

// refuse answers a connection over a cap and closes it. The answer fits in the socket's
// send buffer, so the write does not wait for the client.
func (l *connLimiter) refuse(c net.Conn, status int) {
	msg, limit := "too many connections from your address; close idle ones or retry shortly\n", "connections_per_client"
	if status == http.StatusServiceUnavailable {
		msg, limit = "the gateway has as many connections open as it allows; retry shortly\n", "connections"
	}
	if l.refused != nil {
		l.refused(limit)
	}
	c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
		status, http.StatusText(status), len(msg), msg)
	c.Close()
}

// limitedConn gives its slot back once, when closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// CloseWrite lets the HTTP server half-close the connection after an error answer, as it
// does on a bare TCP connection, so the client reads the answer before the close.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
