// Command bench measures mcpbridge against baselines measured in the same run.
//
// By default it measures the path users run: the load client, `mcpbridge serve` and a
// loopback REST upstream each in its own process (the client and the upstream are this
// binary, re-executed in a hidden role). The mcpbridge binary is built from ./cmd/mcpbridge
// and served with a generated configuration (one HTTP tool, GET /users/{id}) and a SQLite
// store in a temporary directory. The client calls the REST endpoint directly (the
// baseline), a bare go-sdk server whose tool makes the same GET (the SDK floor, a fourth
// process) and the tool through mcpbridge, in rounds that alternate between the three; for
// each protocol era (2025-11-25 with sessions, 2026-07-28 stateless) and each number of
// clients it prints the medians, the added latency and the ratios, the CPU each process
// spends per call, and the serve process's descriptors and memory.
//
// The in-process figures follow as a second table: client, gateway and upstream in this one
// process (no-op tool against bare go-sdk servers, and the HTTP tool against direct REST),
// with the idle RSS of `mcpbridge serve` with ten servers.
//
//	go run ./bench                         # both tables with defaults (about four minutes)
//	go run ./bench -mode processes         # only the separate-process table (about two and a half)
//	go run ./bench -mode inprocess -suite http
//	go run ./bench -mode processes -clients 1,16 -duration 3s -rounds 5 -client sdk
//	go run ./bench -mode processes -candidate /tmp/mcpbridge-branch   # A/B against another build
//	go run ./bench -mode processes -profile /tmp/prof                 # then profile the serve process
//	go run ./bench -mode upstream                                     # kind: mcp against its upstream called directly
//	go run ./bench -mode lowdefy -duration 10s                        # mcpbridge app: navigate/interact, 50 work sessions
//	go run ./bench -mode lowdefy -bin /tmp/old -candidate /tmp/new    # A/B of two builds, closed loop and paced (-think)
//	go run ./bench -mode restart -servers 10000                       # time to ready of serve with stored servers, and to first use
//	go run ./bench -mode restart -restart-store postgres://…/empty    # the same on PostgreSQL
//
// -mode upstream (issue 10) compares tools/call through a `kind: mcp` server
// (isolation: per-session) with the same upstream MCP server (bench/cmd/echoserver) called
// directly, for a Streamable HTTP and a stdio upstream, and a bare go-sdk proxy between the
// two; see upstream.go.
//
// -mode lowdefy (issue 9) runs `mcpbridge app` on Lowdefy's tutorial (08-final) in its own
// process and drives 50 work sessions (navigate, interact setValue, interact submit with its
// SQLite insert, and get_state as the baseline) from 50 and from 1 clients calling back to
// back (capacity) and from one client per session with a think time between calls (paced:
// the latency of one call at a sustainable rate), printing calls/s, CPU per call and p50/p99
// per call; with -candidate it runs a second build side by side; with -profile it profiles
// the app process under the same load; see lowdefy.go.
//
// After every round the benchmark waits until all processes are idle and charges the CPU the
// answering server spent meanwhile (a draining audit queue) to that round, so that one
// target's leftovers do not slow the next. With -candidate, a second serve process from the
// given binary is measured in the same interleaved rounds and compared with mcpbridge.
//
// With -profile, the serve process is then run again from bench/cmd/profserve (the same
// cli.Main with pprof and runtime counters on a side port) and each configuration is
// measured once more: a CPU profile split by part, allocations, goroutines created and
// context switches per call, and, with perf or strace installed, syscalls per call. See
// docs/benchmarks.md.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	_ "github.com/mcpbridge/mcpbridge/internal/backend/all"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

