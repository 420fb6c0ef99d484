package safehttp

import (
	"bufio"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// direct is a Direct client that may reach loopback.
func direct(o Options) *http.Client {
	o.Direct = true
	return NewClient(Policy{AllowPrivate: true}, o)
}

// rawServer accepts connections on loopback and hands each to serve, which speaks HTTP
// by hand (to send what net/http's server never would). It returns the base URL and the
// number of connections accepted so far.
func rawServer(t *testing.T, serve func(n int, c net.Conn, br *bufio.Reader)) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var accepted []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range accepted {
			c.Close() // ends a serve waiting for a request on a pooled connection
		}
		mu.Unlock()
		wg.Wait()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			accepted = append(accepted, c)
			mu.Unlock()
			n := int(conns.Add(1))
			wg.Go(func() {
				defer c.Close()
				serve(n, c, bufio.NewReader(c))
			})
		}
	}()
	return "http://" + ln.Addr().String(), &conns
}

// readRequest reads one request and its body, or returns nil at the end of the connection.
func readRequest(br *bufio.Reader) *http.Request {
	r, err := http.ReadRequest(br)
	if err != nil {
		return nil
	}
	io.Copy(io.Discard, r.Body)
	return r
}

func TestDirectKeepsOneConnection(t *testing.T) {
	srv, requests, conns := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/chunked":
			io.WriteString(w, "part one, ")
			w.(http.Flusher).Flush()
			io.WriteString(w, "part two")
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		case "/echo":
			b, _ := io.ReadAll(r.Body)
			w.Write(b)
		default:
			io.WriteString(w, "ok")
		}
	})
	c := direct(Options{})
	for i := range 20 {
		if body, err := get(t, c, srv.URL+"/chunked"); err != nil || body != "part one, part two" {
			t.Fatalf("round %d chunked: %q, %v", i, body, err)
		}
		if body, err := get(t, c, srv.URL+"/empty"); err != nil || body != "" {
			t.Fatalf("round %d 204: %q, %v", i, body, err)
		}
		resp, err := c.Head(srv.URL + "/")
		if err != nil || resp.ContentLength != 2 {
			t.Fatalf("round %d HEAD: %v, %v", i, resp, err)
		}
		resp.Body.Close()
		want := fmt.Sprintf(`{"round":%d}`, i)
		resp, err = c.Post(srv.URL+"/echo", "application/json", strings.NewReader(want))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != want {
			t.Fatalf("round %d POST: %q, want %q", i, b, want)
		}
	}
	if requests.Load() != 80 || conns.Load() != 1 {
		t.Errorf("%d requests over %d connections, want 80 over 1", requests.Load(), conns.Load())
	}
}

func TestDirectServerClosedIdleConnection(t *testing.T) {
	srv, _, conns := newServer(t, ok)
	c := direct(Options{})
	if body, err := get(t, c, srv.URL); err != nil || body != "ok" {
		t.Fatal(body, err)
	}
	srv.CloseClientConnections()
	// Wait until the close has reached the client's socket: the pooled connection's
	// non-blocking peek sees it (the peek consumes nothing).
	tr := c.Transport.(*directTransport)
	key := strings.TrimPrefix(srv.URL, "http://")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		tr.mu.Lock()
		closed := true
		for _, dc := range tr.idle[key] {
			closed = closed && !dc.open()
		}
		tr.mu.Unlock()
		if closed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server's close did not reach the client's idle connection within 30s")
		}
	}
	// Not replayable: it must go on a new connection, not be sent on the closed one.
	resp, err := c.Post(srv.URL, "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatalf("POST after the server closed the idle connection: %v", err)
	}
	resp.Body.Close()
	if conns.Load() != 2 {
		t.Errorf("%d connections, want 2", conns.Load())
	}
}

