package mql

import (
	"fmt"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"slices"
	"strconv"
	"strings"
	"time"
)

// missing is an absent value: JavaScript undefined in mingo. It is written as a composite
// literal (jsvalue.Undefined is the type's only value) so that it is static data: copying
// another package's variable would take an init.
var missing = jsvalue.UndefinedType{}

func isMissing(v any) bool { return jsvalue.IsUndefined(v) }

// normalize deep-copies a caller value into the internal representation
// (package jsvalue's), so that stages may modify documents in place: Go maps
// become objects with their keys ordered as jsvalue.FromGo orders them, Go
// integers become float64.
func normalize(v any) any {
	switch x := v.(type) {
	case *jsvalue.Object:
		out := jsvalue.NewObject(x.Len())
		for k, e := range x.Range {
			out.Set(k, normalize(e))
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, jsvalue.CompareStrings)
		out := jsvalue.NewObject(len(x))
		for _, k := range keys {
			out.Set(k, normalize(x[k]))
		}
		return out
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case string, float64, bool, nil:
		return v
	}
	return jsvalue.FromGo(v) // Go numbers, json.Number
}

// export converts an internal value for callers: missing values inside
// objects are dropped, inside arrays and at the top they become nil.
func export(v any) any {
	switch x := v.(type) {
	case jsvalue.UndefinedType:
		return nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = export(e)
		}
		return out
	case *jsvalue.Object:
		out := jsvalue.NewObject(x.Len())
		for k, e := range x.Range {
			if !isMissing(e) {
				out.Set(k, export(e))
			}
		}
		return out
	}
	return v
}

// sortOrder is MongoDB's order of types, built on first use.
var sortOrder = lazy.Value[map[string]int]{New: func() map[string]int {
	return map[string]int{"null": 0, "undefined": 0, "number": 1, "string": 2, "object": 3, "array": 4, "boolean": 5, "date": 6, "regexp": 7}
}}

// compare is mingo's compare: MongoDB type order, then value order.
func compare(a, b any) int {
	order := sortOrder.Get()
	u, v := order[jsvalue.TypeName(a)], order[jsvalue.TypeName(b)]
	if u != v {
		return u - v
	}
	switch x := a.(type) {
	case float64:
		y := b.(float64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case string:
		return jsvalue.CompareStrings(x, b.(string))
	case time.Time:
		return x.Compare(b.(time.Time))
	}
	if isEqual(a, b) {
		return 0
	}
	switch x := a.(type) {
	case bool:
		if !x && b.(bool) {
			return -1
		}
		if x && !b.(bool) {
			return 1
		}
	case []any:
		return jsvalue.CompareStrings(jsvalue.ToString(x), jsvalue.ToString(b))
	}
	return 0
}

// isEqual is mingo's isEqual: deep, with scalars compared by encoding.
func isEqual(a, b any) bool {
	ta, tb := jsvalue.TypeName(a), jsvalue.TypeName(b)
	if ta != tb {
		return false
	}
	switch x := a.(type) {
	case []any:
		y := b.([]any)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !isEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case *jsvalue.Object:
		y, ok := b.(*jsvalue.Object)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for k, v := range x.Range {
			w, ok := y.Get(k)
			if !ok || !isEqual(v, w) {
				return false
			}
		}
		return true
	}
	return stringify(a) == stringify(b)
}

// stringify is mingo's stable encoding, used for hashing and equality.
func stringify(v any) string {
	var b strings.Builder
	writeStringify(&b, v)
	return b.String()
}

func writeStringify(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case jsvalue.UndefinedType:
		b.WriteString("undefined")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case float64:
		b.WriteString(jsvalue.NumberToString(x))
	case string:
		b.WriteString(strconv.Quote(x))
	case time.Time:
		b.WriteString(jsvalue.ISOString(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeStringify(b, e)
		}
		b.WriteByte(']')
	case *jsvalue.Object:
		// mingo sorts the keys: equal objects hash alike whatever their order.
		keys := x.Keys()
		slices.SortFunc(keys, jsvalue.CompareStrings)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			v, _ := x.Get(k)
			writeStringify(b, v)
		}
		b.WriteByte('}')
	default:
		fmt.Fprintf(b, "%v", x)
	}
}

// truthy is mingo's strict truthiness: JavaScript truthiness, but "" is true.
func truthy(v any) bool {
	if _, ok := v.(string); ok {
		return true
	}
	return jsvalue.Truthy(v)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isEmpty is mingo's isEmpty.
func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil, jsvalue.UndefinedType:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case *jsvalue.Object:
		return x.Len() == 0
	}
	return false
}

func ensureArray(v any) []any {
	if a, ok := v.([]any); ok {
		return a
	}
	return []any{v}
}

// flatten is mingo's flatten(xs, depth).
func flatten(xs []any, depth int) []any {
	var out []any
	var rec func(ys []any, n int)
	rec = func(ys []any, n int) {
		for _, y := range ys {
			if arr, ok := y.([]any); ok && n != 0 {
				rec(arr, max(-1, n-1))
			} else {
				out = append(out, y)
			}
		}
	}
	rec(xs, depth)
	return out
}

func isOperator(s string) bool {
	if len(s) < 2 || s[0] != '$' {
		return false
	}
	for _, c := range s[1:] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func jsonish(v any) string {
	var b strings.Builder
	writeStringify(&b, export(v))
	return b.String()
}
