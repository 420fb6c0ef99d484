package upstream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend/upstream"
)

// hugeBytes is how much the hostile upstream sends for one answer: 4 GiB, generated as it
// is written (MCPBRIDGE_TEST_HUGE_BYTES overrides it, e.g. to see the test fail without
// the cap on a machine that cannot spare gigabytes).
func hugeBytes(t *testing.T) int64 {
	if v := os.Getenv("MCPBRIDGE_TEST_HUGE_BYTES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	return 4 << 30
}

// startHugeUpstream serves an MCP server over Streamable HTTP whose tool huge is answered
// with an application/json body of size bytes (a text result that never ends), written
// from one small buffer. It returns the URL and a counter of the bytes written.
func startHugeUpstream(t *testing.T, size int64) (string, *atomic.Int64) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "huge", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "huge", Description: "answers with gigabytes", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult("small"), nil // never reached: the handler below answers
		})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	var written atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &msg) != nil || msg.Method != "tools/call" || msg.Params.Name != "huge" {
			r.Body = io.NopCloser(bytes.NewReader(body))
			sdk.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
			w.Header().Set("Mcp-Session-Id", sid)
		}
		w.WriteHeader(http.StatusOK)
		n, _ := fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, msg.ID)
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for total := int64(n); total < size; {
			k, err := w.Write(chunk)
			total += int64(k)
			written.Add(int64(k))
			if err != nil {
				return
			}
		}
		io.WriteString(w, `"}]}}`)
	})
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs.URL, &written
}

// heapBytes is the heap's live and not yet collected objects.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestHugeUpstreamAnswerIsCapped: a hostile HTTP upstream answers a tools/call with an
// application/json body of gigabytes. The call fails with a message naming the cap
// (max_response_bytes, 16 MiB by default), and the gateway's heap stays within a small
// multiple of the cap.
func TestHugeUpstreamAnswerIsCapped(t *testing.T) {
	for _, c := range []struct {
		name  string
		extra string
		cap   int
	}{
		{"default", "", upstream.DefaultMaxResponseBytes},
		{"configured", "    max_response_bytes: 1048576\n", 1 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			size := hugeBytes(t)
			url, written := startHugeUpstream(t, size)
			srv := start(t, fmt.Sprintf("servers:\n  huge:\n    kind: mcp\n    description: d\n    url: %s\n%s", url, c.extra))
			_, cs := connect(t, srv, "huge", "2025-06-18")

			runtime.GC()
			base := heapBytes()
			var peak atomic.Uint64
			done := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				for {
					if h := heapBytes(); h > peak.Load() {
						peak.Store(h)
					}
					select {
					case <-done:
						return
					case <-time.After(time.Millisecond):
					}
				}
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "huge", Arguments: map[string]any{}})
			close(done)
			<-sampled
			if h := heapBytes(); h > peak.Load() {
				peak.Store(h)
			}
			if err != nil {
				t.Fatalf("the call failed as a protocol error (%v); want a tool error naming the cap", err)
			}
			got := text(res)
			if !res.IsError || !strings.Contains(got, strconv.Itoa(c.cap)) || !strings.Contains(got, "max_response_bytes") {
				t.Errorf("result = %q (isError %v), want a tool error naming the cap %d (max_response_bytes)", truncated(got), res.IsError, c.cap)
			}
			growth := int64(peak.Load()) - int64(base)
			t.Logf("upstream wrote %d of %d bytes; heap grew by at most %d bytes (cap %d)", written.Load(), size, growth, c.cap)
			if limit := int64(8 * c.cap); growth > limit && growth > 64<<20 {
				t.Errorf("the heap grew by %d bytes during the call, more than 8 times the cap (%d)", growth, limit)
			}
			if written.Load() >= size {
				t.Errorf("the gateway read the whole answer of %d bytes", size)
			}
		})
	}
}

func truncated(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// TestHugeStdioLineIsCapped: a child that writes a message (a line) longer than
// max_response_bytes is stopped and the call fails naming the cap.
func TestHugeStdioLineIsCapped(t *testing.T) {
	srv := start(t, "servers:\n  big:\n    kind: mcp\n    description: d\n"+stdioUpstream(t, nil, "    max_response_bytes: 1048576\n"))
	_, cs := connect(t, srv, "big", "2025-06-18")
	wantText(t, cs, "big", map[string]any{"n": 1000}, strings.Repeat("x", 1000))
	wantError(t, cs, "big", map[string]any{"n": 3 << 20}, "1048576", "max_response_bytes")
}
