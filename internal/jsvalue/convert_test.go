package jsvalue

import (
	"math"
	"reflect"
	"testing"
	"time"
)

func nan() float64 { return math.NaN() }

// The expected values below were checked against Node 22.

func TestNumberToString(t *testing.T) {
	tenth, fifth := 0.1, 0.2
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-1.5, "-1.5"}, {100, "100"},
		{1e21, "1e+21"}, {1e20, "100000000000000000000"}, {123e-20, "1.23e-18"},
		{1152921504606846976, "1152921504606847000"}, {-1e-7, "-1e-7"}, {1e-6, "0.000001"},
		{5e-324, "5e-324"}, {1.7976931348623157e308, "1.7976931348623157e+308"},
		{tenth + fifth, "0.30000000000000004"}, {1.0 / 3, "0.3333333333333333"},
		{123456789012345680000, "123456789012345680000"}, {4.35, "4.35"}, {0.000001234, "0.000001234"},
		{1.5e-7, "1.5e-7"}, {123.456, "123.456"}, {999999999999999, "999999999999999"},
		{-9007199254740991, "-9007199254740991"},
		{math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"}, {nan(), "NaN"},
	}
	for _, tc := range tests {
		if got := NumberToString(tc.in); got != tc.want {
			t.Errorf("NumberToString(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestStringToNumber(t *testing.T) {
	tests := []struct {
		in   string
		want float64
	}{
		{"", 0}, {" 12 ", 12}, {"0x1F", 31}, {"0X1f", 31}, {"-0x10", nan()}, {"0o17", 15}, {"0b101", 5},
		{"0x", nan()}, {"1e", nan()}, {".5", 0.5}, {"5.", 5}, {"+.5", 0.5}, {"-.5e1", -5},
		{"Infinity", math.Inf(1)}, {"-Infinity", math.Inf(-1)}, {"+Infinity", math.Inf(1)},
		{"infinity", nan()}, {"inf", nan()}, {"1_000", nan()}, {"NaN", nan()}, {"\u00a0 7 \u2028", 7},
		{"1e400", math.Inf(1)}, {"-1e-400", 0}, {"0.1e-1", 0.01}, {"00012", 12}, {"12px", nan()},
		{"1 2", nan()}, {"\t\n", 0}, {"+", nan()}, {"-", nan()}, {".", nan()}, {"e5", nan()},
		{"0b", nan()}, {"0b2", nan()}, {"0o8", nan()}, {"1E+2", 100}, {"١", nan()}, {"0x1p3", nan()},
	}
	for _, tc := range tests {
		got := StringToNumber(tc.in)
		if !(got == tc.want || math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("StringToNumber(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestToNumber(t *testing.T) {
	tests := []struct {
		in   any
		want float64
	}{
		{nil, 0}, {Undefined, nan()}, {true, 1}, {false, 0}, {2.5, 2.5}, {7, 7}, {int64(-3), -3},
		{"42", 42}, {[]any{}, 0}, {[]any{5.0}, 5}, {[]any{1.0, 2.0}, nan()}, {[]any{nil}, 0},
		{[]any{Undefined, 1.0}, nan()}, {&Object{}, nan()}, {time.UnixMilli(1500).UTC(), 1500},
		{&Error{Name: "Error"}, nan()}, {Func(nil), nan()},
	}
	for _, tc := range tests {
		got := ToNumber(tc.in)
		if !(got == tc.want || math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("ToNumber(%#v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestToString(t *testing.T) {
	defer setLocal(time.UTC)()
	tests := []struct {
		in   any
		want string
	}{
		{nil, "null"}, {Undefined, "undefined"}, {true, "true"}, {false, "false"}, {1.5, "1.5"},
		{3, "3"}, {int64(-4), "-4"}, {"s", "s"}, {[]any{}, ""}, {[]any{1.0, nil, Undefined, "a", []any{2.0, 3.0}}, "1,,,a,2,3"},
		{ObjectOf("a", 1.0), "[object Object]"}, {&Error{Name: "TypeError", Message: "bad"}, "TypeError: bad"},
		{&Error{Name: "Error"}, "Error"}, {&Error{Message: "m"}, "m"}, {Func(nil), "function () { [native code] }"},
		{time.UnixMilli(1700000000000), "Tue Nov 14 2023 22:13:20 GMT+0000 (Coordinated Universal Time)"},
		{time.Date(-50, 1, 2, 3, 4, 5, 0, time.UTC), "Mon Jan 02 -0050 03:04:05 GMT+0000 (Coordinated Universal Time)"},
		{time.Date(999, 1, 2, 3, 4, 5, 0, time.UTC), "Wed Jan 02 0999 03:04:05 GMT+0000 (Coordinated Universal Time)"},
		{struct{}{}, "[object Object]"},
	}
	for _, tc := range tests {
		if got := ToString(tc.in); got != tc.want {
			t.Errorf("ToString(%#v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func setLocal(loc *time.Location) func() {
	old := time.Local
	time.Local = loc
	return func() { time.Local = old }
}

func TestDateStrings(t *testing.T) {
	defer setLocal(time.FixedZone("CET", 3600))()
	d := time.UnixMilli(0)
	if got, want := DateToString(d), "Thu Jan 01 1970 01:00:00 GMT+0100 (CET)"; got != want {
		t.Errorf("DateToString = %q, want %q", got, want)
	}
	if got, want := DateToDateString(d), "Thu Jan 01 1970"; got != want {
		t.Errorf("DateToDateString = %q, want %q", got, want)
	}
	if got, want := DateToTimeString(d), "01:00:00 GMT+0100 (CET)"; got != want {
		t.Errorf("DateToTimeString = %q, want %q", got, want)
	}
}

func TestDates(t *testing.T) {
	d := DateFromMillis(1700000000123)
	if Millis(d) != 1700000000123 || d.Location() != time.UTC {
		t.Errorf("DateFromMillis round trip: %v", d)
	}
	if got := DateFromMillis(-1); Millis(got) != -1 {
		t.Errorf("negative millis: %v", Millis(got))
	}
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{time.UnixMilli(1700000000123), "2023-11-14T22:13:20.123Z"},
		{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), "+010000-01-01T00:00:00.000Z"},
		{time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), "-000001-01-01T00:00:00.000Z"},
	} {
		if got := ISOString(tc.t); got != tc.want {
			t.Errorf("ISOString = %q, want %q", got, tc.want)
		}
	}
}

func TestToPrimitiveAndAdd(t *testing.T) {
	defer setLocal(time.UTC)()
	d := time.UnixMilli(0)
	if got := ToPrimitive(d, HintNumber); got != 0.0 {
		t.Errorf("ToPrimitive(date, number) = %v", got)
	}
	if got := ToPrimitive(d, HintDefault); got != "Thu Jan 01 1970 00:00:00 GMT+0000 (Coordinated Universal Time)" {
		t.Errorf("ToPrimitive(date, default) = %v", got)
	}
	tests := []struct {
		a, b any
		want any
	}{
		{1.0, 2.0, 3.0}, {"a", 1.0, "a1"}, {1.0, "a", "1a"}, {true, 1.0, 2.0}, {nil, 1.0, 1.0},
		{Undefined, 1.0, nan()}, {[]any{1.0, 2.0}, 3.0, "1,23"}, {ObjectOf(), "", "[object Object]"},
		{[]any{}, []any{}, ""}, {1, int64(2), 3.0}, {"x", Undefined, "xundefined"}, {"n", nil, "nnull"},
	}
	for _, tc := range tests {
		got := Add(tc.a, tc.b)
		if !DeepEqual(got, tc.want) {
			t.Errorf("Add(%#v, %#v) = %#v, want %#v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestTypeofTruthy(t *testing.T) {
	tests := []struct {
		in     any
		typeof string
		truthy bool
	}{
		{nil, "object", false}, {Undefined, "undefined", false}, {true, "boolean", true}, {false, "boolean", false},
		{0.0, "number", false}, {math.Copysign(0, -1), "number", false}, {nan(), "number", false}, {-1.0, "number", true},
		{0, "number", false}, {int64(2), "number", true}, {"", "string", false}, {"0", "string", true},
		{[]any{}, "object", true}, {&Object{}, "object", true}, {time.Time{}, "object", true},
		{&Error{}, "object", true}, {Func(nil), "function", true},
	}
	for _, tc := range tests {
		if got := Typeof(tc.in); got != tc.typeof {
			t.Errorf("Typeof(%#v) = %q, want %q", tc.in, got, tc.typeof)
		}
		if got := Truthy(tc.in); got != tc.truthy {
			t.Errorf("Truthy(%#v) = %v, want %v", tc.in, got, tc.truthy)
		}
	}
	if !IsNullish(nil) || !IsNullish(Undefined) || IsNullish(false) || IsNullish(0.0) {
		t.Error("IsNullish")
	}
}

func TestFromGo(t *testing.T) {
	in := map[string]any{"b": 1, "a": []any{int64(2), map[string]any{"10": true, "2": "x", "é": nil, "z": 1.5}}}
	got := FromGo(in)
	want := ObjectOf("a", []any{2.0, ObjectOf("2", "x", "10", true, "z", 1.5, "é", nil)}, "b", 1.0)
	if !DeepEqual(got, want) {
		t.Errorf("FromGo = %v, want %v", got, want)
	}
	inner := ObjectOf("n", 1, "ok", 2.0)
	if got := FromGo([]any{inner}).([]any)[0].(*Object); got == inner || !DeepEqual(got, ObjectOf("n", 1.0, "ok", 2.0)) || inner.Prop("n") != 1 {
		t.Errorf("FromGo inside an *Object: %v (original now %v)", got, inner)
	}
	done := ObjectOf("a", []any{"x"})
	if FromGo(done) != done {
		t.Error("FromGo copied an object that needed no change")
	}
	same := []any{1.0, "x"}
	if out := FromGo(same).([]any); &out[0] != &same[0] {
		t.Error("FromGo copied a slice that needed no change")
	}
}

// wrapped is a HostObject standing for a String object.
type wrapped string

func (w wrapped) ToPrimitive(Hint) any { return string(w) }

func TestHostObject(t *testing.T) {
	w := wrapped("12")
	if ToString(w) != "12" || ToNumber(w) != 12 || Add(w, 1.0) != "121" || !LooseEqual(w, 12.0) || StrictEqual(w, "12") {
		t.Error("host object conversions")
	}
	if c, ok := Compare(w, "2"); !ok || c >= 0 {
		t.Error(`wrapped "12" < "2" should hold (string comparison)`)
	}
	if ToString([]any{w, 1.0}) != "12,1" || !Truthy(wrapped("")) || Typeof(w) != "object" {
		t.Error("host object in an array, truthiness or typeof")
	}
}

func TestStringLength(t *testing.T) {
	for in, want := range map[string]int{"": 0, "abc": 3, "é": 1, "日本": 2, "😀": 2, "a😀b": 4, "\xff": 1} {
		if got := StringLength(in); got != want {
			t.Errorf("StringLength(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestToGo(t *testing.T) {
	got := ToGo([]any{ObjectOf("b", 1.0, "a", ObjectOf("c", []any{nil})), "x"})
	want := []any{map[string]any{"b": 1.0, "a": map[string]any{"c": []any{nil}}}, "x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ToGo = %#v", got)
	}
	if ToGo((*Object)(nil)) != nil {
		t.Error("ToGo of a nil object")
	}
}

func TestParseInt(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		s     string
		radix int
		want  float64
	}{
		{"42", 0, 42},
		{"  \u00a0\ufeff-17px", 0, -17},
		{"+0x1F", 0, 31},
		{"0X1f", 16, 31},
		{"0x1F", 10, 0},
		{"ff", 16, 255},
		{"z", 36, 35},
		{"12", 2, 1},
		{"0x", 0, nan},
		{"", 0, nan},
		{"-", 10, nan},
		{"9", 8, nan},
		{"1", 1, nan},
		{"1", 37, nan},
		{"\u0085 1", 0, nan}, // NEL is not JavaScript white space
	}
	for _, tt := range tests {
		got := ParseInt(tt.s, tt.radix)
		if got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("ParseInt(%q, %d) = %v, want %v", tt.s, tt.radix, got, tt.want)
		}
	}
}

func TestRelational(t *testing.T) {
	tests := []struct {
		op   string
		a, b any
		want bool
	}{
		{"<", 1.0, 2.0, true},
		{"<=", 2.0, 2.0, true},
		{">", "b", "a", true},
		{">=", "a", "b", false},
		{"<", "10", 9.0, false}, // a string and a number compare as numbers
		{">=", math.NaN(), 1.0, false},
		{"<=", Undefined, 1.0, false},
		{"==", 1.0, 1.0, false}, // not a relational operator
	}
	for _, tt := range tests {
		if got := Relational(tt.op, tt.a, tt.b); got != tt.want {
			t.Errorf("Relational(%q, %v, %v) = %v, want %v", tt.op, tt.a, tt.b, got, tt.want)
		}
	}
}

func TestTypeName(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{nil, "null"}, {Undefined, "undefined"}, {true, "boolean"}, {1.5, "number"},
		{"s", "string"}, {[]any{}, "array"}, {time.Unix(0, 0), "date"},
		{NewObject(0), "object"}, {&Error{Name: "Error"}, "object"},
	}
	for _, tt := range tests {
		if got := TypeName(tt.v); got != tt.want {
			t.Errorf("TypeName(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
