package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite"

	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
)

// -mode lowdefy (issue 9): `mcpbridge app` serving Lowdefy's tutorial (08-final) over HTTP
// in its own process, with its work sessions in the default SQLite store, driven by a load
// client in this process through N work sessions.
var (
	appSessions = flag.Int("sessions", 50, "-mode lowdefy: work sessions, spread over the clients")
	appClients  = flag.String("app-clients", "50,1", "-mode lowdefy: numbers of concurrent clients (each drives sessions/clients work sessions in turn)")
	appEra      = flag.String("era", "2025-11-25", "-mode lowdefy: protocol version of the load client")
	appThink    = flag.Duration("think", 200*time.Millisecond, "-mode lowdefy: paced round: each of the -sessions work sessions has its own client that waits this long after each answer before its next call (0 skips the paced round)")
)

// appOps are the calls of one turn on a work session, in order: what an agent logging a
// ticket does, and get_state, the baseline (a call on the same session that restores it
// from the store but runs no event and saves nothing).
var appOps = []string{"navigate", "interact setValue", "interact submit", "get_state"}

// appArgs returns the arguments of op on session sid; n numbers the ticket.
func appArgs(op, sid string, n int) []byte {
	var v any
	switch op {
	case "navigate":
		v = map[string]any{"sessionId": sid, "pageId": "new-ticket"}
	case "interact setValue":
		v = map[string]any{"sessionId": sid, "actions": []any{
			map[string]any{"type": "setValue", "blockId": "ticket_title", "value": "bench ticket " + strconv.Itoa(n)},
		}}
	case "interact submit":
		v = map[string]any{"sessionId": sid, "actions": []any{
			map[string]any{"type": "setValue", "blockId": "ticket_type", "value": "Question"},
			map[string]any{"type": "setValue", "blockId": "ticket_description", "value": "from the benchmark"},
			map[string]any{"type": "triggerEvent", "blockId": "submit_button", "event": "onClick"},
		}}
	case "get_state":
		v = map[string]any{"sessionId": sid}
	}
	b, _ := json.Marshal(v)
	return b
}

// appToolName is the tool an op calls.
func appToolName(op string) string { return strings.Fields(op)[0] }

// appClient is the raw Streamable HTTP client of the benchmark (rawMCP's requests) that
// keeps each answer, to check it and measure what the model reads.
type appClient struct{ *rawMCP }

// call calls tool with args as worker i and returns the answer's JSON-RPC message.
func (c appClient) call(i int, tool string, args []byte) ([]byte, error) {
	w := &c.w[i]
	_, data, err := c.send(w, "tools/call", tool, c.toolCall(w, tool, args))
	return data, err
}

// appResult is one op's latencies and answers over a run.
type appResult struct {
	lat   []time.Duration
	errs  int
	first string
}

// appTarget is one `mcpbridge app` process under test: the tutorial copied into its own
// folder with its own SQLite files, so that two builds (-candidate) run side by side.
type appTarget struct {
	name     string
	app      *child
	url      string
	storeURL string
	db       string
	logPath  string
	tickets  int
	samples  map[string][]byte
}

