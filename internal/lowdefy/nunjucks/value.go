package nunjucks

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

// undefinedT is the type of JavaScript's undefined inside templates.
type undefinedT struct{}

// undef is the undefined value: missing variables and lookups yield it.
var undef = undefinedT{}

// SafeString is a string marked safe: autoescaping leaves it untouched.
// Pass a SafeString in the render variables to insert pre-escaped HTML.
type SafeString string

// macroFunc is a callable value (a macro or a built-in global function).
type macroFunc struct {
	name string
	call func(r *renderer, args []any, kwargs map[string]any) (any, error)
}

// isUndef reports whether v is undefined.
func isUndef(v any) bool { _, ok := v.(undefinedT); return ok }

// isNone reports whether v is null or undefined.
func isNone(v any) bool { return v == nil || isUndef(v) }

// normNum converts Go numeric types to float64; other values pass through.
func normNum(v any) any {
	switch n := v.(type) {
	case int:
		return float64(n)
	case int64:
		return float64(n)
	case int32:
		return float64(n)
	case uint:
		return float64(n)
	case uint64:
		return float64(n)
	case uint32:
		return float64(n)
	case float32:
		return float64(n)
	}
	return v
}

// truthy implements JavaScript truthiness.
func truthy(v any) bool {
	switch x := normNum(v).(type) {
	case nil, undefinedT:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	}
	// SafeString is a JavaScript object: always truthy, even when empty.
	return true
}

// numString formats a number like JavaScript's Number.prototype.toString.
func numString(f float64) string { return serial.NumberToString(f) }

// sortedKeys returns the keys of m in JavaScript property order as far as it
// can be known: integer-like keys ascending, then the others sorted (Go maps
// do not keep insertion order).
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ai, aok := arrayIndex(keys[i])
		bi, bok := arrayIndex(keys[j])
		switch {
		case aok && bok:
			return ai < bi
		case aok:
			return true
		case bok:
			return false
		}
		return keys[i] < keys[j]
	})
	return keys
}

// arrayIndex reports whether s is a canonical non-negative integer.
func arrayIndex(s string) (int, bool) {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// jsDateString formats t like JavaScript's Date.prototype.toString.
func jsDateString(t time.Time) string {
	_, off := t.Zone()
	sign := '+'
	if off < 0 {
		sign = '-'
		off = -off
	}
	name := t.Location().String()
	if name == "UTC" || name == "" {
		name = "Coordinated Universal Time"
	}
	return fmt.Sprintf("%s GMT%c%02d%02d (%s)", t.Format("Mon Jan 02 2006 15:04:05"), sign, off/3600, off%3600/60, name)
}

// toStr implements JavaScript's String(v) conversion.
func toStr(v any) string {
	switch x := normNum(v).(type) {
	case nil:
		return "null"
	case undefinedT:
		return "undefined"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		return numString(x)
	case string:
		return x
	case SafeString:
		return string(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			if !isNone(e) {
				parts[i] = toStr(e)
			}
		}
		return strings.Join(parts, ",")
	case time.Time:
		return jsDateString(x)
	case *macroFunc:
		return "function " + x.name + "() { [native code] }"
	case map[string]any, *Object:
		return "[object Object]"
	}
	return fmt.Sprint(v)
}

// toNum implements JavaScript's Number(v) conversion.
func toNum(v any) float64 {
	switch x := normNum(v).(type) {
	case nil:
		return 0
	case undefinedT:
		return math.NaN()
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return x
	case string:
		return strToNum(x)
	case SafeString:
		return strToNum(string(x))
	case []any:
		return strToNum(toStr(x))
	case time.Time:
		return float64(x.UnixMilli())
	}
	return math.NaN()
}

// strToNum implements the JavaScript string-to-number conversion.
func strToNum(s string) float64 {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0
	}
	switch s {
	case "Infinity", "+Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X' || s[1] == 'o' || s[1] == 'O' || s[1] == 'b' || s[1] == 'B') {
		base := map[byte]int{'x': 16, 'X': 16, 'o': 8, 'O': 8, 'b': 2, 'B': 2}[s[1]]
		n, err := strconv.ParseUint(s[2:], base, 64)
		if err != nil {
			return math.NaN()
		}
		return float64(n)
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return math.NaN()
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

// isPrimitiveString reports whether v is a string or SafeString.
func asString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case SafeString:
		return string(x), true
	}
	return "", false
}

