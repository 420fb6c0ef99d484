package expr

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTimeout(t *testing.T) {
	// The time limit starts before the runtime is taken from the pool and the program is
	// instantiated in it: a pooled runtime and a limit far longer than that setup make sure
	// the limit fires in the loop, even on a loaded machine.
	if _, err := mustCompile(t, "0").Eval(context.Background(), nil, testLimits); err != nil {
		t.Fatal(err)
	}
	p := mustCompile(t, "let i = 0;\nwhile (true) { i++ }")
	start := time.Now()
	_, err := p.Eval(context.Background(), nil, Limits{Timeout: time.Second})
	elapsed := time.Since(start)
	e := asError(t, err)
	if e.Kind != KindTimeout || !strings.Contains(e.Error(), "exceeded the time limit of 1s") {
		t.Errorf("got %v (kind %v), want a timeout error", err, e.Kind)
	}
	if e.Line != 2 {
		t.Errorf("timeout position line = %d, want 2 (the loop's): %v", e.Line, err)
	}
	if elapsed > time.Minute { // a wide margin: only an uninterrupted loop takes this long
		t.Errorf("took %v to stop a 1s limit", elapsed)
	}
	// The runtime that was interrupted must not poison the next evaluation.
	for range 20 {
		got, err := mustCompile(t, "1 + 1").Eval(context.Background(), nil, testLimits)
		if err != nil || got != int64(2) {
			t.Fatalf("evaluation after a timeout: got %v, %v", got, err)
		}
	}
}

func TestDefaultTimeout(t *testing.T) {
	start := time.Now()
	_, err := mustCompile(t, "for (;;) {}").Eval(context.Background(), nil, Limits{})
	if e := asError(t, err); e.Kind != KindTimeout || !strings.Contains(e.Msg, "limit of "+DefaultTimeout.String()) {
		t.Errorf("got %v, want the %v default timeout", err, DefaultTimeout)
	}
	// Never sooner than the limit; the upper bound is a wide margin, only to catch a loop the
	// limit did not interrupt.
	if d := time.Since(start); d < DefaultTimeout || d > 30*time.Second {
		t.Errorf("default timeout took %v", d)
	}
}

func TestContextDeadlineAndCancel(t *testing.T) {
	p := mustCompile(t, "for (;;) {}")
	// The context's deadline is far earlier than the time limit, however slow the machine.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err := p.Eval(ctx, nil, Limits{Timeout: time.Hour})
	if e := asError(t, err); e.Kind != KindTimeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline: got %v (kind %v), want timeout wrapping DeadlineExceeded", err, e.Kind)
	}

	// The program cancels its own context once it runs, so the cancellation comes while it
	// loops, with no clock involved.
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancelling := mustCompile(t, "cancel();\nfor (;;) {}")
	_, err = cancelling.Eval(ctx2, map[string]any{"cancel": Func(func([]any) (any, error) { cancel2(); return nil, nil })}, Limits{Timeout: time.Hour})
	if e := asError(t, err); e.Kind != KindCanceled || !errors.Is(err, context.Canceled) {
		t.Errorf("cancel: got %v (kind %v), want canceled", err, e.Kind)
	}

	_, err = p.Eval(ctx2, nil, Limits{})
	if e := asError(t, err); e.Kind != KindCanceled {
		t.Errorf("already canceled: got %v", err)
	}
}

func TestMemoryLimit(t *testing.T) {
	p := mustCompile(t, "let a = [];\nwhile (true) a.push('x'.repeat(1000))")
	start := time.Now()
	_, err := p.Eval(context.Background(), nil, Limits{Timeout: 60 * time.Second, MaxMemory: 32 << 20})
	e := asError(t, err)
	if e.Kind != KindMemory || !strings.Contains(e.Msg, "exceeded the memory limit of 32.0 MiB") {
		t.Fatalf("got %v (kind %v), want a memory error", err, e.Kind)
	}
	if e.Line != 2 {
		t.Errorf("memory error line = %d, want 2", e.Line)
	}
	t.Logf("stopped after %v: %v", time.Since(start), err)
	// The process is fine and the next evaluation works.
	if got, err := mustCompile(t, "'ok'").Eval(context.Background(), nil, testLimits); err != nil || got != "ok" {
		t.Errorf("after memory error: %v, %v", got, err)
	}
}

