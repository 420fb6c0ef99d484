package safehttp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"syscall"
	"time"
)

// directTransport sends plain-HTTP/1.1 requests on the caller's goroutine: it writes the
// request and reads the answer itself on a pooled keep-alive connection, where
// http.Transport hands each request to a writer goroutine and each answer back from a
// reader goroutine of the connection. On a small machine those two hand-offs per request
// (each a wake-up of another thread) cost more than the rest of a call to a nearby API.
// Anything else — TLS, a proxy, a protocol upgrade, Expect: 100-continue — goes to the
// wrapped http.Transport.
type directTransport struct {
	fallback *http.Transport
	dial     func(ctx context.Context, network, addr string) (net.Conn, error)
	opts     Options

	mu   sync.Mutex
	idle map[string][]*directConn // by host:port, most recently used last
	n    int                      // idle connections over all hosts
}

// directConn is one keep-alive connection of a directTransport.
type directConn struct {
	t    *directTransport
	key  string
	conn net.Conn
	br   *bufio.Reader
	bw   *bufio.Writer
	lim  limitReader // bounds what a response's header may take
	out  countWriter // counts what was written, to tell whether a request went out
	idle *time.Timer // closes the connection when it has been idle too long

	mu     sync.Mutex
	broken error // set when a cancellation or timeout poisoned the connection
}

// limitReader reads from r at most n bytes, then reports errHeaderTooLong; n < 0 is no limit.
type limitReader struct {
	r net.Conn
	n int64
}

var errHeaderTooLong = errors.New("the response header is too long")

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n < 0 {
		return l.r.Read(p)
	}
	if l.n == 0 {
		return 0, errHeaderTooLong
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// countWriter writes to w and counts the bytes written.
type countWriter struct {
	w net.Conn
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// maxResponseHeader is the most a response's status line and header may take (as
// http.Transport's default).
const maxResponseHeader = 10 << 20

func (t *directTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "http" || req.Method == http.MethodConnect || req.Header.Get("Upgrade") != "" ||
		req.Header.Get("Expect") != "" || req.URL.Host == "" {
		return t.fallback.RoundTrip(req)
	}
	key := req.URL.Host
	if req.URL.Port() == "" {
		key = net.JoinHostPort(req.URL.Hostname(), "80")
	}
	ctx := req.Context()
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if err := checkRequest(req); err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		c, reused, err := t.get(ctx, key)
		if err != nil {
			return nil, err
		}
		resp, sent, err := c.roundTrip(req)
		if err == nil {
			return resp, nil
		}
		c.close()
		// A kept-alive connection the server closed in the meantime fails with nothing
		// sent, or with nothing answered: try once more on a new connection if the request
		// can be sent again (a request that went out only if it is idempotent).
		if reused && attempt == 0 && ctx.Err() == nil && (sent == sentNothing || sent == sentUnanswered && replayable(req)) {
			if req.Body != nil && req.Body != http.NoBody {
				if req.GetBody == nil {
					return nil, err // the body is spent and cannot be made again
				}
				body, gerr := req.GetBody()
				if gerr != nil {
					return nil, err
				}
				req = req.Clone(ctx)
				req.Body = body
			}
			continue
		}
		return nil, err
	}
}

// checkRequest refuses what http.Transport refuses before sending and Request.Write would
// not: a method, header name or header value that is not allowed on the wire (a control
// character, a line break).
func checkRequest(req *http.Request) error {
	if req.Method != "" && !ValidToken(req.Method) {
		return fmt.Errorf("net/http: invalid method %q", req.Method)
	}
	for k, vs := range req.Header {
		if !ValidToken(k) {
			return fmt.Errorf("net/http: invalid header field name %q", k)
		}
		for _, v := range vs {
			if !ValidHeaderValue(v) {
				return fmt.Errorf("net/http: invalid header field value for %q", k)
			}
		}
	}
	return nil
}

// replayable reports whether a request may be sent again after it went out and the
// connection failed before an answer (as net/http decides).
func replayable(req *http.Request) bool {
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return false
	}
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	_, a := req.Header["Idempotency-Key"]
	_, b := req.Header["X-Idempotency-Key"]
	return a || b
}

