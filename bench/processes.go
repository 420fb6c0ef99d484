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
	"slices"
	"strings"
	"time"
)

// child is a process the benchmark started: a role of this binary or `mcpbridge serve`.
type child struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser // nil for serve, which is stopped by SIGINT
	enc   *json.Encoder
	dec   *json.Decoder
	done  chan struct{} // closed once the process has exited and been waited for
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// start starts cmd and waits for it in the background.
func start(name string, cmd *exec.Cmd) (*child, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{name: name, cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(c.done) }()
	return c, nil
}

// startRole re-executes this binary in role and waits for its ready line.
func startRole(role string, args ...string) (*child, ready, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, ready{}, err
	}
	return startProgram(role, self, append([]string{"-role", role}, args...)...)
}

// startProgram runs bin with args as a role-like process (one ready line on stdout, ends
// when its stdin closes) and waits for its ready line.
func startProgram(role, bin string, args ...string) (*child, ready, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, ready{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, ready{}, err
	}
	c, err := start(role, cmd)
	if err != nil {
		return nil, ready{}, err
	}
	c.stdin, c.enc, c.dec = in, json.NewEncoder(in), json.NewDecoder(bufio.NewReader(out))
	var r ready
	if err := c.dec.Decode(&r); err != nil {
		c.stop()
		return nil, ready{}, fmt.Errorf("role %s did not start: %v", role, err)
	}
	return c, r, nil
}

// stop ends a role by closing its stdin (a serve process by SIGINT), killing it if it
// lingers. It may be called more than once.
func (c *child) stop() {
	if c == nil {
		return
	}
	if c.stdin != nil {
		c.stdin.Close()
	} else {
		c.cmd.Process.Signal(os.Interrupt)
	}
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		c.cmd.Process.Kill()
		<-c.done
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
func buildPackage(dir, name, pkg string) (string, error) { return buildWith(dir, name, pkg, nil, nil) }

// buildWith is buildPackage with extra environment variables (e.g. CGO_ENABLED=0) and go
// build flags.
func buildWith(dir, name, pkg string, env, flags []string) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, name)
	cmd := exec.Command("go", append(append([]string{"build", "-o", bin}, flags...), pkg)...)
	cmd.Dir, cmd.Env = root, append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %v\n%s", pkg, err, out)
	}
	return bin, nil
}

// mcpbridgeBin returns the -bin binary, or else mcpbridge built into dir.
func mcpbridgeBin(dir string) (string, error) {
	if *binFlag != "" {
		return *binFlag, nil
	}
	fmt.Fprintln(os.Stderr, "bench: building mcpbridge")
	return buildPackage(dir, "mcpbridge", "./cmd/mcpbridge")
}

