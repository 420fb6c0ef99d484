package operators

import (
	"fmt"
	"unicode/utf16"

	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// prop reads v[key] like JavaScript property access: reading a property of
// null or undefined is a TypeError, other primitives have no properties
// (except a string's length).
func prop(v any, key string) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, fmt.Errorf("TypeError: Cannot read properties of null (reading '%s')", key)
	case map[string]any:
		if val, ok := x[key]; ok {
			return val, nil
		}
		return serial.Undefined, nil
	case []any:
		if val, ok := hasProp(x, key); ok {
			return val, nil
		}
		return serial.Undefined, nil
	case string:
		if key == "length" {
			return float64(utf16Len(x)), nil
		}
		return serial.Undefined, nil
	}
	if serial.IsUndefined(v) {
		return nil, fmt.Errorf("TypeError: Cannot read properties of undefined (reading '%s')", key)
	}
	return serial.Undefined, nil
}

// field reads m[key] of a map, undefined when absent.
func field(m map[string]any, key string) any {
	if v, ok := m[key]; ok {
		return v
	}
	return serial.Undefined
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
