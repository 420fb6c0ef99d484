package operators

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// bg is the context.Context of the test evaluations.
var bg = context.Background()

func mustJSON(t *testing.T, s string) any {
	t.Helper()
	v, err := serial.Unmarshal([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestParseSemantics(t *testing.T) {
	ctx := &Context{State: jsvalue.ObjectOf("a", 1.0, "list", []any{jsvalue.ObjectOf("v", "x"), jsvalue.ObjectOf("v", "y")})}
	tests := []struct {
		name    string
		server  bool
		input   string
		indices []int
		want    any
		errs    int
	}{
		{name: "getter", input: `{"_state": "a"}`, want: 1.0},
		{name: "unknown operator passes through", input: `{"_nope": 1}`, want: jsvalue.ObjectOf("_nope", 1.0)},
		{name: "two keys are data", input: `{"_state": "a", "b": 1}`, want: jsvalue.ObjectOf("_state", "a", "b", 1.0)},
		{name: "keys keep their order", input: `{"b": {"_sum": [1, 1]}, "a": 1, "10": 2, "2": 3}`, want: jsvalue.ObjectOf("2", 3.0, "10", 2.0, "b", 2.0, "a", 1.0)},
		{name: "list index substitution", input: `{"_state": "list.$.v"}`, indices: []int{1}, want: "y"},
		{name: "no short circuit", input: `{"_if": {"test": true, "then": 1, "else": {"_divide": [1, 0]}}}`, want: 1.0, errs: 1},
		{name: "error value is null", input: `[{"_divide": [1, 0]}, 2]`, want: []any{nil, 2.0}, errs: 1},
		{name: "server has no _state", server: true, input: `{"_state": "a"}`, want: jsvalue.ObjectOf("_state", "a")},
		{name: "client has no _secret", input: `{"_secret": "a"}`, want: jsvalue.ObjectOf("_secret", "a")},
		{name: "dates revive", input: `{"_date.getUTCFullYear": {"~d": 0}}`, want: 1970.0},
		{name: "function callbacks", input: `{"_array.map": [[1, 2], {"_function": {"__product": [{"__args": 0}, 10]}}]}`, want: []any{10.0, 20.0}},
		{name: "~k is dropped", input: `{"~k": "x", "_sum": [1, 2]}`, want: 3.0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewClientParser(ctx)
			if tt.server {
				p = NewServerParser(ctx)
			}
			got, errs := p.Parse(bg, mustJSON(t, tt.input), "blk", tt.indices, nil)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("value (-want +got):\n%s", diff)
			}
			if len(errs) != tt.errs {
				t.Errorf("got %d errors %v, want %d", len(errs), errs, tt.errs)
			}
		})
	}
}

func TestErrorNamesOperatorAndLocation(t *testing.T) {
	p := NewClientParser(&Context{})
	_, errs := p.Parse(bg, jsvalue.ObjectOf("_divide", []any{1.0, 0.0}), "list.$.total", []int{3}, nil)
	if len(errs) != 1 {
		t.Fatalf("errors = %v", errs)
	}
	var oe *Error
	if !errors.As(errs[0], &oe) || oe.Operator != "_divide" || oe.Location != "list.3.total" {
		t.Fatalf("error = %#v", errs[0])
	}
	if msg := errs[0].Error(); !strings.Contains(msg, "_divide") || !strings.Contains(msg, "list.3.total") {
		t.Fatalf("message %q does not name the operator and location", msg)
	}
}

func TestParseDoesNotModifyInput(t *testing.T) {
	input := mustJSON(t, `{"a": {"_sum": [1, 2]}, "b": [{"_state": "x"}], "~k": "1"}`)
	before, _ := json.Marshal(input)
	NewClientParser(&Context{State: jsvalue.ObjectOf("x", 1.0)}).Parse(bg, input, "l", nil, nil)
	after, _ := json.Marshal(input)
	if string(before) != string(after) {
		t.Fatalf("input changed: %s -> %s", before, after)
	}
}

func TestDeepNestingIsAnError(t *testing.T) {
	var v any = 1.0
	for range 5000 {
		v = []any{v}
	}
	_, errs := NewClientParser(&Context{}).Parse(bg, v, "deep", nil, nil)
	if len(errs) == 0 {
		t.Fatal("no error for 5000 levels of nesting")
	}
}

func TestEvalJSON(t *testing.T) {
	tests := []struct {
		name   string
		server bool
		in     EvalInputs
		expr   string
		want   string
		errs   int
	}{
		{name: "state", in: EvalInputs{State: json.RawMessage(`{"n": 2}`)}, expr: `{"_product": [{"_state": "n"}, 21]}`, want: `42`},
		{name: "payload on server", server: true, in: EvalInputs{Payload: json.RawMessage(`{"id": "x"}`)}, expr: `{"_payload": "id"}`, want: `"x"`},
		{name: "secret", server: true, in: EvalInputs{Secrets: json.RawMessage(`{"K": "v"}`)}, expr: `{"_secret": "K"}`, want: `"v"`},
		{name: "dates", expr: `{"_date": 0}`, want: `{"~d":0}`},
		{name: "undefined is null", expr: `{"_if": {"test": false, "then": 1}}`, want: `null`},
		{name: "errors", expr: `{"_divide": [1, 0]}`, want: `null`, errs: 1},
		{name: "bad expression", expr: `{`, want: `null`, errs: 1},
		{name: "bad state", in: EvalInputs{State: json.RawMessage(`[1]`)}, expr: `1`, want: `null`, errs: 1},
		{name: "key order", in: EvalInputs{State: json.RawMessage(`{"b": 1, "a": 2, "10": 3}`)}, expr: `{"_state": true}`, want: `{"10":3,"b":1,"a":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, errs := EvalJSON(bg, tt.server, tt.in, []byte(tt.expr))
			got, _ := json.Marshal(v)
			if string(got) != tt.want {
				t.Errorf("value = %s, want %s", got, tt.want)
			}
			if len(errs) != tt.errs {
				t.Errorf("errors = %v, want %d", errs, tt.errs)
			}
		})
	}
}

// generousJSLimit raises the _js time limit for the rest of t: the limit is wall-clock time
// and not what the test is about, so a loaded machine must not trip it.
func generousJSLimit(t *testing.T) {
	old := jsLimits
	jsLimits.Timeout = 30 * time.Second
	t.Cleanup(func() { jsLimits = old })
}

func TestJSOperator(t *testing.T) {
	generousJSLimit(t)
	ctx := &Context{State: jsvalue.ObjectOf("count", 4.0), Payload: jsvalue.ObjectOf("n", 5.0)}
	got, errs := NewClientParser(ctx).Parse(bg, jsvalue.ObjectOf("_js", "return state('count') * 10"), "b", nil, nil)
	if len(errs) != 0 || got != 40.0 {
		t.Fatalf("client _js = %v, %v", got, errs)
	}
	got, errs = NewServerParser(ctx).Parse(bg, mustJSON(t, `{"_js": {"fn": "return payload('n') + args.k", "args": {"k": 1}}}`), "r", nil, nil)
	if len(errs) != 0 || got != 6.0 {
		t.Fatalf("server _js = %v, %v", got, errs)
	}
	ordered := NewClientParser(&Context{State: jsvalue.ObjectOf("b", 1.0, "a", jsvalue.ObjectOf("d", 1.0, "c", 2.0), "3", 0.0)})
	got, errs = ordered.Parse(bg, jsvalue.ObjectOf("_js", "const s = state(); return Object.keys(s).join() + '|' + Object.keys(s.a).join()"), "b", nil, nil)
	if len(errs) != 0 || got != "3,b,a|d,c" {
		t.Fatalf("_js sees state keys as %v, %v; want them in order", got, errs)
	}
	// What _js returns keeps JavaScript's key order too.
	got, errs = ordered.Parse(bg, jsvalue.ObjectOf("_json.stringify", []any{jsvalue.ObjectOf("_js", "return {z: 1, a: {y: 2, b: 3}, 10: 0, 2: 0}")}), "b", nil, nil)
	if s, _ := got.(string); len(errs) != 0 || strings.Join(strings.Fields(s), "") != `{"2":0,"10":0,"z":1,"a":{"y":2,"b":3}}` {
		t.Fatalf("_js result stringified as %v, %v; want JavaScript's key order", got, errs)
	}
	_, errs = NewClientParser(ctx).Parse(bg, jsvalue.ObjectOf("_js", "return ("), "b", nil, nil)
	if len(errs) != 1 {
		t.Fatalf("syntax error not reported: %v", errs)
	}
}

func TestOperatorSets(t *testing.T) {
	client, server := map[string]bool{}, map[string]bool{}
	for _, n := range Names(false) {
		client[n] = true
	}
	for _, n := range Names(true) {
		server[n] = true
	}
	for _, n := range []string{"_state", "_url_query", "_location", "_media", "_request", "_actions", "_event", "_index", "_input", "_global", "_menu"} {
		if !client[n] || server[n] {
			t.Errorf("%s: client %v server %v, want client only", n, client[n], server[n])
		}
	}
	for _, n := range []string{"_payload", "_secret", "_hash"} {
		if client[n] || !server[n] {
			t.Errorf("%s: client %v server %v, want server only", n, client[n], server[n])
		}
	}
	for _, n := range []string{"_and", "_string", "_user", "_nunjucks", "_uuid", "_yaml", "_moment", "_diff", "_mql", "_change_case", "_js", "_intl"} {
		if !client[n] || !server[n] {
			t.Errorf("%s missing from a set", n)
		}
	}
}

func TestDateNowUsesContextClock(t *testing.T) {
	now := time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC)
	got, errs := NewClientParser(&Context{Now: func() time.Time { return now }}).Parse(bg, jsvalue.ObjectOf("_date.now", nil), "b", nil, nil)
	if len(errs) != 0 || !got.(time.Time).Equal(now) {
		t.Fatalf("got %v %v", got, errs)
	}
}

func TestRipemd160(t *testing.T) {
	for in, want := range map[string]string{"": "9c1185a5c5e9fc54612808977ee8f548b2258d31", "abc": "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc"} {
		h := newRipemd160()
		h.Write([]byte(in))
		if got := strings.ToLower(string(hexString(h.Sum(nil)))); got != want {
			t.Errorf("ripemd160(%q) = %s, want %s", in, got, want)
		}
	}
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func TestHostileInputIsBounded(t *testing.T) {
	p := NewClientParser(&Context{})
	// Catastrophic backtracking on the backtracking engine (backreference), sized to run
	// for hours: an error, never a wrong "no match".
	for _, input := range []any{
		jsvalue.ObjectOf("_regex", jsvalue.ObjectOf("pattern", `^(a|aa)*\1c$`, "on", strings.Repeat("a", 60))),
		jsvalue.ObjectOf("_string.replace", []any{strings.Repeat("a", 60), jsRegExp{pattern: `(a|aa)*\1c`, flags: "g"}, "x"}),
	} {
		out, errs := p.Parse(bg, input, "x", nil, nil)
		if len(errs) != 1 || out != nil {
			t.Errorf("hostile regular expression: got %v, %v; want an error", out, errs)
		}
	}
	for _, expr := range []any{
		jsvalue.ObjectOf("_string.repeat", []any{"ab", 1e9}),
		jsvalue.ObjectOf("_string.padStart", []any{"x", 1e12}),
		jsvalue.ObjectOf("_random", jsvalue.ObjectOf("type", "string", "length", 1e9)),
	} {
		out, errs := p.Parse(bg, expr, "x", nil, nil)
		if len(errs) != 1 || out != nil {
			t.Errorf("%v: got %v, %v; want a size error", expr, out, errs)
		}
	}
}

func TestConcurrentParse(t *testing.T) {
	p := NewClientParser(&Context{State: jsvalue.ObjectOf("s", "a,b,c", "n", 2.0)})
	input := mustJSON(t, `{"x": {"_string.split": [{"_state": "s"}, ","]}, "y": {"_array.map": [[1, 2], {"_function": {"__product": [{"__args": 0}, {"__state": "n"}]}}]}, "z": {"_regex": {"pattern": "^a", "key": "s"}}}`)
	want := jsvalue.ObjectOf("x", []any{"a", "b", "c"}, "y", []any{2.0, 4.0}, "z", true)
	done := make(chan error, 8)
	for range 8 {
		go func() {
			for range 50 {
				got, errs := p.Parse(bg, input, "c", nil, nil)
				if len(errs) > 0 || !cmp.Equal(got, want) {
					done <- fmt.Errorf("got %v %v", got, errs)
					return
				}
			}
			done <- nil
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

func TestRoutineParserGetters(t *testing.T) {
	ctx := &Context{
		Steps:   jsvalue.ObjectOf("get_user", jsvalue.ObjectOf("name", "Ada")),
		Items:   jsvalue.ObjectOf("row", jsvalue.ObjectOf("id", 7.0)),
		State:   jsvalue.ObjectOf("count", 2.0),
		Payload: jsvalue.ObjectOf("x", 1.0),
	}
	in := jsvalue.ObjectOf(
		"name", jsvalue.ObjectOf("_step", "get_user.name"),
		"id", jsvalue.ObjectOf("_item", "row.id"),
		"count", jsvalue.ObjectOf("_state", "count"),
		"x", jsvalue.ObjectOf("_payload", "x"),
	)
	got, errs := NewRoutineParser(ctx).Parse(bg, in, "r", nil, nil)
	want := jsvalue.ObjectOf("name", "Ada", "id", 7.0, "count", 2.0, "x", 1.0)
	if len(errs) != 0 || !jsvalue.DeepEqual(got, want) {
		t.Fatalf("routine parser: %v %v, want %v", got, errs, want)
	}
	// The request parser keeps rc.11's server set: _step is plain data there.
	got, _ = NewServerParser(ctx).Parse(bg, jsvalue.ObjectOf("_step", "get_user"), "r", nil, nil)
	if o, ok := got.(*jsvalue.Object); !ok || !o.Has("_step") {
		t.Fatalf("server parser evaluated _step: %v", got)
	}
}
