package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// profileOnly runs the -profile part alone.
func profileOnly() error {
	dir, err := os.MkdirTemp("", "mcpbridge-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	return runProfile(dir)
}

// runProfile runs `serve` again from bench/cmd/profserve (the same CLI with pprof and
// runtime counters on a side port) and, for each configuration, measures one round under
// the CPU profiler, with allocations, goroutines created and context switches per call, and
// one more round under `perf trace -s` (or `strace -c -f`) for syscalls per call. Profiles
// and raw outputs go to -profile; a summary is printed.
func runProfile(dir string) error {
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
	s, err := startProcesses(dir, bin, "", false, append(splitList(*serveEnv), "MCPBRIDGE_PROF_ADDR="+profAddr))
	if err != nil {
		return err
	}
	defer s.stop()
	pid := s.pid("serve")
	side := "http://" + profAddr
	tracer := syscallTracer()
	fmt.Printf("\nPROFILE of the serve process (bench/cmd/profserve = mcpbridge + pprof on a side port), rounds of %s; files in %s\n", *profileSecs, out)
	if tracer == "" {
		fmt.Println("  (neither perf nor strace is installed: no syscall counts)")
	}
	gw := s.target("mcpbridge")
	for _, n := range splitInts(*clientsFlag) {
		for _, era := range []string{"2025-11-25", "2026-07-28"} {
			fmt.Fprintf(os.Stderr, "bench: profiling %d clients, %s\n", n, era)
			name := fmt.Sprintf("c%d-%s", n, era)
			if _, err := s.round(gw, n, era, *warmup, 0); err != nil {
				return err
			}
			p, err := profileRound(s, gw, n, era, side, pid, filepath.Join(out, name))
			if err != nil {
				return err
			}
			if tracer != "" {
				sc, calls, err := traceRound(s, gw, n, era, pid, tracer, filepath.Join(out, name+"-syscalls.txt"))
				if err != nil {
					fmt.Fprintf(os.Stderr, "bench: syscall count: %v\n", err)
				} else {
					p.syscalls, p.syscallCalls, p.tracer = sc, calls, tracer
				}
			}
			s.closeTarget(gw, era)
			p.print(n, era)
		}
	}
	return nil
}

// profiled is what one profiled configuration measured.
type profiled struct {
	calls         int
	secs          float64
	p50           float64
	cpu           cpuTime // serve process, whole round
	after         cpuTime // serve process, after the round until idle
	rt0, rt1      runtimeSnapshot
	ctxSwitches   float64 // from perf stat, -1 when unknown
	categories    []category
	syscalls      map[string]float64 // from the trace round
	syscallCalls  int
	tracer        string
	goroutinesMid float64
}

type runtimeSnapshot struct {
	Counters   map[string]float64 `json:"counters"`
	Histograms map[string]struct {
		Buckets []float64 `json:"buckets"`
		Counts  []uint64  `json:"counts"`
	} `json:"histograms"`
}

func getRuntime(side string) (runtimeSnapshot, error) {
	var r runtimeSnapshot
	resp, err := http.Get(side + "/debug/bench/runtime")
	if err != nil {
		return r, err
	}
	defer resp.Body.Close()
	return r, json.NewDecoder(resp.Body).Decode(&r)
}

// fetch saves url's body to path.
func fetch(url, path string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s: %s: %s", url, resp.Status, b)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(f, resp.Body)
	return err
}

// profileRound runs one round of -profile-duration under the CPU profiler and an
// allocation delta profile, reading runtime counters and context switches around it.
func profileRound(s *procSetup, t procTarget, n int, era, side string, pid int, base string) (*profiled, error) {
	secs := int(profileSecs.Seconds())
	if secs < 1 {
		secs = 1
	}
	var wg sync.WaitGroup
	var cpuErr, allocErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		cpuErr = fetch(fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", side, secs), base+"-cpu.pprof")
	}()
	go func() {
		defer wg.Done()
		allocErr = fetch(fmt.Sprintf("%s/debug/pprof/allocs?seconds=%d", side, secs), base+"-allocs.pprof")
	}()
	var perf *exec.Cmd
	var perfOut strings.Builder
	if _, err := exec.LookPath("perf"); err == nil {
		perf = exec.Command("perf", "stat", "-x", ",", "-e", "context-switches,cpu-migrations", "-p", strconv.Itoa(pid))
		perf.Stderr = &perfOut
		if perf.Start() != nil {
			perf = nil
		}
	}
	time.Sleep(100 * time.Millisecond) // the profilers are on
	rt0, err := getRuntime(side)
	if err != nil {
		return nil, err
	}
	cpu0 := procCPU(pid)
	var mid float64
	go func() {
		time.Sleep(*profileSecs / 2)
		if r, err := getRuntime(side); err == nil {
			mid = r.Counters["/sched/goroutines:goroutines"]
		}
	}()
	r, err := s.procs["client"].do(clientOp{Op: "round", Target: t.target, URL: t.url, Era: era, Workers: n, Client: *clientKind, Duration: time.Duration(secs) * time.Second})
	if err != nil {
		return nil, err
	}
	cpu := procCPU(pid).sub(cpu0)
	rt1, err := getRuntime(side)
	if err != nil {
		return nil, err
	}
	p := &profiled{calls: r.Calls, secs: r.Secs, p50: r.P50, cpu: cpu, rt0: rt0, rt1: rt1, ctxSwitches: -1, goroutinesMid: mid}
	since := map[string]cpuTime{}
	for name, c := range s.procs {
		since[name] = procCPU(c.pid())
	}
	p.after = s.settle(since)["serve"]
	if perf != nil {
		perf.Process.Signal(syscall.SIGINT)
		perf.Wait()
		for _, line := range strings.Split(perfOut.String(), "\n") {
			f := strings.Split(line, ",")
			if len(f) >= 3 && f[2] == "context-switches" {
				p.ctxSwitches, _ = strconv.ParseFloat(f[0], 64)
			}
		}
	}
	wg.Wait()
	if err := errors.Join(cpuErr, allocErr); err != nil {
		return nil, err
	}
	cats, err := categorize(base + "-cpu.pprof")
	if err != nil {
		return nil, err
	}
	p.categories = cats
	return p, nil
}

// syscallTracer is "perf" when `perf trace` works here, else "strace" when installed.
func syscallTracer() string {
	if _, err := exec.LookPath("perf"); err == nil {
		if exec.Command("perf", "trace", "-s", "--", "true").Run() == nil {
			return "perf"
		}
	}
	if _, err := exec.LookPath("strace"); err == nil {
		return "strace"
	}
	return ""
}

// traceRound runs one round under `perf trace -s -p` (or `strace -c -f -p`) and returns
// the number of each syscall the serve process made, and the calls of the round.
func traceRound(s *procSetup, t procTarget, n int, era string, pid int, tracer, path string) (map[string]float64, int, error) {
	var cmd *exec.Cmd
	if tracer == "perf" {
		cmd = exec.Command("perf", "trace", "-s", "-p", strconv.Itoa(pid), "-o", path)
	} else {
		cmd = exec.Command("strace", "-c", "-f", "-p", strconv.Itoa(pid), "-o", path)
	}
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	time.Sleep(500 * time.Millisecond)
	r, err := s.procs["client"].do(clientOp{Op: "round", Target: t.target, URL: t.url, Era: era, Workers: n, Client: *clientKind, Duration: *profileSecs})
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if err != nil {
		return nil, 0, err
	}
	counts, err := parseSyscallSummary(path, tracer)
	return counts, r.Calls, err
}

var (
	perfTraceRow = regexp.MustCompile(`^\s+([a-z_0-9]+)\s+(\d+)\s+(\d+)\s+[\d.]+`)
	straceRow    = regexp.MustCompile(`^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:(\d+)\s+)?([a-z_0-9]+)\s*$`)
)

// parseSyscallSummary sums the per-thread summary of perf trace -s (or strace -c) by syscall.
func parseSyscallSummary(path, tracer string) (map[string]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	counts := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if tracer == "perf" {
			if m := perfTraceRow.FindStringSubmatch(line); m != nil {
				n, _ := strconv.ParseFloat(m[2], 64)
				counts[m[1]] += n
			}
		} else if m := straceRow.FindStringSubmatch(line); m != nil && m[3] != "total" {
			n, _ := strconv.ParseFloat(m[1], 64)
			counts[m[3]] += n
		}
	}
	if len(counts) == 0 {
		return nil, fmt.Errorf("no syscalls in %s", path)
	}
	return counts, sc.Err()
}

