package jsvalue

import (
	"encoding/json"
	"slices"
)

// FromGo converts a JSON-like Go value into the model: map[string]any
// becomes *Object, []any is converted item by item, Go integers and float32
// become float64, and json.Number becomes float64. A Go map has no key
// order, so FromGo orders its keys as JavaScript would had they been set in
// UTF-16 code unit order: array indices ascending, then the rest sorted.
// Values already in the model are returned as they are: an []any or
// *Object is copied only when one of its items changes.
func FromGo(v any) any {
	out, _ := fromGo(v)
	return out
}

// fromGo is FromGo, also reporting whether the result differs from v.
func fromGo(v any) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, CompareStrings)
		o := NewObject(len(x))
		for _, k := range keys {
			o.Set(k, FromGo(x[k]))
		}
		return o, true
	case *Object:
		var out *Object
		for i, e := range x.entries {
			c, changed := fromGo(e.val)
			if changed && out == nil {
				out = x.Clone()
			}
			if out != nil {
				out.entries[i].val = c
			}
		}
		if out == nil {
			return x, false
		}
		return out, true
	case []any:
		return MapItems(x, fromGo)
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case uint:
		return float64(x), true
	case uint64:
		return float64(x), true
	case uint32:
		return float64(x), true
	case float32:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return StringToNumber(string(x)), true
		}
		return f, true
	}
	return v, false
}

// ToGo converts v for Go APIs that take plain maps: every *Object becomes a
// map[string]any (losing its key order) and arrays are copied. Other values
// are returned as they are.
func ToGo(v any) any {
	switch x := v.(type) {
	case *Object:
		if x == nil {
			return nil
		}
		m := make(map[string]any, len(x.entries))
		for _, e := range x.entries {
			m[e.key] = ToGo(e.val)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = ToGo(item)
		}
		return out
	}
	return v
}

// MapItems returns x with f applied to every item. x is copied only when f changes an
// item (changed reports it), and is never modified.
func MapItems(x []any, f func(any) (any, bool)) (out []any, changed bool) {
	for i, item := range x {
		v, ch := f(item)
		if ch && out == nil {
			out = make([]any, len(x))
			copy(out, x[:i])
		}
		if out != nil {
			out[i] = v
		}
	}
	if out == nil {
		return x, false
	}
	return out, true
}