func TestMemoryLimitIgnoresGarbage(t *testing.T) {
	// Allocates ~200 MB in total but keeps almost nothing alive: must not be stopped.
	p := mustCompile(t, "let n = 0;\nfor (let i = 0; i < 200000; i++) n += 'y'.repeat(1000).length;\nn")
	got, err := p.Eval(context.Background(), nil, Limits{Timeout: 60 * time.Second, MaxMemory: 16 << 20})
	if err != nil {
		t.Fatalf("garbage-only program was stopped: %v", err)
	}
	if got != int64(200000*1000) {
		t.Errorf("got %v", got)
	}
}

// TestSingleCallAllocationGuard: a built-in refuses a string over the size limit before
// building it, with a RangeError the program may catch; uncaught, it is the memory limit.
func TestSingleCallAllocationGuard(t *testing.T) {
	for _, src := range []string{`'x'.repeat(2**40)`, `'ab'.repeat(20000000)`, `''.padStart(1e12)`, `'a'.padEnd(1e12, 'b')`} {
		_, err := mustCompile(t, src).Eval(context.Background(), nil, Limits{MaxMemory: 32 << 20})
		e := asError(t, err)
		if e.Kind != KindMemory || e.Name != "RangeError" || !strings.Contains(e.Msg, "over the memory limit") {
			t.Errorf("%s: got %v (kind %v), want a RangeError about the memory limit, of kind memory", src, err, e.Kind)
		}
		caught := "try { " + src + " } catch (e) { e instanceof RangeError && e.message.includes('over the memory limit') }"
		if got, err := mustCompile(t, caught).Eval(context.Background(), nil, Limits{MaxMemory: 32 << 20}); err != nil || got != true {
			t.Errorf("%s in try/catch: got %v, %v; want the RangeError caught", src, got, err)
		}
	}
	// A program that throws a RangeError of its own is not reported as the memory limit.
	_, err := mustCompile(t, `throw new RangeError('expression result too large: over the memory limit')`).Eval(context.Background(), nil, testLimits)
	if e := asError(t, err); e.Kind != KindRuntime {
		t.Errorf("own RangeError: got kind %v, want runtime", e.Kind)
	}
	got, err := mustCompile(t, `'ab'.repeat(3) + '7'.padStart(3, '0')`).Eval(context.Background(), nil, testLimits)
	if err != nil || got != "ababab007" {
		t.Errorf("small repeat/pad: %v, %v", got, err)
	}
}

// doublingLimits are the limits of the doubling attacks: the default memory limit (strings
// up to 8 Mi characters) and a time limit no machine reaches before a memory-bound program
// ends, so that only the memory limit can end them.
var doublingLimits = Limits{Timeout: 2 * time.Minute, MaxMemory: 32 << 20}

// doublingAttacks double a string without bound: 40 doublings of one character would need
// a terabyte. The operators (+, +=, template literals) are single VM instructions that build
// their result at once, so the memory watchdog, sampling every 2 ms, would see each step
// only after it is built.
var doublingAttacks = []struct{ name, src string }{
	{"+", `let s = 'x'; for (let i = 0; i < 40; i++) s = s + s; s.length`},
	{"+=", `let s = 'x'; for (let i = 0; i < 40; i++) s += s; s.length`},
	{"template literal", "let s = 'x'; for (let i = 0; i < 40; i++) s = `${s}${s}`; s.length"},
	{"+ of a non-ASCII string", `let s = 'é'; for (let i = 0; i < 40; i++) s = s + s; s.length`},
	{"+ of a 3.5 MB input", `let s = input; for (;;) s = s + s`},
	{"repeat", `let s = 'x'; for (let i = 0; i < 40; i++) s = s.repeat(2); s.length`},
	{"padStart", `let s = 'x'; for (let i = 0; i < 40; i++) s = s.padStart(2 * s.length, s); s.length`},
	{"join", `let s = 'x'; for (let i = 0; i < 40; i++) s = [s, s].join(''); s.length`},
	{"concat", `let s = 'x'; for (let i = 0; i < 40; i++) s = s.concat(s); s.length`},
}

