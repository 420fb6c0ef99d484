package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseStat(t *testing.T) {
	// A command name with spaces and parentheses; utime 250 and stime 75 ticks.
	stat := "1234 (my (odd) cmd) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 9 0 5 0 0"
	got := parseStat(stat)
	if want := (cpuTime{user: 2.5, sys: 0.75}); got != want {
		t.Errorf("parseStat = %+v, want %+v", got, want)
	}
	if got := parseStat("garbage"); got != (cpuTime{}) {
		t.Errorf("parseStat(garbage) = %+v, want zero", got)
	}
}

func TestLastSSEData(t *testing.T) {
	tests := []struct{ in, want string }{
		{"event: message\ndata: {\"id\":1}\n\n", `{"id":1}`},
		{"id: s_1\nevent: prime\ndata: \n\nevent: message\ndata: {\"id\":2}\n\n", `{"id":2}`},
		{": ok\n\n", ""},
	}
	for _, tt := range tests {
		if got := string(lastSSEData([]byte(tt.in))); got != tt.want {
			t.Errorf("lastSSEData(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseSyscallSummary(t *testing.T) {
	perf := `
 Summary of events:

 profserve (29732), 34686 events, 25.2%

   syscall            calls  errors  total       min       avg       max       stddev
                                     (msec)    (msec)    (msec)    (msec)        (%)
   --------------- --------  ------ -------- --------- --------- ---------     ------
   nanosleep          14904      0  3571.420     0.040     0.240    58.065      2.10%
   write                985      0    32.053     0.011     0.033     0.128      1.30%

 profserve (29733), 10 events, 0.1%

   syscall            calls  errors  total       min       avg       max       stddev
                                     (msec)    (msec)    (msec)    (msec)        (%)
   --------------- --------  ------ -------- --------- --------- ---------     ------
   write                 15      0     0.500     0.011     0.033     0.128      1.30%
`
	strace := `% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 60.00    0.000600          10        60           write
 40.00    0.000400          20        20         3 futex
------ ----------- ----------- --------- --------- ----------------
100.00    0.001000          12        80         3 total
`
	dir := t.TempDir()
	for _, tt := range []struct {
		tracer, text string
		want         map[string]float64
	}{
		{"perf", perf, map[string]float64{"nanosleep": 14904, "write": 1000}},
		{"strace", strace, map[string]float64{"write": 60, "futex": 20}},
	} {
		path := filepath.Join(dir, tt.tracer)
		if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := parseSyscallSummary(path, tt.tracer)
		if err != nil {
			t.Fatalf("%s: %v", tt.tracer, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", tt.tracer, diff)
		}
	}
}

func TestPartOf(t *testing.T) {
	tests := []struct {
		frames []string
		want   string
	}{
		{[]string{"runtime.mallocgc", "github.com/mcpbridge/mcpbridge/internal/gateway.validateArgs", "github.com/modelcontextprotocol/go-sdk/mcp.(*Server).callTool"},
			"argument validation (gateway.validateArgs)"},
		{[]string{"syscall.Syscall", "github.com/modelcontextprotocol/go-sdk/mcp.writeEvent", "net/http.(*conn).serve"},
			"SSE framing and its flush (go-sdk writeEvent)"},
		{[]string{"modernc.org/sqlite/lib._sqlite3Step", "github.com/mcpbridge/mcpbridge/internal/gateway.(*auditor).run"},
			"audit: batched SQLite writes (background)"},
		{[]string{"runtime.findRunnable", "runtime.schedule"}, "scheduler, netpoll, sysmon, idle"},
		{[]string{"main.main"}, "other"},
	}
	for _, tt := range tests {
		if got := partOf(tt.frames); got != tt.want {
			t.Errorf("partOf(%v) = %q, want %q", tt.frames, got, tt.want)
		}
	}
}

func TestUpParts(t *testing.T) {
	tests := []struct {
		frames []string
		want   string
	}{
		{[]string{"syscall.Syscall", "github.com/modelcontextprotocol/go-sdk/mcp.(*ioConn).Write", "github.com/modelcontextprotocol/go-sdk/mcp.(*ClientSession).CallTool", "github.com/mcpbridge/mcpbridge/internal/backend/upstream.(*upstream).callTool"},
			"upstream stdio pipe I/O (go-sdk ioConn, os.File)"},
		{[]string{"github.com/modelcontextprotocol/go-sdk/internal/jsonrpc2.jsonMarshal", "github.com/modelcontextprotocol/go-sdk/mcp.(*ClientSession).CallTool", "github.com/mcpbridge/mcpbridge/internal/backend/upstream.(*upstream).callTool"},
			"upstream go-sdk client call (ClientSession.CallTool: encode, send, wait)"},
		{[]string{"context.WithTimeout", "github.com/mcpbridge/mcpbridge/internal/backend/upstream.(*upstream).callTool"},
			"kind mcp backend's own code (internal/backend/upstream)"},
	}
	for _, tt := range tests {
		if got := partIn(upParts, tt.frames); got != tt.want {
			t.Errorf("partIn(upParts, %v) = %q, want %q", tt.frames, got, tt.want)
		}
	}
}
