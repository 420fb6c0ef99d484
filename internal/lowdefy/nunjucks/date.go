package nunjucks

import (
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/moment"
)

// dateFilter is @lowdefy/nunjucks' moment-based `date` filter:
// value|date(format) formats with moment tokens; value|date("method", args...)
// calls a supported moment method (see moment.Call).
func dateFilter(_ *renderer, v any, args []any) (any, error) {
	if isNone(v) {
		return "", nil
	}
	switch v.(type) {
	case []any, map[string]any, *Object:
		return "Invalid date", nil
	}
	t, ok := moment.FromValue(normNum(v))
	if !ok {
		return "Invalid date", nil
	}
	format := arg(args, 0)
	if name, isStr := format.(string); isStr {
		if out, handled := moment.Call(t, name, fromUndef(args[1:])); handled {
			return out, nil
		}
	}
	layout := ""
	if !isNone(format) {
		layout = toStr(format)
	}
	return moment.Format(t, layout), nil
}

// fromUndef replaces undefined by nil for calls into other packages.
func fromUndef(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if !isUndef(a) {
			out[i] = normNum(a)
		}
	}
	return out
}