// doublingInput is the input of the attack: 3.5 MB of text.
var doublingInput = map[string]any{"input": strings.Repeat("x", 3_500_000)}

// TestStringDoublingHitsMemoryLimit: a loop doubling a string comes back as the memory
// limit, refused at the doubling that would pass the string limit, before it is built, so
// the live heap never grows past the memory limit, on any machine. (The watchdog alone let
// such a loop run a doubling or two past the limit.)
func TestStringDoublingHitsMemoryLimit(t *testing.T) {
	for _, a := range doublingAttacks {
		t.Run(a.name, func(t *testing.T) {
			p := mustCompile(t, a.src)
			var err error
			m := measure(func() { _, err = p.Eval(context.Background(), doublingInput, doublingLimits) })
			t.Logf("%v, live heap +%s, heap +%s: %v", m.elapsed.Round(time.Millisecond), formatBytes(m.live), formatBytes(m.heap), err)
			e := asError(t, err)
			if e.Kind != KindMemory || !strings.Contains(e.Msg, "memory limit") || e.Line != 1 {
				t.Errorf("got %v (kind %v, line %d), want the memory limit at line 1", err, e.Kind, e.Line)
			}
			if m.live > doublingLimits.MaxMemory {
				t.Errorf("the live heap grew by %s, past the memory limit of %s", formatBytes(m.live), formatBytes(doublingLimits.MaxMemory))
			}
		})
	}
	// Strings up to the limit are still built, by every one of them.
	src := "const s = 'x'.repeat(4 << 20); [(s + s).length, `${s}${s}`.length, s.repeat(2).length, [s, s].join('').length, s.padEnd(8 << 20).length]"
	got, err := mustCompile(t, src).Eval(context.Background(), nil, doublingLimits)
	if want := []any{int64(8 << 20), int64(8 << 20), int64(8 << 20), int64(8 << 20), int64(8 << 20)}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("strings at the limit: got %v, %v; want %v", got, err, want)
	}
	// The refusal is a RangeError the program may catch, as V8's "Invalid string length".
	src = "let s = 'x'; try { for (;;) s = s + s } catch (e) { [e.name, s.length] }"
	got, err = mustCompile(t, src).Eval(context.Background(), nil, doublingLimits)
	if want := []any{"RangeError", int64(8 << 20)}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("caught: got %v, %v; want %v", got, err, want)
	}
}

// TestParallelDoublingStaysBounded runs the attack: 32 evaluations at once, each
// doubling a 3.5 MB input without bound (which took the gateway to 1.04 GB). Each must come
// back as the memory limit, and all together must stay within the sum of their limits. The
// figures are logged; BenchmarkParallelDoubling reports the peak.
func TestParallelDoublingStaysBounded(t *testing.T) {
	const n = 32
	p := mustCompile(t, `let s = input; for (;;) s = s + s`)
	errs := make([]error, n)
	m := measure(func() {
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { _, errs[i] = p.Eval(context.Background(), doublingInput, doublingLimits) })
		}
		wg.Wait()
	})
	t.Logf("%d evaluations: %v, live heap +%s, heap +%s", n, m.elapsed.Round(time.Millisecond), formatBytes(m.live), formatBytes(m.heap))
	for i, err := range errs {
		if e := asError(t, err); e.Kind != KindMemory {
			t.Errorf("evaluation %d: got %v (kind %v), want the memory limit", i, err, e.Kind)
		}
	}
	if bound := n * doublingLimits.MaxMemory; m.live > bound {
		t.Errorf("the live heap grew by %s, more than the %d memory limits together (%s)", formatBytes(m.live), n, formatBytes(bound))
	}
}
