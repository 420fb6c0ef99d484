package jsvalue

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Expected outputs were checked against Node 22's JSON.parse and
// JSON.stringify.

func TestDecodeOrder(t *testing.T) {
	v, err := Decode([]byte(`{"b":1,"a":{"z":[1,{"y":2,"x":3}],"c":null},"b":3,"10":4,"2":5}`))
	if err != nil {
		t.Fatal(err)
	}
	o := v.(*Object)
	if diff := cmp.Diff([]string{"2", "10", "b", "a"}, o.Keys()); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if b, _ := o.Get("b"); b != 3.0 {
		t.Errorf("repeated key b = %v, want the last value 3", b)
	}
	if got := o.String(); got != `{"2":5,"10":4,"b":3,"a":{"z":[1,{"y":2,"x":3}],"c":null}}` {
		t.Errorf("re-encoded: %s", got)
	}
}

func TestDecodeValues(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{`1e400`, math.Inf(1)}, {`-1e400`, math.Inf(-1)}, {`1e-400`, 0.0}, {`-0`, math.Copysign(0, -1)},
		{`12345678901234567890`, 12345678901234567890.0}, {`0.5`, 0.5}, {`-2E+3`, -2000.0},
		{`"\ud83d\ude00"`, "😀"}, {`"\ud83d"`, "\ufffd"}, {`"\ude00x"`, "\ufffdx"}, {`"\ud83d\u0041"`, "\ufffdA"},
		{`"a\"\\\/\b\f\n\r\t\u00e9"`, "a\"\\/\b\f\n\r\té"}, {"\"\xff\"", "\ufffd"}, {"\"é\xffx\"", "é\ufffdx"},
		{` [ true , false , null ] `, []any{true, false, nil}}, {`[]`, []any{}}, {`{}`, &Object{}},
		{`"日本"`, "日本"}, {"\"\u2028\"", "\u2028"},
	}
	for _, tc := range tests {
		got, err := Decode([]byte(tc.in))
		if err != nil {
			t.Errorf("Decode(%s): %v", tc.in, err)
			continue
		}
		if !DeepEqual(got, tc.want) || (tc.in == `-0` && !math.Signbit(got.(float64))) {
			t.Errorf("Decode(%s) = %#v, want %#v", tc.in, got, tc.want)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, in := range []string{
		"[1,]", "01", "1.", ".5", "+1", "\"\u0001\"", "NaN", "\"abc", "[1] x", "", "{\"a\" 1}", "{a:1}",
		"[1 2]", "tru", "nulll", `"\x"`, `"\u12"`, "-", "1e", "1e+", "\u00a0 1", "{", "[", `{"a":}`, `{"a":1,}`,
		"Infinity", "'a'", "[1]]", "\"\\", "{\"a\":1 \"b\":2}",
	} {
		v, err := Decode([]byte(in))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Decode(%q) = %v, %v; want a *SyntaxError", in, v, err)
		}
	}
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	if _, err := Decode([]byte(deep)); err == nil {
		t.Error("10001 levels of nesting accepted")
	}
	ok := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	if _, err := Decode([]byte(ok)); err != nil {
		t.Errorf("10000 levels: %v", err)
	}
	if _, err := Decode([]byte(" \t\n\r[ ]\n")); err != nil {
		t.Errorf("JSON whitespace: %v", err)
	}
}

