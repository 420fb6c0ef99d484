package serial

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Encode returns v as a JSON-safe tree the way Lowdefy's serializer.serialize
// does: dates become {"~d": milliseconds} (or {"~d": ISO string} when
// isoDates is set), errors become {"~e": {name, message, value}}, functions
// and undefined are dropped from objects and become null in arrays, and NaN
// and ±Infinity become null. A top-level function or undefined encodes to nil.
func Encode(v any, isoDates bool) any {
	out, ok := encode(v, isoDates)
	if !ok {
		return nil
	}
	return out
}

// encode returns the encoded value and false when v has no JSON form
// (undefined, functions).
func encode(v any, isoDates bool) (any, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case bool, string:
		return x, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, true
		}
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case time.Time:
		return DateMarker(x, isoDates), true
	case *Error:
		return map[string]any{"~e": map[string]any{
			"name": x.Name, "message": x.Message, "value": x.Error(),
		}}, true
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			if e, ok := encode(item, isoDates); ok {
				out[i] = e
			}
		}
		return out, true
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, item := range x {
			if e, ok := encode(item, isoDates); ok {
				out[k] = e
			}
		}
		return out, true
	case undefinedType, Func:
		return nil, false
	}
	return nil, false
}

// DateMarker returns the {"~d": …} form of t.
func DateMarker(t time.Time, isoDates bool) map[string]any {
	if isoDates {
		return map[string]any{"~d": ISOString(t)}
	}
	return map[string]any{"~d": Millis(t)}
}

// Decode revives Lowdefy markers in a JSON-decoded tree, bottom-up like
// serializer.deserialize: an object with a "~e" key becomes an *Error, an
// object with a "~d" key that makes a valid date becomes a time.Time. The
// input is not modified.
func Decode(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = Decode(item)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, item := range x {
			out[k] = Decode(item)
		}
		return ReviveMarker(out)
	case int:
		return float64(x)
	case int64:
		return float64(x)
	}
	return v
}

// ReviveMarker converts one object holding a "~e" or "~d" marker into an
// *Error or time.Time; any other value is returned unchanged. It does not
// look at children.
func ReviveMarker(m map[string]any) any {
	if e, ok := m["~e"]; ok && !IsUndefined(e) {
		out := &Error{Name: "Error"}
		if em, ok := e.(map[string]any); ok {
			if s, ok := em["message"].(string); ok {
				out.Message = s
			}
			if s, ok := em["name"].(string); ok {
				out.Name = s
			}
		}
		return out
	}
	if d, ok := m["~d"]; ok && !IsUndefined(d) {
		if t, ok := NewDate(d); ok {
			return t
		}
	}
	return m
}

// NewDate converts v the way the JavaScript Date constructor does with one
// argument (numbers are milliseconds, strings are parsed, null is the
// epoch) and reports whether the result is a valid date.
func NewDate(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x, true
	case nil:
		return DateFromMillis(0), true
	case bool:
		if x {
			return DateFromMillis(1), true
		}
		return DateFromMillis(0), true
	case float64:
		return dateFromNumber(x)
	case int:
		return dateFromNumber(float64(x))
	case string:
		return ParseDate(x)
	}
	return time.Time{}, false
}

func dateFromNumber(x float64) (time.Time, bool) {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 8.64e15 {
		return time.Time{}, false
	}
	return DateFromMillis(math.Trunc(x)), true
}

// Unmarshal parses JSON into a Lowdefy value, reviving markers.
func Unmarshal(data []byte) (any, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("parsing JSON: %w", err)
	}
	return Decode(v), nil
}

// Marshal encodes v (see Encode, dates as milliseconds) to JSON.
func Marshal(v any) ([]byte, error) {
	return json.Marshal(Encode(v, false))
}
