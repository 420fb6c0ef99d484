package gateway

import (
	"os"
	"runtime/debug"
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
