package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
	"github.com/mcpbridge/mcpbridge/internal/testenv"
)

// gatedDummyJSON is the dummyjson.com stand-in of the ticket app with a gate: while the gate
// is closed, requests wait at it (and arrived receives one value per waiting request).
type gatedDummyJSON struct {
	closed  atomic.Bool
	open    chan struct{}
	arrived chan struct{}
}

func startGatedDummyJSON(t *testing.T) (*gatedDummyJSON, string) {
	g := &gatedDummyJSON{open: make(chan struct{}), arrived: make(chan struct{}, 16)}
	h := lowdefytest.DummyJSONHandler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.closed.Load() {
			g.arrived <- struct{}{}
			select {
			case <-g.open:
			case <-r.Context().Done():
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		g.release()
		srv.Close()
	})
	return g, srv.URL
}

// release opens the gate for good.
func (g *gatedDummyJSON) release() {
	if g.closed.CompareAndSwap(true, false) {
		close(g.open)
	}
}

// TestFaultKillDuringInteract kills `mcpbridge serve` with SIGKILL while a Lowdefy interact
// call is running (held inside a request of the app), starts it again on the same store, and
// checks that the work session is exactly where the last finished call left it: get_state
// after the restart equals get_state before the killed call, and the session goes on.
func TestFaultKillDuringInteract(t *testing.T) {
	gate, dummyURL := startGatedDummyJSON(t)
	ta := lowdefytest.Tutorial(t, "08-final", dummyURL)
	dir := t.TempDir()
	cfg := ticketsConfig(t, dir, ta.Dir, "")
	opts := serveOptions{Name: "serve", Dir: dir, Config: cfg, Store: "sqlite:" + filepath.Join(dir, "store.db"), Env: ticketsEnv(ta)}
	g := startServe(t, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := connectMCP(ctx, g.MCPURL("tickets"), ticketsKey, modernEra, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	sid, err := createSession(ctx, cs, "crash test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := callPage(ctx, cs, "navigate", map[string]any{"sessionId": sid, "pageId": "new-ticket"}); err != nil {
		t.Fatal(err)
	}
	if _, err := callPage(ctx, cs, "interact", map[string]any{"sessionId": sid, "actions": fillTicket("Saved before the crash", false)}); err != nil {
		t.Fatal(err)
	}
	before, err := callTool(ctx, cs, "get_state", map[string]any{"sessionId": sid})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(before, "Saved before the crash") {
		t.Fatalf("get_state does not show the finished call's title: %.500s", before)
	}

	// The killed call changes the title, then opens the page again, whose onMount request
	// waits at the gate: the process is killed while it waits.
	gate.closed.Store(true)
	killed := make(chan error, 1)
	go func() {
		_, err := callPage(ctx, cs, "interact", map[string]any{"sessionId": sid, "actions": []any{
			map[string]any{"type": "setValue", "blockId": "ticket_title", "value": "Lost in the crash"},
			map[string]any{"type": "navigate", "pageId": "new-ticket"},
		}})
		killed <- err
	}()
	select {
	case <-gate.arrived:
	case err := <-killed:
		t.Fatalf("the interact call ended before it reached the app's request: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the interact call never reached the app's request")
	}
	g.kill()
	if err := <-killed; err == nil {
		t.Fatal("the interact call of a killed process succeeded")
	} else {
		t.Logf("the agent's interact call ended with: %v", err)
	}
	gate.release()

	opts.Listen = strings.TrimPrefix(g.Base, "http://")
	startServe(t, opts)
	after, err := callTool(ctx, cs, "get_state", map[string]any{"sessionId": sid})
	if err != nil {
		t.Fatalf("get_state after the restart: %v", err)
	}
	if after != before {
		t.Errorf("the session after the crash differs from the session after the last finished call\nbefore: %.1500s\nafter:  %.1500s", before, after)
	}
	if strings.Contains(after, "Lost in the crash") {
		t.Errorf("the session holds a value of the killed call")
	}
	// The session goes on where it was: submitting saves the title of the finished call.
	pl, err := callPage(ctx, cs, "interact", map[string]any{"sessionId": sid, "actions": []any{
		map[string]any{"type": "triggerEvent", "blockId": "submit_button", "event": "onClick"},
	}})
	if err != nil {
		t.Fatalf("interact after the restart: %v", err)
	}
	if len(pl.Log) != 1 || pl.Log[0]["success"] != true {
		t.Errorf("submit after the restart: %v", pl.Log)
	}
}

// pgCluster is a PostgreSQL cluster of one test, on its own port and folder (started by
// scripts/setup-postgres.sh), so the test may stop and start it without disturbing the
// shared server of the other tests.
type pgCluster struct {
	URL    string
	dir    string
	port   int
	bindir string
}

// startPGCluster initialises and starts a throwaway cluster; it is stopped and removed when
// the test ends. Without PostgreSQL's server binaries the test skips (see testenv).
func startPGCluster(t *testing.T) *pgCluster {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		testenv.Missing(t, "PostgreSQL's server binaries (no /usr/lib/postgresql/*/bin/pg_ctl)", "scripts/setup-postgres.sh")
	}
	sort.Strings(bins)
	dir, err := os.MkdirTemp("", "mcpbridge-e2e-pg-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	c := &pgCluster{dir: dir, port: port, bindir: filepath.Dir(bins[len(bins)-1])}
	cmd := exec.Command(filepath.Join(repoRoot, "scripts", "setup-postgres.sh"))
	cmd.Env = append(os.Environ(), "MCPBRIDGE_PG_DIR="+dir, fmt.Sprintf("MCPBRIDGE_PG_PORT=%d", port))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	t.Cleanup(func() {
		c.pgctl("stop", "-m", "immediate")
		os.RemoveAll(dir)
	})
	if err != nil {
		t.Fatalf("scripts/setup-postgres.sh for a throwaway cluster in %s: %v\n%s", dir, err, stderr.String())
	}
	if m := regexp.MustCompile(`MCPBRIDGE_TEST_POSTGRES=(\S+)`).FindSubmatch(out); m != nil {
		c.URL = string(m[1])
	} else {
		t.Fatalf("setup-postgres.sh printed no URL: %s", out)
	}
	return c
}

// pgctl runs pg_ctl on the cluster (as the postgres user when the test runs as root, as
// setup-postgres.sh does).
func (c *pgCluster) pgctl(args ...string) error {
	argv := append([]string{filepath.Join(c.bindir, "pg_ctl"), "-D", filepath.Join(c.dir, "data"), "-w", "-t", "60"}, args...)
	if os.Geteuid() == 0 {
		argv = append([]string{"runuser", "-u", "postgres", "--"}, argv...)
	}
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, out)
	}
	return nil
}

