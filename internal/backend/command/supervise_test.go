package command_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The scripts of the leftover tests. $0 is a directory for pid files; each leftover writes
// its pid to $0/g.pid and sleeps for a minute.
const leftoverConfig = `
servers:
  s:
    kind: command
    description: d
    timeout: 2s
    tools:
      setsid_holds_pipe:
        description: a grandchild in a new session keeps stdout open
        inputSchema: {type: object, properties: {dir: {type: string}}}
        argv:
          - sh
          - -c
          - |
            setsid sh -c 'echo $$ > "$0/g.pid"; exec sleep 61' "$0" &
            echo started
          - {direct: dir}
      group_holds_pipe:
        description: a grandchild in the same process group keeps stdout open
        inputSchema: {type: object, properties: {dir: {type: string}}}
        argv:
          - sh
          - -c
          - |
            sh -c 'echo $$ > "$0/g.pid"; exec sleep 61' "$0" &
            echo started
          - {direct: dir}
      setsid_ignores_signals:
        description: runs into the timeout with a grandchild in a new session that ignores signals
        inputSchema: {type: object, properties: {dir: {type: string}}}
        argv:
          - sh
          - -c
          - |
            setsid sh -c 'trap "" TERM HUP INT; echo $$ > "$0/g.pid"; exec sleep 61' "$0" &
            sleep 61
          - {direct: dir}
      daemon:
        description: a double-forked daemon in a new session that closes its output
        inputSchema: {type: object, properties: {dir: {type: string}}}
        argv:
          - sh
          - -c
          - |
            (setsid sh -c 'echo $$ > "$0/g.pid"; exec sleep 61' "$0" </dev/null >/dev/null 2>&1 &)
            while [ ! -s "$0/g.pid" ]; do sleep 0.01; done
            echo started
          - {direct: dir}
`

// A call ends within its timeout plus one second whatever its descendants do, and when it
// has ended nothing it started is left running, nor left to init (parent 1).
func TestLeftoversAreKilledAndCallsEndInTime(t *testing.T) {
	b := open(t, leftoverConfig)
	cases := []struct{ tool, want string }{
		{"setsid_holds_pipe", "started\n"},
		{"group_holds_pipe", "started\n"},
		{"setsid_ignores_signals", "timed out after 2s"},
		{"daemon", "started\n"},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			dir := t.TempDir()
			start := time.Now()
			done := make(chan string, 1)
			go func() { r := call(t, b, c.tool, fmt.Sprintf(`{"dir": %q}`, dir)); done <- text(r) }()
			var got string
			select {
			case got = <-done:
			case <-time.After(45 * time.Second):
				pid := readPid(t, filepath.Join(dir, "g.pid"))
				syscall.Kill(pid, syscall.SIGKILL) // let the call end
				t.Fatalf("the call did not end within 45s (timeout 2s): waiting for leftover %d", pid)
			}
			// The call ends 2 s + 1 s at most; a call that waited for its leftover would take
			// the leftover's 61 s. 30 s tells the two apart on any machine.
			took := time.Since(start)
			t.Logf("%s: %q after %s", c.tool, got, took.Round(time.Millisecond))
			if took > 30*time.Second {
				t.Errorf("the call took %s: it waited for what it left behind", took)
			}
			if !strings.Contains(got, c.want) {
				t.Errorf("result %q, want it to contain %q", got, c.want)
			}
			pid := readPid(t, filepath.Join(dir, "g.pid"))
			waitGone(t, pid, 30*time.Second)
		})
	}
}

