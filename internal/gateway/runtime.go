package gateway

import (
	"context"
	"os"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"time"
)

// Garbage-collector settings for a gateway process.
const (
	// GCPercent is the GOGC a gateway runs with. The go-sdk allocates 350–700 KB of
	// short-lived garbage per MCP call (its JSON decoder takes a 32 KiB buffer for every
	// decode) while the live heap stays at a few MB, so the default GOGC=100 spends a quarter
	// of the CPU collecting. 400 trades a few tens of MB under load for about 40% less CPU
	// per call (docs/benchmarks.md).
	GCPercent = 400
	// MemoryLimit is the soft limit that keeps that trade bounded: near it the collector
	// runs as often as it needs to.
	MemoryLimit = 1 << 30
)

// TuneGC applies GCPercent and MemoryLimit unless the GOGC or GOMEMLIMIT environment
// variables say otherwise. serve and stdio call it at start-up; benchmarks call it so they
// measure the gateway as it runs.
func TuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryLimit)
	}
}

// Idle memory release: with GOGC at 400 the heap may hold several times the live data in
// garbage, and after a burst of calls the process keeps what the burst took. When the
// gateway has allocated idleReleaseAfter or more since it last gave memory back, and then
// allocates next to nothing for idleQuiet, it collects and returns the free memory to the
// system once (debug.FreeOSMemory).
const (
	idleReleaseAfter = 4 << 20
	idleQuiet        = time.Second
	idleAllocs       = 256 << 10 // what "next to nothing" is within idleQuiet
)

// releaseWhenIdle gives memory back to the system when the gateway goes quiet after work,
// checking every quiet period, until ctx ends.
func releaseWhenIdle(ctx context.Context) { watchIdle(ctx, idleQuiet, debug.FreeOSMemory) }

// watchIdle calls release when, since the last release, idleReleaseAfter bytes or more were
// allocated and the last period allocated less than idleAllocs.
func watchIdle(ctx context.Context, every time.Duration, release func()) {
	sample := []rtmetrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	allocs := func() uint64 {
		rtmetrics.Read(sample)
		if sample[0].Value.Kind() != rtmetrics.KindUint64 {
			return 0
		}
		return sample[0].Value.Uint64()
	}
	t := time.NewTicker(every)
	defer t.Stop()
	released, last := allocs(), allocs()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := allocs()
		if now-last < idleAllocs && now-released >= idleReleaseAfter {
			release()
			now = allocs()
			released = now
		}
		last = now
	}
}
