package nunjucks

import (
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/moment"
)

// dateFilter is @lowdefy/nunjucks' moment-based `date` filter:
// value|date(format) formats with moment tokens; value|date("method", args...)
// calls a supported moment method (see moment.Call).
func dateFilter(_ *renderer, v any, args []any) (any, error) {
	if jsvalue.IsNullish(v) {
		return "", nil
	}
	switch v.(type) {
	case []any, *jsvalue.Object:
		return "Invalid date", nil
	}
	t, ok := moment.FromValue(v)
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
	if !jsvalue.IsNullish(format) {
		layout = jsvalue.ToString(format)
	}
	return moment.Format(t, layout), nil
}

// fromUndef replaces undefined by nil for calls into other packages.
func fromUndef(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if !jsvalue.IsUndefined(a) {
			out[i] = a
		}
	}
	return out
}
