package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// child is a process the benchmark started: a role of this binary or `mcpbridge serve`.
type child struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	enc   *json.Encoder
	dec   *json.Decoder
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// startRole re-executes this binary in role and waits for its ready line.
func startRole(role string, args ...string) (*child, ready, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, ready{}, err
	}
	cmd := exec.Command(self, append([]string{"-role", role}, args...)...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, ready{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, ready{}, err
	}
	if err := cmd.Start(); err != nil {
		return nil, ready{}, err
	}
	c := &child{name: role, cmd: cmd, stdin: in, enc: json.NewEncoder(in), dec: json.NewDecoder(bufio.NewReader(out))}
	var r ready
	if err := c.dec.Decode(&r); err != nil {
		c.stop()
		return nil, ready{}, fmt.Errorf("role %s did not start: %v", role, err)
	}
	return c, r, nil
}

// stop ends a role by closing its stdin (a serve process by SIGINT), killing it if it lingers.
func (c *child) stop() {
	if c == nil {
		return
	}
	if c.stdin != nil {
		c.stdin.Close()
	} else {
		c.cmd.Process.Signal(os.Interrupt)
	}
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
}

// do sends an operation to the client role and returns its answer.
func (c *child) do(op clientOp) (roundResult, error) {
	if err := c.enc.Encode(op); err != nil {
		return roundResult{}, err
	}
	var r roundResult
	if err := c.dec.Decode(&r); err != nil {
		return roundResult{}, fmt.Errorf("client: %v", err)
	}
	if r.Fatal != "" {
		return r, errors.New(r.Fatal)
	}
	return r, nil
}

// moduleRoot is the directory of the main module, where ./cmd/mcpbridge builds.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run the benchmark inside the mcpbridge module")
	}
	return filepath.Dir(mod), nil
}

// buildPackage builds pkg (e.g. ./cmd/mcpbridge) of the main module into dir/name.
func buildPackage(dir, name, pkg string) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %v\n%s", pkg, err, out)
	}
	return bin, nil
}

