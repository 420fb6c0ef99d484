package jsvalue

import (
	"math"
	"strings"
	"unicode/utf8"
)

// StrictEqual is JavaScript's ===. Primitives compare by value (NaN is not
// equal to itself, +0 equals -0). Objects compare by identity: the same
// *Object or *Error pointer, or the same non-empty []any (same backing array
// and length). Dates and funcs are objects that Go copies or cannot compare,
// so they are never strictly equal.
func StrictEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case UndefinedType:
		return IsUndefined(b)
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case float64, int, int64, float32:
		if !isNumber(b) {
			return false
		}
		return ToNumber(a) == ToNumber(b)
	}
	return sameObject(a, b)
}

func isNumber(v any) bool {
	switch v.(type) {
	case float64, int, int64, float32:
		return true
	}
	return false
}

// sameObject compares object values by identity.
func sameObject(a, b any) bool {
	switch x := a.(type) {
	case *Object:
		y, ok := b.(*Object)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		return ok && len(x) > 0 && len(x) == len(y) && &x[0] == &y[0]
	case *Error:
		y, ok := b.(*Error)
		return ok && x == y
	}
	return false
}

// SameValueZero is the equality of Array.prototype.includes and Map keys:
// === except that NaN equals NaN.
func SameValueZero(a, b any) bool {
	if StrictEqual(a, b) {
		return true
	}
	x, xok := a.(float64)
	y, yok := b.(float64)
	return xok && yok && math.IsNaN(x) && math.IsNaN(y)
}

// LooseEqual is JavaScript's == (IsLooselyEqual): null and undefined equal
// each other and nothing else; numbers, strings and booleans compare as
// numbers when their types differ; an object compared with a primitive is
// first converted with ToPrimitive; two objects compare by identity.
func LooseEqual(a, b any) bool {
	a, b = normalizeNumber(a), normalizeNumber(b)
	if IsNullish(a) || IsNullish(b) {
		return IsNullish(a) && IsNullish(b)
	}
	aPrim, bPrim := isPrimitive(a), isPrimitive(b)
	switch {
	case aPrim && bPrim:
		switch x := a.(type) {
		case string:
			if y, ok := b.(string); ok {
				return x == y
			}
		case bool:
			if y, ok := b.(bool); ok {
				return x == y
			}
		case float64:
			if y, ok := b.(float64); ok {
				return x == y
			}
		}
		return ToNumber(a) == ToNumber(b)
	case aPrim:
		if bl, ok := a.(bool); ok {
			return LooseEqual(boolNumber(bl), b)
		}
		return LooseEqual(a, ToPrimitive(b, HintDefault))
	case bPrim:
		if bl, ok := b.(bool); ok {
			return LooseEqual(a, boolNumber(bl))
		}
		return LooseEqual(ToPrimitive(a, HintDefault), b)
	}
	return sameObject(a, b)
}

func boolNumber(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func normalizeNumber(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case float32:
		return float64(x)
	}
	return v
}

func isPrimitive(v any) bool {
	switch v.(type) {
	case nil, UndefinedType, bool, float64, string:
		return true
	}
	return false
}

// Compare is JavaScript's abstract relational comparison, the core of <,
// <=, > and >=: both values go through ToPrimitive (hint number); two
// strings compare by UTF-16 code units (CompareStrings), anything else as
// numbers. ok is false when the result is undefined (a NaN is involved), in
// which case every one of <, <=, >, >= is false. Otherwise c is -1, 0 or +1.
//
// So a < b is `c, ok := Compare(a, b); ok && c < 0`, and a <= b is
// `ok && c <= 0`.
func Compare(a, b any) (c int, ok bool) {
	pa, pb := ToPrimitive(a, HintNumber), ToPrimitive(b, HintNumber)
	if sa, aok := pa.(string); aok {
		if sb, bok := pb.(string); bok {
			return CompareStrings(sa, sb), true
		}
	}
	x, y := ToNumber(pa), ToNumber(pb)
	switch {
	case x < y:
		return -1, true
	case x > y:
		return 1, true
	case x == y:
		return 0, true
	}
	return 0, false // NaN
}

// Relational is JavaScript's relational operator op ("<", "<=", ">" or
// ">=") applied to a and b through Compare: false when a NaN is involved,
// and false for any other op.
func Relational(op string, a, b any) bool {
	c, ok := Compare(a, b)
	if !ok {
		return false
	}
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return false
}

// CompareStrings compares a and b by UTF-16 code units, as JavaScript's <
// and Array.prototype.sort do, returning -1, 0 or +1. It differs from
// strings.Compare (code point order) only when a character outside the
// Basic Multilingual Plane meets one from U+E000 to U+FFFF: its surrogate
// pair sorts first. It does not allocate.
func CompareStrings(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == len(a) || i == len(b) {
		switch {
		case len(a) < len(b):
			return -1
		case len(a) > len(b):
			return 1
		}
		return 0
	}
	// Back up to the start of the rune holding the first differing byte.
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	ua, ub := utf16Unit(ra), utf16Unit(rb)
	switch {
	case ua < ub:
		return -1
	case ua > ub:
		return 1
	}
	// Equal first code units: both supplementary in the same surrogate block
	// (code point order then decides), or invalid bytes decoded to U+FFFD.
	switch {
	case ra < rb:
		return -1
	case ra > rb:
		return 1
	}
	return strings.Compare(a[i:], b[i:])
}

// utf16Unit returns the first UTF-16 code unit of r.
func utf16Unit(r rune) rune {
	if r >= 0x10000 {
		return 0xd800 + (r-0x10000)>>10
	}
	return r
}
