package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/store/postgres/pgtest"
)

// TestReplicasOnPostgres runs two `mcpbridge serve` processes on one PostgreSQL database: a
// server created through the admin API of one is served by the other within 2 seconds.
func TestReplicasOnPostgres(t *testing.T) {
	dbURL := pgtest.URL(t) // a fresh database; skips (fails under MCPBRIDGE_TEST_REQUIRE_ALL=1) when PostgreSQL is absent
	bin := mcpbridgeBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "replica.yaml")
	os.WriteFile(cfg, []byte("servers:\n  local:\n    kind: command\n    description: file server\n    tools:\n      echo: {description: Echo, argv: [echo, hi]}\n"), 0o644)
	const key = "e2e-admin-key-0123456789abcdef"
	var bases []string
	for i := range 2 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		base := fmt.Sprintf("http://127.0.0.1:%d", port)
		log, _ := os.Create(filepath.Join(serveLogDir(t, dir), fmt.Sprintf("replica%d.log", i)))
		cmd := exec.Command(bin, "serve", "--config", cfg, "--listen", base[len("http://"):], "--store", dbURL)
		cmd.Env = append(os.Environ(), "MCPBRIDGE_ADMIN_KEY="+key)
		cmd.Stdout, cmd.Stderr = log, log
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
			log.Close()
		})
		g := &gateway{Base: base, done: make(chan struct{})}
		if err := g.waitReady(30 * time.Second); err != nil {
			b, _ := os.ReadFile(log.Name())
			t.Fatalf("replica %d: %v\n%s", i, err, b)
		}
		bases = append(bases, base)
	}
	def := `{"kind":"command","description":"shared","tools":{"shout":{"description":"Upper-case","inputSchema":{"type":"object","properties":{"t":{"type":"string"}},"required":["t"]},"argv":["tr","a-z","A-Z"],"stdin":{"direct":"t"}}}}`
	req, _ := http.NewRequest("PUT", bases[0]+"/admin/api/servers/shared", strings.NewReader(def))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT on replica 0: %v %v", resp, err)
	}
	resp.Body.Close()
	var cs *mcp.ClientSession
	for {
		c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
		cs, err = c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: bases[1] + "/mcp/shared", MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err == nil {
			break
		}
		if time.Since(start) > 30*time.Second { // a wide margin: the time is logged below
			t.Fatalf("replica 1 does not serve the new server 30 s after it was created on replica 0: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	defer cs.Close()
	t.Logf("replica 1 served the server %s after it was created on replica 0", time.Since(start).Round(time.Millisecond))
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "shout", Arguments: map[string]any{"t": "replicated"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "REPLICATED" {
		t.Fatalf("call on replica 1: %v %v", res, err)
	}
}

// ticketsReplicas runs n `mcpbridge serve` processes of the tickets config on one fresh
// PostgreSQL database and one copy of the tickets app, and returns their base URLs.
func ticketsReplicas(t *testing.T, n int) []string {
	t.Helper()
	dbURL := pgtest.URL(t)
	ta := ticketsApp(t)
	dir := t.TempDir()
	cfg := ticketsConfig(t, dir, ta.Dir, "")
	var bases []string
	for i := range n {
		g := startServe(t, serveOptions{Name: fmt.Sprintf("replica%d", i), Dir: dir, Config: cfg, Store: dbURL, Env: ticketsEnv(ta)})
		bases = append(bases, g.Base)
	}
	return bases
}

// TestReplicasRoundRobin runs two `mcpbridge serve` processes on one PostgreSQL database
// behind a round-robin proxy without sticky routing, and sends modern-era (2026-07-28)
// traffic through it for a few seconds: clients calling a command tool in a loop, and Lowdefy
// journeys (log a ticket, see it listed) each behind its own round-robin proxy, so that
// consecutive calls of a work session are served by different replicas. The two replicas
// share the store (work sessions) and the app's SQLite file. Nothing may fail.
func TestReplicasRoundRobin(t *testing.T) {
	bases := ticketsReplicas(t, 2)
	const clients, journeys = 20, 4
	const duration = 5 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var (
		mu      sync.Mutex
		errs    []error
		calls   atomic.Int64
		tickets atomic.Int64
		wg      sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, err)
	}
	stop := time.Now().Add(duration)
	load, loadURL := startRoundRobin(t, bases...)
	for i := range clients {
		wg.Go(func() {
			cs, err := connectMCP(ctx, loadURL+"/mcp/local", ticketsKey, modernEra, nil)
			if err != nil {
				fail(fmt.Errorf("echo client %d: connect: %w", i, err))
				return
			}
			defer cs.Close()
			for n := 0; time.Now().Before(stop); n++ {
				msg := fmt.Sprintf("client %d call %d", i, n)
				got, err := callTool(ctx, cs, "echo", map[string]any{"message": msg})
				if err == nil && strings.TrimSpace(got) != msg {
					err = fmt.Errorf("echo answered %q", got)
				}
				if err != nil {
					fail(fmt.Errorf("echo client %d call %d: %w", i, n, err))
					return
				}
				calls.Add(1)
			}
		})
	}
	proxies := make([]*roundRobin, journeys)
	for j := range journeys {
		rr, url := startRoundRobin(t, bases...)
		proxies[j] = rr
		wg.Go(func() {
			cs, err := connectMCP(ctx, url+"/mcp/tickets", ticketsKey, modernEra, nil)
			if err != nil {
				fail(fmt.Errorf("journey %d: connect: %w", j, err))
				return
			}
			defer cs.Close()
			for n := 0; n == 0 || time.Now().Before(stop); n++ {
				if err := logTicket(ctx, cs, fmt.Sprintf("Replicated ticket %d.%d", j, n)); err != nil {
					fail(fmt.Errorf("journey %d.%d: %w", j, n, err))
					return
				}
				tickets.Add(1)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Errorf("%d errors; the first ones:\n%.3000v", len(errs), err)
	}
	served := load.served()
	t.Logf("%d echo calls by %d modern-era clients in %s (requests per replica %v); %d tickets logged by %d journeys",
		calls.Load(), clients, duration, served, tickets.Load(), journeys)
	if served[0] == 0 || served[1] == 0 {
		t.Errorf("the proxy did not spread the echo calls over both replicas: %v", served)
	}
	for j, rr := range proxies {
		hits := rr.toolCalls()
		if len(hits) < 6 {
			t.Errorf("journey %d: the proxy saw %d tools/call requests, want at least 6 (Mcp-Method headers missing?)", j, len(hits))
		}
		for k := 1; k < len(hits); k++ {
			if hits[k].Replica == hits[k-1].Replica {
				t.Errorf("journey %d: calls %d (%s) and %d (%s) were both served by replica %d; the test wants each call on the other replica",
					j, k-1, hits[k-1].Name, k, hits[k].Name, hits[k].Replica)
				break
			}
		}
	}
}

// TestReplicasLegacySticky shows what legacy-era clients need in front of replicas: behind a
// round-robin proxy a legacy client's session, minted by one replica, is unknown to the other
// and its calls fail; behind a proxy that learns the replica of each Mcp-Session-Id from the
// answers (docs/deployment.md, the HAProxy stick table) clients in both transports' legacy
// era call with no error.
func TestReplicasLegacySticky(t *testing.T) {
	bases := ticketsReplicas(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	_, rrURL := startRoundRobin(t, bases...)
	cs, err := connectMCP(ctx, rrURL+"/mcp/local", ticketsKey, legacyEra, nil)
	if err == nil {
		_, err = callTool(ctx, cs, "echo", map[string]any{"message": "x"})
		cs.Close()
	}
	if err == nil {
		t.Errorf("a legacy-era client behind a round-robin proxy made a call; its session should be unknown to the other replica")
	} else {
		t.Logf("legacy-era client behind round robin, as expected: %v", err)
	}

	sticky, stickyURL := startSticky(t, bases...)
	const clients = 10
	stop := time.Now().Add(3 * time.Second)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		errs  []error
		calls atomic.Int64
	)
	for i := range clients {
		wg.Go(func() {
			err := func() error {
				cs, err := connectMCP(ctx, stickyURL+"/mcp/local", ticketsKey, legacyEra, nil)
				if err != nil {
					return fmt.Errorf("connect: %w", err)
				}
				defer cs.Close()
				for n := 0; time.Now().Before(stop); n++ {
					msg := fmt.Sprintf("legacy %d call %d", i, n)
					got, err := callTool(ctx, cs, "echo", map[string]any{"message": msg})
					if err == nil && strings.TrimSpace(got) != msg {
						err = fmt.Errorf("echo answered %q", got)
					}
					if err != nil {
						return fmt.Errorf("call %d: %w", n, err)
					}
					calls.Add(1)
				}
				return nil
			}()
			if err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("legacy client %d: %w", i, err))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Errorf("legacy-era clients behind the sticky proxy: %v", err)
	}
	served := sticky.served()
	t.Logf("%d calls by %d legacy-era clients behind the sticky proxy (requests per replica %v)", calls.Load(), clients, served)
	if served[0] == 0 || served[1] == 0 {
		t.Errorf("the sticky proxy put every session on one replica: %v", served)
	}
}
