package expr

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// watchInterval is how often the memory watchdog samples the heap while evaluations run.
const watchInterval = 2 * time.Millisecond

// watch is the process-wide memory watchdog.
var watch = &watchdog{active: make(map[*env]uint64), wake: make(chan struct{}, 1)}

// watchdog enforces Limits.MaxMemory. Go has no per-goroutine heap accounting, so it
// samples process-wide heap figures (runtime/metrics, no stop-the-world) while at least one
// evaluation runs. When the heap has grown by more than an evaluation's limit since that
// evaluation started, it forces a garbage collection to tell live data from garbage, and
// interrupts the evaluation if the live heap still grew by more than the limit.
type watchdog struct {
	once sync.Once
	wake chan struct{}

	mu     sync.Mutex
	active map[*env]uint64 // env → generation of the evaluation being watched
	gen    uint64
}

// add starts watching the evaluation running on e.
func (w *watchdog) add(e *env, limit int64) {
	w.mu.Lock()
	w.gen++
	w.active[e] = w.gen
	e.limit, e.sampled = limit, false
	first := len(w.active) == 1
	w.mu.Unlock()
	w.once.Do(func() { go w.loop() })
	if first {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// remove stops watching e. After remove returns, the watchdog no longer interrupts e.
func (w *watchdog) remove(e *env) {
	w.mu.Lock()
	delete(w.active, e)
	w.mu.Unlock()
}

func (w *watchdog) loop() {
	samples := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}
	tick := time.NewTicker(watchInterval)
	for {
		w.mu.Lock()
		idle := len(w.active) == 0
		w.mu.Unlock()
		if idle {
			tick.Stop()
			<-w.wake
			tick.Reset(watchInterval)
			continue
		}
		<-tick.C
		w.check(samples)
	}
}

type suspect struct {
	e   *env
	gen uint64
}

func readHeap(s []metrics.Sample) (heap, live uint64) {
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		heap = s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		live = s[1].Value.Uint64()
	}
	return heap, live
}

func (w *watchdog) check(s []metrics.Sample) {
	heap, live := readHeap(s)
	var suspects []suspect
	w.mu.Lock()
	for e, gen := range w.active {
		if !e.sampled {
			e.sampled, e.baseHeap, e.baseLive = true, heap, live
			if live == 0 || live > heap {
				e.baseLive = heap
			}
			continue
		}
		if heap > e.baseHeap && int64(heap-e.baseHeap) > e.limit {
			suspects = append(suspects, suspect{e, gen})
		}
	}
	w.mu.Unlock()
	if len(suspects) == 0 {
		return
	}
	// The growth may be garbage: collect, then judge on live data only.
	runtime.GC()
	heap, live = readHeap(s)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, sp := range suspects {
		if gen, ok := w.active[sp.e]; !ok || gen != sp.gen {
			continue // finished meanwhile
		}
		if live > sp.e.baseLive && int64(live-sp.e.baseLive) > sp.e.limit {
			sp.e.interrupt(&Error{Kind: KindMemory, Msg: fmt.Sprintf(
				"exceeded the memory limit of %s (the live heap grew by %s during the evaluation)",
				formatBytes(sp.e.limit), formatBytes(int64(live-sp.e.baseLive)))})
			continue
		}
		sp.e.baseHeap = heap
	}
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
