package nunjucks

import "github.com/mcpbridge/mcpbridge/internal/jsvalue"

// addGenerators adds nunjucks' cycler and joiner globals to g.
func addGenerators(g map[string]any) {
	g["cycler"] = &macroFunc{name: "cycler", call: func(_ *renderer, args []any, _ map[string]any) (any, error) {
		items := append([]any(nil), args...)
		index := -1
		c := &jsvalue.Object{}
		c.Set("current", nil)
		c.Set("next", &macroFunc{name: "next", call: func(_ *renderer, _ []any, _ map[string]any) (any, error) {
			index++
			if index >= len(items) {
				index = 0
			}
			var cur any = jsvalue.Undefined
			if index < len(items) {
				cur = items[index]
			}
			c.Set("current", cur)
			return cur, nil
		}})
		c.Set("reset", &macroFunc{name: "reset", call: func(_ *renderer, _ []any, _ map[string]any) (any, error) {
			index = -1
			c.Set("current", nil)
			return jsvalue.Undefined, nil
		}})
		return c, nil
	}}
	g["joiner"] = &macroFunc{name: "joiner", call: func(_ *renderer, args []any, _ map[string]any) (any, error) {
		sep := ","
		if s := arg(args, 0); jsvalue.Truthy(s) {
			sep = jsvalue.ToString(s)
		}
		first := true
		return &macroFunc{name: "joiner", call: func(_ *renderer, _ []any, _ map[string]any) (any, error) {
			if first {
				first = false
				return "", nil
			}
			return sep, nil
		}}, nil
	}}
}
