package safehttp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// newServer starts a loopback server counting requests and new connections.
func newServer(t *testing.T, h http.HandlerFunc) (srv *httptest.Server, requests, conns *atomic.Int64) {
	t.Helper()
	requests, conns = new(atomic.Int64), new(atomic.Int64)
	srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		h(w, r)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, requests, conns
}

func ok(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }

func get(t *testing.T, c *http.Client, u string) (string, error) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// blocked returns the *BlockedError in err or fails.
func blocked(t *testing.T, err error) *BlockedError {
	t.Helper()
	var be *BlockedError
	if !errors.As(err, &be) {
		t.Fatalf("got error %v (%T), want a *BlockedError", err, err)
	}
	return be
}

func TestLoopbackAllowedWithAllowPrivate(t *testing.T) {
	srv, reqs, _ := newServer(t, ok)
	body, err := get(t, NewClient(Policy{AllowPrivate: true}, Options{}), srv.URL)
	if err != nil || body != "ok" {
		t.Fatalf("got %q, %v", body, err)
	}
	if reqs.Load() != 1 {
		t.Errorf("server saw %d requests, want 1", reqs.Load())
	}
}

func TestLoopbackRefusedByDefault(t *testing.T) {
	srv, reqs, conns := newServer(t, ok)
	_, err := get(t, NewClient(Policy{}, Options{}), srv.URL)
	be := blocked(t, err)
	if be.IP != netip.MustParseAddr("127.0.0.1") || be.Reason != reasonLoopback {
		t.Errorf("got %+v", be)
	}
	if !strings.Contains(err.Error(), "refused to connect to 127.0.0.1: loopback address") {
		t.Errorf("message %q", err)
	}
	if reqs.Load() != 0 || conns.Load() != 0 {
		t.Errorf("server saw %d requests and %d connections, want none", reqs.Load(), conns.Load())
	}
}

func TestAllowHosts(t *testing.T) {
	srv, _, _ := newServer(t, ok)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	byName := fmt.Sprintf("http://localhost:%d/", port)
	tests := []struct {
		name  string
		hosts []string
		url   string
		allow bool
	}{
		{"CIDR", []string{"127.0.0.0/8"}, srv.URL, true},
		{"single address", []string{"127.0.0.1"}, srv.URL, true},
		{"host name", []string{"localhost"}, byName, true},
		{"other host name", []string{"api.internal"}, byName, false},
		{"other CIDR", []string{"10.0.0.0/8"}, srv.URL, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := get(t, NewClient(Policy{AllowHosts: tt.hosts}, Options{}), tt.url)
			if tt.allow && (err != nil || body != "ok") {
				t.Errorf("want allowed, got %q, %v", body, err)
			}
			if !tt.allow {
				blocked(t, err)
			}
		})
	}
}

func TestLocalhostNameRefused(t *testing.T) {
	srv, reqs, _ := newServer(t, ok)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	_, err := get(t, NewClient(Policy{}, Options{}), fmt.Sprintf("http://localhost:%d/", port))
	be := blocked(t, err)
	if be.Host != "localhost" || !be.IP.IsLoopback() {
		t.Errorf("got %+v, want localhost resolved to a loopback address", be)
	}
	if reqs.Load() != 0 {
		t.Errorf("server saw %d requests", reqs.Load())
	}
}

func TestRedirectToMetadataRefusedBeforeDial(t *testing.T) {
	var mu sync.Mutex
	var dialed []string
	testHookDial = func(_, address string) {
		mu.Lock()
		dialed = append(dialed, address)
		mu.Unlock()
	}
	t.Cleanup(func() { testHookDial = nil })

	for _, target := range []string{
		"http://169.254.169.254/latest/meta-data/",
		"http://[fd00:ec2::254]/latest/meta-data/",
		"http://[::ffff:169.254.169.254]/",
		"http://[::a9fe:a9fe]/",
		"http://[2002:a9fe:a9fe::1]/",
		"http://[2001:0:4136:e378:8000:63bf:5601:5601]/",
		"http://[64:ff9b:1::a9fe:a9fe]/",
	} {
		t.Run(target, func(t *testing.T) {
			srv, _, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target, http.StatusFound)
			})
			c := NewClient(Policy{AllowPrivate: true, AllowHosts: []string{"169.254.169.254"}}, Options{DialTimeout: 30 * time.Second})
			start := time.Now()
			_, err := get(t, c, srv.URL)
			be := blocked(t, err)
			if be.Reason != reasonMetadata {
				t.Errorf("reason %q, want %q", be.Reason, reasonMetadata)
			}
			if !strings.Contains(err.Error(), "refused to connect to") || !strings.Contains(err.Error(), "link-local/metadata address") {
				t.Errorf("message %q", err)
			}
			// A dial to the (unreachable) metadata address would wait out the 30 s dial
			// timeout; the refusal is immediate. The dial hook below checks it too.
			if d := time.Since(start); d > 15*time.Second {
				t.Errorf("took %v: looks like a dial was attempted", d)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	for _, a := range dialed {
		if !strings.HasPrefix(a, "127.0.0.1:") {
			t.Errorf("dial attempted to %s", a)
		}
	}
	if len(dialed) == 0 {
		t.Error("the dial hook saw no dial at all; the test is not observing dials")
	}
}

func TestRedirectLimit(t *testing.T) {
	srv, _, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/r/"))
		if n > 0 {
			http.Redirect(w, r, "/r/"+strconv.Itoa(n-1), http.StatusFound)
			return
		}
		io.WriteString(w, "done")
	})
	c := NewClient(Policy{AllowPrivate: true}, Options{})
	body, err := get(t, c, srv.URL+"/r/5")
	if err != nil || body != "done" {
		t.Fatalf("5 redirects: got %q, %v; want them followed", body, err)
	}
	_, err = get(t, c, srv.URL+"/r/6")
	if !errors.Is(err, errTooManyRedirects) || !strings.Contains(err.Error(), "stopped after 5 redirects") {
		t.Fatalf("6 redirects: got %v, want the redirect limit error", err)
	}
}

