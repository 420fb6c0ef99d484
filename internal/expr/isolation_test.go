package expr

import (
	"context"
	"fmt"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestIsolation tries every way we know to leave state behind, then checks from fresh
// evaluations (which reuse pooled runtimes) that nothing leaked.
func TestIsolation(t *testing.T) {
	attempts := []struct {
		src     string
		wantErr string // "" when the attempt must succeed harmlessly
	}{
		{`globalThis.leak = 1`, "not extensible"},
		{`Object.prototype.leak = 1`, "not extensible"},
		{`Object.defineProperty(Object.prototype, "leak", {value: 1})`, "Cannot define property"},
		{`Array.prototype.push = function () { return "hijacked" }`, "read only"},
		{`Object.prototype.toString = () => "hijacked"`, "read only"},
		{`Math.leak = 1`, "not extensible"},
		{`JSON.parse = null`, "read only"},
		{`Math = null`, "read only"},
		{`Object.getPrototypeOf(function* () {}).leak = 1`, "not extensible"},
		{`Object.getPrototypeOf([][Symbol.iterator]()).next = null`, "read only"},
		{`var v = 1; let l = 2; const c = 3; function f() {} class K {} v`, ""},
		{`Function("this.fleak = 1")(); 1`, "code generation from strings is not allowed"},
		{`Function("fleak2 = 1")(); 1`, "code generation from strings is not allowed"},
		{`(0, Function)("var fleak3 = 1")(); 1`, "code generation from strings is not allowed"},
		{`Function.prototype.constructor = null`, "read only"},
		{`args.mutated = true; args.list.push(9); 1`, ""},
		{`delete Array.prototype.map`, "Cannot delete"},
	}
	vars := func() map[string]any { return map[string]any{"args": map[string]any{"list": []any{1}}} }
	for _, a := range attempts {
		_, err := mustCompile(t, a.src).Eval(context.Background(), vars(), testLimits)
		switch {
		case a.wantErr == "" && err != nil:
			t.Errorf("%s: unexpected error %v", a.src, err)
		case a.wantErr != "" && (err == nil || !strings.Contains(err.Error(), a.wantErr)):
			t.Errorf("%s: got error %v, want one containing %q", a.src, err, a.wantErr)
		}
	}
	check := mustCompile(t, `[typeof leak, ({}).leak, typeof v, typeof l, typeof c, typeof f, typeof K,
		typeof fleak, typeof fleak2, typeof fleak3, Math.leak, [1].push(2), String({}), typeof JSON.parse,
		typeof Math, args.mutated, args.list.length, typeof [].map]`)
	want := []any{"undefined", nil, "undefined", "undefined", "undefined", "undefined", "undefined",
		"undefined", "undefined", "undefined", nil, int64(2), "[object Object]", "function",
		"object", nil, int64(1), "function"}
	// Run the check enough times, on several goroutines, to hit every pooled runtime.
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for range 4 {
		wg.Go(func() {
			for range 50 {
				got, err := check.Eval(context.Background(), vars(), Limits{Timeout: 10 * time.Second})
				if err != nil {
					errs <- err.Error()
					return
				}
				if diff := cmp.Diff(want, got); diff != "" {
					errs <- fmt.Sprintf("state leaked between evaluations (-want +got):\n%s", diff)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestVariablesDoNotLeak checks a variable of one evaluation is unbound in the next.
func TestVariablesDoNotLeak(t *testing.T) {
	p := mustCompile(t, `typeof secret`)
	q := mustCompile(t, `secret`)
	for range 20 {
		if _, err := q.Eval(context.Background(), map[string]any{"secret": "s3cr3t"}, testLimits); err != nil {
			t.Fatal(err)
		}
		got, err := p.Eval(context.Background(), nil, testLimits)
		if err != nil || got != "undefined" {
			t.Fatalf("typeof secret after another evaluation = %v, %v; want undefined", got, err)
		}
	}
}

func TestNoHostObjects(t *testing.T) {
	got, err := mustCompile(t, `[typeof require, typeof console, typeof eval, typeof Uint8Array, typeof ArrayBuffer,
		typeof process, typeof fetch, typeof setTimeout]`).Eval(context.Background(), nil, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"undefined", "undefined", "undefined", "undefined", "undefined", "undefined", "undefined", "undefined"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("host objects visible (-want +got):\n%s", diff)
	}
}

func TestConcurrentEval(t *testing.T) {
	p := mustCompile(t, `({id: args.id, title: args.title.toUpperCase(), sum: args.items.reduce((a, b) => a + b, 0)})`)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			for i := range 300 {
				id := int64(g*1000 + i)
				vars := map[string]any{"args": map[string]any{"id": id, "title": fmt.Sprintf("t%d", id), "items": []any{id, 1}}}
				got, err := p.Eval(context.Background(), vars, Limits{Timeout: 10 * time.Second})
				if err != nil {
					errs <- err
					return
				}
				want := jsvalue.ObjectOf("id", id, "title", fmt.Sprintf("T%d", id), "sum", id+1)
				if diff := cmp.Diff(want, got); diff != "" {
					errs <- fmt.Errorf("goroutine %d call %d (-want +got):\n%s", g, i, diff)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestConcurrentVarSets(t *testing.T) {
	// The same program used with different variable-name sets compiles once per set.
	p := mustCompile(t, `typeof a + "/" + typeof b`)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			vars := map[string]any{"a": 1}
			want := "number/undefined"
			if i%2 == 1 {
				vars["b"] = "x"
				want = "number/string"
			}
			for range 100 {
				got, err := p.Eval(context.Background(), vars, Limits{Timeout: 10 * time.Second})
				if err != nil || got != want {
					t.Errorf("got %v, %v; want %q", got, err, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