// get returns an idle connection to key that is still open, or dials a new one.
func (t *directTransport) get(ctx context.Context, key string) (c *directConn, reused bool, err error) {
	for {
		t.mu.Lock()
		list := t.idle[key]
		if len(list) == 0 {
			t.mu.Unlock()
			break
		}
		c = list[len(list)-1]
		list[len(list)-1] = nil
		t.idle[key] = list[:len(list)-1]
		t.n--
		t.mu.Unlock()
		c.idle.Stop()
		if c.open() {
			if trace := httptrace.ContextClientTrace(ctx); trace != nil && trace.GotConn != nil {
				trace.GotConn(httptrace.GotConnInfo{Conn: c.conn, Reused: true, WasIdle: true})
			}
			return c, true, nil
		}
		c.conn.Close()
	}
	conn, err := t.dial(ctx, "tcp", key)
	if err != nil {
		return nil, false, err
	}
	c = &directConn{t: t, key: key, conn: conn}
	c.lim.r, c.out.w = conn, conn
	c.br = bufio.NewReaderSize(&c.lim, 4096)
	c.bw = bufio.NewWriterSize(&c.out, 4096)
	if trace := httptrace.ContextClientTrace(ctx); trace != nil && trace.GotConn != nil {
		trace.GotConn(httptrace.GotConnInfo{Conn: conn})
	}
	return c, false, nil
}

// open reports whether an idle connection can carry a request: nothing is waiting to be
// read on it (the server sent no close and no stray bytes). One non-blocking peek.
func (c *directConn) open() bool {
	if c.br.Buffered() > 0 {
		return false
	}
	sc, ok := c.conn.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	alive := false
	var buf [1]byte
	err = rc.Read(func(fd uintptr) bool {
		_, _, rerr := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		alive = rerr == syscall.EAGAIN // not a byte, not the end, not an error
		return true
	})
	return err == nil && alive
}

// put returns c to the idle pool, or closes it when the pool is full.
func (t *directTransport) put(c *directConn) {
	t.mu.Lock()
	if len(t.idle[c.key]) >= t.opts.MaxIdleConnsPerHost || t.n >= t.opts.MaxIdleConns {
		t.mu.Unlock()
		c.conn.Close()
		return
	}
	if t.idle == nil {
		t.idle = make(map[string][]*directConn)
	}
	// The timer is set before c is in the pool, where get may take it at once.
	if c.idle == nil {
		c.idle = time.AfterFunc(t.opts.IdleConnTimeout, func() { t.expire(c) })
	} else {
		c.idle.Reset(t.opts.IdleConnTimeout)
	}
	t.idle[c.key] = append(t.idle[c.key], c)
	t.n++
	t.mu.Unlock()
}

// expire closes c if it is still idle.
func (t *directTransport) expire(c *directConn) {
	t.mu.Lock()
	list := t.idle[c.key]
	for i, x := range list {
		if x == c {
			t.idle[c.key] = append(list[:i], list[i+1:]...)
			t.n--
			t.mu.Unlock()
			c.conn.Close()
			return
		}
	}
	t.mu.Unlock()
}

// CloseIdleConnections closes every idle connection (http.Client calls it).
func (t *directTransport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle, t.n = nil, 0
	t.mu.Unlock()
	for _, list := range idle {
		for _, c := range list {
			c.idle.Stop()
			c.conn.Close()
		}
	}
	t.fallback.CloseIdleConnections()
}

// poison makes every read and write on c fail from now on, with err.
func (c *directConn) poison(err error) {
	c.mu.Lock()
	if c.broken == nil {
		c.broken = err
	}
	c.mu.Unlock()
	c.conn.SetDeadline(time.Unix(1, 0))
}

func (c *directConn) close() { c.conn.Close() }

// healthy reports whether nothing has poisoned c.
func (c *directConn) healthy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.broken == nil
}

// cause returns err, or what poisoned c when that is why it failed.
func (c *directConn) cause(err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return c.broken
	}
	return err
}

