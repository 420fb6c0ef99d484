package blocks

import (
	"math"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// EnforceType coerces v to a value type the way @lowdefy/helpers
// type.enforceType does: "string" keeps non-empty strings, "number" finite
// numbers, "date" dates, "object" plain objects and "primitive" non-empty
// strings, finite numbers, dates and booleans, else null; "boolean" keeps
// booleans, else false; "array" keeps arrays, else an empty array; "any" keeps
// anything but undefined (null). Any other value type gives null.
func EnforceType(valueType string, v any) any {
	switch valueType {
	case "string":
		if s, ok := v.(string); ok && s != "" {
			return s
		}
	case "number":
		if isNumber(v) {
			return v
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return b
		}
		return false
	case "date":
		if t, ok := v.(time.Time); ok {
			return t
		}
	case "array":
		if a, ok := v.([]any); ok {
			return a
		}
		return []any{}
	case "primitive":
		switch x := v.(type) {
		case string:
			if x != "" {
				return x
			}
		case bool, time.Time:
			return x
		default:
			if isNumber(v) {
				return v
			}
		}
	case "object":
		if o, ok := v.(*jsvalue.Object); ok {
			return o
		}
	case "any":
		if !jsvalue.IsUndefined(v) {
			return v
		}
	}
	return nil
}

func isNumber(v any) bool {
	f, ok := v.(float64)
	return ok && !math.IsNaN(f) && !math.IsInf(f, 0)
}
