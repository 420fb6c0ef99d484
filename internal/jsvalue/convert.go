package jsvalue

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// NumberToString formats f like JavaScript's Number.prototype.toString():
// the shortest digits that round-trip, in plain notation for exponents from
// -7 to 20 and in exponent notation ("1e+21", "1.5e-7") outside it; "NaN",
// "Infinity", "-Infinity"; -0 is "0".
func NumberToString(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	var buf [32]byte
	return string(appendNumber(buf[:0], f))
}

// appendNumber appends NumberToString(f) to b.
func appendNumber(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	case f == 0:
		return append(b, '0')
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendInt(b, int64(f), 10) // fast path for integers
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	var ebuf [32]byte
	e := strconv.AppendFloat(ebuf[:0], f, 'e', -1, 64) // d.dddde±XX
	mantEnd := 0
	for mantEnd < len(e) && e[mantEnd] != 'e' {
		mantEnd++
	}
	var digits [24]byte
	k := 0
	for _, c := range e[:mantEnd] {
		if c != '.' {
			digits[k] = c
			k++
		}
	}
	exp, _ := strconv.Atoi(string(e[mantEnd+1:]))
	n := exp + 1
	d := digits[:k]
	switch {
	case k <= n && n <= 21:
		b = append(b, d...)
		for i := k; i < n; i++ {
			b = append(b, '0')
		}
	case 0 < n && n <= 21:
		b = append(b, d[:n]...)
		b = append(b, '.')
		b = append(b, d[n:]...)
	case -6 < n && n <= 0:
		b = append(b, '0', '.')
		for i := 0; i < -n; i++ {
			b = append(b, '0')
		}
		b = append(b, d...)
	default:
		b = append(b, d[0])
		if k > 1 {
			b = append(b, '.')
			b = append(b, d[1:]...)
		}
		b = append(b, 'e')
		if n-1 >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(n-1), 10)
	}
	return b
}

// jsWhitespace lists the characters JavaScript's String.prototype.trim and
// ToNumber strip: WhiteSpace and LineTerminator.
const jsWhitespace = " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"

// TrimSpace removes leading and trailing JavaScript whitespace and line
// terminators, as String.prototype.trim does.
func TrimSpace(s string) string { return strings.Trim(s, jsWhitespace) }

// ToNumber is JavaScript's ToNumber (Number(v)): undefined → NaN, null → 0,
// booleans → 0 or 1, strings parsed as StringToNumber, dates → their
// milliseconds, arrays through their string form, host objects through
// their ToPrimitive, other objects → NaN.
func ToNumber(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case nil:
		return 0
	case bool:
		if x {
			return 1
		}
		return 0
	case string:
		return StringToNumber(x)
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case float32:
		return float64(x)
	case time.Time:
		return Millis(x)
	case []any:
		return StringToNumber(ToString(x))
	case HostObject:
		return ToNumber(x.ToPrimitive(HintNumber))
	}
	return math.NaN()
}

// StringToNumber converts a string the way JavaScript's Number(s) does:
// surrounding whitespace is ignored, "" is 0, decimal literals (with sign,
// fraction and exponent, "Infinity") and unsigned 0x/0o/0b integers are
// numbers, anything else is NaN.
func StringToNumber(s string) float64 {
	s = TrimSpace(s)
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
			return parseRadixInteger(s[2:], base)
		}
	}
	body := s
	if body[0] == '+' || body[0] == '-' {
		body = body[1:]
	}
	if body == "Infinity" {
		if s[0] == '-' {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	if !isDecimalLiteral(body) {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f // ±Inf or 0, as JavaScript rounds
		}
		return math.NaN()
	}
	return f
}

