package changecase

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/tools/jslibs-oracle/oracletest"
)

var inputs = []string{
	"", "test", "test string", "Test String", "TestV2", "version 1.2.10", "version 1 2 10", "testString", "TestString",
	"XMLHttpRequest", "iOS", "getHTTPResponseCode", "foo_bar-baz.qux/quux", "  leading and trailing  ", "__private__",
	"a1b2c3", "123abc", "abc123def", "ABC", "aBC", "camelCase2Words", "snake_case_words", "CONSTANT_CASE", "kebab-case-words",
	"Sentence case. With punctuation!", "mIxEd CaSe", "emoji 🎉 party", "café au lait", "straße", "Ünïcödé Wörds", "user.firstName",
	"user_id 42", "42", "x", "HTMLParser5Go", "the-1st-place", "2nd_try",
}

var optionSets = []map[string]any{
	nil,
	{"delimiter": "+"},
	{"splitRegexp": "([a-z])([A-Z0-9])"},
	{"stripRegexp": "[^A-Z0-9.]+", "delimiter": " "},
}

func TestDifferentialAgainstChangeCase(t *testing.T) {
	var cases []oracletest.Case
	type run struct {
		fn, in string
		opts   map[string]any
	}
	var runs []run
	for name := range Funcs.Get() {
		for _, in := range inputs {
			for _, o := range optionSets {
				var args any = o
				if o == nil {
					args = nil
				}
				cases = append(cases, oracletest.Case{Lib: "changecase", Op: "call", Args: []any{name, in, args}})
				runs = append(runs, run{name, in, o})
			}
		}
	}
	res := oracletest.Run(t, cases)
	agreed := 0
	for i, r := range runs {
		var opts any
		if r.opts != nil {
			opts = r.opts
		}
		o, err := OptionsFromValue(opts)
		if err != nil {
			t.Fatalf("options %v: %v", r.opts, err)
		}
		got := Funcs.Get()[r.fn](r.in, o)
		if !res[i].OK {
			t.Errorf("%s(%q, %v): oracle error %s", r.fn, r.in, r.opts, res[i].Error)
			continue
		}
		if got != res[i].Value {
			t.Errorf("%s(%q, %v) = %q, change-case gives %q", r.fn, r.in, r.opts, got, res[i].Value)
			continue
		}
		agreed++
	}
	oracletest.Report(t, "changecase", agreed, len(runs))
}

func TestConvert(t *testing.T) {
	tests := []struct {
		name   string
		method string
		on     any
		opts   any
		want   any
	}{
		{"string", "snakeCase", "helloWorld", nil, "hello_world"},
		{"array keeps non-strings", "camelCase", []any{"a b", 1.0, nil}, nil, []any{"aB", 1.0, nil}},
		{"object values only", "constantCase", map[string]any{"myKey": "some value", "n": 2.0}, nil, jsvalue.ObjectOf("myKey", "SOME_VALUE", "n", 2.0)},
		{"object keys only", "paramCase", map[string]any{"myKey": "someValue"}, map[string]any{"convertKeys": true, "convertValues": false}, jsvalue.ObjectOf("my-key", "someValue")},
		{"object keeps key order", "camelCase", jsvalue.ObjectOf("z_z", "a b", "10", "c d", "a_a", 1.0), jsvalue.ObjectOf("convertKeys", true), jsvalue.ObjectOf("10", "cD", "zZ", "aB", "aA", 1.0)},
		{"number passes", "camelCase", 5.0, nil, 5.0},
		{"regexp object option", "snakeCase", "a1b2", map[string]any{"splitRegexp": map[string]any{"pattern": "([a-z])([0-9])", "flags": "g"}}, "a_1b_2"},
	}
	for _, tc := range tests {
		got, err := Convert(tc.method, tc.on, tc.opts)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if _, err := Convert("kebabCase", "x", nil); err == nil {
		t.Error("unknown method accepted")
	}
	if _, err := Convert("camelCase", "x", map[string]any{"splitRegexp": "(?<=a)"}); err == nil {
		t.Error("invalid regexp accepted")
	}
	if _, err := Convert("camelCase", "x", "notanobject"); err == nil {
		t.Error("non-object options accepted")
	}
}

func BenchmarkCamelCase(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = CamelCase("getHTTPResponseCode for user_id 42", Options{})
	}
}

func TestDifferentialRandomStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "B", "c", "XML", "Http", "2", "10", " ", "_", "-", ".", "/", "é", "Ü", "ß", "  ", "\t", "id", "ID", "v2", "A1", "x", "Y", "__", "$", "🎉"}
	var cases []oracletest.Case
	var ins []string
	var fns []string
	for range 400 {
		var b strings.Builder
		for range r.IntN(6) + 1 {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		for name := range Funcs.Get() {
			if r.IntN(4) == 0 {
				ins = append(ins, b.String())
				fns = append(fns, name)
				cases = append(cases, oracletest.Case{Lib: "changecase", Op: "call", Args: []any{name, b.String(), nil}})
			}
		}
	}
	res := oracletest.Run(t, cases)
	agreed := 0
	for i := range cases {
		got := Funcs.Get()[fns[i]](ins[i], Options{})
		if res[i].OK && got == res[i].Value {
			agreed++
			continue
		}
		t.Errorf("%s(%q) = %q, change-case gives %v (%s)", fns[i], ins[i], got, res[i].Value, res[i].Error)
	}
	oracletest.Report(t, "changecase random strings", agreed, len(cases))
}