var (
	mode     = flag.String("mode", "both", "processes (client, serve and upstream in separate processes), inprocess, both, profile (only the -profile part), upstream (kind: mcp against the upstream called directly), lowdefy (mcpbridge app on the Lowdefy tutorial: navigate and interact with 50 work sessions), rss (idle memory of serve with ten servers), or restart (time to /healthz 200 with -servers stored servers)")
	duration = flag.Duration("duration", 2*time.Second, "length of one round (ignored with -count)")
	count    = flag.Int("count", 0, "calls per round (instead of -duration)")
	rounds   = flag.Int("rounds", 3, "rounds per target and era; medians are reported")

	// Separate processes.
	clientsFlag   = flag.String("clients", "1,16", "numbers of concurrent clients (-mode processes)")
	clientKind    = flag.String("client", "raw", "load client: raw (minimal Streamable HTTP) or sdk (the go-sdk client)")
	servers       = flag.Int("servers", 10000, "stored servers of -mode restart")
	restartStore  = flag.String("restart-store", "", "store of -mode restart: a postgres:// URL of an empty database (default: a SQLite file in a temporary directory)")
	binFlag       = flag.String("bin", "", "serve this mcpbridge binary instead of building ./cmd/mcpbridge")
	candidateBin  = flag.String("candidate", "", "also serve the config from this mcpbridge binary (e.g. built from a branch) and compare it with mcpbridge, round by round")
	floorFlag     = flag.Bool("floor", true, "also measure a bare go-sdk server that makes the same GET (the SDK floor)")
	settleMax     = flag.Duration("settle", 10*time.Second, "after each round, wait at most this long for every process to be idle")
	warmup        = flag.Duration("warmup", time.Second, "warm-up round per target before the measured rounds")
	serveLogLevel = flag.String("serve-log-level", "info", "--log-level of the serve process")
	serveEnv      = flag.String("serve-env", "", "comma-separated KEY=VALUE added to the serve process's environment (e.g. GOGC=100)")
	storeDirFlag  = flag.String("store-dir", "", "directory of the serve process's SQLite store (default: the run's temporary directory)")
	profileDir    = flag.String("profile", "", "after the measurement, profile the serve process under the same load and write the results to this directory")
	profileSecs   = flag.Duration("profile-duration", 5*time.Second, "length of each profiled round")

	// In process.
	workers = flag.Int("workers", 8, "concurrent clients of the in-process no-op comparison, each with its own session")
	skipRSS = flag.Bool("skip-rss", false, "skip the idle RSS measurement")
	suite   = flag.String("suite", "all", "in-process suites: gateway (no-op tool vs bare SDK), http (HTTP tool vs direct REST) or all")

	// Hidden: the roles of the re-executed binary.
	role         = flag.String("role", "", "")
	upstreamURL  = flag.String("upstream", "", "")
	profAddrFlag = flag.String("prof-addr", "", "")
)

// hiddenFlags are internal to the re-executed roles and left out of -help.
var hiddenFlags = map[string]bool{"role": true, "upstream": true, "prof-addr": true}

const noopSchema = `{"type":"object","properties":{"x":{"type":"string"}}}`

// noop is a backend kind used only here: its tool returns at once, so what is measured is
// the gateway and the transport.
type noop struct{}

func (noop) Catalog(context.Context) (*backend.Catalog, error) {
	return &backend.Catalog{Tools: []*mcp.Tool{{Name: "noop", Description: "does nothing", InputSchema: json.RawMessage(noopSchema)}}}, nil
}

func (noop) CallTool(context.Context, *backend.Call) (*mcp.CallToolResult, error) {
	return backend.TextResult("ok"), nil
}

func init() {
	backend.Register(backend.Kind{Name: "bench-noop", Decode: func(*config.Server) (backend.Spec, config.Problems) {
		return backend.SpecFunc(func(context.Context, backend.Deps) (backend.Backend, error) { return noop{}, nil }), nil
	}})
}

type noopIn struct {
	X string `json:"x,omitempty"`
}

// bareServer is the baseline: a go-sdk server with the same tool, dual-era like the gateway.
// With typed set, the tool is added with the SDK's generic AddTool, which validates the
// arguments against the schema as the gateway does; otherwise it is a raw tool that does not.
func bareServer(typed bool) http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	if typed {
		mcp.AddTool(s, &mcp.Tool{Name: "noop", Description: "does nothing"},
			func(ctx context.Context, req *mcp.CallToolRequest, in noopIn) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
			})
	} else {
		s.AddTool(&mcp.Tool{Name: "noop", Description: "does nothing", InputSchema: json.RawMessage(noopSchema)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
	}
	get := func(*http.Request) *mcp.Server { return s }
	legacy := mcp.NewStreamableHTTPHandler(get, nil)
	modern := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			modern.ServeHTTP(w, r)
		} else {
			legacy.ServeHTTP(w, r)
		}
	})
}

func gatewayServer() http.Handler {
	g, _, err := gatewaytest.Open(os.TempDir(), "servers: {noop: {kind: bench-noop, description: bench}}\n", gateway.Options{SessionTimeout: sessionTimeout()})
	if err != nil {
		log.Fatal(err)
	}
	return g.Handler()
}

func serve(h http.Handler) string {
	u, err := gatewaytest.Serve(h)
	if err != nil {
		log.Fatal(err)
	}
	return u
}

type result struct {
	calls      int
	errors     int
	secs       float64
	lat        []time.Duration
	firstError string
}

func (r result) rate() float64 { return float64(r.calls) / r.secs }

func (r result) pct(p float64) time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	return r.lat[int(float64(len(r.lat)-1)*p)]
}