// isDecimalLiteral reports whether s is an unsigned StrDecimalLiteral
// without "Infinity": digits with an optional fraction, or a fraction alone,
// then an optional exponent.
func isDecimalLiteral(s string) bool {
	i, n := 0, len(s)
	intDigits := 0
	for i < n && s[i] >= '0' && s[i] <= '9' {
		i++
		intDigits++
	}
	fracDigits := 0
	if i < n && s[i] == '.' {
		i++
		for i < n && s[i] >= '0' && s[i] <= '9' {
			i++
			fracDigits++
		}
	}
	if intDigits == 0 && fracDigits == 0 {
		return false
	}
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < n && (s[i] == '+' || s[i] == '-') {
			i++
		}
		expDigits := 0
		for i < n && s[i] >= '0' && s[i] <= '9' {
			i++
			expDigits++
		}
		if expDigits == 0 {
			return false
		}
	}
	return i == n
}

// parseRadixInteger parses the digits of a 0x/0o/0b literal, NaN when empty
// or invalid.
func parseRadixInteger(s string, base int) float64 {
	if s == "" {
		return math.NaN()
	}
	n, end := parseDigits(s, base)
	if end != len(s) {
		return math.NaN()
	}
	return n
}

// parseDigits reads the longest run of digits of base (2 to 36, letters of
// either case above 9) at the start of s: their value and where the run ends.
func parseDigits(s string, base int) (n float64, end int) {
	for ; end < len(s); end++ {
		c := s[end]
		d := -1
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'z':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'Z':
			d = int(c-'A') + 10
		}
		if d < 0 || d >= base {
			break
		}
		n = n*float64(base) + float64(d)
	}
	return n, end
}

// ParseInt is JavaScript's parseInt(s, radix): leading white space is
// skipped, then an optional sign; radix 0 means 10, or 16 when s starts with
// 0x or 0X (a prefix also skipped when radix is 16); then the longest run of
// the radix's digits is the number. NaN when there is no digit or the radix
// is outside 2 to 36.
func ParseInt(s string, radix int) float64 {
	s = strings.TrimLeft(s, jsWhitespace)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	hexPrefix := len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
	switch {
	case radix == 0 && hexPrefix:
		radix, s = 16, s[2:]
	case radix == 0:
		radix = 10
	case radix == 16 && hexPrefix:
		s = s[2:]
	}
	if radix < 2 || radix > 36 {
		return math.NaN()
	}
	n, end := parseDigits(s, radix)
	if end == 0 {
		return math.NaN()
	}
	if neg {
		return -n
	}
	return n
}

// ToString is JavaScript's ToString (String(v)): "undefined", "null",
// "true"/"false", NumberToString for numbers, arrays joined with commas
// (null and undefined items as ""), "[object Object]" for objects, dates in
// Date.prototype.toString form (see DateToString), errors as "Name: message",
// functions as "function () { [native code] }", host objects through their
// ToPrimitive.
func ToString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return NumberToString(x)
	case nil:
		return "null"
	case UndefinedType:
		return "undefined"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float32:
		return NumberToString(float64(x))
	case []any:
		var b strings.Builder
		for i, item := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if !IsNullish(item) {
				b.WriteString(ToString(item))
			}
		}
		return b.String()
	case time.Time:
		return DateToString(x)
	case *Error:
		return x.Error()
	case Func:
		return "function () { [native code] }"
	case HostObject:
		return ToString(x.ToPrimitive(HintString))
	}
	return "[object Object]"
}

// Hint is the preferred type of ToPrimitive.
type Hint uint8

// The hints of ToPrimitive.
const (
	HintDefault Hint = iota // binary + and ==: dates become strings
	HintNumber              // relational comparison, ToNumber
	HintString              // ToString, template literals
)

// ToPrimitive is JavaScript's ToPrimitive: primitives are returned as they
// are; a date becomes its milliseconds with HintNumber and its string
// otherwise; other objects (arrays, objects, errors, functions) become their
// string (valueOf of a plain object is the object itself, so toString
// decides). A HostObject converts itself.
func ToPrimitive(v any, hint Hint) any {
	switch x := v.(type) {
	case nil, UndefinedType, bool, float64, string:
		return v
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case float32:
		return float64(x)
	case time.Time:
		if hint == HintNumber {
			return Millis(x)
		}
		return DateToString(x)
	case HostObject:
		return x.ToPrimitive(hint)
	}
	return ToString(v)
}

