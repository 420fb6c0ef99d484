package expr

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestMemoryBlameIsPerEvaluation runs one evaluation that allocates without bound beside
// allocation-free ones that started earlier and keep running until after it (so the heavy
// allocation happens inside their watch windows too). Only the heavy one may fail, and with
// the memory error; the others must return their results. No clock is involved: the light
// ones say when they run, and loop until the heavy one has returned or waits to be re-run
// alone (a writer waits on the gate; the heavy one always does, as the light ones run beside
// it), so they make way for it.
func TestMemoryBlameIsPerEvaluation(t *testing.T) {
	heavy := mustCompile(t, "const a = [];\nwhile (true) a.push('x'.repeat(2000000) + a.length)")
	// Runs until finished, mostly asleep in pause so the heavy one gets the CPU; a re-run of
	// a light one (which holds the gate) returns at once.
	light := mustCompile(t, "started();\nlet n = 0;\nwhile (!finished()) { pause(); n++ }\n'ok'")
	pause := Func(func([]any) (any, error) { time.Sleep(time.Millisecond); return nil, nil })
	lim := Limits{Timeout: 10 * time.Minute, MaxMemory: 16 << 20}
	const lights, rounds = 3, 20
	blamed := 0
	for round := range rounds {
		runtime.GC() // a fresh live-heap figure, so the watchdog's baselines are accurate
		var heavyDone atomic.Bool
		var running sync.WaitGroup
		running.Add(lights)
		var once [lights]sync.Once
		var wg sync.WaitGroup
		errs := make(chan error, lights)
		for i := range lights {
			vars := map[string]any{
				"pause":    pause,
				"started":  Func(func([]any) (any, error) { once[i].Do(running.Done); return nil, nil }),
				"finished": Func(func([]any) (any, error) { return heavyDone.Load() || exclusiveWaiting(), nil }),
			}
			wg.Go(func() {
				got, err := light.Eval(context.Background(), vars, lim)
				once[i].Do(running.Done) // an evaluation that failed before it started
				if err != nil {
					errs <- err
				} else if got != "ok" {
					t.Errorf("round %d: light evaluation returned %v", round, got)
				}
			})
		}
		running.Wait()
		_, err := heavy.Eval(context.Background(), nil, lim)
		heavyDone.Store(true)
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

// exclusiveWaiting reports whether an evaluation holds or waits for the gate's write lock, to
// be re-run alone.
func exclusiveWaiting() bool {
	if gate.TryRLock() {
		gate.RUnlock()
		return false
	}
	return true
}
