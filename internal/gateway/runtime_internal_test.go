package gateway

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

var sink [][]byte

// Memory is given back once the gateway goes quiet after allocating, not while it works.
func TestWatchIdleReleasesAfterWork(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var released atomic.Int32
	go watchIdle(ctx, 100*time.Millisecond, func() { released.Add(1) })
	// Busy: allocate without pause, far above idleAllocs per period, for half a second.
	for end := time.Now().Add(500 * time.Millisecond); time.Now().Before(end); {
		sink = append(sink[:0], make([]byte, 64<<10))
	}
	if n := released.Load(); n != 0 {
		t.Errorf("released %d times while allocating", n)
	}
	sink = nil
	// Quiet: the next period with next to nothing allocated releases, once.
	deadline := time.Now().Add(5 * time.Second)
	for released.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if released.Load() == 0 {
		t.Fatal("no release within 5 s of going quiet after half a second of allocations")
	}
	time.Sleep(500 * time.Millisecond)
	if n := released.Load(); n != 1 {
		t.Errorf("released %d times for one burst, want 1", n)
	}
}
