package expr

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMemoryBlameIsPerEvaluation runs one evaluation that allocates without bound beside
// allocation-free ones that started earlier and keep running until after it (so the heavy
// allocation happens inside their watch windows too). Only the heavy one may fail, and with
// the memory error; the others must return their results.
func TestMemoryBlameIsPerEvaluation(t *testing.T) {
	heavy := mustCompile(t, "const a = [];\nwhile (true) a.push('x'.repeat(2000000) + a.length)")
	// Runs until the absolute time until (ms since the epoch), mostly asleep in pause so the
	// heavy one gets the CPU; a re-run after that time returns at once.
	light := mustCompile(t, "let n = 0;\nwhile (Date.now() < until) { pause(); n++ }\n'ok'")
	pause := Func(func([]any) (any, error) { time.Sleep(time.Millisecond); return nil, nil })
	lim := Limits{Timeout: 60 * time.Second, MaxMemory: 16 << 20}
	const lights, rounds = 3, 20
	blamed := 0
	for round := range rounds {
		runtime.GC() // a fresh live-heap figure, so the watchdog's baselines are accurate
		until := time.Now().Add(time.Second).UnixMilli()
		var wg sync.WaitGroup
		errs := make(chan error, lights)
		for range lights {
			wg.Go(func() {
				got, err := light.Eval(context.Background(), map[string]any{"until": until, "pause": pause}, lim)
				if err != nil {
					errs <- err
				} else if got != "ok" {
					t.Errorf("round %d: light evaluation returned %v", round, got)
				}
			})
		}
		time.Sleep(10 * time.Millisecond)
		_, err := heavy.Eval(context.Background(), nil, lim)
		if e := asError(t, err); e.Kind != KindMemory || !strings.Contains(e.Msg, "exceeded the memory limit of 16.0 MiB") {
			t.Errorf("round %d: heavy evaluation: got %v (kind %v), want the memory error", round, err, e.Kind)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			blamed++
			t.Errorf("round %d: an allocation-free evaluation failed: %v", round, err)
		}
	}
	if blamed > 0 {
		t.Logf("%d of %d allocation-free evaluations were blamed for another's memory", blamed, lights*rounds)
	}
}