// toPrimitive converts objects to primitives the way JavaScript's + does.
func toPrimitive(v any) any {
	switch x := normNum(v).(type) {
	case []any, map[string]any, *Object, *macroFunc:
		return toStr(x)
	case time.Time:
		return jsDateString(x)
	case SafeString:
		return string(x)
	}
	return normNum(v)
}

// jsAdd implements JavaScript's binary +.
func jsAdd(a, b any) any {
	pa, pb := toPrimitive(a), toPrimitive(b)
	_, sa := pa.(string)
	_, sb := pb.(string)
	if sa || sb {
		return toStr(pa) + toStr(pb)
	}
	return toNum(pa) + toNum(pb)
}

// looseEq implements JavaScript's == operator.
func looseEq(a, b any) bool {
	a, b = normNum(a), normNum(b)
	if s, ok := a.(SafeString); ok {
		a = string(s)
	}
	if s, ok := b.(SafeString); ok {
		b = string(s)
	}
	if isNone(a) || isNone(b) {
		return isNone(a) && isNone(b)
	}
	switch x := a.(type) {
	case float64:
		switch y := b.(type) {
		case float64:
			return x == y
		case string, bool:
			return x == toNum(y)
		case []any, map[string]any, *Object, time.Time:
			return looseEq(x, toPrimitive(y))
		}
	case string:
		switch y := b.(type) {
		case string:
			return x == y
		case float64, bool:
			return toNum(x) == toNum(y)
		case []any, map[string]any, *Object, time.Time:
			return x == toStr(toPrimitive(y))
		}
	case bool:
		return looseEq(toNum(x), b)
	}
	if _, ok := b.(bool); ok {
		return looseEq(a, toNum(b))
	}
	switch b.(type) {
	case float64, string:
		return looseEq(b, a)
	}
	return sameRef(a, b)
}

// strictEq implements JavaScript's === operator.
func strictEq(a, b any) bool {
	a, b = normNum(a), normNum(b)
	if s, ok := a.(SafeString); ok {
		a = string(s)
	}
	if s, ok := b.(SafeString); ok {
		b = string(s)
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case undefinedT:
		return isUndef(b)
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	}
	return sameRef(a, b)
}

// sameRef compares composite values by identity, as JavaScript does.
func sameRef(a, b any) bool {
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 && x == nil && y == nil || len(x) > 0 && &x[0] == &y[0])
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && fmt.Sprintf("%p", x) == fmt.Sprintf("%p", y)
	case *macroFunc:
		y, ok := b.(*macroFunc)
		return ok && x == y
	case *Object:
		y, ok := b.(*Object)
		return ok && x == y
	case time.Time:
		return false
	}
	return false
}

// jsLess implements JavaScript's relational comparison; ok is false when the
// comparison is undefined (NaN involved), which makes every relation false.
func jsCompare(a, b any) (cmp int, ok bool) {
	pa, pb := toPrimitive(a), toPrimitive(b)
	sa, aIsStr := pa.(string)
	sb, bIsStr := pb.(string)
	if aIsStr && bIsStr {
		return compareUTF16(sa, sb), true
	}
	x, y := toNum(pa), toNum(pb)
	if math.IsNaN(x) || math.IsNaN(y) {
		return 0, false
	}
	switch {
	case x < y:
		return -1, true
	case x > y:
		return 1, true
	}
	return 0, true
}

// compareUTF16 compares strings by UTF-16 code units as JavaScript does.
func compareUTF16(a, b string) int {
	if isASCII(a) && isASCII(b) {
		return strings.Compare(a, b)
	}
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

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// jsLength returns the JavaScript .length of strings (UTF-16 units) and arrays.
func jsLength(v any) (int, bool) {
	switch x := v.(type) {
	case string:
		return utf16Len(x), true
	case SafeString:
		return utf16Len(string(x)), true
	case []any:
		return len(x), true
	}
	return 0, false
}

func utf16Len(s string) int {
	if isASCII(s) {
		return len(s)
	}
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// jsUpper is String.prototype.toUpperCase, including the expansions Go's
// simple case mapping lacks (ß → SS, ligatures).
func jsUpper(s string) string {
	u := strings.ToUpper(s)
	if !strings.ContainsAny(u, "ßﬀﬁﬂﬃﬄﬅﬆ") {
		return u
	}
	return strings.NewReplacer("ß", "SS", "ﬀ", "FF", "ﬁ", "FI", "ﬂ", "FL", "ﬃ", "FFI", "ﬄ", "FFL", "ﬅ", "ST", "ﬆ", "ST").Replace(u)
}