// stop stops the server (fast shutdown: open connections are cut).
func (c *pgCluster) stop() error { return c.pgctl("stop", "-m", "fast") }

// start starts the server again with the settings setup-postgres.sh gave it.
func (c *pgCluster) start() error {
	return c.pgctl("start", "-l", filepath.Join(c.dir, "postgres.log"), "-o",
		fmt.Sprintf("-c listen_addresses=127.0.0.1 -c port=%d -c unix_socket_directories=%s -c fsync=off", c.port, c.dir))
}

// requestIDs matches the request ids in error messages, which differ call by call.
var requestIDs = regexp.MustCompile(`request id [0-9a-z-]+`)

// TestFaultPostgresRestart restarts PostgreSQL under load: clients keep calling a tool that
// reads the store (session_list of the ticket app) while the database is stopped for three
// seconds and started again. Calls must succeed before, fail with an error that names the
// store while it is down (and /healthz must say so), and succeed again after, without
// restarting mcpbridge.
func TestFaultPostgresRestart(t *testing.T) {
	pg := startPGCluster(t)
	ta := ticketsApp(t)
	dir := t.TempDir()
	cfg := ticketsConfig(t, dir, ta.Dir, "")
	g := startServe(t, serveOptions{Name: "serve", Dir: dir, Config: cfg, Store: pg.URL, Env: ticketsEnv(ta)})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	type outcome struct {
		at  time.Time
		err error
	}
	var (
		mu       sync.Mutex
		outcomes []outcome
		stop     atomic.Bool
		wg       sync.WaitGroup
	)
	const clients = 8
	for i := range clients {
		wg.Go(func() {
			c := &rawClient{url: g.MCPURL("tickets"), era: modernEra, key: ticketsKey, hc: &http.Client{Timeout: 20 * time.Second}}
			if err := c.open(ctx); err != nil {
				t.Errorf("client %d: %v", i, err)
				return
			}
			for !stop.Load() {
				_, err := c.callTool(ctx, "session_list", map[string]any{})
				mu.Lock()
				outcomes = append(outcomes, outcome{time.Now(), err})
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
	health := func() string {
		resp, err := http.Get(g.Base + "/healthz")
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		b := bufio.NewScanner(resp.Body)
		b.Scan()
		return fmt.Sprintf("%d %s", resp.StatusCode, b.Text())
	}

	time.Sleep(2 * time.Second)
	down := time.Now()
	if err := pg.stop(); err != nil {
		t.Fatal(err)
	}
	downDone := time.Now()
	time.Sleep(time.Second)
	healthDown := health()
	time.Sleep(2 * time.Second)
	upStart := time.Now()
	if err := pg.start(); err != nil {
		t.Fatal(err)
	}
	up := time.Now()
	// Wait for the first success after the restart, then keep the load for two seconds.
	var recovered time.Time
	for recovered.IsZero() && time.Since(up) < 30*time.Second {
		time.Sleep(50 * time.Millisecond)
		mu.Lock()
		for _, o := range outcomes {
			if o.at.After(up) && o.err == nil {
				recovered = o.at
				break
			}
		}
		mu.Unlock()
	}
	time.Sleep(2 * time.Second)
	healthUp := health()
	stop.Store(true)
	wg.Wait()

	select {
	case <-g.done:
		t.Fatalf("mcpbridge exited: %v\n%s", g.waitErr, g.LogTail())
	default:
	}
	var okBefore, errBefore, okDown, errDown, okAfter, errAfter int
	messages := map[string]int{}
	for _, o := range outcomes {
		switch {
		case o.at.Before(down):
			if o.err != nil {
				errBefore++
				t.Errorf("a call before the outage failed: %v", o.err)
			} else {
				okBefore++
			}
		case o.at.After(downDone) && o.at.Before(upStart):
			if o.err == nil {
				okDown++
			} else {
				errDown++
				messages[requestIDs.ReplaceAllString(o.err.Error(), "request id …")]++
			}
		case !recovered.IsZero() && o.at.After(recovered.Add(500*time.Millisecond)):
			if o.err != nil {
				errAfter++
				t.Errorf("a call after the recovery failed: %v", o.err)
			} else {
				okAfter++
			}
		}
	}
	t.Logf("calls: before the outage %d ok %d failed; PostgreSQL down (%s) %d ok %d failed; after recovery %d ok %d failed",
		okBefore, errBefore, upStart.Sub(downDone).Round(time.Millisecond), okDown, errDown, okAfter, errAfter)
	if recovered.IsZero() {
		t.Fatalf("no call succeeded within 30s of PostgreSQL's restart; log:\n%s", g.LogTail())
	}
	t.Logf("first success %s after PostgreSQL was up again", recovered.Sub(up).Round(time.Millisecond))
	t.Logf("/healthz while down: %s; after: %s", healthDown, healthUp)
	if errDown == 0 {
		t.Errorf("no call failed while PostgreSQL was down: the test did not test the outage")
	}
	for m, n := range messages {
		t.Logf("error while down (%d×): %s", n, m)
		if !regexp.MustCompile(`(?i)store|database`).MatchString(m) {
			t.Errorf("an error while PostgreSQL was down does not say the store is the problem: %s", m)
		}
	}
	if !strings.HasPrefix(healthDown, "503") || !strings.Contains(healthDown, "store") {
		t.Errorf("/healthz while PostgreSQL was down: %s, want 503 store unreachable", healthDown)
	}
	if !strings.HasPrefix(healthUp, "200") {
		t.Errorf("/healthz after the recovery: %s, want 200", healthUp)
	}
	if okAfter < clients {
		t.Errorf("only %d calls succeeded after the recovery", okAfter)
	}
}

// TestFaultPostgresOutageAudit stops PostgreSQL for ten seconds while clients keep calling a
// tool that does not need the store (a command): every call answered — before, during and
// after the outage — must have its audit row in the database afterwards (kept in memory and
// the spill file meanwhile), none counted as dropped. While the database is down the admin
// API answers 503 with Retry-After and says the store is the problem, as tool calls do.
func TestFaultPostgresOutageAudit(t *testing.T) {
	pg := startPGCluster(t)
	dir := t.TempDir()
	spill := filepath.Join(dir, "spill")
	cfg := filepath.Join(dir, "audit.yaml")
	os.WriteFile(cfg, []byte(`audit:
  spill_dir: `+spill+`
servers:
  local:
    kind: command
    description: An echo
    audit: {arguments: true}
    tools:
      echo:
        description: Echo a message back
        inputSchema: {type: object, properties: {message: {type: string}}, required: [message]}
        argv: [echo, {direct: message}]
        timeout: 10s
`), 0o644)
	const adminKey = "e2e-admin-key-0123456789abcdef"
	g := startServe(t, serveOptions{Name: "serve", Dir: dir, Config: cfg, Store: pg.URL, Env: []string{"MCPBRIDGE_ADMIN_KEY=" + adminKey}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	var (
		mu       sync.Mutex
		answered = map[string]bool{} // the message of every call answered ok
		failed   int
		stop     atomic.Bool
		wg       sync.WaitGroup
	)
	const clients = 8
	for i := range clients {
		wg.Go(func() {
			c := &rawClient{url: g.MCPURL("local"), era: modernEra, hc: &http.Client{Timeout: 20 * time.Second}}
			if err := c.open(ctx); err != nil {
				t.Errorf("client %d: %v", i, err)
				return
			}
			for n := 0; !stop.Load(); n++ {
				msg := fmt.Sprintf("c%d-%d", i, n)
				_, err := c.callTool(ctx, "echo", map[string]any{"message": msg})
				mu.Lock()
				if err == nil {
					answered[msg] = true
				} else {
					failed++
				}
				mu.Unlock()
			}
		})
	}
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(answered)
	}
	admin := func(method, path, body string) (*http.Response, string) {
		req, _ := http.NewRequestWithContext(ctx, method, g.Base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+adminKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		b := new(strings.Builder)
		bufio.NewReader(resp.Body).WriteTo(b)
		return resp, b.String()
	}

	time.Sleep(2 * time.Second)
	atDown := count()
	if err := pg.stop(); err != nil {
		t.Fatal(err)
	}
	down := time.Now()
	// The admin API while the store is down: the same contract as a tool call.
	def := `{"kind":"command","description":"new","tools":{"hi":{"description":"Hi","argv":["echo","hi"]}}}`
	for _, r := range []struct{ method, path, body string }{
		{"PUT", "/admin/api/servers/other", def},
		{"GET", "/admin/api/servers", ""},
		{"GET", "/admin/api/audit?limit=5", ""},
	} {
		resp, body := admin(r.method, r.path, r.body)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "5" ||
			!strings.Contains(body, "store_unavailable") || !strings.Contains(body, "cannot be reached") {
			t.Errorf("%s %s while PostgreSQL is down: %d Retry-After %q %s; want 503, Retry-After 5 and the store as the reason",
				r.method, r.path, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
	// The rows of calls answered meanwhile reach the spill file (synced).
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(spill, "audit-spill.jsonl"))
		if strings.Count(string(b), "\n") > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no audit row in the spill file 30s into the outage; log:\n%s", g.LogTail())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Until(down.Add(10 * time.Second))) // the outage lasts ten seconds
	atUp := count()
	if err := pg.start(); err != nil {
		t.Fatal(err)
	}
	up := time.Now()
	for count() < atUp+clients*20 && time.Since(up) < 60*time.Second {
		time.Sleep(50 * time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	select {
	case <-g.done:
		t.Fatalf("mcpbridge exited: %v\n%s", g.waitErr, g.LogTail())
	default:
	}

	// Every answered call has its row.
	conn, err := pgx.Connect(ctx, pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var missing []string
	var rows int
	deadline = time.Now().Add(60 * time.Second)
	for {
		recorded := map[string]bool{}
		rs, err := conn.Query(ctx, `SELECT arguments FROM audit WHERE server = 'local' AND tool = 'echo' AND outcome = 'ok'`)
		if err != nil {
			t.Fatal(err)
		}
		rows = 0
		for rs.Next() {
			var args string
			if err := rs.Scan(&args); err != nil {
				t.Fatal(err)
			}
			var a struct{ Message string }
			json.Unmarshal([]byte(args), &a)
			recorded[a.Message] = true
			rows++
		}
		if err := rs.Err(); err != nil {
			t.Fatal(err)
		}
		missing = missing[:0]
		for m := range answered {
			if !recorded[m] {
				missing = append(missing, m)
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("answered calls: %d (%d before the outage, %d during the 10s outage, %d after), %d failed; audit rows found: %d",
		len(answered), atDown, atUp-atDown, len(answered)-atUp, failed, rows)
	if len(missing) > 0 {
		sort.Strings(missing)
		t.Errorf("%d of %d answered calls have no audit row, e.g. %v; log:\n%s", len(missing), len(answered), missing[:min(5, len(missing))], g.LogTail())
	}
	if atUp-atDown < clients {
		t.Errorf("only %d calls answered during the outage: the test did not test it", atUp-atDown)
	}
	resp, err := http.Get(g.Base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "mcpbridge_audit_dropped_total ") && sc.Text() != "mcpbridge_audit_dropped_total 0" {
			t.Errorf("%s, want 0", sc.Text())
		}
	}
}

// upstreamRoleEnv, set to "stdio", makes the test binary an MCP server on stdio (see
// runUpstreamRole): the upstream of TestFaultUpstreams.
const upstreamRoleEnv = "MCPBRIDGE_E2E_UPSTREAM"

// runUpstreamRole serves MCP on stdio with two tools: pid (the process id) and die (the process
// exits with status 3 in the middle of the call).
func runUpstreamRole(role string) int {
	if role != "stdio" {
		fmt.Fprintf(os.Stderr, "%s=%s: unknown role\n", upstreamRoleEnv, role)
		return 2
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "e2e-upstream", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "pid", Description: "The process id"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(os.Getpid())}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "die", Description: "Exits in the middle of the call"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		os.Exit(3)
		return nil, nil, nil
	})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestFaultUpstreams runs `mcpbridge serve` in front of faulty upstreams: an HTTP API that
// answers 500, closes the connection without an answer, or hangs past the call's timeout,
// and an MCP server (a child process on stdio) that dies in the middle of a call. Each fault
// reaches the agent as an error that says what happened, within the timeout, and the next
// call works.
func TestFaultUpstreams(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"status":"fine"}`)
		case "/fail":
			http.Error(w, "the database of the API is on fire", http.StatusInternalServerError)
		case "/close":
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		case "/hang":
			select {
			case <-r.Context().Done():
			case <-time.After(30 * time.Second):
			}
		}
	}))
	defer api.Close()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "faults.yaml")
	tool := func(name string) string {
		return fmt.Sprintf("      %s: {description: %s, inputSchema: {type: object}, method: GET, path: /%s}\n", name, name, name)
	}
	yaml := "servers:\n  api:\n    kind: http\n    description: A faulty API\n    base_url: " + api.URL + "\n    allow_private: true\n    timeout: 1s\n    tools:\n" +
		tool("ok") + tool("fail") + tool("close") + tool("hang") +
		fmt.Sprintf("  child:\n    kind: mcp\n    description: A child that dies\n    command: [%q, \"-test.run=^$\"]\n    env: {%s: stdio}\n    timeout: 5s\n", self, upstreamRoleEnv)
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	g := startServe(t, serveOptions{Name: "serve", Dir: dir, Config: cfg, Store: "sqlite:" + filepath.Join(dir, "store.db")})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	for _, era := range []string{modernEra, legacyEra} {
		t.Run("http-"+era, func(t *testing.T) {
			cs, err := connectMCP(ctx, g.MCPURL("api"), "", era, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			for _, c := range []struct {
				tool string
				want *regexp.Regexp
			}{
				{"fail", regexp.MustCompile(`(?s)500.*on fire`)},
				{"close", regexp.MustCompile(`(?i)EOF|closed|reset`)},
				{"hang", regexp.MustCompile(`(?i)time.?out|deadline|did not answer`)},
			} {
				start := time.Now()
				out, err := callTool(ctx, cs, c.tool, nil)
				took := time.Since(start)
				if err == nil {
					t.Errorf("%s: succeeded (%q), want an error", c.tool, out)
				} else if !c.want.MatchString(err.Error()) {
					t.Errorf("%s: %v, want an error matching %s", c.tool, err, c.want)
				} else {
					t.Logf("%s (%s): %v", c.tool, took.Round(time.Millisecond), err)
				}
				if took > 3*time.Second {
					t.Errorf("%s took %s; the timeout is 1s", c.tool, took)
				}
				if out, err := callTool(ctx, cs, "ok", nil); err != nil || !strings.Contains(out, "fine") {
					t.Errorf("ok after %s: %q, %v", c.tool, out, err)
				}
			}
		})
	}
	for _, era := range []string{modernEra, legacyEra} {
		t.Run("mcp-"+era, func(t *testing.T) {
			cs, err := connectMCP(ctx, g.MCPURL("child"), "", era, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			before, err := callTool(ctx, cs, "pid", nil)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			out, err := callTool(ctx, cs, "die", nil)
			if err == nil {
				t.Fatalf("die succeeded: %q", out)
			}
			if !regexp.MustCompile(`(?i)stopped|exited|died`).MatchString(err.Error()) {
				t.Errorf("die: %v, want an error saying the upstream stopped", err)
			}
			t.Logf("die (%s): %v", time.Since(start).Round(time.Millisecond), err)
			after, err := callTool(ctx, cs, "pid", nil)
			if err != nil {
				t.Fatalf("pid after the child died: %v", err)
			}
			if after == before {
				t.Errorf("the dead child %s still answers", before)
			}
		})
	}
}
