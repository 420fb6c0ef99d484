package expr

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// mustCompile compiles src or fails the test.
func mustCompile(t testing.TB, src string) *Program {
	t.Helper()
	p, err := Compile("test", src)
	if err != nil {
		t.Fatalf("Compile(%q): %v", src, err)
	}
	return p
}

// asError returns err as *Error or fails the test.
func asError(t testing.TB, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *expr.Error", err, err)
	}
	return e
}

func TestEvalValues(t *testing.T) {
	args := map[string]any{
		"title": " Hello ",
		"n":     int64(41),
		"f":     2.5,
		"tags":  []any{"a", "b"},
		"obj":   map[string]any{"x": true, "y": nil},
		"when":  time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC),
		"num":   json.Number("12"),
		"strs":  []string{"p", "q"},
		"ints":  map[string]int{"k": 3},
	}
	tests := []struct {
		name string
		src  string
		want any
	}{
		{"string method", `args.title.toUpperCase()`, " HELLO "},
		{"arithmetic int", `args.n + 1`, int64(42)},
		{"integral float becomes int64", `args.f * 2`, int64(5)},
		{"float", `args.f / 2`, 1.25},
		{"bool", `args.obj.x && !args.obj.y`, true},
		{"null", `null`, nil},
		{"undefined", `undefined`, nil},
		{"missing property", `args.absent`, nil},
		{"NaN becomes nil", `0/0`, nil},
		{"Infinity becomes nil", `1/0`, nil},
		{"object literal", `{b: [1, 2.5, "x"], a: 1, c: {d: null}, 2: 0, 1: 0}`, jsvalue.ObjectOf("1", int64(0), "2", int64(0), "b", []any{int64(1), 2.5, "x"}, "a", int64(1), "c", jsvalue.ObjectOf("d", nil))},
		{"array methods", `args.tags.map(t => t + "!").join(",")`, "a!,b!"},
		{"array result with hole", `[1,,3]`, []any{int64(1), nil, int64(3)}},
		{"undefined in object", `({a: undefined})`, jsvalue.ObjectOf("a", nil)},
		{"date input and output", `new Date(args.when.getTime() + 1000)`, time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)},
		{"date input is a Date", `args.when.toISOString()`, "2024-05-06T07:08:09.000Z"},
		{"invalid date becomes nil", `new Date(NaN)`, nil},
		{"json.Number input", `args.num * 2`, int64(24)},
		{"typed slice input", `args.strs.concat(["r"])`, []any{"p", "q", "r"}},
		{"typed map input", `args.ints.k`, int64(3)},
		{"input keys sorted", `Object.keys(args).join(",")`, "f,ints,n,num,obj,strs,tags,title,when"},
		{"inputs are plain objects", `Object.getPrototypeOf(args.obj) === Object.prototype && Array.isArray(args.tags)`, true},
		{"statements with final expression", `const t = args.title.trim(); t.length`, int64(5)},
		{"statements with return", `if (args.n > 40) return "big"; return "small"`, "big"},
		{"completion value through if/else", `let x = args.n; if (x > 100) { "a" } else { "b" }`, "b"},
		{"statements ending with a declaration", `let x = 1;`, nil},
		{"template literal", "`${args.title.trim()}-${args.n}`", "Hello-41"},
		{"JSON", `JSON.parse('{"a":[1]}').a[0]`, int64(1)},
		{"settled promise", `Promise.resolve(4)`, int64(4)},
		{"async function result", `(async () => 7)()`, int64(7)},
		{"regexp", `/l+/.exec(args.title)[0]`, "ll"},
		{"override on plain object", `const o = {}; o.toString = () => "x"; String(o)`, "x"},
		{"error subclass sets name", `class E extends Error { constructor(m) { super(m); this.name = "E" } } String(new E("m"))`, "E: m"},
		{"trailing comment", "args.n // the answer", int64(41)},
		{"multi-line", "args.tags\n  .length", int64(2)},
		{"large integer", `2**53`, int64(1 << 53)},
		{"beyond 2^53 stays float", `2**60`, math.Pow(2, 60)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustCompile(t, tt.src)
			got, err := p.Eval(context.Background(), map[string]any{"args": args}, testLimits)
			if err != nil {
				t.Fatalf("Eval: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEvalDoesNotModifyInputs(t *testing.T) {
	in := map[string]any{"list": []any{int64(1)}, "name": "a"}
	p := mustCompile(t, `args.list.push(2); args.name = "b"; args.extra = 1; args.list.length`)
	got, err := p.Eval(context.Background(), map[string]any{"args": in}, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if got != int64(2) {
		t.Errorf("got %v, want 2", got)
	}
	want := map[string]any{"list": []any{int64(1)}, "name": "a"}
	if diff := cmp.Diff(want, in); diff != "" {
		t.Errorf("caller's map was modified (-want +got):\n%s", diff)
	}
}

func TestEvalFunc(t *testing.T) {
	upper := Func(func(args []any) (any, error) {
		s, ok := args[0].(string)
		if !ok {
			return nil, errors.New("want a string")
		}
		return strings.ToUpper(s), nil
	})
	p := mustCompile(t, `up(args.s) + "/" + (() => { try { up(1) } catch (e) { return e.message } })()`)
	got, err := p.Eval(context.Background(), map[string]any{"up": upper, "args": map[string]any{"s": "x"}}, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if got != "X/want a string" {
		t.Errorf("got %q", got)
	}
}

func TestCompileFunction(t *testing.T) {
	p, err := CompileFunction("js", []string{"state", "input"}, "const n = state.count + 1;\nreturn {n, input};")
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Eval(context.Background(), map[string]any{"state": map[string]any{"count": 2}}, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(jsvalue.ObjectOf("n", int64(3), "input", nil), got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// A function body's final expression is not its result: only return is.
	p2, err := CompileFunction("js", nil, "1 + 1")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p2.Eval(context.Background(), nil, testLimits); err != nil || got != nil {
		t.Errorf("body without return: got %v, %v; want nil, nil", got, err)
	}
	_, err = p.Eval(context.Background(), map[string]any{"other": 1}, testLimits)
	if e := asError(t, err); e.Kind != KindInput || !strings.Contains(e.Msg, `"other" is not a parameter`) {
		t.Errorf("unknown variable: got %v", err)
	}
}

func TestCompileFunctionBadParams(t *testing.T) {
	for _, params := range [][]string{{"a-b"}, {"class"}, {"1x"}, {"a", "a"}, {""}} {
		_, err := CompileFunction("js", params, "return 1")
		if e := asError(t, err); e.Kind != KindSyntax {
			t.Errorf("params %q: kind %v, want syntax (%v)", params, e.Kind, err)
		}
	}
}

func TestEvalBadVariables(t *testing.T) {
	p := mustCompile(t, `1`)
	tests := []struct {
		name string
		vars map[string]any
		want string
	}{
		{"bad name", map[string]any{"a-b": 1}, `variable "a-b": not a JavaScript identifier`},
		{"reserved name", map[string]any{"class": 1}, `variable "class": reserved word`},
		{"unsupported type", map[string]any{"args": map[string]any{"c": make(chan int)}}, "variable args.c has unsupported Go type chan int"},
		{"unsupported nested in list", map[string]any{"args": []any{1, struct{}{}}}, "variable args[1] has unsupported Go type struct {}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Eval(context.Background(), tt.vars, testLimits)
			e := asError(t, err)
			if e.Kind != KindInput || !strings.Contains(e.Msg, tt.want) {
				t.Errorf("got %v (kind %v), want input error containing %q", err, e.Kind, tt.want)
			}
		})
	}
	cyclic := []any{nil}
	cyclic[0] = cyclic
	_, err := p.Eval(context.Background(), map[string]any{"c": cyclic}, testLimits)
	if e := asError(t, err); e.Kind != KindInput || !strings.Contains(e.Msg, "nested deeper") {
		t.Errorf("cyclic input: got %v", err)
	}
}

func TestEvalBadResults(t *testing.T) {
	tests := []struct {
		src  string
		want string
	}{
		{`(function () {})`, "result is a function"},
		{`({a: {f: () => 1}})`, "result.a.f is a function"},
		{`Symbol("x")`, "result is a Symbol"},
		{`10n`, "result is a BigInt"},
		{`const o = {}; o.self = o; o`, "result.self contains a cycle"},
		{`Promise.reject(new TypeError("no"))`, "result is a Promise that was rejected: TypeError: no"},
		{`new Promise(() => {})`, "result is a Promise still pending"},
		{`const a = []; a.length = 2**30; a`, "too long"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, err := mustCompile(t, tt.src).Eval(context.Background(), nil, testLimits)
			e := asError(t, err)
			if e.Kind != KindResult || !strings.Contains(e.Msg, tt.want) {
				t.Errorf("got %v (kind %v), want result error containing %q", err, e.Kind, tt.want)
			}
		})
	}
}

// testLimits is used where a test is not about limits: the shared test machine can stall a
// goroutine for longer than the 100ms default timeout.
var testLimits = Limits{Timeout: 10 * time.Second}
