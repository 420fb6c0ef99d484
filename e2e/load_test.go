package e2e

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The load test's size: MCPBRIDGE_LOAD_CLIENTS concurrent clients (default 1000) for
// MCPBRIDGE_LOAD_DURATION (default 10s) in each protocol era. `make soak` runs 60s.
const (
	envLoadClients  = "MCPBRIDGE_LOAD_CLIENTS"
	envLoadDuration = "MCPBRIDGE_LOAD_DURATION"
)

// TestLoad runs `mcpbridge serve` as a process (a new one per era) and C concurrent clients
// against it on loopback for D seconds in each protocol era (2026-07-28 without sessions, then 2025-11-25
// with one session per client), each calling an HTTP tool in a loop. It checks that no call
// fails, prints p50/p99 latency, calls per second and the serve process's resident memory
// per client (per session in the legacy era), and checks that after the clients close the
// process's descriptors and goroutines return to what they were before the load.
func TestLoad(t *testing.T) {
	clients := envInt(t, envLoadClients, 1000)
	duration := envDuration(t, envLoadDuration, 10*time.Second)
	raiseFileLimit(t, 4*clients+1024)

	upstream := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":%q,"name":"Ada Lovelace","email":"ada@example.com","roles":["admin","author"]}`, r.PathValue("id"))
	}))
	mux := http.NewServeMux()
	mux.Handle("GET /users/{id}", upstream.Config.Handler)
	upstream.Config.Handler = mux
	upstream.Start()
	defer upstream.Close()

	dir := t.TempDir()
	cfg := filepath.Join(dir, "load.yaml")
	limit := strconv.Itoa(2 * clients)
	yaml := `limits:
  sessions: ` + limit + `
  sessions_per_client: ` + limit + `
  connections: ` + strconv.Itoa(4*clients) + `
  connections_per_client: ` + strconv.Itoa(4*clients) + `
  concurrent_calls: ` + limit + `
  call_queue_wait: 30s
servers:
  users:
    kind: http
    description: Users API
    base_url: ` + upstream.URL + `
    allow_private: true
    tools:
      get_user:
        description: Get a user by id
        inputSchema: {type: object, properties: {id: {type: string}}, required: [id]}
        method: GET
        path: /users/{id}
        mappings: [{field: id, in: path, direct: id}]
`
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d clients for %s per era, each era on a new serve process; machine: %d CPUs", clients, duration, runtime.NumCPU())
	for _, era := range []string{modernEra, legacyEra} {
		t.Run(era, func(t *testing.T) {
			g := startServe(t, serveOptions{Name: "serve-" + era, Dir: dir, Config: cfg, Store: "sqlite:" + filepath.Join(dir, era+".db"),
				Args: []string{"--log-level", "warn"}})
			runLoad(t, g, upstreamPort(t, upstream.URL), era, clients, duration)
		})
	}
}

