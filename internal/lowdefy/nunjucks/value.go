package nunjucks

import (
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// Template values are those of package jsvalue (nil, jsvalue.Undefined,
// bool, float64, string, []any, *jsvalue.Object, time.Time) plus SafeString
// and macros. Go maps and integers in the render variables are converted
// with jsvalue.FromGo when rendering starts.

// SafeString is a string marked safe: autoescaping leaves it untouched.
// Pass a SafeString in the render variables to insert pre-escaped HTML.
// Like nunjucks' SafeString object it is always truthy and converts to the
// string it wraps.
type SafeString string

// ToPrimitive returns the wrapped string (jsvalue.HostObject).
func (s SafeString) ToPrimitive(jsvalue.Hint) any { return string(s) }

// ToJSON gives the JSON form of nunjucks' SafeString object, its own
// properties val and length (jsvalue.JSONer).
func (s SafeString) ToJSON() any {
	return jsvalue.ObjectOf("val", string(s), "length", float64(jsvalue.StringLength(string(s))))
}

// macroFunc is a callable value (a macro or a built-in global function).
type macroFunc struct {
	name string
	call func(r *renderer, args []any, kwargs map[string]any) (any, error)
}

// ToPrimitive returns the function's source text (jsvalue.HostObject).
func (m *macroFunc) ToPrimitive(jsvalue.Hint) any {
	return "function " + m.name + "() { [native code] }"
}

// ToJSON drops functions from JSON, as JSON.stringify does (jsvalue.JSONer).
func (m *macroFunc) ToJSON() any { return jsvalue.Undefined }

// unwrapSafe returns the string a SafeString wraps, and other values as
// they are.
func unwrapSafe(v any) any {
	if s, ok := v.(SafeString); ok {
		return string(s)
	}
	return v
}

// strictEq is === with SafeString values compared as the strings they wrap.
func strictEq(a, b any) bool { return jsvalue.StrictEqual(unwrapSafe(a), unwrapSafe(b)) }

// looseEq is == with SafeString values compared as the strings they wrap.
func looseEq(a, b any) bool { return jsvalue.LooseEqual(unwrapSafe(a), unwrapSafe(b)) }

// asString returns the string of a string or SafeString.
func asString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case SafeString:
		return string(x), true
	}
	return "", false
}

// jsLength returns the JavaScript .length of strings (UTF-16 units) and arrays.
func jsLength(v any) (int, bool) {
	switch x := v.(type) {
	case string:
		return jsvalue.StringLength(x), true
	case SafeString:
		return jsvalue.StringLength(string(x)), true
	case []any:
		return len(x), true
	}
	return 0, false
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
