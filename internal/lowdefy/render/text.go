package render

import (
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// jsonAttr quotes a string for an attribute: JSON, with < and > escaped so
// that nothing inside the quotes reads as a tag.
func jsonAttr(s string) string {
	return escapeAngles(jsvalue.Quote(s))
}

// jsonValue writes a value as compact JSON with < and > escaped: null for
// undefined and functions, dates as ISO strings.
func jsonValue(v any) string {
	if t, ok := v.(time.Time); ok {
		return jsonAttr(jsvalue.ISOString(t))
	}
	s, ok := jsvalue.Stringify(v, "")
	if !ok {
		return "null"
	}
	return escapeAngles(s)
}

// escapeAngles escapes < and > in JSON text (they only occur in strings,
// where \u003c and \u003e mean the same).
func escapeAngles(s string) string {
	if !strings.ContainsAny(s, "<>") {
		return s
	}
	return strings.NewReplacer("<", `\u003c`, ">", `\u003e`).Replace(s)
}

// plain reports whether text can be written as it is: one line, nothing
// HTML could read as a tag or entity, no backticks, and no start that
// markdown reads as a heading, quote, list item, table row, rule or fence.
func plain(s string) bool {
	if s == "" || strings.ContainsAny(s, "\n\r<>`&|") || strings.TrimSpace(s) != s {
		return false
	}
	switch s[0] {
	case '#', '>', '-', '*', '+', '=', '_', '~', '[', '!':
		return false
	}
	// "1. item" and "1) item" are ordered list items.
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')') {
		return false
	}
	return true
}

// fenceFor returns a backtick fence longer than the longest run of
// backticks in s (at least three), so s cannot close it.
func fenceFor(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// oneLine is s on one line (page titles): line breaks become spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// cell writes a value as a table cell: text on one line with | escaped,
// dates as ISO strings, objects and arrays as compact JSON.
func cell(v any) string {
	var s string
	switch x := v.(type) {
	case nil, jsvalue.UndefinedType:
		return ""
	case string:
		s = x
	case float64, bool:
		s = text(x)
	case time.Time:
		s = jsvalue.ISOString(x)
	default:
		s = jsonValue(x)
	}
	s = strings.TrimSpace(s)
	return strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\n`, "|", `\|`).Replace(s)
}
