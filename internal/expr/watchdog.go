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

// watch is the process-wide memory watchdog. Its map and channel are made on first use (see
// add), so that it is static data and no code runs for it at init.
var watch watchdog

// gate makes re-runs exclusive: every evaluation holds a read lock while it runs, and the
// re-run of an evaluation interrupted by an ambiguous memory alarm (see [watchdog]) holds
// the write lock, so it runs with no other evaluation beside it.
var gate sync.RWMutex

// kindRetry is the internal cause of an evaluation interrupted because the heap grew too
// much while other evaluations ran beside it: [Program.Eval] re-runs it alone. It never
// reaches callers.
const kindRetry ErrorKind = -1

// watchdog enforces Limits.MaxMemory. Go has no per-goroutine heap accounting, so it
// samples process-wide heap figures (runtime/metrics, no stop-the-world) while at least one
// evaluation runs. When the heap has grown enough since an evaluation started that its
// live data may have grown by more than its limit (by the limit at first, then by what the
// last collection showed was left of it), it forces a garbage collection to tell live data
// from garbage; if the live heap grew by more than the limit, the evaluation is a suspect.
//
// A suspect is failed with the memory error only when the growth is its own: it is an
// exclusive re-run (alone, after a collection), or no other evaluation was active at any
// time during its run and the live heap exceeds even the heap at its start by the limit.
// Any other suspect is interrupted with kindRetry and re-run alone under [gate] within its
// original deadline, so an evaluation is not failed for the memory of another.
type watchdog struct {
	once sync.Once     // makes wake and starts loop, at the first add
	wake chan struct{} // wakes an idle loop

	mu     sync.Mutex
	active map[*env]uint64 // env → generation of the evaluation being watched
	gen    uint64
}

// add starts watching the evaluation running on e. exclusive marks a re-run holding the
// gate's write lock.
func (w *watchdog) add(e *env, limit int64, exclusive bool) {
	w.mu.Lock()
	if w.active == nil {
		w.active = make(map[*env]uint64)
	}
	w.gen++
	w.active[e] = w.gen
	e.limit, e.sampled, e.exclusive = limit, false, exclusive
	e.shared = len(w.active) > 1
	if e.shared {
		for o := range w.active {
			o.shared = true
		}
	}
	first := len(w.active) == 1
	w.mu.Unlock()
	w.once.Do(func() {
		w.wake = make(chan struct{}, 1)
		go w.loop()
	})
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
			// live is the figure of the last garbage collection, which may be older than
			// the evaluation; heap bounds the live data at the start from above.
			e.sampled, e.startHeap, e.baseLive = true, heap, live
			if live == 0 || live > heap {
				e.baseLive = heap
			}
			e.nextCheck = heap + uint64(e.limit)
			continue
		}
		if heap > e.nextCheck {
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
		e := sp.e
		if gen, ok := w.active[e]; !ok || gen != sp.gen {
			continue // finished meanwhile
		}
		if live <= e.baseLive || int64(live-e.baseLive) <= e.limit {
			// Collect again once the heap has grown by what the evaluation has left of its
			// limit (at least an eighth of it, to bound the rate of collections): sooner
			// than that, its live data cannot have passed the limit.
			headroom := e.limit - int64(max(live, e.baseLive)-e.baseLive)
			e.nextCheck = heap + uint64(max(headroom, e.limit/8))
			continue
		}
		// The live heap grew by more than the limit, measured from a baseline that may be
		// too low (a stale live figure) and counting every allocation in the process. Blame
		// the evaluation only when that cannot matter: it is an exclusive re-run (which
		// starts right after a collection, alone), or it ran alone and the live heap grew
		// by more than the limit even over the heap at its start.
		growth := int64(live - e.baseLive)
		certain := e.exclusive
		if !certain && !e.shared && live > e.startHeap && int64(live-e.startHeap) > e.limit {
			certain, growth = true, int64(live-e.startHeap)
		}
		if !certain {
			e.interrupt(&Error{Kind: kindRetry, Msg: "the live heap grew beyond the memory limit, but maybe not because of this evaluation; re-running it alone"})
			continue
		}
		e.interrupt(&Error{Kind: KindMemory, Msg: fmt.Sprintf(
			"exceeded the memory limit of %s (the live heap grew by %s during the evaluation); keep less data alive, or raise the memory limit",
			formatBytes(e.limit), formatBytes(growth))})
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
