package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/backend/httpapi"
)

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("counting descriptors: %v", err)
	}
	return len(ents)
}

// TestDescriptorsStayFlat guards against the Unla defect (a transport per call, +1 fd per
// call): after 2,000 calls through several backends sharing a policy, the open descriptors
// are back to the baseline.
func TestDescriptorsStayFlat(t *testing.T) {
	up := newUpstream(t)
	server := fmt.Sprintf(`kind: http
description: d
base_url: %s
allow_private: true
tools:
  get_user:
    description: d
    inputSchema: {type: object, properties: {id: {type: string}}, required: [id]}
    method: GET
    path: /users/{id}
    mappings: [{field: id, in: path, direct: id}]
  status:
    description: d
    method: GET
    path: /status/500
  big:
    description: a body larger than max_output (the rest is drained or the connection closed)
    method: GET
    path: /big
    max_output: 10
`, up.URL)
	a, b := mustOpen(t, server), mustOpen(t, server) // two backends, one shared pool
	for range 20 {
		callTool(t, a, "get_user", map[string]any{"id": "1"})
		callTool(t, b, "get_user", map[string]any{"id": "1"})
	}
	base := openFDs(t)
	for i := range 2000 {
		be := a
		if i%2 == 1 {
			be = b
		}
		tool := []string{"get_user", "get_user", "status", "big"}[i%4]
		res := callTool(t, be, tool, map[string]any{"id": fmt.Sprint(i)})
		if tool == "get_user" && res.IsError {
			t.Fatalf("call %d: %s", i, resultText(res))
		}
	}
	after := openFDs(t)
	t.Logf("open descriptors: %d before, %d after 2,000 calls", base, after)
	if after > base+2 {
		t.Errorf("descriptors grew from %d to %d over 2,000 calls", base, after)
	}
}

// TestConcurrentCalls runs calls in parallel through one backend: every result must belong to
// its own call (no state shared between requests), and the descriptors stay bounded by the
// shared pool.
func TestConcurrentCalls(t *testing.T) {
	httpapi.GenerousExpressionLimit(t) // 800 calls at once on a busy machine; the limit is not the subject
	up := newUpstream(t)
	b := mustOpen(t, placementServer(up.URL))
	base := openFDs(t)
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				id := fmt.Sprintf("w%d-%d", w, i)
				raw := fmt.Sprintf(`{"folder":%q,"title":%q}`, id, id)
				res, err := b.CallTool(context.Background(), &backend.Call{Name: "create_note", Arguments: json.RawMessage(raw), Session: backend.NoSession{}})
				if err != nil {
					errs <- id + ": " + err.Error()
					return
				}
				txt := resultText(res)
				if res.IsError || !strings.Contains(txt, `"path":"/echo/folders/`+id+`/notes"`) || !strings.Contains(txt, `\"title\":\"`+id+`\"`) {
					select {
					case errs <- id + ": " + txt:
					default:
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	// Up to 32 idle client connections (the pool size per host) and their server ends may stay open.
	if after := openFDs(t); after > base+2*32+4 {
		t.Errorf("descriptors grew from %d to %d", base, after)
	}
}
