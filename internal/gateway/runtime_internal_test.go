package gateway

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

var sink [][]byte

// Memory is given back once the gateway goes quiet after allocating, not while it works.
// Time is the subject, so the test runs in a synctest bubble: the periods pass on the fake
// clock, exactly as many as the test says, however slow the machine. Allocation is real and
// process-wide, so the busy periods allocate far more than idleAllocs (other goroutines of
// the test binary cannot make a busy period look quiet), and the quiet periods take no real
// time (so they cannot make a quiet period look busy).
func TestWatchIdleReleasesAfterWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const every = 100 * time.Millisecond
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var released atomic.Int32
		go watchIdle(ctx, every, func() { released.Add(1) })
		// Busy for five periods: 16 × 64 KiB, four times idleAllocs, in every tenth of one.
		for range 50 {
			for range 16 {
				sink = append(sink[:0], make([]byte, 64<<10))
			}
			time.Sleep(every / 10)
		}
		if n := released.Load(); n != 0 {
			t.Errorf("released %d times while allocating", n)
		}
		sink = nil
		// Quiet: the next period with next to nothing allocated releases, and only once
		// however long the quiet lasts.
		time.Sleep(2 * every)
		synctest.Wait()
		if n := released.Load(); n != 1 {
			t.Fatalf("released %d times in the two periods after the burst, want 1", n)
		}
		time.Sleep(20 * every)
		synctest.Wait()
		if n := released.Load(); n != 1 {
			t.Errorf("released %d times for one burst, want 1", n)
		}
		cancel()
	})
}
