package main

// The upstream benchmark (-mode upstream, issues 10 and 24): tools/call through `kind: mcp`
// servers of `mcpbridge serve` against the same upstream MCP server called directly, and
// against TBXark's mcp-proxy in front of the same stdio upstream, in the same run.
//
// Processes: the upstream (bench/cmd/echoserver http), `mcpbridge serve` with three servers,
// echo-http (url: the upstream, isolation: per-session), echo-stdio (command: echoserver
// stdio, a child per session) and echo-stdio-shared (the same, one child for every caller),
// the load client (this binary in the client role), and optionally the go-sdk proxy floor
// (-floor), a second serve from -candidate (the same three servers, for A/B of two builds)
// and TBXark's mcp-proxy from -peer (streamable-http, stateless, one stdio child). Targets,
// in rotating rounds:
//
//	direct HTTP               the client's sessions on the echoserver's /mcp
//	direct stdio              the client starts a child `echoserver stdio` per worker
//	TBXark stdio              the client on the peer's /echo/ (skipped without -peer)
//	mcpbridge HTTP            the client's sessions on serve's /mcp/echo-http
//	mcpbridge stdio shared    ... on /mcp/echo-stdio-shared
//	mcpbridge stdio per-sess  ... on /mcp/echo-stdio
//	candidate ...             the same three on the -candidate serve
//
// Each worker calls echo {"message":"hello"} in a loop with one session of its own.

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

var upEras = flag.String("upstream-eras", "2025-11-25", "-mode upstream: protocol eras of the client (comma-separated); a 2025-11-25 session gets an upstream session of its own, 2026-07-28 calls share one per user")

var upIdleWait = flag.Duration("upstream-idle-wait", 0, "-mode upstream: at the end, wait this long (e.g. 95s, past the 90 s keep-alive timeout of upstream connections) and report the serve process again")

const echoArgs = `{"message":"hello"}`

var peerBin = flag.String("peer", "", "-mode upstream: also run this TBXark mcp-proxy binary (github.com/TBXark/mcp-proxy, built outside the repository) in front of the same stdio upstream, one shared child, and compare")

// upTarget is a target of the upstream benchmark.
type upTarget struct {
	name      string
	kind      string // "http" or "stdio": the upstream's transport
	via       string // "direct", "floor", "mcpbridge", "candidate" or "peer"
	isolation string // of a gateway target: "shared" or "per-session"
	proc      string // the process that answers: "" (the upstream itself), serve, candidate, proxy, peer
	target    string // client target: mcp or stdio
	url       string
	command   []string
	stateless bool   // the target keeps no sessions (the peer)
	skipped   string // why the target is not measured, if it is not
}

func (t upTarget) op(era string, workers int, d time.Duration, n int) clientOp {
	return clientOp{Op: "round", Target: t.target, URL: t.url, Era: era, Workers: workers, Client: "raw",
		Duration: d, Count: n, Tool: "echo", Args: json.RawMessage(echoArgs), Command: t.command, Stateless: t.stateless}
}

// upRound is one round on one target, with the CPU spent meanwhile by serve, the HTTP
// upstream, the client and the children of serve and of the client (stdio upstreams).
type upRound struct {
	r     roundResult
	cpu   map[string]float64 // seconds, by part: serve, serve children, proxy, proxy children, upstream, client, client children
	after map[string]float64 // the same after the round, until every process was idle
}

// upSetup is the set of processes of the upstream benchmark.
type upSetup struct {
	procs    map[string]*child // upstream, serve, client, and proxy (the go-sdk proxy floor), candidate, peer
	side     map[string]string // pprof address of serve and proxy, with -profile
	serveURL string
	upPort   int // the HTTP upstream's port
	targets  []upTarget
}

func (s *upSetup) stop() {
	for _, name := range []string{"client", "serve", "candidate", "peer", "proxy", "upstream"} {
		s.procs[name].stop()
	}
}

// upstreamConfig is the serve configuration: the HTTP upstream (per session), and the stdio
// upstream per session and shared.
func upstreamConfig(url, echo string) string {
	return fmt.Sprintf(`servers:
  echo-http:
    kind: mcp
    description: The benchmark's echo server over Streamable HTTP
    url: %s
    transport: streamable
    isolation: per-session
  echo-stdio:
    kind: mcp
    description: The benchmark's echo server over stdio, a child per session
    command: [%q, stdio]
    isolation: per-session
  echo-stdio-shared:
    kind: mcp
    description: The benchmark's echo server over stdio, one child for every caller
    command: [%q, stdio]
    isolation: shared
`, url, echo, echo)
}

