package httpapi_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestHugeAPIAnswerIsBounded: a hostile HTTP API answers with an application/json body of
// 4 GiB (generated as it is written). The call comes back cut at max_output with a note
// naming it, the gateway reads little more than the cap, and its heap stays within a small
// multiple of it.
func TestHugeAPIAnswerIsBounded(t *testing.T) {
	const size = int64(4 << 30)
	var written atomic.Int64
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(size))
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		n, _ := w.Write([]byte(`{"a":"`))
		for total := int64(n); total < size; {
			k, err := w.Write(chunk)
			total += int64(k)
			written.Add(int64(k))
			if err != nil {
				return
			}
		}
	}))
	t.Cleanup(api.Close)
	b := mustOpen(t, fmt.Sprintf(`kind: http
description: a hostile API
base_url: %s
allow_private: true
tools:
  huge: {description: gigabytes, method: GET, path: /huge}
`, api.URL))
	heap := func() uint64 {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	runtime.GC()
	base := heap()
	var peak atomic.Uint64
	done, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if h := heap(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	res := callTool(t, b, "huge", nil)
	close(done)
	<-sampled
	got := resultText(res)
	if !strings.Contains(got, "max_output (1048576 bytes)") {
		t.Errorf("result = %.200q…, want it cut naming max_output (1048576 bytes)", got)
	}
	growth := int64(peak.Load()) - int64(base)
	t.Logf("the API wrote %d of %d bytes; the heap grew by at most %d bytes", written.Load(), size, growth)
	if growth > 64<<20 {
		t.Errorf("the heap grew by %d bytes for a 1 MiB max_output", growth)
	}
	if written.Load() >= size {
		t.Error("the whole answer was read")
	}
}
