package upstream_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// Every way a stdio upstream fails is named as what happened, to a legacy caller and a
// 2026-07-28 one alike: a child killed in the middle of a call stopped (not "did not
// answer"), a line too long or not JSON-RPC is said to be one (not "did not answer"), a child that dies at start
// says how it ended, and only a call that ran out of time is said to have.
func TestFailureTextsInBothEras(t *testing.T) {
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			srv := start(t, "servers:\n  up:\n    kind: mcp\n    description: d\n    timeout: 10s\n"+stdioUpstream(t, nil, "")+
				"  hung:\n    kind: mcp\n    description: d\n    timeout: 3s\n"+stdioUpstream(t, nil, "")+
				"  legacy:\n    kind: mcp\n    description: d\n    timeout: 10s\n"+stdioUpstream(t, map[string]string{"UPSTREAM_TEST_LEGACY": "1"}, "")+
				"  dead:\n    kind: mcp\n    description: d\n    command: [sh, -c, 'echo cannot open the database >&2; exit 4']\n"+
				demoServer)
			_, cs := connect(t, srv, "up", era)
			not := func(got string, bad ...string) {
				t.Helper()
				for _, b := range bad {
					if strings.Contains(got, b) {
						t.Errorf("error %q says %q, which is not what happened", got, b)
					}
				}
			}
			// killed, with a modern upstream and a legacy one (whose calls from a
			// 2026-07-28 caller are parked)
			got := wantError(t, cs, "crash", nil, "stopped while running the call", "exited with status 3")
			not(got, "did not answer", "raise timeout")
			_, old := connect(t, srv, "legacy", era)
			got = wantError(t, old, "crash", nil, "stopped while running the call", "exited with status 3")
			not(got, "did not answer", "raise timeout")
			// garbage
			got = wantError(t, cs, "garbage", nil, "malformed message")
			not(got, "did not answer", "raise timeout")
			// oversized line
			got = wantError(t, cs, "flood", map[string]any{"n": 50 << 20}, "longer than the gateway accepts", "MiB")
			not(got, "did not answer", "raise timeout")
			wantText(t, cs, "echo", map[string]any{"text": "recovered"}, "recovered")
			// timeout
			_, hung := connect(t, srv, "hung", era)
			wantError(t, hung, "hang", nil, "did not answer tools/call within 3s", "raise timeout")
			// crash at start
			resp, err := http.Post(srv.URL+"/mcp/dead", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+era+`","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "exit status 4") && !strings.Contains(string(body), "status 4") || !strings.Contains(string(body), "cannot open the database") {
				t.Errorf("a child that dies at start: %d %s; want 503 with its exit status and last stderr line", resp.StatusCode, body)
			}
		})
	}
}
