package mql

import (
	"fmt"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
)

// missingT marks an absent value (JavaScript undefined in mingo).
type missingT struct{}

var missing = missingT{}

func isMissing(v any) bool { _, ok := v.(missingT); return ok }

func isNil(v any) bool { return v == nil || isMissing(v) }

// normalize deep-copies a caller value into the internal representation:
// numbers become float64, maps and slices are copied.
func normalize(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case int32:
		return float64(x)
	case float32:
		return float64(x)
	case uint:
		return float64(x)
	case uint64:
		return float64(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if sd, ok := e.(D); ok && k == "$sort" {
				out[k] = sortSpec(sd)
				continue
			}
			out[k] = normalize(e)
		}
		return out
	case D:
		out := make(map[string]any, len(x))
		for _, kv := range x {
			out[kv.Key] = normalize(kv.Value)
		}
		return out
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

// export converts an internal value for callers: missing values inside
// objects are dropped, inside arrays and at the top they become nil.
func export(v any) any {
	switch x := v.(type) {
	case missingT:
		return nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = export(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if !isMissing(e) {
				out[k] = export(e)
			}
		}
		return out
	}
	return v
}

// typeName is mingo's getType(v).toLowerCase().
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case missingT:
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
	case map[string]any:
		return "object"
	}
	return "object"
}

var sortOrder = map[string]int{"null": 0, "undefined": 0, "number": 1, "string": 2, "object": 3, "array": 4, "boolean": 5, "date": 6, "regexp": 7}

// compare is mingo's compare: MongoDB type order, then value order.
func compare(a, b any) int {
	u, v := sortOrder[typeName(a)], sortOrder[typeName(b)]
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
		return compareUTF16(x, b.(string))
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
		return compareUTF16(jsString(x), jsString(b))
	}
	return 0
}

func compareUTF16(a, b string) int {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			if ua[i] < ub[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(ua) < len(ub):
		return -1
	case len(ua) > len(ub):
		return 1
	}
	return 0
}

// isEqual is mingo's isEqual: deep, with scalars compared by encoding.
func isEqual(a, b any) bool {
	ta, tb := typeName(a), typeName(b)
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
	case map[string]any:
		y := b.(map[string]any)
		if len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
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
	case missingT:
		b.WriteString("undefined")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case float64:
		b.WriteString(numString(x))
	case string:
		b.WriteString(strconv.Quote(x))
	case time.Time:
		b.WriteString(isoString(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeStringify(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			writeStringify(b, x[k])
		}
		b.WriteByte('}')
	default:
		fmt.Fprintf(b, "%v", x)
	}
}

func isoString(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// truthy is mingo's strict truthiness: JavaScript truthiness, but "" is true.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil, missingT:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	}
	return true
}

// numString formats a number like JavaScript.
func numString(f float64) string { return serial.NumberToString(f) }

// jsString is JavaScript's String(v).
func jsString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case missingT:
		return "undefined"
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return numString(x)
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			if !isNil(e) {
				parts[i] = jsString(e)
			}
		}
		return strings.Join(parts, ",")
	case time.Time:
		return x.UTC().Format("Mon Jan 02 2006 15:04:05") + " GMT+0000 (Coordinated Universal Time)"
	case map[string]any:
		return "[object Object]"
	}
	return fmt.Sprint(v)
}

// toNum is JavaScript's Number(v).
func toNum(v any) float64 {
	switch x := v.(type) {
	case nil:
		return 0
	case missingT:
		return math.NaN()
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return x
	case string:
		s := strings.TrimSpace(x)
		if s == "" {
			return 0
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || strings.ContainsAny(s, "xXpP_") || strings.HasPrefix(strings.ToLower(strings.TrimLeft(s, "+-")), "inf") || strings.HasPrefix(strings.ToLower(s), "nan") {
			if s == "Infinity" || s == "+Infinity" {
				return math.Inf(1)
			}
			if s == "-Infinity" {
				return math.Inf(-1)
			}
			return math.NaN()
		}
		return f
	case time.Time:
		return float64(x.UnixMilli())
	case []any:
		return toNum(jsString(x))
	}
	return math.NaN()
}

// jsAdd is JavaScript's binary +.
func jsAdd(a, b any) any {
	prim := func(v any) any {
		switch v.(type) {
		case []any, map[string]any, time.Time:
			return jsString(v)
		}
		return v
	}
	pa, pb := prim(a), prim(b)
	_, sa := pa.(string)
	_, sb := pb.(string)
	if sa || sb {
		return jsString(pa) + jsString(pb)
	}
	return toNum(pa) + toNum(pb)
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
	case nil, missingT:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
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

// D is an ordered document, for specifications whose key order matters
// ($sort with several keys). Go maps do not keep the order of YAML or JSON
// keys; pass a D where the order is significant.
type D []KV

// KV is one key of a D.
type KV struct {
	Key   string
	Value any
}

// sortSpec is a normalized ordered $sort specification.
type sortSpec []KV