// load runs one round against url in protocol version v.
func load(url, v string) result {
	tr := &http.Transport{MaxIdleConns: *workers * 2, MaxIdleConnsPerHost: *workers * 2}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	sessions := make([]*mcp.ClientSession, *workers)
	for i := range sessions {
		c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: v})
		if err != nil {
			log.Fatalf("connect %s %s: %v", url, v, err)
		}
		sessions[i] = cs
	}
	defer func() {
		for _, cs := range sessions {
			cs.Close()
		}
	}()
	var (
		mu      sync.Mutex
		all     []time.Duration
		calls   atomic.Int64
		errs    atomic.Int64
		wg      sync.WaitGroup
		started = time.Now()
		stopAt  = started.Add(*duration)
	)
	budget := int64(*count)
	for _, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make([]time.Duration, 0, 4096)
			args := map[string]any{"x": "y"}
			for {
				if budget > 0 {
					if calls.Add(1) > budget {
						break
					}
				} else if time.Now().After(stopAt) {
					break
				}
				t0 := time.Now()
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "noop", Arguments: args})
				lat = append(lat, time.Since(t0))
				if err != nil || res.IsError {
					errs.Add(1)
				}
				if budget == 0 {
					calls.Add(1)
				}
			}
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	secs := time.Since(started).Seconds()
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	return result{calls: len(all), errors: int(errs.Load()), secs: secs, lat: all}
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func main() {
	flag.Usage = usage
	flag.Parse()
	log.SetFlags(0)
	if *role != "" {
		runRole(*role)
	}
	switch *mode {
	case "processes", "both":
		if err := runProcesses(); err != nil {
			log.Fatalf("bench: %v", err)
		}
		if *mode == "both" {
			fmt.Println()
			runInProcess()
		}
	case "inprocess":
		runInProcess()
	case "upstream":
		if err := runUpstream(); err != nil {
			log.Fatalf("bench: %v", err)
		}
	case "lowdefy":
		if err := runLowdefy(); err != nil {
			log.Fatalf("bench: %v", err)
		}
	case "restart":
		if err := printRestart(*servers); err != nil {
			log.Fatalf("bench: restart: %v", err)
		}
	case "rss":
		if err := printIdleRSS(); err != nil {
			log.Fatalf("bench: idle RSS: %v", err)
		}
	case "profile":
		if *profileDir == "" {
			log.Fatal("bench: -mode profile needs -profile DIR")
		}
		if err := profileOnly(); err != nil {
			log.Fatalf("bench: %v", err)
		}
	default:
		log.Fatalf("bench: -mode must be processes, inprocess, both, profile, upstream, lowdefy, rss or restart, not %q", *mode)
	}
}

func usage() {
	out := flag.CommandLine.Output()
	fmt.Fprintf(out, "Usage: go run ./bench [flags]\n")
	flag.VisitAll(func(f *flag.Flag) {
		if hiddenFlags[f.Name] {
			return
		}
		name, help := flag.UnquoteUsage(f)
		fmt.Fprintf(out, "  -%s", f.Name)
		if name != "" {
			fmt.Fprintf(out, " %s", name)
		}
		fmt.Fprintf(out, "\n    \t%s", help)
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" {
			fmt.Fprintf(out, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(out)
	})
}

// runInProcess prints the in-process table: client, gateway and upstream in this process.
func runInProcess() {
	// Measure the gateway as `mcpbridge serve` runs it (GOGC/GOMEMLIMIT still override).
	gateway.TuneGC()
	fmt.Println("IN-PROCESS figures: client, gateway and upstream share this one process (not how users run it)")
	if *suite == "http" {
		runHTTP()
		return
	}
	gw := serve(gatewayServer()) + "/mcp/noop"
	bare := serve(bareServer(false))
	typed := serve(bareServer(true))
	fmt.Printf("mcpbridge bench: no-op tool, %d workers, %d rounds of %s, GOMAXPROCS=%d\n",
		*workers, *rounds, roundText(), runtime.GOMAXPROCS(0))
	fmt.Printf("%-11s %-10s %10s %9s %9s %7s\n", "era", "target", "calls/s", "p50", "p99", "errors")
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		targets := []struct{ name, url string }{{"gateway", gw}, {"bare-sdk", bare}, {"bare-typed", typed}}
		rate := map[string][]float64{}
		p50 := map[string][]float64{}
		p99 := map[string][]float64{}
		errs := map[string]int{}
		for _, t := range targets {
			load(t.url, v) // warm up
		}
		for range *rounds {
			for _, t := range targets {
				r := load(t.url, v)
				rate[t.name] = append(rate[t.name], r.rate())
				p50[t.name] = append(p50[t.name], ms(r.pct(.5)))
				p99[t.name] = append(p99[t.name], ms(r.pct(.99)))
				errs[t.name] += r.errors
			}
		}
		for _, t := range targets {
			fmt.Printf("%-11s %-10s %10.0f %7.3fms %7.3fms %7d\n", v, t.name, median(rate[t.name]), median(p50[t.name]), median(p99[t.name]), errs[t.name])
		}
		fmt.Printf("%-11s ratio gateway/bare-sdk throughput %.2fx (goal >= 0.90x), p50 %+.3fms; gateway/bare-typed %.2fx (both validate arguments)\n",
			v, median(rate["gateway"])/median(rate["bare-sdk"]), median(p50["gateway"])-median(p50["bare-sdk"]), median(rate["gateway"])/median(rate["bare-typed"]))
	}
	if *suite == "all" {
		runHTTP()
	}
	if !*skipRSS {
		if err := printIdleRSS(); err != nil {
			log.Fatalf("bench: idle RSS: %v", err)
		}
	}
}