// runLoad is one era of TestLoad.
func runLoad(t *testing.T, g *gateway, upPort int, era string, clients int, duration time.Duration) {
	pid := g.pid()
	time.Sleep(200 * time.Millisecond)
	base := sampleProcess(t, g, upPort)
	tr := &http.Transport{MaxIdleConns: 2 * clients, MaxIdleConnsPerHost: 2 * clients, IdleConnTimeout: time.Minute,
		DialContext: (&net.Dialer{Timeout: 10 * time.Second}).DialContext}
	hc := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), duration+5*time.Minute)
	defer cancel()

	cs := make([]*rawClient, clients)
	openStart := time.Now()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		errs  []error
		nErrs atomic.Int64
	)
	fail := func(err error) {
		if nErrs.Add(1) <= 5 {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
	}
	sem := make(chan struct{}, 64) // open at most 64 at once, as clients arriving over a moment
	for i := range cs {
		cs[i] = &rawClient{url: g.MCPURL("users"), era: era, hc: hc}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := cs[i].open(ctx); err != nil {
				fail(fmt.Errorf("client %d: open: %w", i, err))
			}
		})
	}
	wg.Wait()
	if nErrs.Load() > 0 {
		t.Fatalf("%d clients could not open: %v", nErrs.Load(), errors.Join(errs...))
	}
	t.Logf("%d clients opened in %s", clients, time.Since(openStart).Round(time.Millisecond))
	time.Sleep(500 * time.Millisecond)
	opened := sampleProcess(t, g, upPort)

	lat := make([][]time.Duration, clients)
	start := time.Now()
	stop := start.Add(duration)
	var peak processSample
	var peakMu sync.Mutex
	sampleDone := make(chan struct{})
	go func() {
		defer close(sampleDone)
		for time.Now().Before(stop) {
			time.Sleep(time.Second)
			s := sampleProcess(t, g, upPort)
			peakMu.Lock()
			peak = peak.max(s)
			peakMu.Unlock()
		}
	}()
	for i, c := range cs {
		wg.Go(func() {
			id := strconv.Itoa(i)
			for n := 0; time.Now().Before(stop); n++ {
				t0 := time.Now()
				out, err := c.callTool(ctx, "get_user", map[string]any{"id": id})
				if err == nil && !strings.Contains(out, `"id":"`+id+`"`) {
					err = fmt.Errorf("get_user %s answered %.200s", id, out)
				}
				if err != nil {
					fail(fmt.Errorf("client %d call %d: %w", i, n, err))
					continue
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	<-sampleDone

	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	slices.Sort(all)
	pct := func(p float64) time.Duration {
		if len(all) == 0 {
			return 0
		}
		return all[min(len(all)-1, int(p*float64(len(all))))]
	}
	unit := "client"
	if era < modernEra {
		unit = "session"
	}
	perOpen := (opened.rssKB - base.rssKB) / float64(clients)
	perClient := (peak.rssKB - base.rssKB) / float64(clients)
	t.Logf("LOAD %s: %d clients, %s: %d calls (%.0f/s), %d errors, p50 %s, p99 %s, max %s",
		era, clients, elapsed.Round(time.Millisecond), len(all), float64(len(all))/elapsed.Seconds(), nErrs.Load(),
		pct(0.50).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond), pct(1).Round(time.Millisecond))
	t.Logf("LOAD %s: serve RSS %.1f MB idle, %.1f MB with the %d %ss open (%.1f KB per %s), %.1f MB at the peak of the load (%.1f KB per %s)",
		era, base.rssKB/1024, opened.rssKB/1024, clients, unit, perOpen, unit, peak.rssKB/1024, perClient, unit)
	t.Logf("LOAD %s: descriptors %d idle, %d at peak; goroutines %d idle, %d at peak", era, base.fds, peak.fds, base.goroutines, peak.goroutines)
	if n := nErrs.Load(); n > 0 {
		t.Errorf("%d calls failed; the first: %v", n, errors.Join(errs...))
	}

	// Close: end the sessions and the connections, then wait for the process to settle.
	for _, c := range cs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := c.close(ctx); err != nil {
				fail(err)
			}
		})
	}
	wg.Wait()
	tr.CloseIdleConnections()
	// The HTTP tool's client keeps up to 32 idle connections to the upstream for 90 s (2
	// goroutines each): they are a bounded pool, not a leak, and are counted apart.
	var after processSample
	deadline := time.Now().Add(20 * time.Second)
	for {
		after = sampleProcess(t, g, upPort)
		fds, goroutines := after.fds-after.upstream, after.goroutines-2*after.upstream
		baseFDs, baseGoroutines := base.fds-base.upstream, base.goroutines-2*base.upstream
		if fds <= baseFDs+fdSlack && goroutines <= baseGoroutines+goroutineSlack {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("20s after the clients closed, serve has %d descriptors (%d before the load) and %d goroutines (%d before), not counting idle upstream connections",
				fds, baseFDs, goroutines, baseGoroutines)
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if after.upstream > upstreamPool {
		t.Errorf("serve keeps %d connections to the upstream after the load; its pool keeps at most %d idle", after.upstream, upstreamPool)
	}
	t.Logf("LOAD %s: after the clients closed: descriptors %d (%d of them idle upstream connections), goroutines %d, RSS %.1f MB (pid %d)",
		era, after.fds, after.upstream, after.goroutines, after.rssKB/1024, pid)
	// An idle gateway gives back what the load took (gateway.releaseWhenIdle, after a second
	// without work): reported, not asserted.
	time.Sleep(3 * time.Second)
	idle := sampleProcess(t, g, upPort)
	t.Logf("LOAD %s: idle 3 s later: RSS %.1f MB", era, idle.rssKB/1024)
}

// upstreamPool is how many idle connections to one host an HTTP tool's client keeps
// (safehttp's MaxIdleConnsPerHost).
const upstreamPool = 32

// Back to baseline means at most this many more descriptors and goroutines than before the
// load (the store's connections, a metrics scrape in flight).
const (
	fdSlack        = 4
	goroutineSlack = 10
)

// processSample is what the load test reads of the serve process.
type processSample struct {
	fds        int
	upstream   int // descriptors that are TCP connections to the upstream
	goroutines int
	rssKB      float64
}

func (s processSample) max(o processSample) processSample {
	return processSample{fds: max(s.fds, o.fds), upstream: max(s.upstream, o.upstream), goroutines: max(s.goroutines, o.goroutines), rssKB: max(s.rssKB, o.rssKB)}
}

// sampleProcess reads the serve process's descriptors (/proc/PID/fd; those connected to
// upPort apart), resident memory (/proc/PID/status) and goroutines (go_goroutines of /metrics).
func sampleProcess(t *testing.T, g *gateway, upPort int) processSample {
	t.Helper()
	pid := g.pid()
	var s processSample
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatalf("reading the descriptors of serve: %v", err)
	}
	s.fds = len(ents)
	s.upstream = socketsTo(pid, ents, upPort)
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for line := range strings.Lines(string(b)) {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
				s.rssKB, _ = strconv.ParseFloat(f[1], 64)
			}
		}
	}
	resp, err := http.Get(g.Base + "/metrics")
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
			s.goroutines, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return s
}

