package serial

import (
	"fmt"
	"math"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// Encode returns v as a JSON-safe tree the way Lowdefy's serializer.serialize
// does: dates become {"~d": milliseconds} (or {"~d": ISO string} when
// isoDates is set), errors become {"~e": {name, message, value}}, functions
// and undefined are dropped from objects and become null in arrays, and NaN
// and ±Infinity become null. A top-level function or undefined encodes to
// nil. Objects keep their key order; v is not modified.
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
	case nil, bool, string:
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
	case *jsvalue.Error:
		return jsvalue.ObjectOf("~e", jsvalue.ObjectOf("name", x.Name, "message", x.Message, "value", x.Error())), true
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			if e, ok := encode(item, isoDates); ok {
				out[i] = e
			}
		}
		return out, true
	case *jsvalue.Object:
		out := jsvalue.NewObject(x.Len())
		for k, item := range x.Range {
			if e, ok := encode(item, isoDates); ok {
				out.Set(k, e)
			}
		}
		return out, true
	case map[string]any:
		return encode(jsvalue.FromGo(x), isoDates)
	case jsvalue.UndefinedType, jsvalue.Func:
		return nil, false
	}
	return nil, false
}

// DateMarker returns the {"~d": …} form of t.
func DateMarker(t time.Time, isoDates bool) *jsvalue.Object {
	if isoDates {
		return jsvalue.ObjectOf("~d", jsvalue.ISOString(t))
	}
	return jsvalue.ObjectOf("~d", jsvalue.Millis(t))
}

// Decode revives Lowdefy markers in a JSON-decoded tree, bottom-up like
// serializer.deserialize: an object with a "~e" key becomes a
// *jsvalue.Error, an object with a "~d" key that makes a valid date becomes
// a time.Time. Objects keep their key order; Go maps (from encoding/json)
// are accepted and converted with jsvalue.FromGo. The input is not
// modified.
func Decode(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = Decode(item)
		}
		return out
	case *jsvalue.Object:
		out := jsvalue.NewObject(x.Len())
		for k, item := range x.Range {
			out.Set(k, Decode(item))
		}
		return ReviveMarker(out)
	case map[string]any:
		return Decode(jsvalue.FromGo(x))
	case int:
		return float64(x)
	case int64:
		return float64(x)
	}
	return v
}

// ReviveMarker converts one object holding a "~e" or "~d" marker into a
// *jsvalue.Error or time.Time; any other object is returned unchanged. It
// does not look at children.
func ReviveMarker(o *jsvalue.Object) any {
	if e, ok := o.Get("~e"); ok && !jsvalue.IsUndefined(e) {
		out := &jsvalue.Error{Name: "Error"}
		if em, ok := e.(*jsvalue.Object); ok {
			if s, ok := em.Prop("message").(string); ok {
				out.Message = s
			}
			if s, ok := em.Prop("name").(string); ok {
				out.Name = s
			}
		}
		return out
	}
	if d, ok := o.Get("~d"); ok && !jsvalue.IsUndefined(d) {
		if t, ok := NewDate(d); ok {
			return t
		}
	}
	return o
}

// NewDate converts v the way the JavaScript Date constructor does with one
// argument (numbers are milliseconds, strings are parsed, null is the
// epoch) and reports whether the result is a valid date.
func NewDate(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x, true
	case nil:
		return jsvalue.DateFromMillis(0), true
	case bool:
		if x {
			return jsvalue.DateFromMillis(1), true
		}
		return jsvalue.DateFromMillis(0), true
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
	return jsvalue.DateFromMillis(math.Trunc(x)), true
}

// Unmarshal parses JSON into a Lowdefy value, keeping key order and reviving
// markers.
func Unmarshal(data []byte) (any, error) {
	v, err := jsvalue.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("parsing JSON: %w", err)
	}
	return Decode(v), nil
}

// Marshal encodes v (see Encode, dates as milliseconds) to JSON.
func Marshal(v any) ([]byte, error) {
	b, ok := jsvalue.AppendJSON(nil, Encode(v, false), "")
	if !ok {
		return nil, fmt.Errorf("encoding JSON: value nested too deeply")
	}
	return b, nil
}

// Stringify writes v as JSON the way JSON.stringify(v, replacer, space) does
// with Lowdefy's serializer replacer: dates as {"~d": …} (ISO strings when
// isoDates, else milliseconds; a top-level date uses Lowdefy's
// `{ "~d": … }` spacing), errors as {"~e": …}, functions and undefined
// dropped, keys in object order. indent is the JSON.stringify space string
// ("" for compact). It reports false when v has no JSON form (undefined or
// a function).
func Stringify(v any, indent string, isoDates bool) (string, bool) {
	if t, ok := v.(time.Time); ok {
		if isoDates {
			return `{ "~d": "` + jsvalue.ISOString(t) + `" }`, true
		}
		return `{ "~d": ` + jsvalue.NumberToString(jsvalue.Millis(t)) + ` }`, true
	}
	enc, ok := encode(v, isoDates)
	if !ok {
		return "", false
	}
	return jsvalue.Stringify(enc, indent)
}