// How far a failed exchange got.
const (
	sentNothing    = iota // not a byte of the request reached the connection
	sentUnanswered        // the request went out and the connection ended with no answer
	sentOther             // anything else: part of a request or of an answer, a timeout
)

// roundTrip writes req and reads the answer's header; the body is read by the caller.
// On failure, sent says how far the exchange got.
func (c *directConn) roundTrip(req *http.Request) (_ *http.Response, sent int, _ error) {
	ctx := req.Context()
	stop := context.AfterFunc(ctx, func() { c.poison(context.Cause(ctx)) })
	header := time.AfterFunc(c.t.opts.ResponseHeaderTimeout, func() {
		c.poison(fmt.Errorf("timeout awaiting response headers (%s)", c.t.opts.ResponseHeaderTimeout))
	})
	written := c.out.n
	wrote := false
	fail := func(err error) (*http.Response, int, error) {
		stop()
		header.Stop()
		sent := sentOther
		switch {
		case !c.healthy():
		case c.out.n == written:
			sent = sentNothing
		case wrote && c.lim.n == maxResponseHeader && c.br.Buffered() == 0:
			sent = sentUnanswered
		}
		return nil, sent, c.cause(err)
	}
	if err := req.Write(c.bw); err != nil {
		return fail(err)
	}
	if err := c.bw.Flush(); err != nil {
		return fail(err)
	}
	wrote = true
	if trace := httptrace.ContextClientTrace(ctx); trace != nil && trace.WroteRequest != nil {
		trace.WroteRequest(httptrace.WroteRequestInfo{})
	}
	c.lim.n = maxResponseHeader
	var resp *http.Response
	for informational := 0; ; informational++ {
		if informational > 5 { // as net/http
			return fail(errors.New("the server sent too many informational (1xx) answers"))
		}
		var err error
		resp, err = http.ReadResponse(c.br, req)
		if err != nil {
			return fail(err)
		}
		if resp.StatusCode == http.StatusSwitchingProtocols {
			return fail(errors.New("the server switched protocols, which the request did not ask for"))
		}
		if resp.StatusCode >= 200 {
			break
		}
		// An informational answer (100 Continue, 103 Early Hints) comes before the real one.
	}
	if !header.Stop() {
		return fail(errors.New("the header timer fired")) // c.cause says which
	}
	c.lim.n = -1
	b := &directBody{c: c, rc: resp.Body, stop: stop, keep: !resp.Close && !req.Close}
	if resp.Body == http.NoBody {
		// Nothing to read (HEAD, 204, 304, a zero length): the connection is free now.
		b.release(true)
		resp.Body = http.NoBody
		return resp, 0, nil
	}
	resp.Body = b
	return resp, 0, nil
}

// directBody is an answer's body. Read to its end, its connection goes back to the pool;
// closed before, the connection is closed (which also ends a Read blocked in another
// goroutine), so what the server still sends can never be read as the next answer.
type directBody struct {
	c    *directConn
	rc   io.ReadCloser // http.ReadResponse's body, reading from c
	stop func() bool   // stops the cancellation hook; false once it ran
	keep bool          // the server keeps the connection open after this answer

	mu   sync.Mutex
	done bool
}

var errBodyClosed = errors.New("http: read on closed response body")

func (b *directBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	done := b.done
	b.mu.Unlock()
	if done {
		return 0, errBodyClosed
	}
	n, err := b.rc.Read(p)
	switch {
	case err == io.EOF:
		b.release(true)
	case err != nil:
		err = b.c.cause(err)
		b.mu.Lock()
		if b.done {
			err = errBodyClosed
		}
		b.mu.Unlock()
	}
	return n, err
}

func (b *directBody) Close() error {
	b.release(false)
	return nil
}

// release gives the connection back once: to the pool when the body was read whole, the
// server keeps the connection and no cancellation touched it; closed otherwise.
func (b *directBody) release(eof bool) {
	b.mu.Lock()
	if b.done {
		b.mu.Unlock()
		return
	}
	b.done = true
	b.mu.Unlock()
	if b.stop() && eof && b.keep && b.c.healthy() {
		b.c.t.put(b.c)
		return
	}
	b.c.close()
}