// socketsTo counts the descriptors of pid (its entries of /proc/PID/fd) that are TCP
// connections to port on loopback, from /proc/PID/net/tcp.
func socketsTo(pid int, ents []os.DirEntry, port int) int {
	inodes := map[string]bool{}
	for _, e := range ents {
		l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name()))
		if inode, ok := strings.CutPrefix(l, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/tcp", pid))
	if err != nil {
		return 0
	}
	n := 0
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line) // sl local_address rem_address st ... inode (field 9)
		if len(f) < 10 || !inodes[f[9]] {
			continue
		}
		if i := strings.LastIndexByte(f[2], ':'); i >= 0 {
			if p, err := strconv.ParseInt(f[2][i+1:], 16, 32); err == nil && int(p) == port {
				n++
			}
		}
	}
	return n
}

// upstreamPort is the port of a loopback URL such as http://127.0.0.1:41234.
func upstreamPort(t *testing.T, url string) int {
	t.Helper()
	i := strings.LastIndexByte(url, ':')
	p, err := strconv.Atoi(url[i+1:])
	if err != nil {
		t.Fatalf("no port in %s", url)
	}
	return p
}

// raiseFileLimit raises the test process's open-file limit to at least n (up to the hard
// limit), for the client and upstream connections of the load test; serve inherits it.
func raiseFileLimit(t *testing.T, n int) {
	t.Helper()
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatalf("getrlimit: %v", err)
	}
	if rl.Cur >= uint64(n) {
		return
	}
	rl.Cur = min(max(uint64(n), rl.Cur), rl.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatalf("setrlimit: %v", err)
	}
	if rl.Cur < uint64(n) {
		t.Fatalf("the open-file limit is %d, the load test needs %d: raise it (ulimit -n)", rl.Cur, n)
	}
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("%s=%q: want a duration such as 60s", name, v)
	}
	return d
}
