package expr

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// benchCases are the expressions measured: a trivial one and a small response mapping.
var benchCases = []struct{ name, src string }{
	{"trivial", `args.title.toUpperCase()`},
	{"mapping", `({title: args.title.toUpperCase(), count: args.count + 1, tags: args.tags.filter(t => t !== "b")})`},
}

func benchVars() map[string]any {
	return map[string]any{"args": map[string]any{"title": "hello", "count": int64(1), "tags": []any{"a", "b", "c"}}}
}

// benchLimits uses a long timeout: the shared test machine can stall a goroutine for more
// than the 100ms default, which would turn a benchmark into a flaky failure.
var benchLimits = Limits{Timeout: 10 * time.Second}

// BenchmarkCompile measures Compile (done once, at load time).
func BenchmarkCompile(b *testing.B) {
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Compile("bench", bc.src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEval measures one evaluation of a compiled program on a pooled runtime and, in
// the same run, the baselines it avoids: a fresh plain goja.Runtime per evaluation
// (fresh-ns/op) and a fresh hardened sandbox per evaluation (fresh-sandbox-ns/op), reported
// as speed-up ratios.
func BenchmarkEval(b *testing.B) {
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			p, err := Compile("bench", bc.src)
			if err != nil {
				b.Fatal(err)
			}
			vars := benchVars()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Eval(ctx, vars, benchLimits); err != nil {
					b.Fatal(err)
				}
			}
			pooled := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			fresh := timePerOp(func() { freshEval(bc.src) })
			sandbox := sandboxNs()
			b.ReportMetric(fresh, "fresh-ns/op")
			b.ReportMetric(fresh/pooled, "x-vs-fresh")
			b.ReportMetric(sandbox, "fresh-sandbox-ns/op")
			b.ReportMetric((sandbox+pooled)/pooled, "x-vs-fresh-sandbox")
		})
	}
}

// BenchmarkEvalParallel measures evaluations from all Ps at once on one Program.
func BenchmarkEvalParallel(b *testing.B) {
	p, err := Compile("bench", benchCases[1].src)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		vars := benchVars()
		for pb.Next() {
			if _, err := p.Eval(context.Background(), vars, benchLimits); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkNewSandbox measures building one hardened runtime (paid once per pooled runtime).
func BenchmarkNewSandbox(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := newEnv(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFreshRuntime is the plain baseline: a new goja.Runtime per evaluation (not
// hardened), with the variables set as globals.
func BenchmarkFreshRuntime(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		freshEval(benchCases[1].src)
	}
}

var freshPrograms sync.Map

func freshEval(src string) {
	v, ok := freshPrograms.Load(src)
	if !ok {
		v, _ = freshPrograms.LoadOrStore(src, goja.MustCompile("bench", src, true))
	}
	rt := goja.New()
	args := rt.NewObject()
	_ = args.Set("title", "hello")
	_ = args.Set("count", 1)
	_ = args.Set("tags", rt.NewArray("a", "b", "c"))
	_ = rt.Set("args", args)
	res, err := rt.RunProgram(v.(*goja.Program))
	if err != nil {
		panic(err)
	}
	_ = res.Export()
}

// timePerOp times f over a fixed budget (testing.Benchmark cannot run inside a benchmark).
func timePerOp(f func()) float64 {
	start := time.Now()
	n := 0
	for time.Since(start) < 300*time.Millisecond {
		f()
		n++
	}
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}

var sandboxNs = sync.OnceValue(func() float64 {
	return timePerOp(func() {
		if _, err := newEnv(); err != nil {
			panic(err)
		}
	})
})

// BenchmarkParallelDoubling runs the attack of TestParallelDoublingStaysBounded (32
// evaluations at once, each doubling a 3.5 MB input without bound) and reports the peak
// growth of the live heap and of the heap (garbage included) per round, in MiB.
func BenchmarkParallelDoubling(b *testing.B) {
	const n = 32
	p, err := Compile("bench", `let s = input; for (;;) s = s + s`)
	if err != nil {
		b.Fatal(err)
	}
	var live, heap int64
	for b.Loop() {
		m := measure(func() {
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() {
					if _, err := p.Eval(context.Background(), doublingInput, doublingLimits); err == nil {
						b.Error("a doubling loop ended without an error")
					}
				})
			}
			wg.Wait()
		})
		live, heap = max(live, m.live), max(heap, m.heap)
	}
	b.ReportMetric(float64(live)/(1<<20), "peak-live-MiB")
	b.ReportMetric(float64(heap)/(1<<20), "peak-heap-MiB")
}