// A call's own helper that left its parent keeps running while the call runs, even when
// another call ends meanwhile; it is killed when its own call ends.
func TestLeftoversOfARunningCallSurviveOtherCalls(t *testing.T) {
	b := open(t, `
servers:
  s:
    kind: command
    description: d
    tools:
      a:
        description: starts a helper, waits for b, checks the helper is alive
        inputSchema: {type: object, properties: {dir: {type: string}}}
        timeout: 10s
        argv:
          - sh
          - -c
          - |
            (setsid sh -c 'echo $$ > "$0/a.pid"; exec sleep 61' "$0" </dev/null >/dev/null 2>&1 &)
            while [ ! -e "$0/b.done" ]; do sleep 0.01; done
            sleep 0.3
            kill -0 "$(cat "$0/a.pid")" && echo alive
          - {direct: dir}
      b:
        description: says it is done
        inputSchema: {type: object, properties: {dir: {type: string}}}
        argv: [sh, -c, 'echo b; touch "$0/b.done"', {direct: dir}]
`)
	dir := t.TempDir()
	done := make(chan string, 1)
	go func() { done <- text(call(t, b, "a", fmt.Sprintf(`{"dir": %q}`, dir))) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if data, _ := os.ReadFile(filepath.Join(dir, "a.pid")); len(data) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a did not start its helper")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := text(call(t, b, "b", fmt.Sprintf(`{"dir": %q}`, dir))); got != "b\n" {
		t.Fatalf("b: %q", got)
	}
	select {
	case got := <-done:
		if got != "alive\n" {
			t.Errorf("a: %q, want its helper alive until a ended", got)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("a did not end")
	}
	waitGone(t, readPid(t, filepath.Join(dir, "a.pid")), 30*time.Second)
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		data, err := os.ReadFile(path)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && perr == nil {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s: %v", path, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGone waits until pid no longer exists (killed and reaped), failing if it is still
// there after d, or if it was ever seen with parent 1.
func waitGone(t *testing.T, pid int, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return
		}
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
		state, ppid := f[0], f[1]
		if ppid == "1" {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("leftover %d (state %s) was left to init (parent 1)", pid, state)
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("leftover %d still there after %s (state %s, parent %s)", pid, d, state, ppid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Many calls at once, half of them leaving daemons behind: every call that should succeed
// does (no running call is taken for a leftover), and no daemon survives its call.
func TestLeftoversUnderConcurrentCalls(t *testing.T) {
	b := open(t, `
servers:
  s:
    kind: command
    description: d
    tools:
      daemon:
        description: leaves a daemon behind, after a while
        inputSchema: {type: object, properties: {dir: {type: string}, wait: {type: string}}}
        argv:
          - sh
          - -c
          - |
            (setsid sh -c 'echo $$ > "$0/g.pid"; exec sleep 61' "$0" </dev/null >/dev/null 2>&1 &)
            while [ ! -s "$0/g.pid" ]; do sleep 0.01; done
            sleep "$1"
            echo started
          - {direct: dir}
          - {direct: wait}
      echo:
        description: echoes
        inputSchema: {type: object, properties: {m: {type: string}}}
        argv: [echo, {direct: m}]
`)
	const n = 12
	dirs := make([]string, n)
	errs := make(chan string, 2*n)
	done := make(chan struct{})
	for i := range n {
		dirs[i] = t.TempDir()
		go func() {
			r := call(t, b, "daemon", fmt.Sprintf(`{"dir": %q, "wait": "0.%d"}`, dirs[i], i%5))
			if text(r) != "started\n" {
				errs <- fmt.Sprintf("daemon %d: %q", i, text(r))
			}
			done <- struct{}{}
		}()
		go func() {
			for j := range 5 {
				m := fmt.Sprintf("m%d-%d", i, j)
				if r := call(t, b, "echo", fmt.Sprintf(`{"m": %q}`, m)); text(r) != m+"\n" {
					errs <- fmt.Sprintf("echo %s: %q", m, text(r))
				}
			}
			done <- struct{}{}
		}()
	}
	for range 2 * n {
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("calls did not end")
		}
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for _, dir := range dirs {
		waitGone(t, readPid(t, filepath.Join(dir, "g.pid")), 30*time.Second)
	}
}

// Output a background job writes shortly after the command exited is kept; a holder of the
// output that cannot be killed yet (it may belong to an older call still running) holds the
// call no longer than a second after the exit, and dies when that older call ends.
func TestOutputAfterExit(t *testing.T) {
	b := open(t, leftoverConfig+`
      late:
        description: a background job writes after the command exited
        inputSchema: {type: object}
        argv: [sh, -c, '(sleep 0.2; echo late) & echo early']
      older:
        description: runs for a while, after saying it started
        inputSchema: {type: object, properties: {dir: {type: string}}}
        argv: [sh, -c, 'touch "$0/older.started"; exec sleep 15', {direct: dir}]
        timeout: 30s
`)
	if got := text(call(t, b, "late", `{}`)); got != "early\nlate\n" {
		t.Errorf("late: %q, want early and late", got)
	}
	olderDir := t.TempDir()
	olderDone := make(chan string, 1)
	go func() { olderDone <- text(call(t, b, "older", fmt.Sprintf(`{"dir": %q}`, olderDir))) }()
	waitFile(t, filepath.Join(olderDir, "older.started"))
	dir := t.TempDir()
	start := time.Now()
	got := text(call(t, b, "setsid_holds_pipe", fmt.Sprintf(`{"dir": %q}`, dir)))
	took := time.Since(start)
	// The holder is released a second after the exit; held until the older call ends, the
	// call would take about 15 s. 10 s is a margin no busy machine needs for the first.
	if got != "started\n" || took > 10*time.Second {
		t.Errorf("setsid_holds_pipe beside an older call: %q after %s (held until the older call ended?)", got, took)
	}
	pid := readPid(t, filepath.Join(dir, "g.pid"))
	if err := syscall.Kill(pid, 0); err != nil {
		t.Errorf("the holder %d was killed while an older call it may belong to ran: %v", pid, err)
	}
	<-olderDone
	waitGone(t, pid, 30*time.Second)
}

// waitFile waits (30 s at most) for the file at path to exist.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within 30s", path)
		}
	}
}
