package serial

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNumberToString(t *testing.T) {
	for in, want := range map[float64]string{
		0: "0", 1: "1", -1.5: "-1.5", 1e21: "1e+21", 1e20: "100000000000000000000", 1.5e-7: "1.5e-7",
		0.000001: "0.000001", 123.456: "123.456", math.Inf(1): "Infinity", math.NaN(): "NaN", 0.30000000000000004: "0.30000000000000004",
	} {
		if got := NumberToString(in); got != want {
			t.Errorf("NumberToString(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	in := `{"d":{"~d":1700000000000},"e":{"~e":{"name":"TypeError","message":"bad"}},"l":[{"~d":0},1,"x"],"bad":{"~d":"nope"}}`
	v, err := Unmarshal([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if d, ok := m["d"].(time.Time); !ok || Millis(d) != 1700000000000 {
		t.Errorf("d = %#v", m["d"])
	}
	if e, ok := m["e"].(*Error); !ok || e.Name != "TypeError" || e.Message != "bad" {
		t.Errorf("e = %#v", m["e"])
	}
	if _, ok := m["bad"].(map[string]any); !ok {
		t.Errorf("invalid date marker should stay an object: %#v", m["bad"])
	}
	out, err := Marshal(map[string]any{"d": m["d"], "u": Undefined, "f": Func(nil), "n": math.NaN(), "a": []any{Undefined, 1.0}})
	if err != nil {
		t.Fatal(err)
	}
	var got any
	_ = json.Unmarshal(out, &got)
	want := map[string]any{"d": map[string]any{"~d": 1700000000000.0}, "n": nil, "a": []any{nil, 1.0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Marshal (-want +got):\n%s", diff)
	}
}

func TestStringify(t *testing.T) {
	s, ok := Stringify(map[string]any{"b": 1.0, "a": []any{"x", nil}, "1": true}, "  ", true)
	want := "{\n  \"1\": true,\n  \"a\": [\n    \"x\",\n    null\n  ],\n  \"b\": 1\n}"
	if !ok || s != want {
		t.Errorf("Stringify = %q, want %q", s, want)
	}
	if _, ok := Stringify(Undefined, "", false); ok {
		t.Error("undefined has no JSON form")
	}
	if s, _ := Stringify(DateFromMillis(0), "", true); s != `{ "~d": "1970-01-01T00:00:00.000Z" }` {
		t.Errorf("top-level date = %s", s)
	}
}

func TestParseDate(t *testing.T) {
	tests := map[string]float64{
		"2020-01-02":                  1577923200000,
		"2020-01-02T03:04:05Z":        1577934245000,
		"2020-01-02T03:04:05.5+02:00": 1577927045500,
	}
	for in, want := range tests {
		got, ok := ParseDate(in)
		if !ok || Millis(got) != want {
			t.Errorf("ParseDate(%q) = %v %v, want %v", in, Millis(got), ok, want)
		}
	}
	if _, ok := ParseDate("2020-13-01"); ok {
		t.Error("month 13 accepted")
	}
}
