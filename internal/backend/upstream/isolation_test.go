package upstream_test

import (
	"errors"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pidOf calls the tool pid on cs.
func pidOf(t *testing.T, cs *mcp.ClientSession, tool string) int {
	t.Helper()
	r := callTool(t, cs, tool, nil)
	pid, err := strconv.Atoi(text(r))
	if err != nil || r.IsError {
		t.Fatalf("%s = %q", tool, text(r))
	}
	return pid
}

// alive reports whether a process is running.
func alive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// waitGone waits until the process has exited.
func waitGone(t *testing.T, pid int, why string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still running: %s", pid, why)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// With isolation: per-session every downstream session gets its own child: its state is
// its own, and the child is stopped when the session ends or after idle_timeout. Stateless
// callers share the upstream session of their principal. idle_timeout is 3 s, not less: a
// session's consecutive calls must not look idle on a loaded machine.
func TestPerSessionIsolation(t *testing.T) {
	srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n    idle_timeout: 3s\n"+stdioUpstream(t, nil, ""))
	_, a := connect(t, srv, "up", "2025-11-25")
	_, b := connect(t, srv, "up", "2025-11-25")
	pa, pb := pidOf(t, a, "pid"), pidOf(t, b, "pid")
	if pa == pb {
		t.Fatalf("two sessions share the child %d", pa)
	}
	if again := pidOf(t, a, "pid"); again != pa {
		t.Errorf("one session moved from child %d to %d", pa, again)
	}
	wantText(t, a, "count", nil, "1")
	wantText(t, a, "count", nil, "2")
	wantText(t, b, "count", nil, "1")

	// Stateless callers (the same anonymous principal) share one child of their own.
	_, m1 := connect(t, srv, "up", "2026-07-28")
	_, m2 := connect(t, srv, "up", "2026-07-28")
	pm := pidOf(t, m1, "pid")
	if pm == pa || pm == pb || pidOf(t, m2, "pid") != pm {
		t.Errorf("stateless callers: pids %d and %d, sessions %d %d", pm, pidOf(t, m2, "pid"), pa, pb)
	}

	// The end of a session stops its child.
	a.Close()
	waitGone(t, pa, "the session ended")
	if !alive(pb) {
		t.Fatal("the other session's child stopped too")
	}

	// An idle session's child is stopped after idle_timeout; the session gets a new one.
	waitGone(t, pb, "idle for longer than idle_timeout")
	if p := pidOf(t, b, "pid"); p == pb {
		t.Errorf("the reaped child %d answered", pb)
	}
	wantText(t, b, "count", nil, "1")
}

// With isolation: shared every caller of an era uses one upstream session: legacy clients
// share a 2025-11-25 session (what the upstream asks in the middle of a call reaches them
// as requests), 2026-07-28 callers the 2026-07-28 one. An upstream that speaks only
// 2025-11-25 has one session for everybody.
func TestSharedIsolation(t *testing.T) {
	srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n    isolation: shared\n"+stdioUpstream(t, nil, ""))
	_, a := connect(t, srv, "up", "2025-11-25")
	_, b := connect(t, srv, "up", "2025-11-25")
	_, m := connect(t, srv, "up", "2026-07-28")
	_, m2 := connect(t, srv, "up", "2026-07-28")
	pa, pb, pm, pm2 := pidOf(t, a, "pid"), pidOf(t, b, "pid"), pidOf(t, m, "pid"), pidOf(t, m2, "pid")
	if pa != pb || pm != pm2 || pa == pm {
		t.Errorf("pids: legacy %d %d, 2026-07-28 %d %d; want one child per era", pa, pb, pm, pm2)
	}
	wantText(t, a, "count", nil, "1")
	wantText(t, b, "count", nil, "2")
	a.Close()
	// The end of one session does not end the shared one. The nap lets a's end take effect
	// before b calls; on a loaded machine it may not have yet, which can only make this
	// pass falsely, never fail falsely.
	time.Sleep(100 * time.Millisecond)
	wantText(t, b, "count", nil, "3")

	legacy := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n    isolation: shared\n"+stdioUpstream(t, map[string]string{"UPSTREAM_TEST_LEGACY": "1"}, ""))
	_, la := connect(t, legacy, "up", "2025-11-25")
	_, lm := connect(t, legacy, "up", "2026-07-28")
	if p1, p2 := pidOf(t, la, "pid"), pidOf(t, lm, "pid"); p1 != p2 {
		t.Errorf("a legacy upstream: pids %d %d, want one child", p1, p2)
	}
}

// Per-session isolation over Streamable HTTP: each downstream session has its own
// upstream session on the one server.
func TestPerSessionHTTP(t *testing.T) {
	srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n    url: "+startHTTPServer(t, "UPSTREAM_TEST_LEGACY=1")+"\n")
	_, a := connect(t, srv, "up", "2025-11-25")
	_, b := connect(t, srv, "up", "2025-11-25")
	wantText(t, a, "count", nil, "1")
	wantText(t, a, "count", nil, "2")
	wantText(t, b, "count", nil, "1")
}

// max_sessions bounds the children: a new session closes the one idle the longest.
func TestMaxSessions(t *testing.T) {
	srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n    max_sessions: 2\n"+stdioUpstream(t, nil, ""))
	_, a := connect(t, srv, "up", "2025-11-25")
	_, b := connect(t, srv, "up", "2025-11-25")
	_, c := connect(t, srv, "up", "2025-11-25")
	pa := pidOf(t, a, "pid")
	time.Sleep(10 * time.Millisecond) // distinct last-use times; longer naps only help
	pb := pidOf(t, b, "pid")
	time.Sleep(10 * time.Millisecond)
	pc := pidOf(t, c, "pid")
	waitGone(t, pa, "the session idle the longest makes room")
	if !alive(pb) || !alive(pc) {
		t.Error("a more recent session's child was stopped")
	}
}
