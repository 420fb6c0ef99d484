// Command profserve is the mcpbridge command (the same cli.Main as cmd/mcpbridge) with
// profiling on a side port, for the benchmark's -profile mode. When MCPBRIDGE_PROF_ADDR is
// set (e.g. 127.0.0.1:6070) it serves there:
//
//	/debug/pprof/...        net/http/pprof (profile, allocs?seconds=N, goroutine, ...)
//	/debug/bench/runtime    runtime/metrics counters as JSON (allocations, goroutines
//	                        created, GC cycles and CPU, scheduling latencies)
//
// Nothing else differs from `mcpbridge`, so `profserve serve --config ...` runs the gateway
// as users run it, and the side port costs nothing until it is asked.
package main

import (
	"encoding/json"
	"log"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime/metrics"

	"github.com/mcpbridge/mcpbridge/internal/cli"
)

func main() {
	if addr := os.Getenv("MCPBRIDGE_PROF_ADDR"); addr != "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			log.Fatalf("profserve: %v", err)
		}
		mux := http.NewServeMux()
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
		mux.HandleFunc("/debug/bench/runtime", serveRuntime)
		go http.Serve(ln, mux)
	}
	os.Exit(cli.Main())
}

// Runtime is the JSON served at /debug/bench/runtime.
type Runtime struct {
	Counters map[string]float64 `json:"counters"`
	// Histograms are cumulative: Counts[i] samples fell in [Buckets[i], Buckets[i+1]).
	Histograms map[string]Histogram `json:"histograms"`
}

// Histogram is a runtime/metrics histogram.
type Histogram struct {
	Buckets []float64 `json:"buckets"`
	Counts  []uint64  `json:"counts"`
}

// runtimeMetrics are the metrics served; see go doc runtime/metrics.
var runtimeMetrics = []string{
	"/gc/heap/allocs:bytes",
	"/gc/heap/allocs:objects",
	"/gc/cycles/total:gc-cycles",
	"/sched/goroutines-created:goroutines",
	"/sched/goroutines:goroutines",
	"/sched/threads/total:threads",
	"/cpu/classes/gc/total:cpu-seconds",
	"/cpu/classes/total:cpu-seconds",
	"/sync/mutex/wait/total:seconds",
	"/sched/latencies:seconds",
}

func serveRuntime(w http.ResponseWriter, r *http.Request) {
	samples := make([]metrics.Sample, len(runtimeMetrics))
	for i, name := range runtimeMetrics {
		samples[i].Name = name
	}
	metrics.Read(samples)
	out := Runtime{Counters: map[string]float64{}, Histograms: map[string]Histogram{}}
	for _, s := range samples {
		switch s.Value.Kind() {
		case metrics.KindUint64:
			out.Counters[s.Name] = float64(s.Value.Uint64())
		case metrics.KindFloat64:
			out.Counters[s.Name] = s.Value.Float64()
		case metrics.KindFloat64Histogram:
			h := s.Value.Float64Histogram()
			// JSON has no infinities: the open ends become ±1e300.
			b := make([]float64, len(h.Buckets))
			for i, x := range h.Buckets {
				b[i] = max(min(x, 1e300), -1e300)
			}
			out.Histograms[s.Name] = Histogram{Buckets: b, Counts: h.Counts}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}