func (p *profiled) print(n int, era string) {
	calls := float64(max(p.calls, 1))
	d := func(name string) float64 { return (p.rt1.Counters[name] - p.rt0.Counters[name]) / calls }
	cpuPerCall := 1e6 * p.cpu.total() / calls
	fmt.Printf("\n%d client(s), %s: %d calls in %.1fs (%.0f/s, p50 %.3fms)\n", n, era, p.calls, p.secs, calls/p.secs, p.p50)
	fmt.Printf("  serve CPU %.0f µs/call (user %.0f, system %.0f) during the round, %.0f more after it until idle; GC %.0f%% of it (runtime estimate)\n",
		cpuPerCall, 1e6*p.cpu.user/calls, 1e6*p.cpu.sys/calls, 1e6*p.after.total()/calls,
		100*(p.rt1.Counters["/cpu/classes/gc/total:cpu-seconds"]-p.rt0.Counters["/cpu/classes/gc/total:cpu-seconds"])/max(p.cpu.total(), 1e-9))
	fmt.Printf("  per call: %.0f KB and %.0f objects allocated, %.2f goroutines created, %.3f GC cycles",
		d("/gc/heap/allocs:bytes")/1024, d("/gc/heap/allocs:objects"), d("/sched/goroutines-created:goroutines"), d("/gc/cycles/total:gc-cycles"))
	if p.ctxSwitches >= 0 {
		fmt.Printf(", %.1f context switches", p.ctxSwitches/calls)
	}
	fmt.Printf("\n  goroutines alive mid-round %.0f; scheduling latency (runnable to running) %s\n", p.goroutinesMid, p.schedLatency())
	if p.syscalls != nil {
		sc := float64(max(p.syscallCalls, 1))
		var total float64
		type kv struct {
			k string
			v float64
		}
		var kvs []kv
		for k, v := range p.syscalls {
			total += v
			kvs = append(kvs, kv{k, v})
		}
		sort.Slice(kvs, func(i, j int) bool { return kvs[i].v > kvs[j].v })
		var parts []string
		for _, x := range kvs {
			if x.v/sc >= 0.05 {
				parts = append(parts, fmt.Sprintf("%s %.2f", x.k, x.v/sc))
			}
		}
		fmt.Printf("  syscalls per call (%s, separate round of %d calls): %.1f: %s\n", p.tracer, p.syscallCalls, total/sc, strings.Join(parts, ", "))
	}
	fmt.Printf("  CPU profile of the round by part (share of samples, and that share of the serve CPU per call during the round):\n")
	for _, c := range p.categories {
		if c.share < 0.005 {
			continue
		}
		fmt.Printf("    %-54s %5.1f%% %6.0f µs\n", c.name, 100*c.share, c.share*cpuPerCall)
	}
}

