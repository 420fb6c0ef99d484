package operators

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// typeOf returns the @lowdefy/helpers type.typeOf name of v.
func typeOf(v any) string {
	switch x := v.(type) {
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
	case map[string]any:
		return "object"
	case time.Time:
		return "date"
	case *serial.Error:
		return "error"
	case serial.Func:
		return "function"
	case jsRegExp:
		return "regexp"
	default:
		if serial.IsUndefined(x) {
			return "undefined"
		}
	}
	return "object"
}

func isObject(v any) bool { _, ok := v.(map[string]any); return ok }
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

// truthy is JavaScript ToBoolean.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	default:
		return !serial.IsUndefined(v)
	}
}

// strictEquals is JavaScript ===. Objects, arrays, dates and functions are
// compared by reference; values produced by the parser are always distinct
// copies, so they are never equal.
func strictEquals(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	}
	if serial.IsUndefined(a) {
		return serial.IsUndefined(b)
	}
	return false
}

// toPrimitive is ToPrimitive with hint number.
func toPrimitive(v any) any {
	switch x := v.(type) {
	case time.Time:
		return serial.Millis(x)
	case []any, map[string]any, *serial.Error, serial.Func, jsRegExp:
		return toJSString(x)
	}
	return v
}

// compare implements the JavaScript relational operators. op is one of
// "<", "<=", ">", ">=".
func compare(a, b any, op string) bool {
	pa, pb := toPrimitive(a), toPrimitive(b)
	sa, aok := pa.(string)
	sb, bok := pb.(string)
	if aok && bok {
		c := compareUTF16(sa, sb)
		switch op {
		case "<":
			return c < 0
		case "<=":
			return c <= 0
		case ">":
			return c > 0
		default:
			return c >= 0
		}
	}
	na, nb := toNumber(pa), toNumber(pb)
	if math.IsNaN(na) || math.IsNaN(nb) {
		return false
	}
	switch op {
	case "<":
		return na < nb
	case "<=":
		return na <= nb
	case ">":
		return na > nb
	default:
		return na >= nb
	}
}

func compareUTF16(a, b string) int {
	// Byte order of UTF-8 equals code point order, which equals UTF-16 code
	// unit order except between supplementary characters and U+E000–U+FFFF.
	return strings.Compare(a, b)
}

var jsDecimal = regexp.MustCompile(`^[+-]?(?:Infinity|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)$`)

// jsWhitespace lists the characters String.prototype.trim removes.
const jsWhitespace = " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"

// toNumber is JavaScript ToNumber.
func toNumber(v any) float64 {
	switch x := v.(type) {
	case nil:
		return 0
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return x
	case int:
		return float64(x)
	case string:
		return stringToNumber(x)
	case time.Time:
		return serial.Millis(x)
	case []any:
		return stringToNumber(toJSString(x))
	}
	return math.NaN()
}

func stringToNumber(s string) float64 {
	s = strings.Trim(s, jsWhitespace)
	if s == "" {
		return 0
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			n, ok := parseBigInt(s[2:], base)
			if !ok {
				return math.NaN()
			}
			return n
		}
	}
	if !jsDecimal.MatchString(s) {
		return math.NaN()
	}
	switch s {
	case "Infinity", "+Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f
		}
		return math.NaN()
	}
	return f
}

func parseBigInt(s string, base int) (float64, bool) {
	if s == "" {
		return 0, false
	}
	var f float64
	for _, c := range s {
		d := digitVal(c)
		if d < 0 || d >= base {
			return 0, false
		}
		f = f*float64(base) + float64(d)
	}
	return f, true
}

func digitVal(c rune) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return -1
}

// toJSString is JavaScript ToString (String(v)).
func toJSString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		return serial.NumberToString(x)
	case int:
		return strconv.Itoa(x)
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		for i, item := range x {
			if !serial.IsNone(item) {
				parts[i] = toJSString(item)
			}
		}
		return strings.Join(parts, ",")
	case map[string]any:
		return "[object Object]"
	case time.Time:
		return dateToString(x)
	case *serial.Error:
		return x.Error()
	case serial.Func:
		return "function () { [native code] }"
	case jsRegExp:
		return "/" + toJSString(x.pattern) + "/" + toJSString(x.flags)
	}
	if serial.IsUndefined(v) {
		return "undefined"
	}
	return ""
}

// dateToString formats t like Date.prototype.toString in the local time zone
// (time.Local), e.g. "Tue Nov 14 2023 22:13:20 GMT+0000 (Coordinated
// Universal Time)".
func dateToString(t time.Time) string {
	t = t.In(time.Local)
	return t.Format("Mon Jan 02 ") + yearString(t.Year()) + t.Format(" 15:04:05 GMT-0700") + " (" + zoneName(t) + ")"
}

// dateToTimeString is Date.prototype.toTimeString.
func dateToTimeString(t time.Time) string {
	t = t.In(time.Local)
	return t.Format("15:04:05 GMT-0700") + " (" + zoneName(t) + ")"
}

// dateToDateString is Date.prototype.toDateString.
func dateToDateString(t time.Time) string {
	t = t.In(time.Local)
	return t.Format("Mon Jan 02 ") + yearString(t.Year())
}

func yearString(y int) string {
	if y < 0 {
		return "-" + leftPad(strconv.Itoa(-y), 6)
	}
	return leftPad(strconv.Itoa(y), 4)
}

func leftPad(s string, n int) string {
	for len(s) < n {
		s = "0" + s
	}
	return s
}

func zoneName(t time.Time) string {
	name, off := t.Zone()
	if off == 0 && (name == "UTC" || name == "") {
		return "Coordinated Universal Time"
	}
	return name
}