// A connection that dies between the check and the answer: a GET is sent again on a new
// connection; a POST, which the API may have acted on, is not.
func TestDirectRetriesOnlyReplayableRequests(t *testing.T) {
	var posts atomic.Int64
	// dropsSecond answers "ok" to each request but the second on a connection (on the
	// first connection only, or on every one), which it closes unanswered.
	dropsSecond := func(onlyFirst bool) func(n int, c net.Conn, br *bufio.Reader) {
		return func(n int, c net.Conn, br *bufio.Reader) {
			for i := 0; ; i++ {
				r := readRequest(br)
				if r == nil {
					return
				}
				if r.Method == http.MethodPost {
					posts.Add(1)
				}
				if i == 1 && (n == 1 || !onlyFirst) {
					return
				}
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			}
		}
	}
	url, conns := rawServer(t, dropsSecond(true))
	c := direct(Options{})
	if body, err := get(t, c, url); err != nil || body != "ok" {
		t.Fatal(body, err)
	}
	if body, err := get(t, c, url); err != nil || body != "ok" {
		t.Fatalf("GET on a connection closed unanswered was not sent again: %q, %v", body, err)
	}
	if conns.Load() != 2 {
		t.Fatalf("%d connections, want 2", conns.Load())
	}

	url, _ = rawServer(t, dropsSecond(false))
	posts.Store(0)
	if body, err := get(t, c, url); err != nil || body != "ok" {
		t.Fatal(body, err)
	}
	resp, err := c.Post(url, "text/plain", strings.NewReader("order 1"))
	if err == nil {
		resp.Body.Close()
		t.Fatal("a POST whose connection closed unanswered succeeded: it was sent twice")
	}
	if posts.Load() != 1 {
		t.Errorf("the POST reached the server %d times, want once", posts.Load())
	}
}

func TestDirectDoesNotReuseWhatItCannot(t *testing.T) {
	url, conns := rawServer(t, func(n int, c net.Conn, br *bufio.Reader) {
		r := readRequest(br)
		if r == nil {
			return
		}
		switch r.URL.Path {
		case "/close":
			io.WriteString(c, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5\r\n\r\nclose")
		case "/until-eof":
			io.WriteString(c, "HTTP/1.0 200 OK\r\n\r\nread to the end of the connection")
			return // the end of the body
		case "/extra":
			// More bytes than the Content-Length says: they must never be read as the
			// next answer.
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged")
		case "/many-hints":
			for range 10 {
				io.WriteString(c, "HTTP/1.1 103 Early Hints\r\n\r\n")
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		case "/hints":
			io.WriteString(c, "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfinal")
		}
		// One answer per connection: a reused connection would hang, and the next
		// request on it would fail.
		readRequest(br)
	})
	c := direct(Options{})
	for _, tc := range []struct{ path, want string }{
		{"/close", "close"}, {"/close", "close"},
		{"/until-eof", "read to the end of the connection"},
		{"/extra", "ok"}, {"/hints", "final"}, {"/extra", "ok"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+tc.path, nil)
		resp, err := c.Do(req)
		if err != nil {
			cancel()
			t.Fatalf("%s: %v", tc.path, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		if err != nil || string(b) != tc.want {
			t.Fatalf("%s: %q, %v; want %q", tc.path, b, err, tc.want)
		}
	}
	if conns.Load() != 6 {
		t.Errorf("%d connections for 6 answers that each end theirs, want 6", conns.Load())
	}
	if _, err := get(t, c, url+"/many-hints"); err == nil || !strings.Contains(err.Error(), "too many informational") {
		t.Errorf("ten 1xx answers: %v", err)
	}
}

func TestDirectEarlyCloseDoesNotDesync(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	srv, _, conns := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			io.WriteString(w, big)
			return
		}
		io.WriteString(w, "small")
	})
	c := direct(Options{})
	for i := range 5 {
		resp, err := c.Get(srv.URL + "/big")
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 10)
		io.ReadFull(resp.Body, buf)
		resp.Body.Close()
		if _, err := resp.Body.Read(buf); err == nil {
			t.Fatal("read after Close succeeded")
		}
		if body, err := get(t, c, srv.URL+"/small"); err != nil || body != "small" {
			t.Fatalf("round %d: the answer after a body closed early: %q, %v", i, body, err)
		}
	}
	if n := conns.Load(); n < 5 {
		t.Errorf("%d connections: a connection with an unread body went back to the pool", n)
	}
}