// cpuParts reads the CPU time of every process of the benchmark, children included.
func (s *upSetup) cpuParts() map[string]map[int]float64 {
	out := map[string]map[int]float64{}
	for _, name := range []string{"serve", "candidate", "proxy", "peer", "upstream", "client"} {
		if s.procs[name] == nil {
			continue
		}
		pid := s.procs[name].pid()
		out[name] = map[int]float64{pid: procCPU(pid).total()}
		if name != "upstream" {
			kids := map[int]float64{}
			for _, k := range descendants(pid) {
				kids[k] = procCPU(k).total()
			}
			out[name+" children"] = kids
		}
	}
	return out
}

// cpuDelta is the CPU spent by each part between a and b, counting only processes alive at
// both moments.
func cpuDelta(a, b map[string]map[int]float64) map[string]float64 {
	d := map[string]float64{}
	for part, pids := range b {
		for pid, t := range pids {
			if t0, ok := a[part][pid]; ok {
				d[part] += t - t0
			}
		}
	}
	return d
}

func (s *upSetup) round(t upTarget, era string, workers int, d time.Duration, n int) (upRound, error) {
	// Open the sessions (and children) outside the measured CPU: a round of one call.
	if _, err := s.procs["client"].do(t.op(era, workers, 0, workers)); err != nil {
		return upRound{}, fmt.Errorf("%s: %v", t.name, err)
	}
	before := s.cpuParts()
	r, err := s.procs["client"].do(t.op(era, workers, d, n))
	if err != nil {
		return upRound{}, fmt.Errorf("%s: %v", t.name, err)
	}
	end := s.cpuParts()
	return upRound{r: r, cpu: cpuDelta(before, end), after: s.settle(end)}, nil
}

// settle waits until every process is idle (under 5% of a core for 100 ms), at most
// -settle, so that work left over from one round (the audit queue draining) is not charged
// to the next, and returns the CPU spent meanwhile.
func (s *upSetup) settle(since map[string]map[int]float64) map[string]float64 {
	deadline := time.Now().Add(*settleMax)
	last := since
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		now := s.cpuParts()
		var busy float64
		for _, v := range cpuDelta(last, now) {
			busy += v
		}
		last = now
		if busy < 0.005 {
			break
		}
	}
	return cpuDelta(since, last)
}

// serveState is what the gateway reports about itself on /metrics, and its children.
type serveState struct {
	goroutines, fds, children int
	upConns                   int // sockets to the HTTP upstream
}

func (s serveState) String() string {
	return fmt.Sprintf("%4d goroutines, %4d fds (%3d connections to the HTTP upstream), %2d children", s.goroutines, s.fds, s.upConns, s.children)
}

// state reads go_goroutines and process_open_fds from serve's /metrics and counts its
// children.
func (s *upSetup) state() serveState {
	pid := s.procs["serve"].pid()
	st := serveState{goroutines: -1, fds: -1, children: len(descendants(pid)), upConns: procSockets(pid, s.upPort)}
	resp, err := http.Get(s.serveURL + "/metrics")
	if err != nil {
		return st
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "go_goroutines":
			st.goroutines = int(v)
		case "process_open_fds":
			st.fds = int(v)
		}
	}
	return st
}

// settleState waits until serve's goroutines and children stop falling (at most wait) and
// returns the last state.
func (s *upSetup) settleState(wait time.Duration) serveState {
	last := s.state()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		time.Sleep(250 * time.Millisecond)
		st := s.state()
		if st == last {
			return st
		}
		last = st
	}
	return last
}

// descendants lists the processes below pid.
func descendants(pid int) []int {
	var out []int
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if k, err := strconv.Atoi(f); err == nil {
				out = append(out, k)
				out = append(out, descendants(k)...)
			}
		}
	}
	return out
}