func TestRedirectToOtherScheme(t *testing.T) {
	srv, _, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "file:///etc/passwd")
		w.WriteHeader(http.StatusFound)
	})
	_, err := get(t, NewClient(Policy{AllowPrivate: true}, Options{}), srv.URL)
	if be := blocked(t, err); !strings.Contains(be.Reason, "unsupported scheme") {
		t.Errorf("got %v", err)
	}
}

func TestSharedTransport(t *testing.T) {
	a := NewClient(Policy{AllowHosts: []string{"b.example", "a.example"}}, Options{})
	b := NewClient(Policy{AllowHosts: []string{"A.example", "b.example."}}, Options{})
	c := NewClient(Policy{AllowPrivate: true}, Options{})
	if a.Transport != b.Transport {
		t.Error("equal policies do not share a transport")
	}
	if a.Transport == c.Transport {
		t.Error("different policies share a transport")
	}
	tr := a.Transport.(*http.Transport)
	if tr.MaxIdleConnsPerHost < 16 || tr.Proxy != nil || tr.IdleConnTimeout == 0 || tr.TLSHandshakeTimeout == 0 {
		t.Errorf("transport not tuned: MaxIdleConnsPerHost=%d Proxy set=%t IdleConnTimeout=%v TLSHandshakeTimeout=%v",
			tr.MaxIdleConnsPerHost, tr.Proxy != nil, tr.IdleConnTimeout, tr.TLSHandshakeTimeout)
	}
}

func TestConcurrentCallersReuseConnections(t *testing.T) {
	srv, _, conns := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * time.Millisecond)
		io.WriteString(w, "ok")
	})
	for burst := range 10 {
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				c := NewClient(Policy{AllowPrivate: true}, Options{})
				if body, err := get(t, c, srv.URL); err != nil || body != "ok" {
					t.Errorf("burst %d: %q, %v", burst, body, err)
				}
			})
		}
		wg.Wait()
	}
	if n := conns.Load(); n > 16 {
		t.Errorf("160 calls by 16 concurrent callers opened %d connections, want at most 16", n)
	}
}

func countFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("counting descriptors: %v", err)
	}
	return len(entries)
}

func TestDescriptorsStableOverManyCalls(t *testing.T) {
	srv, _, conns := newServer(t, ok)
	// One warm-up call so the baseline includes the kept-alive connection pair.
	if _, err := get(t, NewClient(Policy{AllowPrivate: true}, Options{}), srv.URL); err != nil {
		t.Fatal(err)
	}
	base := countFDs(t)
	for i := range 2000 {
		if _, err := get(t, NewClient(Policy{AllowPrivate: true}, Options{}), srv.URL); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	after := countFDs(t)
	// net/http puts a connection back in the pool from its read loop, after the caller has
	// seen the end of the body, so on a busy machine the next call can find the pool empty
	// and open another connection, which then stays idle in the pool (two descriptors here:
	// both ends are in this process). What must not happen is a connection per call.
	n := conns.Load()
	if n > 10 {
		t.Errorf("2,001 sequential calls opened %d connections, want them reused (a few at most)", n)
	}
	if after > base+2*int(n-1) {
		t.Errorf("descriptors grew from %d to %d over 2,000 calls with %d connections opened", base, after, n)
	}
	t.Logf("descriptors: baseline %d, after 2,000 calls %d; connections opened: %d", base, after, conns.Load())
}

func TestBlockedErrorUnwrapsFromURLError(t *testing.T) {
	_, err := NewClient(Policy{}, Options{}).Get("http://169.254.169.254/")
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Fatalf("got %T, want *url.Error from net/http", err)
	}
	blocked(t, err)
}

// TestEndlessHeaderFailsTheRequest: an upstream that never ends its header fails the request
// once MaxHeaderBytes have come, instead of growing the gateway's memory.
func TestEndlessHeaderFailsTheRequest(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\n")
		line := "X-Filler: " + strings.Repeat("a", 1000) + "\r\n"
		for sent := 0; sent < 64*MaxHeaderBytes; sent += len(line) {
			if _, err := io.WriteString(c, line); err != nil {
				return
			}
		}
	}()
	_, err = get(t, NewClient(Policy{AllowPrivate: true}, Options{}), "http://"+ln.Addr().String())
	if err == nil || !strings.Contains(err.Error(), "exceeded") {
		t.Fatalf("an endless header: got %v, want an error saying the header exceeded the bound", err)
	}
}
