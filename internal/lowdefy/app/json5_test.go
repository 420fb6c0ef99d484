package app

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

func TestParseJSON5(t *testing.T) {
	tests := []struct {
		src  string
		want any
	}{
		{`{}`, map[string]any{}},
		{`[1, 2,]`, []any{1.0, 2.0}},
		{`{a: 1, 'b': "c", $d_1: null,}`, map[string]any{"a": 1.0, "b": "c", "$d_1": nil}},
		{"// line\n/* block */ {x: /* inline */ true}", map[string]any{"x": true}},
		{`[0x1F, -0xA, .5, 5., +1, -2e2, 1E-1]`, []any{31.0, -10.0, 0.5, 5.0, 1.0, -200.0, 0.1}},
		{`[Infinity, -Infinity, NaN]`, []any{nil, nil, nil}},
		{`'it\'s \x41\u0042 \n\t'`, "it's AB \n\t"},
		{"\"line\\\ncontinued\"", "linecontinued"},
		{`"\ud83d\ude00"`, "😀"},
		{`{a: 1, a: 2}`, map[string]any{"a": 2.0}},
		{`"double ' and \" quotes"`, `double ' and " quotes`},
	}
	for _, tc := range tests {
		n, err := parseJSON5([]byte(tc.src), "t.json")
		if err != nil {
			t.Errorf("parseJSON5(%q): %v", tc.src, err)
			continue
		}
		if diff := cmp.Diff(tc.want, jsvalue.ToGo(n.toPlain(nil))); diff != "" {
			t.Errorf("parseJSON5(%q) (-want +got):\n%s", tc.src, diff)
		}
	}
}

func TestParseJSON5Errors(t *testing.T) {
	tests := []struct{ src, want string }{
		{``, "t.json:1:1: invalid JSON5: unexpected end of input"},
		{`{a 1}`, "expected ':' after key"},
		{"{\n  a: 1\n  b: 2}", "t.json:3:3: invalid JSON5: expected ',' or '}'"},
		{`[1 2]`, "expected ',' or ']'"},
		{`"open`, "unterminated string"},
		{`01`, "leading zeros"},
		{`/* open`, "unterminated comment"},
		{`{} x`, "after the value"},
		{`undefined`, `unexpected "undefined"`},
		{`"\1"`, "invalid escape"},
	}
	for _, tc := range tests {
		_, err := parseJSON5([]byte(tc.src), "t.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseJSON5(%q) error = %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestLookupPath(t *testing.T) {
	n, err := parseYAML([]byte("a:\n  b: [x, {c: 1}]\n'd.e': 2\nf:\n  'g.h': 3\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want any
		ok   bool
	}{
		{"a.b.0", "x", true},
		{"a.b.1.c", 1.0, true},
		{"d.e", 2.0, true},
		{"f.g.h", 3.0, true},
		{"a.z", nil, false},
		{"a.b.5", nil, false},
	}
	for _, tc := range tests {
		got := lookupPath(n, tc.path)
		if (got != nil) != tc.ok {
			t.Errorf("lookupPath(%q) found=%v, want %v", tc.path, got != nil, tc.ok)
			continue
		}
		if got != nil && !cmp.Equal(got.toPlain(nil), tc.want) {
			t.Errorf("lookupPath(%q) = %v, want %v", tc.path, got.toPlain(nil), tc.want)
		}
	}
}