func roundText() string {
	if *count > 0 {
		return fmt.Sprintf("%d calls", *count)
	}
	return duration.String()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// rssBuilds are the two ways mcpbridge is built whose idle memory the bench reports: what
// `go build` (and `go run`) make on this machine, and the static binary `make dist` ships.
var rssBuilds = []struct {
	name  string
	env   []string
	flags []string
}{
	{"go build", nil, nil},
	{"make dist (static)", []string{"CGO_ENABLED=0"}, []string{"-trimpath", "-ldflags=-s -w"}},
}

// printIdleRSS prints, for each build, the median of three idle RSS measurements and what
// they are made of.
func printIdleRSS() error {
	dir, err := os.MkdirTemp("", "mcpbridge-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Println("idle RSS of `mcpbridge serve` with ten servers (five command tools each), each page opened once, 2.5 s later; median of 3 (goal <= 30 MB):")
	for i, b := range rssBuilds {
		bin, err := buildWith(dir, fmt.Sprintf("mcpbridge-%d", i), "./cmd/mcpbridge", b.env, b.flags)
		if err != nil {
			return err
		}
		st, err := os.Stat(bin)
		if err != nil {
			return err
		}
		var runs []memStatus
		for range 3 {
			m, err := idleRSS(bin, dir)
			if err != nil {
				return err
			}
			runs = append(runs, m)
		}
		slices.SortFunc(runs, func(a, b memStatus) int { return cmp.Compare(a.rss, b.rss) })
		m := runs[1]
		fmt.Printf("  %-19s %5.1f MB = %4.1f MB anonymous (heap, stacks, runtime) + %4.1f MB of the %.0f MB binary and shared libraries mapped in\n",
			b.name, m.rss, m.anon, m.file, float64(st.Size())/1e6)
	}
	return nil
}

// memStatus is a process's resident memory from /proc/PID/status, in MB.
type memStatus struct{ rss, anon, file float64 }

// idleRSS serves ten servers from bin, opens each server's page once, waits until the
// process is idle and reads its resident memory.
func idleRSS(bin, dir string) (memStatus, error) {
	var cfg strings.Builder
	cfg.WriteString("servers:\n")
	for i := range 10 {
		fmt.Fprintf(&cfg, "  s%d:\n    kind: command\n    description: server %d\n    tools:\n", i, i)
		for j := range 5 {
			fmt.Fprintf(&cfg, "      t%d: {description: tool %d, inputSchema: {type: object, properties: {m: {type: string}}}, argv: [echo, {direct: m}]}\n", j, j)
		}
	}
	cfgPath := filepath.Join(dir, "ten.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg.String()), 0o644); err != nil {
		return memStatus{}, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return memStatus{}, err
	}
	addr := ln.Addr().String()
	ln.Close()
	os.Remove(filepath.Join(dir, "ten.db"))
	cmd := exec.Command(bin, "serve", "--config", cfgPath, "--listen", addr, "--log-level", "warn")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return memStatus{}, err
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	for i := 0; ; i++ {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if i > 200 {
			return memStatus{}, errors.New("mcpbridge did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// One request to each server's page, then let it settle.
	for i := range 10 {
		if resp, err := http.Get(fmt.Sprintf("http://%s/mcp/meta/s%d", addr, i)); err == nil {
			resp.Body.Close()
		}
	}
	time.Sleep(2500 * time.Millisecond)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		return memStatus{}, err
	}
	var m memStatus
	for _, line := range strings.Split(string(status), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			m.rss = kb / 1024
		case "RssAnon:":
			m.anon = kb / 1024
		case "RssFile:":
			m.file = kb / 1024
		}
	}
	if m.rss == 0 {
		return memStatus{}, errors.New("no VmRSS in /proc status")
	}
	return m, nil
}

// sessionTimeout lets a run compare the gateway with idle-session expiry off (-1ns), as in
// the bare server.
func sessionTimeout() time.Duration {
	d, _ := time.ParseDuration(os.Getenv("MCPBRIDGE_BENCH_SESSION_TIMEOUT"))
	return d
}
