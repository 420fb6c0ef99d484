package serial

import (
	"math"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

func TestRoundTrip(t *testing.T) {
	in := `{"d":{"~d":1700000000000},"e":{"~e":{"name":"TypeError","message":"bad"}},"l":[{"~d":0},1,"x"],"bad":{"~d":"nope"}}`
	v, err := Unmarshal([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(*jsvalue.Object)
	if got := m.Keys(); len(got) != 4 || got[0] != "d" || got[3] != "bad" {
		t.Errorf("key order lost: %v", got)
	}
	if d, ok := m.Prop("d").(time.Time); !ok || jsvalue.Millis(d) != 1700000000000 {
		t.Errorf("d = %#v", m.Prop("d"))
	}
	if e, ok := m.Prop("e").(*jsvalue.Error); !ok || e.Name != "TypeError" || e.Message != "bad" {
		t.Errorf("e = %#v", m.Prop("e"))
	}
	if _, ok := m.Prop("bad").(*jsvalue.Object); !ok {
		t.Errorf("invalid date marker should stay an object: %#v", m.Prop("bad"))
	}
	out, err := Marshal(jsvalue.ObjectOf("z", m.Prop("d"), "u", jsvalue.Undefined, "f", jsvalue.Func(nil), "n", math.NaN(), "a", []any{jsvalue.Undefined, 1.0}))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"z":{"~d":1700000000000},"n":null,"a":[null,1]}`; string(out) != want {
		t.Errorf("Marshal = %s, want %s", out, want)
	}
	// Go maps are accepted, with their keys sorted.
	if got := Decode(map[string]any{"b": 1, "a": map[string]any{"~d": 0.0}}); !jsvalue.DeepEqual(got, jsvalue.ObjectOf("a", jsvalue.DateFromMillis(0), "b", 1.0)) {
		t.Errorf("Decode of a Go map = %v", got)
	}
}

func TestStringify(t *testing.T) {
	s, ok := Stringify(jsvalue.ObjectOf("b", 1.0, "a", []any{"x", nil}, "1", true), "  ", true)
	want := "{\n  \"1\": true,\n  \"b\": 1,\n  \"a\": [\n    \"x\",\n    null\n  ]\n}"
	if !ok || s != want {
		t.Errorf("Stringify = %q, want %q", s, want)
	}
	if _, ok := Stringify(jsvalue.Undefined, "", false); ok {
		t.Error("undefined has no JSON form")
	}
	if s, _ := Stringify(jsvalue.DateFromMillis(0), "", true); s != `{ "~d": "1970-01-01T00:00:00.000Z" }` {
		t.Errorf("top-level date = %s", s)
	}
	if s, _ := Stringify(jsvalue.ObjectOf("e", &jsvalue.Error{Name: "Error", Message: "m"}, "d", jsvalue.DateFromMillis(5)), "", false); s != `{"e":{"~e":{"name":"Error","message":"m","value":"Error: m"}},"d":{"~d":5}}` {
		t.Errorf("markers = %s", s)
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
		if !ok || jsvalue.Millis(got) != want {
			t.Errorf("ParseDate(%q) = %v %v, want %v", in, jsvalue.Millis(got), ok, want)
		}
	}
	if _, ok := ParseDate("2020-13-01"); ok {
		t.Error("month 13 accepted")
	}
}