// startApp copies the tutorial into dir/name and starts bin serving it.
func startApp(dir, name, bin, dummyURL string) (*appTarget, error) {
	tdir := filepath.Join(dir, name)
	if err := os.MkdirAll(tdir, 0o755); err != nil {
		return nil, err
	}
	appDir, db, err := copyTutorial(tdir, dummyURL)
	if err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	t := &appTarget{name: name, db: db, logPath: filepath.Join(tdir, "app.log"), storeURL: appStore(tdir, "app")}
	logf, err := os.Create(t.logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "app", appDir, "--http", "--listen", addr, "--allow-private", "--log-level", *serveLogLevel, "--store", t.storeURL)
	cmd.Env = append(os.Environ(), "LOWDEFY_SECRET_SQLITE_FILENAME="+db)
	cmd.Env = append(cmd.Env, splitList(*serveEnv)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if t.app, err = start("app-"+name, cmd); err != nil {
		logf.Close()
		return nil, err
	}
	base := "http://" + addr
	if err := waitHealthy(base, t.app, t.logPath); err != nil {
		t.app.stop()
		return nil, err
	}
	t.url = base + "/mcp/lowdefy-starter"
	return t, nil
}

// runLowdefy runs -mode lowdefy.
func runLowdefy() error {
	dir, err := os.MkdirTemp("", "mcpbridge-bench-lowdefy")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin, err := mcpbridgeBin(dir)
	if err != nil {
		return err
	}
	dummy := httptest.NewServer(lowdefytest.DummyJSONHandler())
	defer dummy.Close()
	builds := []struct{ name, bin string }{{"mcpbridge", bin}}
	if *candidateBin != "" {
		builds = append(builds, struct{ name, bin string }{"candidate", *candidateBin})
	}
	var targets []*appTarget
	for _, b := range builds {
		t, err := startApp(dir, b.name, b.bin, dummy.URL)
		if err != nil {
			return err
		}
		defer t.app.stop()
		targets = append(targets, t)
	}

	fmt.Printf("mcpbridge bench, LOWDEFY: `mcpbridge app` serving tutorial 08-final over HTTP in its own process, work sessions in its\n")
	fmt.Printf("SQLite store (restored before and saved after every call); %d work sessions; raw %s client in the bench process;\n", *appSessions, *appEra)
	fmt.Printf("AxiosHttp (get_products on navigate) to a loopback fake of dummyjson.com; Knex inserts into a copy of tutorial_db.sqlite\n")
	fmt.Printf("one turn per session = navigate new-ticket, interact setValue (1 action), interact submit (2 setValue + onClick: validate,\n")
	fmt.Printf("  save_new_ticket INSERT, reset), get_state (baseline: restore only); %s per round after a %s warm-up; GOMAXPROCS=%d\n",
		roundText(), *warmup, runtime.GOMAXPROCS(0))
	if len(targets) > 1 {
		fmt.Printf("A/B: %s (mcpbridge) and %s (candidate) run side by side, each with its own files; their rounds alternate\n", bin, *candidateBin)
	}
	fmt.Printf("closed loop: N clients call back to back (capacity); paced: each work session has its own client that waits -think %s\n", *appThink)
	fmt.Printf("  after each answer (the latency of one call at a rate the machine sustains; the interact goal is judged there)\n")

	type rounded struct {
		label string
		n     int
		think time.Duration
	}
	var rounds []rounded
	for _, n := range splitInts(*appClients) {
		if n < 1 || n > *appSessions {
			return fmt.Errorf("-app-clients %d: want 1 to -sessions (%d)", n, *appSessions)
		}
		rounds = append(rounds, rounded{fmt.Sprintf("closed loop, %d clients over %d sessions", n, *appSessions), n, 0})
	}
	if *appThink > 0 {
		rounds = append(rounds, rounded{fmt.Sprintf("paced, %d sessions each with its own client, think %s (offered %.0f calls/s at most)",
			*appSessions, *appThink, float64(*appSessions)/appThink.Seconds()), *appSessions, *appThink})
	}
	summary := map[string][]string{}
	for _, r := range rounds {
		for _, t := range targets {
			// Each round starts on new sessions: a session's stored data grows with its
			// page's request history, event log and audit trail, and so does the cost of
			// loading and saving it.
			sids, err := createSessions(t.url, *appSessions)
			if err != nil {
				return err
			}
			if _, _, _, err := appRound(t.url, sids, r.n, *warmup, r.think, &t.tickets); err != nil {
				return err
			}
			cpu0 := procCPU(t.app.pid())
			res, smp, secs, err := appRound(t.url, sids, r.n, *duration, r.think, &t.tickets)
			if err != nil {
				return err
			}
			cpu := procCPU(t.app.pid()).sub(cpu0).total()
			t.samples = smp
			label := r.label
			if len(targets) > 1 {
				label = t.name + ": " + label
			}
			line := printAppRound(label, res, secs, cpu)
			summary[r.label] = append(summary[r.label], t.name+": "+line)
			if avg, maxSize, err := sessionSizes(strings.TrimPrefix(t.storeURL, "sqlite:"), sids); err == nil {
				fmt.Printf("  stored work session at the end: %.1f KB on average, %.1f KB at most (loaded and saved by every call)\n", avg/1024, maxSize/1024)
			}
			if err := closeSessions(t.url, sids); err != nil {
				return err
			}
		}
	}
	if len(targets) > 1 {
		fmt.Printf("\nA/B summary (same run, rounds alternating):\n")
		for _, r := range rounds {
			fmt.Printf("  %s\n", r.label)
			for _, l := range summary[r.label] {
				fmt.Printf("    %s\n", l)
			}
		}
	}
	for _, t := range targets {
		if got, err := countBenchTickets(t.db); err != nil {
			return err
		} else if got != t.tickets {
			return fmt.Errorf("%s: the SQLite file holds %d benchmark tickets, but %d submits succeeded", t.name, got, t.tickets)
		}
		fmt.Printf("check (%s): the tutorial's SQLite file holds all %d tickets the submits saved\n", t.name, t.tickets)
		rss, hwm := procMem(t.app.pid())
		fmt.Printf("app process (%s): RSS %.1f MB, peak %.1f MB; %d descriptors, %d threads\n", t.name, rss, hwm, procFDs(t.app.pid()), procThreads(t.app.pid()))
	}
	t := targets[len(targets)-1]
	printAppSizes(t.url, t.samples)
	for _, t := range targets {
		reportServeLog(t.logPath)
	}
	if *profileDir != "" {
		for _, t := range targets {
			t.app.stop()
		}
		appDir, db, err := copyTutorial(filepath.Join(dir, "profile"), dummy.URL)
		if err != nil {
			return err
		}
		return profileLowdefy(dir, appDir, db)
	}
	return nil
}

// appStore is the SQLite store of one app process: a new file in -store-dir (default dir),
// so that each process starts with no work sessions.
func appStore(dir, name string) string {
	if *storeDirFlag != "" {
		dir = *storeDirFlag
	}
	return "sqlite:" + filepath.Join(dir, fmt.Sprintf("bench-%s-%d.db", name, time.Now().UnixNano()))
}

// waitHealthy waits until base/healthz answers, or the process exits.
func waitHealthy(base string, c *child, logPath string) error {
	for i := 0; ; i++ {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-c.done:
			b, _ := os.ReadFile(logPath)
			return fmt.Errorf("mcpbridge app exited:\n%s", b)
		default:
		}
		if i > 300 {
			b, _ := os.ReadFile(logPath)
			return fmt.Errorf("mcpbridge app did not start:\n%s", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// copyTutorial copies tutorial 08-final into dir with its AxiosHttp connection pointed at
// dummyURL and a fresh copy of tutorial_db.sqlite, and returns the app folder and the
// database file.
func copyTutorial(dir, dummyURL string) (appDir, db string, err error) {
	apps := os.Getenv("LOWDEFY_APPS")
	if apps == "" {
		root, err := moduleRoot()
		if err != nil {
			return "", "", err
		}
		apps = filepath.Join(root, "..", "shared", "lowdefy-apps")
	}
	src := filepath.Join(apps, "tutorial", "08-final")
	appDir = filepath.Join(dir, "08-final")
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(appDir, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		b = bytes.ReplaceAll(b, []byte("https://dummyjson.com"), []byte(dummyURL))
		return os.WriteFile(filepath.Join(appDir, rel), b, 0o644)
	})
	if err != nil {
		return "", "", fmt.Errorf("copying the tutorial (set LOWDEFY_APPS to the folder holding tutorial/): %w", err)
	}
	b, err := os.ReadFile(filepath.Join(apps, "tutorial", "tutorial_db.sqlite"))
	if err != nil {
		return "", "", err
	}
	db = filepath.Join(dir, "tutorial_db.sqlite")
	return appDir, db, os.WriteFile(db, b, 0o644)
}

// createSessions creates n work sessions with the go-sdk client.
func createSessions(url string, n int) ([]string, error) {
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", url, err)
	}
	defer cs.Close()
	sids := make([]string, n)
	for i := range sids {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "session_create", Arguments: map[string]any{"name": fmt.Sprintf("bench %d", i)}})
		if err != nil {
			return nil, fmt.Errorf("session_create: %w", err)
		}
		if res.IsError {
			b, _ := json.Marshal(res.Content)
			return nil, fmt.Errorf("session_create: %s", b)
		}
		var out struct{ SessionID string }
		var b []byte
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b = append(b, tc.Text...)
			}
		}
		if err := json.Unmarshal(b, &out); err != nil || out.SessionID == "" {
			return nil, fmt.Errorf("session_create answered %s", b)
		}
		sids[i] = out.SessionID
	}
	return sids, nil
}

