package jsvalue

import (
	"math"
	"reflect"
	"time"
)

// UndefinedType is the type of Undefined. Its only value is Undefined; use
// it in type switches.
type UndefinedType struct{}

// Undefined is JavaScript's undefined, distinct from nil (null). It is what
// reading a missing property gives (Object.Prop); JSON encoding drops object
// keys holding it and writes null for array items holding it.
var Undefined = UndefinedType{}

// String returns "undefined".
func (UndefinedType) String() string { return "undefined" }

// IsUndefined reports whether v is Undefined.
func IsUndefined(v any) bool {
	_, ok := v.(UndefinedType)
	return ok
}

// IsNullish reports whether v is null (nil) or Undefined — the values `??`
// replaces and Lowdefy's type.isNone accepts.
func IsNullish(v any) bool {
	if v == nil {
		return true
	}
	_, ok := v.(UndefinedType)
	return ok
}

// Func is a JavaScript function implemented in Go: it is called with
// positional arguments and returns a value, or an error for a thrown
// exception.
type Func func(args ...any) (any, error)

// Error is a JavaScript Error object, reduced to its name and message.
type Error struct {
	Name    string // "Error", "TypeError", …
	Message string
}

// Error returns the Error.prototype.toString form, "Name: message" (just the
// name when the message is empty, just the message when the name is).
func (e *Error) Error() string {
	if e.Message == "" {
		return e.Name
	}
	if e.Name == "" {
		return e.Message
	}
	return e.Name + ": " + e.Message
}

// Typeof returns JavaScript's `typeof v`: "undefined", "boolean", "number",
// "string", "function" (Func) or "object" (null, *Object, []any, dates,
// errors and any other Go value).
func Typeof(v any) string {
	switch v.(type) {
	case UndefinedType:
		return "undefined"
	case bool:
		return "boolean"
	case float64, int, int64, float32:
		return "number"
	case string:
		return "string"
	case Func:
		return "function"
	}
	return "object"
}

// TypeName names v's type as mingo's getType(v).toLowerCase() does, and as
// messages about a value's type do: "null", "undefined", "boolean",
// "number", "string", "array", "date" (time.Time), else "object".
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case UndefinedType:
		return "undefined"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case time.Time:
		return "date"
	}
	return "object"
}

// Truthy is JavaScript's ToBoolean: false for undefined, null, false, ±0,
// NaN and "", true for everything else (objects and arrays, even empty).
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil, UndefinedType:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	case int:
		return x != 0
	case int64:
		return x != 0
	}
	return true
}

// DeepCopy copies the objects and arrays of v recursively, keeping their
// order, so the copy shares no container with v; every other value (numbers,
// strings, dates, errors, funcs, undefined) is shared as it is. A nil
// *Object stays nil.
func DeepCopy(v any) any {
	switch x := v.(type) {
	case *Object:
		if x == nil {
			return x
		}
		c := NewObject(x.Len())
		for k, e := range x.Range {
			c.Set(k, DeepCopy(e))
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = DeepCopy(e)
		}
		return c
	}
	return v
}

// DeepEqual reports whether a and b are structurally equal values of the
// model: same types, objects with the same keys in the same order, arrays of
// the same length, equal leaves. Numbers compare with ==, except that NaN
// equals NaN; dates compare by instant; errors by name and message; funcs
// are never equal. It is for tests and caches, not JavaScript's ==.
func DeepEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case UndefinedType:
		return IsUndefined(b)
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || math.IsNaN(x) && math.IsNaN(y))
	case string:
		y, ok := b.(string)
		return ok && x == y
	case *Object:
		y, ok := b.(*Object)
		return ok && x.Equal(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !DeepEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	case *Error:
		y, ok := b.(*Error)
		return ok && (x == y || x != nil && y != nil && *x == *y)
	case Func:
		return false
	}
	t := reflect.TypeOf(a)
	if t != reflect.TypeOf(b) {
		return false
	}
	if t.Comparable() {
		return a == b
	}
	return reflect.DeepEqual(a, b)
}
