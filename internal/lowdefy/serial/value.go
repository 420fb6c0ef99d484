package serial

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// undefinedType is the type of Undefined.
type undefinedType struct{}

// Undefined is JavaScript's undefined. Operators may produce it (for example
// an _if without else); object keys holding it are dropped from output and
// array items holding it become null when encoded.
var Undefined = undefinedType{}

// String returns "undefined".
func (undefinedType) String() string { return "undefined" }

// Error is a JavaScript Error value: {"~e": {name, message, value}} in JSON.
type Error struct {
	Name    string
	Message string
}

// Error returns the JavaScript Error.prototype.toString form, "Name: message".
func (e *Error) Error() string {
	if e.Message == "" {
		return e.Name
	}
	if e.Name == "" {
		return e.Message
	}
	return e.Name + ": " + e.Message
}

// Func is a JavaScript function value, as returned by the _function operator.
// It is called with positional arguments and returns a value or an error
// (a thrown exception).
type Func func(args ...any) (any, error)

// IsUndefined reports whether v is Undefined.
func IsUndefined(v any) bool {
	_, ok := v.(undefinedType)
	return ok
}

// IsNone reports whether v is null or undefined.
func IsNone(v any) bool {
	if v == nil {
		return true
	}
	_, ok := v.(undefinedType)
	return ok
}

// Keys returns the keys of m in the order this module uses for JavaScript
// object iteration: array-index-like keys ascending, then the other keys
// sorted. (JavaScript uses insertion order for the latter, which a Go map does
// not keep.)
func Keys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortJSKeys(keys)
	return keys
}

// AppendKeys appends the keys of m to dst in the order of Keys.
func AppendKeys(dst []string, m map[string]any) []string {
	for k := range m {
		dst = append(dst, k)
	}
	slices.SortFunc(dst, compareJSKeys)
	return dst
}

func sortJSKeys(keys []string) { slices.SortFunc(keys, compareJSKeys) }

func compareJSKeys(a, b string) int {
	ai, aok := arrayIndex(a)
	bi, bok := arrayIndex(b)
	switch {
	case aok && bok:
		return cmp.Compare(ai, bi)
	case aok:
		return -1
	case bok:
		return 1
	}
	return strings.Compare(a, b)
}

// arrayIndex reports whether k is a canonical array index ("0", "12", not "01").
func arrayIndex(k string) (uint64, bool) {
	if k == "" || k[0] < '0' || k[0] > '9' || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseUint(k, 10, 64)
	if err != nil || n >= math.MaxUint32 {
		return 0, false
	}
	return n, true
}

// DateFromMillis returns the time at ms milliseconds after the Unix epoch, in
// UTC.
func DateFromMillis(ms float64) time.Time {
	sec := math.Floor(ms / 1000)
	rem := ms - sec*1000
	return time.Unix(int64(sec), int64(math.Round(rem*1e6))).UTC()
}

// Millis returns t as JavaScript milliseconds since the epoch.
func Millis(t time.Time) float64 {
	return float64(t.UnixMilli())
}

// ISOString formats t like Date.prototype.toISOString.
func ISOString(t time.Time) string {
	t = t.UTC()
	y := t.Year()
	if y < 0 || y > 9999 {
		sign := "+"
		if y < 0 {
			sign = "-"
			y = -y
		}
		return sign + pad(y, 6) + t.Format("-01-02T15:04:05.000Z")
	}
	return t.Format("2006-01-02T15:04:05.000Z")
}

func pad(n, width int) string {
	s := strconv.Itoa(n)
	for len(s) < width {
		s = "0" + s
	}
	return s
}