// buildProfserve builds bench/cmd/profserve (mcpbridge with pprof and runtime counters on a
// side port) into dir.
func buildProfserve(dir string) (string, error) {
	fmt.Fprintln(os.Stderr, "bench: building bench/cmd/profserve")
	return buildPackage(dir, "profserve", "./bench/cmd/profserve")
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
// the users server on upstream, with its store under dir and its log in dir/name.log, and
// waits until it is healthy.
func startServe(name, bin, dir, upstream string, env []string) (*child, string, error) {
	return startServeConfig(name, bin, dir, usersConfig(upstream), env)
}

// startServeConfig is startServe with the configuration text config.
func startServeConfig(name, bin, dir, config string, env []string) (*child, string, error) {
	cfg := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
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
	logPath := filepath.Join(dir, name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, "", err
	}
	defer logf.Close()
	db := filepath.Join(storeDir, fmt.Sprintf("bench-%s-%d.db", name, time.Now().UnixNano()))
	cmd := exec.Command(bin, "serve", "--config", cfg, "--listen", addr, "--store", "sqlite:"+db, "--log-level", *serveLogLevel)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = logf
	cmd.Stderr = logf
	c, err := start(name, cmd)
	if err != nil {
		return nil, "", err
	}
	for i := 0; ; i++ {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
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
			return nil, "", fmt.Errorf("%s serve did not start:\n%s", bin, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return c, "http://" + addr, nil
}

// procTarget is one target of the process-separated benchmark.
type procTarget struct {
	name   string // as printed
	target string // rest or mcp
	url    string
	server string // the process that answers it
}

// procRound is one round against one target, with the CPU each process spent on it during
// the round and after it, until every process was idle again (e.g. an audit queue draining).
type procRound struct {
	r     roundResult
	cpu   map[string]cpuTime // by process name
	after map[string]cpuTime
}

// procSetup is the set of processes of one run, by name: upstream, floor, serve, candidate
// and client.
type procSetup struct {
	procs   map[string]*child
	urls    map[string]string
	dir     string
	targets []procTarget
}

func (s *procSetup) stop() {
	for _, name := range []string{"client", "candidate", "serve", "floor", "upstream"} {
		s.procs[name].stop()
	}
}

func (s *procSetup) pid(name string) int { return s.procs[name].pid() }

// startProcesses starts the upstream, the SDK floor (when wanted), `serve` from bin, a
// candidate `serve` from candidate (when not empty) and the load client.
func startProcesses(dir, bin, candidate string, floor bool, env []string) (*procSetup, error) {
	s := &procSetup{procs: map[string]*child{}, urls: map[string]string{}, dir: dir}
	start := func(name, role string, args ...string) error {
		c, r, err := startRole(role, args...)
		if err != nil {
			s.stop()
			return err
		}
		s.procs[name], s.urls[name] = c, "http://"+r.Addr
		return nil
	}
	if err := start("upstream", "upstream"); err != nil {
		return nil, err
	}
	up := s.urls["upstream"]
	s.targets = append(s.targets, procTarget{"direct REST", "rest", up + "/users/42?verbose=true", "upstream"})
	if floor {
		if err := start("floor", "sdk", "-upstream", up); err != nil {
			return nil, err
		}
		s.targets = append(s.targets, procTarget{"go-sdk floor", "mcp", s.urls["floor"], "floor"})
	}
	for _, sv := range []struct{ name, bin string }{{"serve", bin}, {"candidate", candidate}} {
		if sv.bin == "" {
			continue
		}
		c, url, err := startServe(sv.name, sv.bin, dir, up, env)
		if err != nil {
			s.stop()
			return nil, err
		}
		s.procs[sv.name], s.urls[sv.name] = c, url+"/mcp/users"
		t := "mcpbridge"
		if sv.name == "candidate" {
			t = "candidate"
		}
		s.targets = append(s.targets, procTarget{t, "mcp", s.urls[sv.name], sv.name})
	}
	if err := start("client", "client"); err != nil {
		return nil, err
	}
	return s, nil
}

// target returns the target named name.
func (s *procSetup) target(name string) procTarget {
	for _, t := range s.targets {
		if t.name == name {
			return t
		}
	}
	panic("no target " + name)
}

// round runs one round on t and measures the CPU of every process meanwhile.
func (s *procSetup) round(t procTarget, workers int, era string, d time.Duration, n int) (procRound, error) {
	before := map[string]cpuTime{}
	for name, c := range s.procs {
		before[name] = procCPU(c.pid())
	}
	r, err := s.procs["client"].do(clientOp{Op: "round", Target: t.target, URL: t.url, Era: era, Workers: workers, Client: *clientKind, Duration: d, Count: n})
	if err != nil {
		return procRound{}, fmt.Errorf("%s: %v", t.name, err)
	}
	pr := procRound{r: r, cpu: map[string]cpuTime{}}
	for name, c := range s.procs {
		now := procCPU(c.pid())
		pr.cpu[name] = now.sub(before[name])
		before[name] = now
	}
	pr.after = s.settle(before)
	return pr, nil
}

// settle waits until all processes are idle (under 5% of a core for 100 ms), at most
// -settle, so that work left over from one round is not charged to the next, and returns
// the CPU spent since since.
func (s *procSetup) settle(since map[string]cpuTime) map[string]cpuTime {
	deadline := time.Now().Add(*settleMax)
	last := since
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		var busy float64
		now := map[string]cpuTime{}
		for name, c := range s.procs {
			now[name] = procCPU(c.pid())
			busy += now[name].sub(last[name]).total()
		}
		last = now
		if busy < 0.005 {
			break
		}
	}
	spent := map[string]cpuTime{}
	for name := range since {
		spent[name] = last[name].sub(since[name])
	}
	return spent
}

// closeTarget ends the client's sessions on t.
func (s *procSetup) closeTarget(t procTarget, era string) {
	s.procs["client"].do(clientOp{Op: "close", Target: t.target, URL: t.url, Era: era, Client: *clientKind})
}

// serveSample is the state of a serve process at one moment.
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
	bin, err := mcpbridgeBin(dir)
	if err != nil {
		return err
	}
	s, err := startProcesses(dir, bin, *candidateBin, *floorFlag, splitList(*serveEnv))
	if err != nil {
		return err
	}
	defer s.stop()
	servers := []string{"serve"}
	if *candidateBin != "" {
		servers = append(servers, "candidate")
	}
	time.Sleep(500 * time.Millisecond)
	idle, peak := map[string]serveSample{}, map[string]serveSample{}
	for _, name := range servers {
		idle[name] = sampleServe(s.pid(name))
		peak[name] = idle[name]
	}
	store := "SQLite store in " + os.TempDir()
	if *storeDirFlag != "" {
		store = "SQLite store in " + *storeDirFlag
	}
	fmt.Printf("mcpbridge bench, SEPARATE PROCESSES: load client, `mcpbridge serve` (%s logs, %s) and REST upstream\n", *serveLogLevel, store)
	fmt.Printf("%s MCP client, one session per worker; %d rounds of %s per target, interleaved, after a %s warm-up; medians; GOMAXPROCS=%d\n",
		*clientKind, *rounds, roundText(), *warmup, runtime.GOMAXPROCS(0))
	fmt.Printf("CPU µs/call: CPU time per call of the process that answered (server), of the same after the round until idle (after: e.g. a\n")
	fmt.Printf("  draining audit queue; the next round starts once all are idle), of the upstream and of the client; total adds every process\n")
	for _, n := range splitInts(*clientsFlag) {
		for _, era := range []string{"2025-11-25", "2026-07-28"} {
			fmt.Fprintf(os.Stderr, "bench: %d clients, %s\n", n, era)
			res := map[string][]procRound{}
			for _, t := range s.targets {
				if _, err := s.round(t, n, era, *warmup, 0); err != nil {
					return err
				}
			}
			for i := range *rounds {
				for j := range s.targets {
					t := s.targets[(i+j)%len(s.targets)]
					r, err := s.round(t, n, era, *duration, *count)
					if err != nil {
						return err
					}
					res[t.name] = append(res[t.name], r)
					for _, name := range servers {
						smp := sampleServe(s.pid(name))
						p := peak[name]
						p.fds, p.threads = max(p.fds, smp.fds), max(p.threads, smp.threads)
						peak[name] = p
					}
				}
			}
			for _, t := range s.targets {
				if t.target == "mcp" {
					s.closeTarget(t, era)
				}
			}
			printProcBlock(n, era, s.targets, res)
		}
	}
	time.Sleep(time.Second)
	for _, name := range servers {
		after := sampleServe(s.pid(name))
		label := "mcpbridge serve"
		if name == "candidate" {
			label = "candidate serve"
		}
		fmt.Printf("\n%s process: descriptors %d idle before load, %d at most after a round, %d after the run (sessions closed, 1 s later)\n",
			label, idle[name].fds, peak[name].fds, after.fds)
		fmt.Printf("  RSS %.1f MB idle before load, %.1f MB peak (VmHWM), %.1f MB after; threads %d idle, %d at most\n",
			idle[name].rss, after.hwm, after.rss, idle[name].threads, peak[name].threads)
		reportServeLog(filepath.Join(dir, name+".log"))
	}
	if *profileDir != "" {
		s.stop()
		return runProfile(dir)
	}
	return nil
}

// printProcBlock prints one (clients, era) block: a row per target and the comparisons.
func printProcBlock(n int, era string, targets []procTarget, res map[string][]procRound) {
	fmt.Printf("\n%d client(s), %s\n", n, era)
	fmt.Printf("  %-13s %9s %9s %9s %6s | %s\n", "target", "calls/s", "p50", "p99", "errors", "CPU µs/call: server  after upstream client  total")
	for _, t := range targets {
		rs := res[t.name]
		cpuOf := func(during, after bool, f func(name string) bool) float64 {
			return median(mapRounds(rs, func(r procRound) float64 {
				var sum float64
				for name := range r.cpu {
					if f(name) {
						if during {
							sum += r.cpu[name].total()
						}
						if after {
							sum += r.after[name].total()
						}
					}
				}
				return 1e6 * sum / float64(max(r.r.Calls, 1))
			}))
		}
		cpu := func(f func(name string) bool) float64 { return cpuOf(true, false, f) }
		is := func(names ...string) func(string) bool {
			return func(name string) bool { return slices.Contains(names, name) }
		}
		server, after := 0.0, 0.0
		if t.server != "upstream" {
			server = cpu(is(t.server))
			after = cpuOf(false, true, is(t.server))
		}
		errs := 0
		first := ""
		for _, r := range rs {
			errs += r.r.Errors
			if first == "" {
				first = r.r.FirstError
			}
		}
		fmt.Printf("  %-13s %9.0f %7.3fms %7.3fms %6d | %19.0f %6.0f %8.0f %6.0f %6.0f\n", t.name,
			median(mapRounds(rs, func(r procRound) float64 { return float64(r.r.Calls) / r.r.Secs })),
			median(mapRounds(rs, func(r procRound) float64 { return r.r.P50 })),
			median(mapRounds(rs, func(r procRound) float64 { return r.r.P99 })),
			errs, server, after, cpu(is("upstream")), cpu(is("client")), cpuOf(true, true, func(string) bool { return true }))
		if first != "" {
			fmt.Printf("  %-13s first error: %s\n", "", first)
		}
	}
	compare := func(a, b string) {
		ra, rb := res[a], res[b]
		if len(ra) == 0 || len(rb) == 0 {
			return
		}
		paired := func(f func(a, b roundResult) float64) float64 {
			var xs []float64
			for i := range min(len(ra), len(rb)) {
				xs = append(xs, f(ra[i].r, rb[i].r))
			}
			return median(xs)
		}
		fmt.Printf("  %s vs %-14s added p50 %+.3fms (%.2f×), added p99 %+.3fms, calls/s %.2f×\n", a, b+":",
			paired(func(a, b roundResult) float64 { return a.P50 - b.P50 }),
			paired(func(a, b roundResult) float64 { return a.P50 / b.P50 }),
			paired(func(a, b roundResult) float64 { return a.P99 - b.P99 }),
			paired(func(a, b roundResult) float64 { return (float64(a.Calls) / a.Secs) / (float64(b.Calls) / b.Secs) }))
	}
	compare("mcpbridge", "direct REST")
	compare("mcpbridge", "go-sdk floor")
	compare("candidate", "mcpbridge")
}

func mapRounds(rs []procRound, f func(procRound) float64) []float64 {
	xs := make([]float64, len(rs))
	for i, r := range rs {
		xs[i] = f(r)
	}
	return xs
}

// reportServeLog prints a serve process's warnings and errors (e.g. a full audit queue).
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
		fmt.Println("  log: no warnings or errors")
		return
	}
	fmt.Printf("  log: %d warnings or errors; first: %s\n", len(bad), bad[0])
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