// runUpstream is -mode upstream.
func runUpstream() error {
	dir, err := os.MkdirTemp("", "mcpbridge-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var env []string
	var bin, profAddr string
	if *profileDir != "" {
		// The same CLI with pprof on a side port, idle until asked.
		if bin, err = buildProfserve(dir); err != nil {
			return err
		}
		if profAddr, err = freeAddr(); err != nil {
			return err
		}
		env = append(env, "MCPBRIDGE_PROF_ADDR="+profAddr)
	} else if bin, err = mcpbridgeBin(dir); err != nil {
		return err
	}
	echo, err := buildPackage(dir, "echoserver", "./bench/cmd/echoserver")
	if err != nil {
		return err
	}
	s := &upSetup{procs: map[string]*child{}, side: map[string]string{}}
	defer s.stop()
	up, r, err := startProgram("upstream", echo, "http")
	if err != nil {
		return err
	}
	s.procs["upstream"] = up
	upURL := "http://" + r.Addr + "/mcp"
	if _, port, err := net.SplitHostPort(r.Addr); err == nil {
		s.upPort, _ = strconv.Atoi(port)
	}
	sv, serveURL, err := startServeConfig("serve", bin, dir, upstreamConfig(upURL, echo), append(splitList(*serveEnv), env...))
	if err != nil {
		return err
	}
	s.procs["serve"], s.serveURL = sv, serveURL
	if *floorFlag {
		args := []string{"-upstream", upURL}
		if *profileDir != "" {
			a, err := freeAddr()
			if err != nil {
				return err
			}
			args = append(args, "-prof-addr", a)
			s.side["proxy"] = "http://" + a
		}
		px, r, err := startRole("proxy", append(args, echo, "stdio")...)
		if err != nil {
			return err
		}
		s.procs["proxy"] = px
		s.targets = append(s.targets,
			upTarget{name: "go-sdk floor HTTP", kind: "http", via: "floor", proc: "proxy", isolation: "per-session", target: "mcp", url: "http://" + r.Addr + "/http"},
			upTarget{name: "go-sdk floor stdio", kind: "stdio", via: "floor", proc: "proxy", isolation: "per-session", target: "mcp", url: "http://" + r.Addr + "/stdio"})
	}
	gatewayTargets := func(via, proc, base string) []upTarget {
		return []upTarget{
			{name: via + " HTTP", kind: "http", via: via, proc: proc, isolation: "per-session", target: "mcp", url: base + "/mcp/echo-http"},
			{name: via + " stdio shared", kind: "stdio", via: via, proc: proc, isolation: "shared", target: "mcp", url: base + "/mcp/echo-stdio-shared"},
			{name: via + " stdio per-sess", kind: "stdio", via: via, proc: proc, isolation: "per-session", target: "mcp", url: base + "/mcp/echo-stdio"},
		}
	}
	if *candidateBin != "" {
		cv, candURL, err := startServeConfig("candidate", *candidateBin, dir, upstreamConfig(upURL, echo), splitList(*serveEnv))
		if err != nil {
			return err
		}
		s.procs["candidate"] = cv
		s.targets = append(s.targets, gatewayTargets("candidate", "candidate", candURL)...)
	}
	peer := upTarget{name: "TBXark stdio", kind: "stdio", via: "peer", proc: "peer", isolation: "shared", target: "mcp", stateless: true}
	if *peerBin != "" {
		pp, peerURL, err := startPeer(*peerBin, dir, echo)
		if err != nil {
			return err
		}
		s.procs["peer"], peer.url = pp, peerURL
	} else {
		peer.skipped = "skipped: pass -peer"
	}
	s.targets = append(s.targets, peer)
	cl, _, err := startRole("client")
	if err != nil {
		return err
	}
	s.procs["client"] = cl
	s.targets = append(append([]upTarget{
		{name: "direct HTTP", kind: "http", via: "direct", target: "mcp", url: upURL},
		{name: "direct stdio", kind: "stdio", via: "direct", target: "stdio", url: "stdio:" + echo, command: []string{echo, "stdio"}},
	}, gatewayTargets("mcpbridge", "serve", serveURL)...), s.targets...)
	order := map[string]int{"direct": 0, "peer": 1, "floor": 2, "mcpbridge": 3, "candidate": 4}
	slices.SortStableFunc(s.targets, func(a, b upTarget) int {
		if a.kind != b.kind {
			return strings.Compare(a.kind, b.kind)
		}
		return order[a.via] - order[b.via]
	})
	time.Sleep(500 * time.Millisecond)
	states := []struct {
		when string
		st   serveState
	}{{"idle before load", s.settleState(2 * time.Second)}}

	fmt.Printf("mcpbridge bench, UPSTREAM MCP SERVERS (kind: mcp), SEPARATE PROCESSES\n")
	fmt.Printf("upstream: bench/cmd/echoserver (go-sdk, tool echo) over Streamable HTTP, or over stdio (a child per session, or one shared);\n")
	if *peerBin != "" {
		fmt.Printf("peer: %s (TBXark mcp-proxy, streamable-http, stateless, one shared stdio child)\n", *peerBin)
	}
	fmt.Printf("`mcpbridge serve` (%s logs, SQLite store and audit); load client with one raw MCP session per worker\n", *serveLogLevel)
	fmt.Printf("%d rounds of %s per target, interleaved, after a %s warm-up; medians; GOMAXPROCS=%d, %d CPUs\n",
		*rounds, roundText(), *warmup, runtime.GOMAXPROCS(0), runtime.NumCPU())
	fmt.Printf("CPU µs/call: the proxy (serve or the floor) during the round + after it until idle (the audit queue draining), the upstream\n")
	fmt.Printf("  (HTTP process, or the stdio children), the client; total: every process, during the round\n")
	type verdict struct{ label, text string }
	var summary []verdict
	for _, era := range splitList(*upEras) {
		for _, n := range splitInts(*clientsFlag) {
			fmt.Fprintf(os.Stderr, "bench: upstream, %d clients, %s\n", n, era)
			res := map[string][]upRound{}
			var live []upTarget
			for _, t := range s.targets {
				if t.skipped == "" {
					live = append(live, t)
				}
			}
			for _, t := range live {
				if _, err := s.round(t, era, n, *warmup, 0); err != nil {
					return err
				}
			}
			for i := range *rounds {
				for j := range live {
					t := live[(i+j)%len(live)]
					r, err := s.round(t, era, n, *duration, *count)
					if err != nil {
						return err
					}
					res[t.name] = append(res[t.name], r)
				}
			}
			during := s.state()
			for _, t := range live {
				s.procs["client"].do(clientOp{Op: "close", Target: t.target, URL: t.url, Era: era, Client: "raw"})
			}
			after := s.settleState(5 * time.Second)
			states = append(states, struct {
				when string
				st   serveState
			}{fmt.Sprintf("%d client(s) %s: sessions open", n, era), during},
				struct {
					when string
					st   serveState
				}{fmt.Sprintf("%d client(s) %s: sessions closed", n, era), after})
			for _, v := range printUpBlock(n, era, s.targets, res) {
				summary = append(summary, verdict{fmt.Sprintf("%2d client(s), %s, %-24s", n, era, v[0]), v[1]})
			}
		}
	}
	if *upIdleWait > 0 {
		fmt.Fprintf(os.Stderr, "bench: waiting %s for idle connections to close\n", *upIdleWait)
		time.Sleep(*upIdleWait)
		states = append(states, struct {
			when string
			st   serveState
		}{fmt.Sprintf("%s later", *upIdleWait), s.state()})
	}
	fmt.Printf("\nserve process (go_goroutines and process_open_fds from /metrics; children from /proc):\n")
	for _, x := range states {
		fmt.Printf("  %-44s %s\n", x.when, x.st)
	}
	fmt.Printf("\nresident memory after the run (VmRSS, and VmHWM the peak):\n")
	for _, name := range []string{"serve", "candidate", "peer", "proxy", "upstream"} {
		if c := s.procs[name]; c != nil {
			rss, hwm := procMem(c.pid())
			fmt.Printf("  %-10s %6.1f MB (peak %6.1f MB)\n", name, rss, hwm)
		}
	}
	reportServeLog(filepath.Join(dir, "serve.log"))
	fmt.Printf("\nagainst the goals of issue 24 (one client: p50 <= TBXark's; 16: shared >= 1.5x TBXark, per-session >= 1x;\n")
	fmt.Printf("HTTP upstream: added p50 <= 0.150 ms over direct, calls/s >= 0.90x direct):\n")
	for _, v := range summary {
		fmt.Printf("  %s %s\n", v.label, v.text)
	}
	if *profileDir != "" {
		s.side["serve"] = "http://" + profAddr
		return profileUpstream(s)
	}
	return nil
}

// printUpBlock prints one (clients, era) block and returns verdicts against the goals of
// issue 24, each a label and a text.
func printUpBlock(n int, era string, targets []upTarget, res map[string][]upRound) [][2]string {
	fmt.Printf("\n%d client(s), %s\n", n, era)
	fmt.Printf("  %-24s %9s %9s %9s %6s | %s\n", "target", "calls/s", "p50", "p99", "errors", "CPU µs/call: proxy upstream client  total")
	med := func(rs []upRound, f func(upRound) float64) float64 {
		xs := make([]float64, len(rs))
		for i, r := range rs {
			xs[i] = f(r)
		}
		return median(xs)
	}
	for _, t := range targets {
		if t.skipped != "" {
			fmt.Printf("  %-24s %s\n", t.name, t.skipped)
			continue
		}
		rs := res[t.name]
		sum := func(m map[string]float64, calls int, parts ...string) float64 {
			var x float64
			for _, p := range parts {
				x += m[p]
			}
			return 1e6 * x / float64(max(calls, 1))
		}
		per := func(parts ...string) float64 {
			return med(rs, func(r upRound) float64 { return sum(r.cpu, r.r.Calls, parts...) })
		}
		after := func(parts ...string) float64 {
			return med(rs, func(r upRound) float64 { return sum(r.after, r.r.Calls, parts...) })
		}
		upstream := per("upstream")
		if t.kind == "stdio" {
			upstream = per("client children")
			if t.proc != "" {
				upstream = per(t.proc + " children")
			}
		}
		proxy := "-"
		if t.proc != "" {
			proxy = fmt.Sprintf("%.0f+%.0f", per(t.proc), after(t.proc))
		}
		errs, first := 0, ""
		for _, r := range rs {
			errs += r.r.Errors
			if first == "" {
				first = r.r.FirstError
			}
		}
		fmt.Printf("  %-24s %9.0f %7.3fms %7.3fms %6d | %17s %8.0f %6.0f %6.0f\n", t.name,
			med(rs, func(r upRound) float64 { return float64(r.r.Calls) / r.r.Secs }),
			med(rs, func(r upRound) float64 { return r.r.P50 }),
			med(rs, func(r upRound) float64 { return r.r.P99 }),
			errs, proxy, upstream, per("client"),
			per("serve", "serve children", "candidate", "candidate children", "proxy", "proxy children",
				"peer", "peer children", "upstream", "client", "client children"))
		if first != "" {
			fmt.Printf("  %-24s first error: %s\n", "", first)
		}
	}
	type cmp struct{ ratio, p50, p99 float64 }
	// compare pairs the rounds of a and b (interleaved, so round i of each ran close in
	// time) and returns the medians of the calls/s ratio and of the p50 and p99 differences.
	compare := func(a, b string) (cmp, bool) {
		ra, rb := res[a], res[b]
		if len(ra) == 0 || len(rb) == 0 {
			return cmp{}, false
		}
		paired := func(f func(a, b roundResult) float64) float64 {
			var xs []float64
			for i := range min(len(ra), len(rb)) {
				xs = append(xs, f(ra[i].r, rb[i].r))
			}
			return median(xs)
		}
		return cmp{
			ratio: paired(func(a, b roundResult) float64 { return (float64(a.Calls) / a.Secs) / (float64(b.Calls) / b.Secs) }),
			p50:   paired(func(a, b roundResult) float64 { return a.P50 - b.P50 }),
			p99:   paired(func(a, b roundResult) float64 { return a.P99 - b.P99 }),
		}, true
	}
	met := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	fmt.Printf("  ratios (paired rounds, medians):\n")
	for _, t := range targets {
		if t.via == "direct" || t.skipped != "" {
			continue
		}
		if c, ok := compare(t.name, "direct HTTP"); ok {
			fmt.Printf("    %-24s vs direct HTTP:    calls/s %5.2fx, p50 %+.3fms\n", t.name, c.ratio, c.p50)
		}
		if t.kind == "stdio" && t.via != "peer" {
			if c, ok := compare(t.name, "TBXark stdio"); ok {
				fmt.Printf("    %-24s vs TBXark stdio:   calls/s %5.2fx, p50 %+.3fms\n", t.name, c.ratio, c.p50)
			}
		}
		if t.via == "candidate" {
			if c, ok := compare(t.name, "mcpbridge"+strings.TrimPrefix(t.name, "candidate")); ok {
				fmt.Printf("    %-24s vs mcpbridge:      calls/s %5.2fx, p50 %+.3fms, p99 %+.3fms\n", t.name, c.ratio, c.p50, c.p99)
			}
		}
	}
	var out [][2]string
	for _, t := range targets {
		if (t.via != "mcpbridge" && t.via != "candidate") || t.skipped != "" {
			continue
		}
		if t.kind == "http" {
			c, _ := compare(t.name, "direct HTTP")
			out = append(out, [2]string{t.name, fmt.Sprintf("vs direct: calls/s %.2fx (%s), added p50 %+.3fms (%s)",
				c.ratio, met(c.ratio >= 0.9), c.p50, met(c.p50 <= 0.15))})
			continue
		}
		c, ok := compare(t.name, "TBXark stdio")
		if !ok {
			out = append(out, [2]string{t.name, "vs TBXark: skipped: pass -peer"})
			continue
		}
		if n == 1 {
			out = append(out, [2]string{t.name, fmt.Sprintf("vs TBXark: p50 %+.3fms (%s)", c.p50, met(c.p50 <= 0))})
		} else {
			goal := 1.0
			if t.isolation == "shared" {
				goal = 1.5
			}
			out = append(out, [2]string{t.name, fmt.Sprintf("vs TBXark: calls/s %.2fx (%s, goal %.1fx)", c.ratio, met(c.ratio >= goal), goal)})
		}
	}
	return out
}

// upParts splits the serve process's CPU profile under the upstream benchmark (first
// matching part wins).
var upParts = []part{
	{"audit (SQLite, background)", []string{"gateway.(*auditor).run", "modernc.org/sqlite", "database/sql."}},
	{"logging (slog)", []string{"log/slog."}},
	{"metrics (prometheus)", []string{"prometheus/client_golang"}},
	{"argument validation (gateway.validateArgs)", []string{"gateway.validateArgs", "jsonschema-go"}},
	{"upstream HTTP client I/O (net/http Transport, persistConn loops)", []string{"net/http.(*persistConn)", "net/http.(*Transport)", "net/http.(*Client)"}},
	{"upstream stdio pipe I/O (go-sdk ioConn, os.File)", []string{"mcp.(*ioConn)", "os.(*File)"}},
	{"upstream MCP client (go-sdk streamable client conn)", []string{"mcp.(*streamableClientConn)", "mcp.(*StreamableClientTransport)"}},
	{"upstream go-sdk client call (ClientSession.CallTool: encode, send, wait)", []string{"mcp.(*ClientSession)"}},
	{"kind mcp backend's own code (internal/backend/upstream)", []string{"backend/upstream."}},
	{"downstream SSE framing and flush (go-sdk writeEvent)", []string{"mcp.writeEvent"}},
	{"gateway envelope (readBody, checkMessage, ...)", []string{"gateway.readBody", "gateway.checkMessage", "gateway.(*rpcErrorWriter)", "gateway.writeRPCError"}},
	{"go-sdk JSON decode/encode (both sides)", []string{"go-sdk/internal/json", "jsonrpc2.DecodeMessage", "jsonrpc2.EncodeMessage", "encoding/json."}},
	{"go-sdk sessions, dispatch, jsonrpc2 (both sides)", []string{"modelcontextprotocol/go-sdk"}},
	{"downstream net/http server: read request, final write", []string{"net/http.(*conn)", "net/http.(*response)", "net/http.(*chunkWriter)", "net/http.(*connReader)"}},
	{"gateway routing, request id, metrics calls", []string{"mcpbridge/internal/gateway."}},
	{"garbage collection (background workers)", []string{"runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.bgscavenge"}},
	{"scheduler, netpoll, sysmon, idle", []string{"runtime.schedule", "runtime.findRunnable", "runtime.netpoll", "runtime.mcall", "runtime.park_m", "runtime.goexit0", "runtime.sysmon", "runtime.mstart"}},
}

// profileUpstream profiles serve under the largest number of clients, for each gateway
// target: a CPU profile of one round of -profile-duration, split by part.
func profileUpstream(s *upSetup) error {
	out := *profileDir
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	ns := splitInts(*clientsFlag)
	n := ns[len(ns)-1]
	era := splitList(*upEras)[0]
	secs := max(int(profileSecs.Seconds()), 1)
	fmt.Printf("\nPROFILE of the serve process, %d clients, %s, rounds of %ds; files in %s\n", n, era, secs, out)
	for _, t := range s.targets {
		proc := t.proc
		side := s.side[proc]
		if side == "" || t.skipped != "" {
			continue
		}
		fmt.Fprintf(os.Stderr, "bench: profiling %s\n", t.name)
		if _, err := s.round(t, era, n, *warmup, 0); err != nil {
			return err
		}
		base := filepath.Join(out, fmt.Sprintf("upstream-%s-c%d", strings.ReplaceAll(t.name, " ", "-"), n))
		rt0, _ := getRuntime(side)
		var wg sync.WaitGroup
		var perr error
		wg.Add(1)
		go func() {
			defer wg.Done()
			perr = fetch(fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", side, secs), base+"-cpu.pprof")
		}()
		time.Sleep(100 * time.Millisecond)
		r, err := s.round(t, era, n, time.Duration(secs)*time.Second, 0)
		wg.Wait()
		if err != nil {
			return err
		}
		if perr != nil {
			return perr
		}
		rt1, _ := getRuntime(side)
		s.procs["client"].do(clientOp{Op: "close", Target: t.target, URL: t.url, Era: era, Client: "raw"})
		cats, err := categorizeBy(base+"-cpu.pprof", upParts)
		if err != nil {
			return err
		}
		calls := float64(max(r.r.Calls, 1))
		cpu := 1e6 * r.cpu[proc] / calls
		fmt.Printf("\n%s: %.0f calls/s, p50 %.3fms; %s CPU %.0f µs/call during the round (+%.0f after)", t.name, calls/r.r.Secs, r.r.P50, proc, cpu, 1e6*r.after[proc]/calls)
		if rt0.Counters != nil && rt1.Counters != nil {
			d := func(name string) float64 { return (rt1.Counters[name] - rt0.Counters[name]) / calls }
			fmt.Printf("; per call %.0f KB and %.0f objects allocated, %.2f goroutines created", d("/gc/heap/allocs:bytes")/1024, d("/gc/heap/allocs:objects"), d("/sched/goroutines-created:goroutines"))
		}
		fmt.Println()
		for _, c := range cats {
			if c.share < 0.005 {
				continue
			}
			fmt.Printf("    %-66s %5.1f%% %6.0f µs\n", c.name, 100*c.share, c.share*cpu)
		}
	}
	return nil
}

// startPeer runs TBXark's mcp-proxy (bin) on a free loopback port with the echoserver over
// stdio as its one server, served over Streamable HTTP (stateless, its only mode there), and
// waits until the server's route answers. It returns the process and the MCP endpoint.
func startPeer(bin, dir, echo string) (*child, string, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	cfg := map[string]any{
		"mcpProxy": map[string]any{
			"baseURL": "http://" + addr, "addr": addr, "name": "peer", "version": "1", "type": "streamable-http",
			"options": map[string]any{"logEnabled": false, "panicIfInvalid": true},
		},
		"mcpServers": map[string]any{"echo": map[string]any{"command": echo, "args": []string{"stdio"}}},
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, "peer.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return nil, "", err
	}
	logPath := filepath.Join(dir, "peer.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, "", err
	}
	defer logf.Close()
	cmd := exec.Command(bin, "-config", path, "-expand-env=false")
	cmd.Stdout, cmd.Stderr = logf, logf
	c, err := start("peer", cmd)
	if err != nil {
		return nil, "", err
	}
	url := "http://" + addr + "/echo/"
	for i := 0; ; i++ {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				return c, url, nil
			}
		}
		select {
		case <-c.done:
			b, _ := os.ReadFile(logPath)
			return nil, "", fmt.Errorf("%s exited:\n%s", bin, b)
		default:
		}
		if i > 300 {
			c.stop()
			b, _ := os.ReadFile(logPath)
			return nil, "", fmt.Errorf("%s did not serve %s:\n%s", bin, url, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