// HostObject is implemented by Go types that stand for JavaScript objects
// with their own conversion to a primitive, such as a wrapped string or a
// regular expression. ToPrimitive, ToString, ToNumber, LooseEqual, Compare
// and Add use it; Typeof reports such values as "object" and Truthy as true.
type HostObject interface {
	// ToPrimitive returns the primitive (nil, Undefined, bool, float64 or
	// string) the object's valueOf and toString give for hint.
	ToPrimitive(hint Hint) any
}

// Add is JavaScript's binary +: string concatenation when either operand
// (after ToPrimitive) is a string, numeric addition otherwise.
func Add(a, b any) any {
	pa, pb := ToPrimitive(a, HintDefault), ToPrimitive(b, HintDefault)
	sa, aok := pa.(string)
	sb, bok := pb.(string)
	switch {
	case aok && bok:
		return sa + sb
	case aok:
		return sa + ToString(pb)
	case bok:
		return ToString(pa) + sb
	}
	return ToNumber(pa) + ToNumber(pb)
}

// Millis returns t as JavaScript milliseconds since the Unix epoch.
func Millis(t time.Time) float64 {
	return float64(t.UnixMilli())
}

// DateFromMillis returns the time ms milliseconds after the Unix epoch, in
// UTC (JavaScript's new Date(ms) for a finite ms).
func DateFromMillis(ms float64) time.Time {
	sec := math.Floor(ms / 1000)
	rem := ms - sec*1000
	return time.Unix(int64(sec), int64(math.Round(rem*1e6))).UTC()
}

// ISOString formats t like Date.prototype.toISOString:
// "2023-11-14T22:13:20.000Z", with a signed six-digit year outside 0–9999.
func ISOString(t time.Time) string {
	t = t.UTC()
	y := t.Year()
	if y < 0 || y > 9999 {
		sign := "+"
		if y < 0 {
			sign = "-"
			y = -y
		}
		return sign + leftPad(strconv.Itoa(y), 6) + t.Format("-01-02T15:04:05.000Z")
	}
	return t.Format("2006-01-02T15:04:05.000Z")
}

// DateToString formats t like Date.prototype.toString in the local time
// zone (time.Local, the browser's zone in Lowdefy), e.g. "Tue Nov 14 2023
// 22:13:20 GMT+0000 (Coordinated Universal Time)". The zone name in
// parentheses is Go's abbreviation (see ZoneName).
func DateToString(t time.Time) string {
	t = t.In(time.Local)
	return t.Format("Mon Jan 02 ") + yearString(t.Year()) + t.Format(" 15:04:05 GMT-0700") + " (" + ZoneName(t) + ")"
}

// DateToDateString formats t like Date.prototype.toDateString in
// time.Local: "Tue Nov 14 2023".
func DateToDateString(t time.Time) string {
	t = t.In(time.Local)
	return t.Format("Mon Jan 02 ") + yearString(t.Year())
}

// DateToTimeString formats t like Date.prototype.toTimeString in
// time.Local: "22:13:20 GMT+0000 (Coordinated Universal Time)".
func DateToTimeString(t time.Time) string {
	t = t.In(time.Local)
	return t.Format("15:04:05 GMT-0700") + " (" + ZoneName(t) + ")"
}

// yearString is the year as Date.prototype.toString writes it: at least
// four digits, with a "-" sign before negative years.
func yearString(y int) string {
	if y < 0 {
		return "-" + leftPad(strconv.Itoa(-y), 4)
	}
	return leftPad(strconv.Itoa(y), 4)
}

func leftPad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat("0", n-len(s)) + s
}

// ZoneName is the time zone name JavaScript dates print in parentheses:
// "Coordinated Universal Time" for UTC, otherwise Go's zone abbreviation
// (V8 prints the long name from ICU, which Go does not have).
func ZoneName(t time.Time) string {
	name, off := t.Zone()
	if off == 0 && (name == "UTC" || name == "") {
		return "Coordinated Universal Time"
	}
	return name
}

// StringLength returns the JavaScript length of s: its number of UTF-16
// code units.
func StringLength(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			n = i
			for _, r := range s[i:] {
				n += utf16.RuneLen(r)
			}
			return n
		}
	}
	return n
}
