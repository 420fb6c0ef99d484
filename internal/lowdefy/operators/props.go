package operators

import (
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// prop reads v[key] like JavaScript property access: reading a property of
// null or undefined is a TypeError, other primitives have no properties
// (except a string's length).
func prop(v any, key string) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, fmt.Errorf("TypeError: Cannot read properties of null (reading '%s')", key)
	case *jsvalue.Object:
		return x.Prop(key), nil
	case []any:
		if val, ok := hasProp(x, key); ok {
			return val, nil
		}
		return jsvalue.Undefined, nil
	case string:
		if key == "length" {
			return float64(jsvalue.StringLength(x)), nil
		}
		return jsvalue.Undefined, nil
	}
	if jsvalue.IsUndefined(v) {
		return nil, fmt.Errorf("TypeError: Cannot read properties of undefined (reading '%s')", key)
	}
	return jsvalue.Undefined, nil
}

// field reads m[key] of an object, undefined when absent (or m is nil).
func field(m *jsvalue.Object, key string) any { return m.Prop(key) }
