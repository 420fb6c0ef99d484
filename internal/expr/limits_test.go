package expr

import (
	"context"
	"errors"
	"strings"
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

func TestSingleCallAllocationGuard(t *testing.T) {
	for _, src := range []string{`'x'.repeat(2**40)`, `'ab'.repeat(20000000)`, `''.padStart(1e12)`, `'a'.padEnd(1e12, 'b')`} {
		_, err := mustCompile(t, src).Eval(context.Background(), nil, Limits{MaxMemory: 32 << 20})
		e := asError(t, err)
		if e.Kind != KindRuntime || e.Name != "RangeError" || !strings.Contains(e.Msg, "over the memory limit") {
			t.Errorf("%s: got %v, want a RangeError about the memory limit", src, err)
		}
	}
	got, err := mustCompile(t, `'ab'.repeat(3) + '7'.padStart(3, '0')`).Eval(context.Background(), nil, testLimits)
	if err != nil || got != "ababab007" {
		t.Errorf("small repeat/pad: %v, %v", got, err)
	}
}
