package operators

import (
	"math"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// typeOf returns the @lowdefy/helpers type.typeOf name of v (not
// JavaScript's typeof: arrays, dates, errors and null have their own names).
func typeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64, int, int64:
		return "number"
	case []any:
		return "array"
	case *jsvalue.Object:
		return "object"
	case time.Time:
		return "date"
	case *jsvalue.Error:
		return "error"
	case jsvalue.Func:
		return "function"
	case jsRegExp:
		return "regexp"
	case jsvalue.UndefinedType:
		return "undefined"
	}
	return "object"
}

func isObject(v any) bool { _, ok := v.(*jsvalue.Object); return ok }
func isArray(v any) bool  { _, ok := v.([]any); return ok }
func isString(v any) bool { _, ok := v.(string); return ok }

// isNumber is type.isNumber: a finite number.
func isNumber(v any) bool {
	f, ok := v.(float64)
	return ok && !math.IsNaN(f) && !math.IsInf(f, 0)
}

// isInt is Number.isInteger.
func isInt(v any) bool {
	f, ok := v.(float64)
	return ok && !math.IsInf(f, 0) && f == math.Trunc(f)
}
