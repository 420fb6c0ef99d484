package expr

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNoCodeGeneration tries every route we know to compile code from a string at run time.
func TestNoCodeGeneration(t *testing.T) {
	routes := []string{
		`Function("return 1")()`,
		`new Function("return 1")()`,
		`Function()`,
		`(function () {}).constructor("return 1")()`,
		`(() => 1).constructor("return 1")()`,
		`(class {}).constructor("return 1")()`,
		`Function.prototype.constructor("return 1")()`,
		`Object.getPrototypeOf(Function).constructor("return 1")()`,
		`Function.call(null, "return 1")()`,
		`Function.apply(null, ["return 1"])()`,
		`Function.bind(null, "return 1")()()`,
		`Reflect.construct(Function, ["return 1"])()`,
		`Reflect.apply(Function, null, ["return 1"])()`,
		`Object.getPrototypeOf(function* () {}).constructor("yield 1")().next().value`,
		`new (Object.getPrototypeOf(function* () {}).constructor)("yield 1")`,
		`Object.getPrototypeOf(async function () {}).constructor("return 1")()`,
		`Object.getPrototypeOf(async () => 1).constructor("return 1")()`,
		`Reflect.construct(Object.getPrototypeOf(async function () {}).constructor, ["return 1"])`,
		`Object.getPrototypeOf(Object.getPrototypeOf(function* () {})).constructor("return 1")()`,
		`Object.getOwnPropertyDescriptor(Function.prototype, "constructor").get()("return 1")()`,
	}
	for _, src := range routes {
		_, err := mustCompile(t, src).Eval(context.Background(), nil, testLimits)
		if err == nil {
			t.Errorf("%s: compiled code from a string", src)
			continue
		}
		e := asError(t, err)
		if e.Name != "TypeError" || !strings.Contains(e.Msg, "code generation from strings is not allowed") {
			t.Errorf("%s: got %v, want a TypeError saying code generation from strings is not allowed", src, err)
		}
	}
}

// TestNoAsyncGenerators pins that goja rejects async generators at compile time, so there is
// no AsyncGeneratorFunction constructor to block. If this starts failing, add it to
// codeGenConstructors.
func TestNoAsyncGenerators(t *testing.T) {
	for _, src := range []string{`async function* g() {}; 1`, `(async function* () {})`, `({ async *m() {} })`} {
		if _, err := Compile("test", src); err == nil {
			t.Errorf("%s compiles: async generators are supported now, block their constructor", src)
		}
	}
}

// TestNoEval checks eval is absent by every name and indirect eval cannot be reached.
func TestNoEval(t *testing.T) {
	for _, src := range []string{`eval("1")`, `globalThis.eval("1")`, `(0, eval)("1")`, `globalThis["ev" + "al"]("1")`} {
		_, err := mustCompile(t, src).Eval(context.Background(), nil, testLimits)
		if err == nil {
			t.Errorf("%s: evaluated a string", src)
		}
	}
	got, err := mustCompile(t, `[typeof eval, "eval" in globalThis, Object.getOwnPropertyNames(globalThis).includes("eval")]`).
		Eval(context.Background(), nil, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{"undefined", false, false}, got); diff != "" {
		t.Errorf("eval is visible (-want +got):\n%s", diff)
	}
}

// TestFunctionsStillWork checks that removing the constructors keeps functions usable.
func TestFunctionsStillWork(t *testing.T) {
	src := `const f = function (a, b) { return a + b };
	function* g() { yield 1 }
	const h = async () => 2;
	[typeof Function, f instanceof Function, g instanceof Function, h instanceof Function,
	 Object.getPrototypeOf(f) === Function.prototype, Function.prototype.constructor === Function,
	 f.call(null, 1, 2), f.apply(null, [2, 3]), f.bind(null, 3)(4), Function.name, Function.length,
	 (class {}) instanceof Function, g().next().value, String(Function).includes("native code")]`
	got, err := mustCompile(t, src).Eval(context.Background(), nil, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"function", true, true, true, true, true, int64(3), int64(5), int64(7), "Function", int64(1), true, int64(1), true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
