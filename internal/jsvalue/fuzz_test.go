package jsvalue

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzJSONRoundTrip checks that Decode accepts exactly what encoding/json
// accepts (for valid UTF-8 input), that Stringify of a decoded value decodes
// to an equal value with the same key order, and that encoding is stable.
func FuzzJSONRoundTrip(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":2,"10":3,"2":4}`, `[1,"x",null,true,{"k":[{}]}]`, `"\ud83d\ude00\u0000"`, `1e400`, `-0`,
		`{"a":1,"a":2}`, `{"4294967295":1,"4294967294":2}`, `[1,]`, `"\ud800"`, ` {"":""} `, `0.1e-7`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data)
		if utf8.Valid(data) && (err == nil) != json.Valid(data) {
			t.Fatalf("Decode error %v, but json.Valid = %v for %q", err, json.Valid(data), data)
		}
		if err != nil {
			return
		}
		s1, ok := Stringify(v, "")
		if !ok {
			t.Fatalf("decoded value has no JSON form: %#v", v)
		}
		v2, err := Decode([]byte(s1))
		if err != nil {
			t.Fatalf("re-decoding %q: %v", s1, err)
		}
		if !DeepEqual(v, v2) && !hasNonFinite(v) {
			t.Fatalf("round trip changed the value:\n%q\n%q", data, s1)
		}
		s2, _ := Stringify(v2, "")
		if s1 != s2 {
			t.Fatalf("encoding not stable: %q then %q", s1, s2)
		}
		indented, _ := Stringify(v, "  ")
		v3, err := Decode([]byte(indented))
		if err != nil || !DeepEqual(v2, v3) {
			t.Fatalf("indented form decodes differently (%v): %q", err, indented)
		}
	})
}

// hasNonFinite reports whether v holds ±Infinity (from out-of-range
// numbers), which JSON writes as null.
func hasNonFinite(v any) bool {
	switch x := v.(type) {
	case float64:
		return x-x != 0
	case []any:
		for _, item := range x {
			if hasNonFinite(item) {
				return true
			}
		}
	case *Object:
		for _, item := range x.Range {
			if hasNonFinite(item) {
				return true
			}
		}
	}
	return false
}