// closeSessions closes the work sessions sids.
func closeSessions(url string, sids []string) error {
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", url, err)
	}
	defer cs.Close()
	for _, sid := range sids {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "session_close", Arguments: map[string]any{"sessionId": sid}}); err != nil {
			return fmt.Errorf("session_close: %w", err)
		}
	}
	return nil
}

// sessionSizes reads the mean and largest size of the stored data of sessions sids.
func sessionSizes(file string, sids []string) (avg, largest float64, err error) {
	db, err := sql.Open("sqlite", file+"?mode=ro")
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	var sum float64
	for _, id := range sids {
		var n float64
		if err := db.QueryRow(`SELECT length(data) FROM work_sessions WHERE id = ?`, id).Scan(&n); err != nil {
			return 0, 0, err
		}
		sum += n
		largest = max(largest, n)
	}
	return sum / float64(len(sids)), largest, nil
}

// appRound runs n clients for d, client k driving sessions k, k+n, k+2n, ... in turn, one
// turn (appOps) at a time; with think > 0 each client waits think after every answer before
// its next call (starting at a random point within the first think, so that the clients do
// not call in step). It adds the successful submits to tickets and returns the latencies per
// op, a sample answer per op and the seconds taken.
func appRound(url string, sids []string, n int, d, think time.Duration, tickets *int) (map[string]*appResult, map[string][]byte, float64, error) {
	raw, err := newRawMCP(url, *appEra, n)
	if err != nil {
		return nil, nil, 0, err
	}
	c := appClient{raw}
	defer c.close()
	var (
		mu      sync.Mutex
		res     = map[string]*appResult{}
		samples = map[string][]byte{}
		wg      sync.WaitGroup
		started = time.Now()
		stopAt  = started.Add(d)
		saved   int
	)
	for _, op := range appOps {
		res[op] = &appResult{}
	}
	for k := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := map[string]*appResult{}
			for _, op := range appOps {
				mine[op] = &appResult{lat: make([]time.Duration, 0, 1024)}
			}
			own := map[string][]byte{}
			submits := 0
			if think > 0 {
				time.Sleep(time.Duration(rand.Int64N(int64(think))))
			}
			for turn := 0; time.Now().Before(stopAt); turn++ {
				sid := sids[k+n*(turn%((len(sids)-k+n-1)/n))]
				for _, op := range appOps {
					if think > 0 {
						if time.Now().After(stopAt) {
							break
						}
						time.Sleep(think)
					}
					t0 := time.Now()
					ans, err := c.call(k, appToolName(op), appArgs(op, sid, turn))
					r := mine[op]
					r.lat = append(r.lat, time.Since(t0))
					if err == nil && op == "interact submit" && !bytes.Contains(ans, []byte(`save_new_ticket`)) {
						err = fmt.Errorf("the submit ran no save_new_ticket: %.300s", ans)
					}
					if err != nil {
						if r.errs == 0 {
							r.first = err.Error()
						}
						r.errs++
						continue
					}
					if op == "interact submit" {
						submits++
					}
					if own[op] == nil {
						own[op] = ans
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for op, r := range mine {
				res[op].lat = append(res[op].lat, r.lat...)
				if res[op].errs == 0 {
					res[op].first = r.first
				}
				res[op].errs += r.errs
			}
			for op, a := range own {
				samples[op] = a
			}
			saved += submits
		}()
	}
	wg.Wait()
	secs := time.Since(started).Seconds()
	for _, r := range res {
		sort.Slice(r.lat, func(i, j int) bool { return r.lat[i] < r.lat[j] })
	}
	*tickets += saved
	return res, samples, secs, nil
}

// printAppRound prints one round's table and returns a one-line summary of it.
func printAppRound(label string, res map[string]*appResult, secs, cpu float64) string {
	pct := func(lat []time.Duration, p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return ms(lat[int(float64(len(lat)-1)*p)])
	}
	total := 0
	for _, r := range res {
		total += len(r.lat)
	}
	fmt.Printf("\n%s: %.0f calls/s achieved in all, app process CPU %.0f µs/call (%.2f cores)\n",
		label, float64(total)/secs, 1e6*cpu/float64(max(total, 1)), cpu/secs)
	fmt.Printf("  %-18s %9s %9s %9s %9s %7s\n", "call", "calls/s", "p50", "p99", "p50/base", "errors")
	base := pct(res["get_state"].lat, .5)
	for _, op := range appOps {
		r := res[op]
		p50 := pct(r.lat, .5)
		fmt.Printf("  %-18s %9.0f %7.2fms %7.2fms %8.2fx %7d\n", op, float64(len(r.lat))/secs, p50, pct(r.lat, .99), p50/base, r.errs)
		if r.errs > 0 {
			fmt.Printf("    first error: %s\n", firstLine(r.first))
		}
	}
	both := append(append([]time.Duration(nil), res["interact setValue"].lat...), res["interact submit"].lat...)
	sort.Slice(both, func(i, j int) bool { return both[i] < both[j] })
	verdict := "met"
	if pct(both, .5) > 5 {
		verdict = "MISSED"
	}
	fmt.Printf("  interact (both kinds): p50 %.2fms, p99 %.2fms — goal p50 <= 5ms: %s\n", pct(both, .5), pct(both, .99), verdict)
	return fmt.Sprintf("%.0f calls/s, CPU %.0f µs/call; interact p50 %.2fms p99 %.2fms; get_state p50 %.2fms",
		float64(total)/secs, 1e6*cpu/float64(max(total, 1)), pct(both, .5), pct(both, .99), base)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// countBenchTickets counts the tickets the benchmark saved in the tutorial's database.
func countBenchTickets(file string) (int, error) {
	db, err := sql.Open("sqlite", file)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int
	err = db.QueryRow(`SELECT count(*) FROM tickets WHERE ticket_title LIKE 'bench ticket %'`).Scan(&n)
	return n, err
}

// printAppSizes prints what the model reads: the tools/list answer and one answer of each
// call, in characters of text content, and in o200k tokens when tools/tokenizer is
// installed (npm ci --ignore-scripts --prefix tools/tokenizer).
func printAppSizes(url string, samples map[string][]byte) {
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		fmt.Printf("sizes: %v\n", err)
		return
	}
	defer cs.Close()
	texts := map[string]string{}
	if lt, err := cs.ListTools(ctx, nil); err == nil {
		b, _ := json.Marshal(lt.Tools)
		texts["tools/list (tools array)"] = string(b)
	}
	for op, ans := range samples {
		var m struct {
			Result struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if json.Unmarshal(ans, &m) == nil {
			var sb strings.Builder
			for _, c := range m.Result.Content {
				sb.WriteString(c.Text)
			}
			texts[op] = sb.String()
		}
	}
	names := make([]string, 0, len(texts))
	for k := range texts {
		names = append(names, k)
	}
	sort.Strings(names)
	tokens, terr := countTokens(texts)
	fmt.Printf("\nwhat the model reads (text content of one answer):\n")
	for _, k := range names {
		tok := "tokens: " + fmt.Sprint(terr)
		if terr == nil {
			tok = fmt.Sprintf("%d o200k tokens", tokens[k])
		}
		fmt.Printf("  %-26s %6d chars  %s\n", k, len(texts[k]), tok)
	}
}

// countTokens counts the o200k_base tokens of each text with tools/tokenizer.
func countTokens(texts map[string]string) (map[string]int, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	tdir := filepath.Join(root, "tools", "tokenizer")
	if _, err := os.Stat(filepath.Join(tdir, "node_modules", "gpt-tokenizer")); err != nil {
		return nil, errors.New("n/a (install tools/tokenizer: npm ci --ignore-scripts --prefix tools/tokenizer)")
	}
	node := "node"
	if p, err := filepath.Glob(filepath.Join(root, "tools", "node", "node_modules", "node-linux-*", "bin", "node")); err == nil && len(p) > 0 {
		node = p[0]
	}
	dir, err := os.MkdirTemp("", "mcpbridge-tokens")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var files []string
	byFile := map[string]string{}
	i := 0
	for k, t := range texts {
		f := filepath.Join(dir, fmt.Sprintf("%d.txt", i))
		i++
		if err := os.WriteFile(f, []byte(t), 0o644); err != nil {
			return nil, err
		}
		files = append(files, f)
		byFile[f] = k
	}
	out, err := exec.Command(node, append([]string{filepath.Join(tdir, "count.mjs")}, files...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("counting tokens: %v", err)
	}
	counts := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var r struct {
			File   string `json:"file"`
			Tokens int    `json:"tokens"`
		}
		if err := dec.Decode(&r); err != nil {
			break
		}
		counts[byFile[r.File]] = r.Tokens
	}
	return counts, nil
}

// lowdefyParts split a CPU profile of the app process (see categorizeBy).
var lowdefyParts = []part{
	{"audit: batched SQLite writes (background)", []string{"gateway.(*auditor).run"}},
	{"Knex request (save_new_ticket)", []string{"connections/knex."}},
	{"work-session store: SQLite load and save", []string{"store/sqlite.", "store.(*", "modernc.org/sqlite", "database/sql."}},
	{"session snapshot: save and restore", []string{"engine.(*Engine).Save", "engine.(*Engine).Restore", "engine.restorePage", "lowdefy/serial."}},
	{"page render (markdown)", []string{"lowdefy/render.", "backend/lowdefy.agentRender"}},
	{"AxiosHttp request (get_products)", []string{"connections/axioshttp.", "net/http.(*persistConn)", "net/http.(*Transport)"}},
	{"Lowdefy engine: events, actions, operators", []string{"lowdefy/engine.", "lowdefy/operators.", "lowdefy/runtime.", "lowdefy/server.", "lowdefy/blocks."}},
	{"lowdefy backend: tools, JSON results", []string{"backend/lowdefy.", "jsvalue."}},
	{"logging (slog)", []string{"log/slog."}},
	{"go-sdk and JSON", []string{"modelcontextprotocol/go-sdk", "encoding/json."}},
	{"net/http server", []string{"net/http."}},
	{"gateway", []string{"mcpbridge/internal/gateway."}},
	{"garbage collection (background workers)", []string{"runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.bgscavenge"}},
	{"scheduler, netpoll, sysmon, idle", []string{"runtime.schedule", "runtime.findRunnable", "runtime.netpoll", "runtime.mcall", "runtime.park_m", "runtime.goexit0", "runtime.sysmon", "runtime.mstart"}},
}

// profileLowdefy runs the app again from bench/cmd/profserve (mcpbridge with pprof on a
// side port), loads it with the largest client count for -profile-duration under the CPU
// profiler, and prints where the time goes: the profile by part and its top functions.
func profileLowdefy(dir, appDir, db string) error {
	out := *profileDir
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	bin, err := buildProfserve(dir)
	if err != nil {
		return err
	}
	profAddr, err := freeAddr()
	if err != nil {
		return err
	}
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	logPath := filepath.Join(dir, "profapp.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(bin, "app", appDir, "--http", "--listen", addr, "--allow-private", "--log-level", *serveLogLevel, "--store", appStore(dir, "profapp"))
	cmd.Env = append(os.Environ(), "LOWDEFY_SECRET_SQLITE_FILENAME="+db, "MCPBRIDGE_PROF_ADDR="+profAddr)
	cmd.Env = append(cmd.Env, splitList(*serveEnv)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	app, err := start("profapp", cmd)
	if err != nil {
		return err
	}
	defer app.stop()
	base := "http://" + addr
	if err := waitHealthy(base, app, logPath); err != nil {
		return err
	}
	url := base + "/mcp/lowdefy-starter"
	sids, err := createSessions(url, *appSessions)
	if err != nil {
		return err
	}
	n := 0
	for _, c := range splitInts(*appClients) {
		n = max(n, c)
	}
	tickets := 0
	if _, _, _, err := appRound(url, sids, n, *warmup, 0, &tickets); err != nil {
		return err
	}
	prof := filepath.Join(out, "lowdefy-cpu.pprof")
	secs := int(profileSecs.Seconds())
	done := make(chan error, 1)
	go func() {
		done <- fetch(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", profAddr, secs), prof)
	}()
	time.Sleep(100 * time.Millisecond)
	cpu0 := procCPU(app.pid())
	res, _, rsecs, err := appRound(url, sids, n, time.Duration(secs)*time.Second, 0, &tickets)
	if err != nil {
		return err
	}
	cpu := procCPU(app.pid()).sub(cpu0).total()
	if err := <-done; err != nil {
		return err
	}
	calls := 0
	for _, r := range res {
		calls += len(r.lat)
	}
	cpuPerCall := 1e6 * cpu / float64(max(calls, 1))
	fmt.Printf("\nPROFILE of the app process (bench/cmd/profserve), %d clients for %ds: %d calls (%.0f/s), %.0f µs CPU per call; %s\n",
		n, secs, calls, float64(calls)/rsecs, cpuPerCall, prof)
	cats, err := categorizeBy(prof, lowdefyParts)
	if err != nil {
		return err
	}
	fmt.Printf("  CPU profile by part (share of samples, and that share of the CPU per call):\n")
	for _, c := range cats {
		if c.share >= 0.005 {
			fmt.Printf("    %-54s %5.1f%% %6.0f µs\n", c.name, 100*c.share, c.share*cpuPerCall)
		}
	}
	top, err := exec.Command("go", "tool", "pprof", "-top", "-cum", "-nodecount=30", prof).Output()
	if err != nil {
		return fmt.Errorf("go tool pprof -top: %v", err)
	}
	topPath := filepath.Join(out, "lowdefy-top.txt")
	if err := os.WriteFile(topPath, top, 0o644); err != nil {
		return err
	}
	fmt.Printf("  top functions by cumulative time: %s\n", topPath)
	return nil
}