// freeAddr returns a loopback address nothing listens on now.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// startServe runs bin (mcpbridge, or a wrapper with the same command line) as `serve` for
// the users server on upstream, with its store under dir, and waits until it is healthy.
func startServe(bin, dir, upstream string, env []string) (*child, string, error) {
	cfg := filepath.Join(dir, "bench.yaml")
	if err := os.WriteFile(cfg, []byte(usersConfig(upstream)), 0o644); err != nil {
		return nil, "", err
	}
	storeDir := *storeDirFlag
	if storeDir == "" {
		storeDir = dir
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		return nil, "", err
	}
	defer logf.Close()
	db := filepath.Join(storeDir, fmt.Sprintf("bench-%d.db", time.Now().UnixNano()))
	cmd := exec.Command(bin, "serve", "--config", cfg, "--listen", addr, "--store", "sqlite:"+db, "--log-level", *serveLogLevel)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = logf
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	c := &child{name: "serve", cmd: cmd}
	for i := 0; ; i++ {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if i > 300 || c.cmd.ProcessState != nil {
			c.stop()
			log, _ := os.ReadFile(filepath.Join(dir, "serve.log"))
			return nil, "", fmt.Errorf("mcpbridge serve did not start:\n%s", log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return c, "http://" + addr, nil
}

// procTarget is one target of the process-separated benchmark.
type procTarget struct {
	name   string
	target string // rest or mcp
	url    string
}

// procRound is one round against one target, with the CPU each process spent on it.
type procRound struct {
	r   roundResult
	cpu map[string]cpuTime // by process name
}

// procSetup is the set of processes of one run.
type procSetup struct {
	up, floor, serve, client *child
	upURL, floorURL, gwURL   string
	dir                      string
}

func (s *procSetup) stop() {
	for _, c := range []*child{s.client, s.serve, s.floor, s.up} {
		c.stop()
	}
}

// pids names the processes whose CPU is measured.
func (s *procSetup) pids() map[string]int {
	m := map[string]int{"serve": s.serve.pid(), "upstream": s.up.pid(), "client": s.client.pid()}
	if s.floor != nil {
		m["floor"] = s.floor.pid()
	}
	return m
}

// startProcesses starts the upstream, the SDK floor (when wanted), `serve` from bin and the
// load client.
func startProcesses(dir, bin string, floor bool, env []string) (*procSetup, error) {
	s := &procSetup{dir: dir}
	var r ready
	var err error
	if s.up, r, err = startRole("upstream"); err != nil {
		return nil, err
	}
	s.upURL = "http://" + r.Addr
	if floor {
		if s.floor, r, err = startRole("sdk", "-upstream", s.upURL); err != nil {
			s.stop()
			return nil, err
		}
		s.floorURL = "http://" + r.Addr
	}
	if s.serve, s.gwURL, err = startServe(bin, dir, s.upURL, env); err != nil {
		s.stop()
		return nil, err
	}
	s.gwURL += "/mcp/users"
	if s.client, _, err = startRole("client"); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// round runs one round on t and measures the CPU of every process meanwhile.
func (s *procSetup) round(t procTarget, workers int, era string, d time.Duration, n int) (procRound, error) {
	pids := s.pids()
	before := map[string]cpuTime{}
	for name, pid := range pids {
		before[name] = procCPU(pid)
	}
	r, err := s.client.do(clientOp{Op: "round", Target: t.target, URL: t.url, Era: era, Workers: workers, Client: *clientKind, Duration: d, Count: n})
	if err != nil {
		return procRound{}, fmt.Errorf("%s: %v", t.name, err)
	}
	pr := procRound{r: r, cpu: map[string]cpuTime{}}
	for name, pid := range pids {
		pr.cpu[name] = procCPU(pid).sub(before[name])
	}
	return pr, nil
}

// closeTarget ends the client's sessions on t.
func (s *procSetup) closeTarget(t procTarget, era string) {
	s.client.do(clientOp{Op: "close", Target: t.target, URL: t.url, Era: era, Client: *clientKind})
}

// serveSample is the state of the serve process at one moment.
type serveSample struct {
	fds      int
	rss, hwm float64
	threads  int
}

func sampleServe(pid int) serveSample {
	rss, hwm := procMem(pid)
	return serveSample{fds: procFDs(pid), rss: rss, hwm: hwm, threads: procThreads(pid)}
}

// runProcesses is the default benchmark: the client, `mcpbridge serve` and the REST
// upstream each in its own process, as users run them.
func runProcesses() error {
	dir, err := os.MkdirTemp("", "mcpbridge-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintln(os.Stderr, "bench: building mcpbridge")
	bin, err := buildPackage(dir, "mcpbridge", "./cmd/mcpbridge")
	if err != nil {
		return err
	}
	s, err := startProcesses(dir, bin, *floorFlag, splitList(*serveEnv))
	if err != nil {
		return err
	}
	defer s.stop()
	servePID := s.serve.pid()
	time.Sleep(500 * time.Millisecond)
	idle := sampleServe(servePID)

	targets := []procTarget{{"direct REST", "rest", s.upURL + "/users/42?verbose=true"}}
	if s.floor != nil {
		targets = append(targets, procTarget{"go-sdk floor", "mcp", s.floorURL})
	}
	targets = append(targets, procTarget{"mcpbridge", "mcp", s.gwURL})

	fmt.Printf("mcpbridge bench, separate processes: load client, `mcpbridge serve` (%s) and REST upstream\n", *serveLogLevel+" logs, SQLite store on disk")
	fmt.Printf("%s MCP client, one session per worker; %d rounds of %s per target, interleaved; medians; GOMAXPROCS=%d\n",
		*clientKind, *rounds, roundText(), runtime.GOMAXPROCS(0))
	fmt.Printf("CPU µs/call: CPU time each process spent during the round, per call\n")
	peak := idle
	for _, n := range splitInts(*clientsFlag) {
		for _, era := range []string{"2025-11-25", "2026-07-28"} {
			fmt.Fprintf(os.Stderr, "bench: %d clients, %s\n", n, era)
			res := map[string][]procRound{}
			for _, t := range targets {
				if _, err := s.round(t, n, era, *warmup, 0); err != nil {
					return err
				}
			}
			for i := range *rounds {
				for j := range targets {
					t := targets[(i+j)%len(targets)]
					r, err := s.round(t, n, era, *duration, *count)
					if err != nil {
						return err
					}
					res[t.name] = append(res[t.name], r)
					if smp := sampleServe(servePID); smp.fds > peak.fds {
						peak.fds = smp.fds
					}
				}
			}
			if smp := sampleServe(servePID); smp.threads > peak.threads {
				peak.threads = smp.threads
			}
			for _, t := range targets {
				if t.target == "mcp" {
					s.closeTarget(t, era)
				}
			}
			printProcBlock(n, era, targets, res)
		}
	}
	time.Sleep(time.Second)
	after := sampleServe(servePID)
	fmt.Printf("\nmcpbridge serve process: descriptors %d idle before load, %d at most after a round, %d after the run (sessions closed, 1 s later)\n",
		idle.fds, peak.fds, after.fds)
	fmt.Printf("  RSS %.1f MB idle before load, %.1f MB peak (VmHWM), %.1f MB after; threads %d idle, %d at most\n",
		idle.rss, after.hwm, after.rss, idle.threads, peak.threads)
	reportServeLog(filepath.Join(dir, "serve.log"))
	if *profileDir != "" {
		s.stop()
		return runProfile(dir)
	}
	return nil
}

// printProcBlock prints one (clients, era) block: a row per target and the comparisons.
func printProcBlock(n int, era string, targets []procTarget, res map[string][]procRound) {
	fmt.Printf("\n%d client(s), %s\n", n, era)
	fmt.Printf("  %-13s %9s %9s %9s %6s | %s\n", "target", "calls/s", "p50", "p99", "errors", "CPU µs/call: serve  floor upstream client  total")
	for _, t := range targets {
		rs := res[t.name]
		cpu := func(name string) float64 {
			return median(mapRounds(rs, func(r procRound) float64 { return 1e6 * r.cpu[name].total() / float64(max(r.r.Calls, 1)) }))
		}
		errs := 0
		first := ""
		for _, r := range rs {
			errs += r.r.Errors
			if first == "" {
				first = r.r.FirstError
			}
		}
		total := cpu("serve") + cpu("floor") + cpu("upstream") + cpu("client")
		fmt.Printf("  %-13s %9.0f %7.3fms %7.3fms %6d | %18.0f %6.0f %8.0f %6.0f %6.0f\n", t.name,
			median(mapRounds(rs, func(r procRound) float64 { return float64(r.r.Calls) / r.r.Secs })),
			median(mapRounds(rs, func(r procRound) float64 { return r.r.P50 })),
			median(mapRounds(rs, func(r procRound) float64 { return r.r.P99 })),
			errs, cpu("serve"), cpu("floor"), cpu("upstream"), cpu("client"), total)
		if first != "" {
			fmt.Printf("  %-13s first error: %s\n", "", first)
		}
	}
	gw := res["mcpbridge"]
	compare := func(base string) {
		b := res[base]
		if len(b) == 0 {
			return
		}
		paired := func(f func(g, b roundResult) float64) float64 {
			var xs []float64
			for i := range min(len(gw), len(b)) {
				xs = append(xs, f(gw[i].r, b[i].r))
			}
			return median(xs)
		}
		fmt.Printf("  mcpbridge vs %-12s added p50 %+.3fms (%.2f×), added p99 %+.3fms, calls/s %.2f×\n", base+":",
			paired(func(g, b roundResult) float64 { return g.P50 - b.P50 }),
			paired(func(g, b roundResult) float64 { return g.P50 / b.P50 }),
			paired(func(g, b roundResult) float64 { return g.P99 - b.P99 }),
			paired(func(g, b roundResult) float64 { return (float64(g.Calls) / g.Secs) / (float64(b.Calls) / b.Secs) }))
	}
	compare("direct REST")
	compare("go-sdk floor")
}

func mapRounds(rs []procRound, f func(procRound) float64) []float64 {
	xs := make([]float64, len(rs))
	for i, r := range rs {
		xs[i] = f(r)
	}
	return xs
}

// reportServeLog prints the serve process's warnings and errors (e.g. a full audit queue).
func reportServeLog(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var bad []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
			bad = append(bad, line)
		}
	}
	if len(bad) == 0 {
		fmt.Println("  serve log: no warnings or errors")
		return
	}
	fmt.Printf("  serve log: %d warnings or errors; first: %s\n", len(bad), bad[0])
	if len(bad) > 1 {
		fmt.Printf("  last: %s\n", bad[len(bad)-1])
	}
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func splitInts(s string) []int {
	var out []int
	for _, f := range splitList(s) {
		var n int
		if _, err := fmt.Sscanf(f, "%d", &n); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// runProfile is filled in by profile.go.
func runProfile(dir string) error { return nil }