func TestDirectCancellation(t *testing.T) {
	release := make(chan struct{})
	srv, _, conns := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/slow-header":
			<-release
		case "/slow-body":
			io.WriteString(w, "first part")
			w.(http.Flusher).Flush()
			<-release
		default:
			io.WriteString(w, "ok")
		}
	})
	defer close(release)
	c := direct(Options{})

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/slow-header", nil)
	start := time.Now()
	_, err := c.Do(req)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 3*time.Second {
		t.Fatalf("waiting for the header past the deadline: %v after %s", err, time.Since(start))
	}

	ctx2, cancel2 := context.WithCancelCause(context.Background())
	req, _ = http.NewRequestWithContext(ctx2, http.MethodGet, srv.URL+"/slow-body", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	stopped := errors.New("stopped by the test")
	time.AfterFunc(100*time.Millisecond, func() { cancel2(stopped) })
	start = time.Now()
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "first part" || !errors.Is(err, stopped) || time.Since(start) > 3*time.Second {
		t.Fatalf("reading the body when the call is cancelled: %q, %v after %s", b, err, time.Since(start))
	}

	// Neither cancelled connection is used again.
	before := conns.Load()
	if body, err := get(t, c, srv.URL); err != nil || body != "ok" {
		t.Fatal(body, err)
	}
	if conns.Load() != before+1 {
		t.Errorf("a cancelled connection went back to the pool")
	}
}

func TestDirectHeaderTimeout(t *testing.T) {
	release := make(chan struct{})
	srv, _, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) { <-release })
	defer close(release)
	start := time.Now()
	_, err := get(t, direct(Options{ResponseHeaderTimeout: 100 * time.Millisecond}), srv.URL)
	if err == nil || !strings.Contains(err.Error(), "timeout awaiting response headers") || time.Since(start) > 3*time.Second {
		t.Fatalf("%v after %s", err, time.Since(start))
	}
}

func TestDirectCloseEndsABlockedRead(t *testing.T) {
	release := make(chan struct{})
	srv, _, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "event: one\n\n")
		w.(http.Flusher).Flush()
		<-release
	})
	defer close(release)
	resp, err := direct(Options{}).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(resp.Body)
		done <- err
	}()
	// Give the reader time to block in Read. Too short a nap on a loaded machine only
	// makes the Read start after Close, which fails the same way: a false pass, never a
	// false failure.
	time.Sleep(100 * time.Millisecond)
	resp.Body.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a read ended by Close reported the end of the body")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not end a Read blocked in another goroutine")
	}
}

func TestDirectRefusesEndlessHeader(t *testing.T) {
	url, _ := rawServer(t, func(n int, c net.Conn, br *bufio.Reader) {
		if readRequest(br) == nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\n")
		line := "X-Filler: " + strings.Repeat("a", 1000) + "\r\n"
		for {
			if _, err := io.WriteString(c, line); err != nil {
				return
			}
		}
	})
	_, err := get(t, direct(Options{}), url)
	if !errors.Is(err, errHeaderTooLong) {
		t.Fatalf("an endless header: %v", err)
	}
}

func TestDirectIdleConnectionsExpireAndAreBounded(t *testing.T) {
	var open atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond) // the calls overlap, so several connections open
		io.WriteString(w, "ok")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := direct(Options{MaxIdleConnsPerHost: 2, IdleConnTimeout: 300 * time.Millisecond})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if body, err := get(t, c, srv.URL); err != nil || body != "ok" {
				t.Errorf("%q, %v", body, err)
			}
		})
	}
	wg.Wait()
	waitFor(t, func() bool { return open.Load() <= 2 }, "at most 2 idle connections kept", &open)
	waitFor(t, func() bool { return open.Load() == 0 }, "idle connections closed after IdleConnTimeout", &open)
}