// schedLatency summarises the delta of the /sched/latencies histogram.
func (p *profiled) schedLatency() string {
	const name = "/sched/latencies:seconds"
	h0, h1 := p.rt0.Histograms[name], p.rt1.Histograms[name]
	if len(h1.Counts) == 0 || len(h0.Counts) != len(h1.Counts) {
		return "unknown"
	}
	var total uint64
	delta := make([]uint64, len(h1.Counts))
	for i := range h1.Counts {
		delta[i] = h1.Counts[i] - h0.Counts[i]
		total += delta[i]
	}
	if total == 0 {
		return "no samples"
	}
	pct := func(q float64) float64 {
		want := uint64(q * float64(total))
		var acc uint64
		for i, c := range delta {
			acc += c
			if acc > want {
				return h1.Buckets[i+1]
			}
		}
		return h1.Buckets[len(h1.Buckets)-1]
	}
	return fmt.Sprintf("p50 ≤ %.0f µs, p90 ≤ %.0f µs, p99 ≤ %.0f µs (%d samples)", 1e6*pct(.5), 1e6*pct(.9), 1e6*pct(.99), total)
}

// category is a share of a CPU profile's samples.
type category struct {
	name  string
	share float64
}

// categorize splits a CPU profile into parts by the frames of each sample (see parts).
func categorize(path string) ([]category, error) { return categorizeBy(path, parts) }

