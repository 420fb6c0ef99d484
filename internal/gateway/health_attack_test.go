package gateway_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/store/postgres"
	"github.com/mcpbridge/mcpbridge/internal/store/postgres/pgtest"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

// Issue 12.9: /healthz reports a store that cannot be reached: 503 and the reason.
func TestAttackHealthzStoreDown(t *testing.T) {
	t.Run("sqlite closed", func(t *testing.T) {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "h.db"), sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		lb := serveLoopback(t, limitsSection("{drain_period: 1s}")+echoServers, gateway.Options{Definitions: st.Definitions, Blobs: st.Blobs}, nil)
		status, body := get(t, lb.base+"/healthz")
		if status != 200 {
			t.Fatalf("healthy store: %d %q", status, body)
		}
		st.Close()
		status, body = get(t, lb.base+"/healthz")
		t.Logf("sqlite store closed: /healthz → %d %q", status, body)
		if status != 503 || !strings.Contains(body, "store") {
			t.Errorf("store closed: /healthz %d %q; want 503 naming the store", status, body)
		}
	})
	t.Run("postgres unreachable", func(t *testing.T) {
		url := pgtest.URL(t)
		p := newStallProxy(t, url)
		st, err := postgres.Open(context.Background(), p.url, postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// After a stall the store takes 15 s to close (pgx waits out the cancelled query's
		// connection); close it in the background once the network is cut.
		defer func() { p.cut(); go st.Close() }()
		lb := serveLoopback(t, limitsSection("{drain_period: 1s}")+echoServers, gateway.Options{Definitions: st.Definitions, Blobs: st.Blobs}, nil)
		if status, body := get(t, lb.base+"/healthz"); status != 200 {
			t.Fatalf("healthy store: %d %q", status, body)
		}
		p.stall()
		start := time.Now()
		status, body := get(t, lb.base+"/healthz")
		t.Logf("postgres behind a stalled network: /healthz → %d %q after %s", status, body, time.Since(start).Round(time.Millisecond))
		// 20 s: ten times the store ping's 2 s timeout; a stalled store never answers.
		if status != 503 || !strings.Contains(body, "store") || time.Since(start) > 20*time.Second {
			t.Errorf("store unreachable: /healthz %d %q after %s; want 503 naming the store within seconds", status, body, time.Since(start))
		}
	})
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	c := &http.Client{Timeout: 15 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(b)
}

// stallProxy forwards TCP to a PostgreSQL server until stall, after which it accepts and
// forwards nothing: the network path to the database goes dark.
type stallProxy struct {
	url     string
	stalled atomic.Bool

	mu    sync.Mutex
	conns []net.Conn
}

// cut closes every proxied connection.
func (p *stallProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func newStallProxy(t *testing.T, pgURL string) *stallProxy {
	t.Helper()
	m := regexp.MustCompile(`@([^/]+)/`).FindStringSubmatch(pgURL)
	if m == nil {
		t.Fatalf("no host in %s", pgURL)
	}
	target := m[1]
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &stallProxy{url: strings.Replace(pgURL, "@"+target+"/", "@"+ln.Addr().String()+"/", 1)}
	t.Cleanup(p.cut)
	pipe := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			for p.stalled.Load() {
				time.Sleep(50 * time.Millisecond) // hold the bytes: nothing gets through
			}
			if n > 0 {
				if _, err := dst.Write(buf[:n]); err != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go pipe(up, c)
			go pipe(c, up)
		}
	}()
	return p
}

func (p *stallProxy) stall() { p.stalled.Store(true) }