func waitFor(t *testing.T, cond func() bool, what string, open *atomic.Int64) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d connections open", what, open.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDirectKeepsTheGuardAndLeavesTLSToTheTransport(t *testing.T) {
	srv, _, _ := newServer(t, ok)
	o := Options{Direct: true}
	if _, err := get(t, NewClient(Policy{}, o), srv.URL); !strings.Contains(blocked(t, err).Reason, "loopback") {
		t.Errorf("loopback without AllowPrivate: %v", err)
	}
	if _, err := get(t, NewClient(Policy{AllowPrivate: true}, o), "http://169.254.169.254/latest/meta-data/"); blocked(t, err) == nil {
		t.Error("metadata address reached")
	}
	// A redirect is checked too.
	redir, _, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/", http.StatusFound)
	})
	if _, err := get(t, NewClient(Policy{AllowPrivate: true}, o), redir.URL); blocked(t, err) == nil {
		t.Error("redirect to the metadata address followed")
	}
	// https goes through http.Transport, which speaks TLS (and does not trust the test
	// server's certificate); sent directly it would be plain text and fail otherwise.
	tls := httptest.NewTLSServer(http.HandlerFunc(ok))
	defer tls.Close()
	_, err := get(t, NewClient(Policy{AllowPrivate: true}, o), tls.URL)
	var unknown x509.UnknownAuthorityError
	if !errors.As(err, &unknown) {
		t.Errorf("https: %v, want a certificate error from the TLS handshake", err)
	}
}

func TestDirectRefusesWhatTheWireCannotCarry(t *testing.T) {
	srv, requests, _ := newServer(t, ok)
	c := direct(Options{})
	for name, mutate := range map[string]func(*http.Request){
		"line break in a value": func(r *http.Request) { r.Header["X-A"] = []string{"a\r\nX-Injected: 1"} },
		"NUL in a value":        func(r *http.Request) { r.Header["X-A"] = []string{"a\x00b"} },
		"space in a name":       func(r *http.Request) { r.Header["X A"] = []string{"b"} },
		"method with a space":   func(r *http.Request) { r.Method = "GET /x HTTP/1.1\r\n" },
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		mutate(req)
		if resp, err := c.Do(req); err == nil || !strings.Contains(err.Error(), "net/http: invalid") {
			if resp != nil {
				resp.Body.Close()
			}
			t.Errorf("%s: %v", name, err)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d refused requests reached the server", n)
	}
}

// fuzzUpstream is one loopback server per fuzzing process: GET /fuzz/N is answered with
// the bytes stored under N (and the connection closed when they say so), anything else
// with a well-formed "good".
var fuzzUpstream = sync.OnceValue(func() *fuzzServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	s := &fuzzServer{url: "http://" + ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
})

type fuzzServer struct {
	url     string
	answers sync.Map // "N" -> fuzzAnswer
	next    atomic.Int64
}

type fuzzAnswer struct {
	raw   []byte
	close bool
}

func (s *fuzzServer) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		r := readRequest(br)
		if r == nil {
			return
		}
		if a, ok := s.answers.Load(strings.TrimPrefix(r.URL.Path, "/fuzz/")); ok {
			c.Write(a.(fuzzAnswer).raw)
			if a.(fuzzAnswer).close {
				return
			}
			continue
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ngood")
	}
}

// Whatever an upstream answers — malformed, truncated, padded with a forged second answer,
// endless informational answers — the call returns in time, and the next call gets its own
// answer: nothing of the first is ever read as the second.
func FuzzDirectAnswer(f *testing.F) {
	for _, seed := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil",
		"HTTP/1.1 103 Early Hints\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.0 200 OK\r\n\r\nuntil the end",
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nokk",
		"HTTP/1.1 101 Switching Protocols\r\n\r\n",
		"garbage\r\n\r\n",
		"",
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	c := direct(Options{ResponseHeaderTimeout: 100 * time.Millisecond, MaxIdleConnsPerHost: 4})
	f.Fuzz(func(t *testing.T, raw []byte, closeAfter bool) {
		s := fuzzUpstream()
		id := fmt.Sprint(s.next.Add(1))
		s.answers.Store(id, fuzzAnswer{raw: raw, close: closeAfter})
		defer s.answers.Delete(id)

		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/fuzz/"+id, nil)
		if resp, err := c.Do(req); err == nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
		}
		cancel()
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("the call took %s", d)
		}

		ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		req, _ = http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/good", nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("the next call: %v", err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || string(b) != "good" {
			t.Fatalf("the next call got %d %q (%v): something of the first answer was read as its answer", resp.StatusCode, b, err)
		}
	})
}