// categorizeBy splits a CPU profile into the parts ps.
func categorizeBy(path string, ps []part) ([]category, error) {
	out, err := exec.Command("go", "tool", "pprof", "-traces", path).Output()
	if err != nil {
		return nil, fmt.Errorf("go tool pprof -traces %s: %v", path, err)
	}
	sums := map[string]float64{}
	var total float64
	for _, block := range strings.Split(string(out), "-----------+-------------------------------------------------------") {
		var value float64
		var frames []string
		for _, line := range strings.Split(block, "\n") {
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			if len(frames) == 0 && len(f) >= 2 && isDuration(f[0]) {
				value = parseDuration(f[0])
				frames = append(frames, f[1])
				continue
			}
			if len(frames) > 0 {
				frames = append(frames, f[0])
			}
		}
		if len(frames) == 0 || value == 0 {
			continue
		}
		total += value
		sums[partIn(ps, frames)] += value
	}
	if total == 0 {
		return nil, fmt.Errorf("no samples in %s", path)
	}
	var cats []category
	for _, p := range ps {
		cats = append(cats, category{p.name, sums[p.name] / total})
	}
	cats = append(cats, category{"other", sums["other"] / total})
	return cats, nil
}

func isDuration(s string) bool {
	_, err := time.ParseDuration(s)
	return err == nil
}

func parseDuration(s string) float64 {
	d, _ := time.ParseDuration(s)
	return d.Seconds()
}

// part is a named piece of the serve process's work: a sample belongs to the first part
// (in this order) any of whose patterns matches one of its frames.
type part struct {
	name     string
	patterns []string
}

var parts = []part{
	{"audit: batched SQLite writes (background)", []string{"gateway.(*auditor).run", "modernc.org/sqlite", "database/sql."}},
	{"logging (slog)", []string{"log/slog."}},
	{"metrics (prometheus)", []string{"prometheus/client_golang"}},
	{"argument validation (gateway.validateArgs)", []string{"gateway.validateArgs", "jsonschema-go"}},
	{"httpapi backend: build request, map response", []string{"backend/httpapi."}},
	{"upstream connection I/O (net/http client loops)", []string{"net/http.(*persistConn)", "net/http.(*Transport)"}},
	{"SSE framing and its flush (go-sdk writeEvent)", []string{"mcp.writeEvent"}},
	{"gateway envelope (readBody, checkMessage, ...)", []string{"gateway.readBody", "gateway.checkMessage", "gateway.(*rpcErrorWriter)", "gateway.writeRPCError"}},
	{"go-sdk JSON decode/encode", []string{"go-sdk/internal/json", "jsonrpc2.DecodeMessage", "jsonrpc2.EncodeMessage", "encoding/json."}},
	{"go-sdk session, dispatch, streams", []string{"modelcontextprotocol/go-sdk"}},
	{"net/http server: read request, final write", []string{"net/http.(*conn)", "net/http.(*response)", "net/http.(*chunkWriter)", "net/http.(*connReader)"}},
	{"gateway routing, request id, metrics calls", []string{"mcpbridge/internal/gateway."}},
	{"garbage collection (background workers)", []string{"runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.bgscavenge"}},
	{"scheduler, netpoll, sysmon, idle", []string{"runtime.schedule", "runtime.findRunnable", "runtime.netpoll", "runtime.mcall", "runtime.park_m", "runtime.goexit0", "runtime.sysmon", "runtime.mstart"}},
}

func partOf(frames []string) string { return partIn(parts, frames) }

func partIn(ps []part, frames []string) string {
	for _, p := range ps {
		for _, pat := range p.patterns {
			for _, f := range frames {
				if strings.Contains(f, pat) {
					return p.name
				}
			}
		}
	}
	return "other"
}