func TestDecodeNumbers(t *testing.T) {
	v, err := DecodeNumbers([]byte(`{"big":123456789012345678901234567890,"f":1.50,"a":[-0,2e3]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := ObjectOf("big", json.Number("123456789012345678901234567890"), "f", json.Number("1.50"),
		"a", []any{json.Number("-0"), json.Number("2e3")})
	if !DeepEqual(v, want) {
		t.Errorf("DecodeNumbers = %v", v)
	}
	if s, _ := Stringify(v, ""); s != `{"big":123456789012345678901234567890,"f":1.50,"a":[-0,2e3]}` {
		t.Errorf("json.Number text not kept: %s", s)
	}
}

func TestStringify(t *testing.T) {
	defer setLocal(time.UTC)()
	f := Func(func(...any) (any, error) { return nil, nil })
	tests := []struct {
		name   string
		in     any
		indent string
		want   string
	}{
		{"order and dropping", ObjectOf("b", 1.0, "a", []any{1.0, ObjectOf("c", Undefined, "d", nil)}, "10", math.NaN(), "2", math.Inf(1), "e", Undefined, "f", f), "  ",
			"{\n  \"2\": null,\n  \"10\": null,\n  \"b\": 1,\n  \"a\": [\n    1,\n    {\n      \"d\": null\n    }\n  ]\n}"},
		{"only undefined", ObjectOf("a", Undefined), "  ", "{}"},
		{"array holes", []any{Undefined, f}, "\t", "[\n\tnull,\n\tnull\n]"},
		{"empty containers", ObjectOf("a", &Object{}, "b", []any{}), " ", "{\n \"a\": {},\n \"b\": []\n}"},
		{"compact", ObjectOf("a", []any{1.0, "x", true, nil}), "", `{"a":[1,"x",true,null]}`},
		{"escapes", "q\"\\\n\t\b\f\r\u0001\u001f\u007f\u2028é😀</>&", "", "\"q\\\"\\\\\\n\\t\\b\\f\\r\\u0001\\u001f\u007f\u2028é😀</>&\""},
		{"invalid UTF-8", "a\xffb", "", `"a\ufffdb"`},
		{"error", &Error{Name: "Error", Message: "x"}, "", "{}"},
		{"date", time.UnixMilli(0), "", `"1970-01-01T00:00:00.000Z"`},
		{"numbers", []any{math.Copysign(0, -1), 1e21, 5e-324, 3, int64(4), float32(0.5)}, "", "[0,1e+21,5e-324,3,4,0.5]"},
		{"nil object", (*Object)(nil), "", "null"},
		{"unknown Go type", struct{}{}, "", "null"},
		{"long indent", ObjectOf("s", 1.0), Indent("abcdefghijklmno"), "{\nabcdefghij\"s\": 1\n}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Stringify(tc.in, tc.indent)
			if !ok || got != tc.want {
				t.Errorf("Stringify = %q, %v\nwant %q", got, ok, tc.want)
			}
		})
	}
	for _, v := range []any{Undefined, Func(nil)} {
		if s, ok := Stringify(v, ""); ok {
			t.Errorf("Stringify(%v) = %q, want no JSON form", v, s)
		}
	}
}

func TestStringifyDepth(t *testing.T) {
	var v any = 1.0
	for range 10001 {
		v = []any{v}
	}
	if _, ok := Stringify(v, ""); ok {
		t.Error("10001 levels stringified")
	}
	if _, err := json.Marshal(ObjectOf("a", v)); err == nil {
		t.Error("MarshalJSON of a too deep value did not fail")
	}
}

func TestIndent(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{2.0, "  "}, {2.9, "  "}, {20.0, strings.Repeat(" ", 10)}, {-1.0, ""}, {0.0, ""}, {math.NaN(), ""},
		{3, "   "}, {"\t", "\t"}, {"abcdefghijklmno", "abcdefghij"}, {"😀😀😀😀😀😀", "😀😀😀😀😀"}, {nil, ""}, {true, ""},
	}
	for _, tc := range tests {
		if got := Indent(tc.in); got != tc.want {
			t.Errorf("Indent(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestObjectJSONMethods(t *testing.T) {
	var o Object
	if err := json.Unmarshal([]byte(`{"z":1,"a":{"y":true,"x":"s"}}`), &o); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(map[string]any{"obj": &o})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"obj":{"z":1,"a":{"y":true,"x":"s"}}}` {
		t.Errorf("json.Marshal = %s", b)
	}
	if err := json.Unmarshal([]byte(`[1]`), &o); err == nil {
		t.Error("UnmarshalJSON accepted an array")
	}
	if Quote("a\"b") != `"a\"b"` {
		t.Error("Quote")
	}
}

type jsonerValue struct{ v any }

func (j jsonerValue) ToJSON() any { return j.v }

func TestJSONer(t *testing.T) {
	in := ObjectOf("a", jsonerValue{ObjectOf("x", 1.0)}, "b", jsonerValue{Undefined}, "c", []any{jsonerValue{Undefined}, jsonerValue{"s"}})
	if got, _ := Stringify(in, ""); got != `{"a":{"x":1},"c":[null,"s"]}` {
		t.Errorf("Stringify with JSONer values = %s", got)
	}
	if _, ok := Stringify(jsonerValue{Undefined}, ""); ok {
		t.Error("top-level JSONer giving undefined has a JSON form")
	}
}
