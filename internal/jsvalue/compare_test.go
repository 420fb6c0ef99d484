package jsvalue

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// operatorValues are the Go forms of the values of
// testdata/gen-operators.mjs.
func operatorValues() map[string]any {
	return map[string]any{
		"null": nil, "undefined": Undefined, "true": true, "false": false, "zero": 0.0,
		"negzero": math.Copysign(0, -1), "one": 1.0, "two": 2.0, "ten": 10.0, "nan": math.NaN(),
		"inf": math.Inf(1), "str0": "0", "str1": "1", "str10": "10", "str9": "9", "strEmpty": "",
		"strSpace": " ", "strA": "a", "strB": "b", "strUpperA": "A", "strAbc": "abc", "strTrue": "true",
		"strOneSpaced": " 1 ", "strHex": "0x10", "strBMPHigh": "\uffff", "strAstral": "\U0001F600",
		"strEAcute": "é", "arrEmpty": []any{}, "arrOne": []any{1.0}, "arrA": []any{"a"},
		"arr12": []any{1.0, 2.0}, "arrNull": []any{nil}, "obj": &Object{},
		"date0": time.UnixMilli(0).UTC(), "date1": time.UnixMilli(1).UTC(),
	}
}

// TestOperatorsOracle checks ==, ===, <, <= and + against what Node
// computed for every pair of values (testdata/operators.json).
func TestOperatorsOracle(t *testing.T) {
	defer setLocal(time.UTC)()
	data, err := os.ReadFile("testdata/operators.json")
	if err != nil {
		t.Fatal(err)
	}
	var oracle struct {
		Names              []string
		Eq, Strict, Lt, Le map[string]bool
		Add                map[string]struct{ N, S *string }
	}
	if err := json.Unmarshal(data, &oracle); err != nil {
		t.Fatal(err)
	}
	vals := operatorValues()
	if len(vals) != len(oracle.Names) {
		t.Fatalf("%d Go values for %d oracle values", len(vals), len(oracle.Names))
	}
	for _, a := range oracle.Names {
		for _, b := range oracle.Names {
			x, y, k := vals[a], vals[b], a+" "+b
			// Go cannot give an empty slice or a time.Time an identity.
			identityOnly := a == b && (a == "arrEmpty" || strings.HasPrefix(a, "date"))
			if got := StrictEqual(x, y); got != oracle.Strict[k] && !identityOnly {
				t.Errorf("%s === %s: got %v, want %v", a, b, got, oracle.Strict[k])
			}
			if got := LooseEqual(x, y); got != oracle.Eq[k] && !identityOnly {
				t.Errorf("%s == %s: got %v, want %v", a, b, got, oracle.Eq[k])
			}
			c, ok := Compare(x, y)
			if got := ok && c < 0; got != oracle.Lt[k] {
				t.Errorf("%s < %s: got %v, want %v", a, b, got, oracle.Lt[k])
			}
			if got := ok && c <= 0; got != oracle.Le[k] {
				t.Errorf("%s <= %s: got %v, want %v", a, b, got, oracle.Le[k])
			}
			sum := Add(x, y)
			want := oracle.Add[k]
			switch s := sum.(type) {
			case string:
				if want.S == nil || *want.S != s {
					t.Errorf("%s + %s: got %q, want %+v", a, b, s, want)
				}
			case float64:
				if want.N == nil || *want.N != NumberToString(s) {
					t.Errorf("%s + %s: got %v, want %+v", a, b, s, want)
				}
			default:
				t.Errorf("%s + %s: got %T", a, b, sum)
			}
		}
	}
}

func TestStrictEqualIdentity(t *testing.T) {
	o := &Object{}
	a := []any{1.0}
	e := &Error{Name: "E"}
	if !StrictEqual(o, o) || StrictEqual(o, &Object{}) {
		t.Error("objects compare by identity")
	}
	if !StrictEqual(a, a) || StrictEqual(a, []any{1.0}) || StrictEqual(a, a[:0]) {
		t.Error("arrays compare by identity")
	}
	if !StrictEqual(e, e) || StrictEqual(e, &Error{Name: "E"}) {
		t.Error("errors compare by identity")
	}
	if !StrictEqual(1, 1.0) || !StrictEqual(int64(2), 2.0) {
		t.Error("Go integers are numbers")
	}
	if !SameValueZero(math.NaN(), math.NaN()) || !SameValueZero(0.0, math.Copysign(0, -1)) || SameValueZero(1.0, "1") {
		t.Error("SameValueZero")
	}
	if !LooseEqual(o, o) || LooseEqual(o, &Object{}) || !LooseEqual(o, "[object Object]") {
		t.Error("LooseEqual with objects")
	}
}

func TestCompareStrings(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "a", -1}, {"a", "b", -1}, {"abc", "ab", 1}, {"B", "a", -1},
		{"é", "z", 1}, {"\uffff", "\U0001F600", 1}, {"\U0001F600", "\uffff", -1},
		{"\ue000", "\U00010000", 1}, {"\ud7ff", "\U00010000", -1}, {"\U0001F600", "\U0001F601", -1},
		{"\U00010400", "\U0001F600", -1}, {"x\U0001F600", "x\uffff", -1}, {"aé", "aê", -1},
		{"a\xff", "a\xfe", 1}, {"\U0010FFFF", "\U0001F600", 1},
	}
	for _, tc := range tests {
		if got := CompareStrings(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareStrings(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	// Against a reference that converts to UTF-16.
	words := []string{"", "a", "ab", "b", "é", "z", "\uffff", "\ue000", "\U0001F600", "\U00010000", "a\U0001F600", "a\uffff", "日本", "日", "\u00a0"}
	for _, a := range words {
		for _, b := range words {
			if got, want := CompareStrings(a, b), slices.Compare(utf16Units(a), utf16Units(b)); got != want {
				t.Errorf("CompareStrings(%q, %q) = %d, reference %d", a, b, got, want)
			}
		}
	}
}

func utf16Units(s string) []uint16 {
	var out []uint16
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xd800+(r>>10)), uint16(0xdc00+(r&0x3ff)))
		} else {
			out = append(out, uint16(r))
		}
	}
	return out
}

func TestCompareNaN(t *testing.T) {
	for _, pair := range [][2]any{{math.NaN(), 1.0}, {Undefined, 0.0}, {"x", 1.0}, {&Object{}, 1.0}, {[]any{1.0, 2.0}, 1.0}} {
		if _, ok := Compare(pair[0], pair[1]); ok {
			t.Errorf("Compare(%v, %v) is defined, want undefined (NaN)", pair[0], pair[1])
		}
	}
	if c, ok := Compare("10", "9"); !ok || c != -1 {
		t.Errorf(`"10" < "9" should be true (string order)`)
	}
	if c, ok := Compare("10", 9.0); !ok || c != 1 {
		t.Errorf(`"10" > 9 should be true (numeric)`)
	}
	if c, ok := Compare(nil, 0.0); !ok || c != 0 {
		t.Errorf("null vs 0 should compare equal")
	}
}
