package lowdefy

import (
	"fmt"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/render"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
)

// MaxPlainRows bounds the rows plainRender shows of a block's data.
const MaxPlainRows = 50

// plainRender is the stand-in page renderer until internal/lowdefy/render is merged (its
// render.Page(p, opts) replaces it, see Backend.render): the page id, then one line per
// visible block with its id, type and what an agent needs of it — an input's value,
// required flag and validation; a display block's title or content; the rows of a block
// fed with data (rowData, data, dataSource); values that come from users or databases
// are JSON, fenced in backticks.
// agentRender renders a page as markdown with semantic tags (internal/lowdefy/render).
func agentRender(p *engine.Page) string {
	return render.Page(p, render.Options{})
}

func plainRender(p *engine.Page) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# page %s\n", p.ID())
	for _, b := range p.Blocks() {
		if !b.Visible || b.ID == p.ID() {
			continue
		}
		props, _ := b.Properties.(*jsvalue.Object)
		fmt.Fprintf(&sb, "- %s (%s, %s)", b.ID, b.Type, b.Category)
		if t := titleOf(props); t != "" {
			fmt.Fprintf(&sb, " %q", t)
		}
		switch b.Category {
		case "input", "list":
			if jsvalue.Truthy(b.Required) {
				sb.WriteString(" required")
			}
			fmt.Fprintf(&sb, " value: `%s`", jsonOf(b.Value))
			if opts := props.Prop("options"); opts != nil && !jsvalue.IsUndefined(opts) {
				fmt.Fprintf(&sb, " options: `%s`", jsonOf(opts))
			}
			if v := b.Validation; v != nil {
				if errs, ok := v.Prop("errors").([]any); ok && len(errs) > 0 {
					fmt.Fprintf(&sb, " errors: `%s`", jsonOf(errs))
				}
			}
		}
		sb.WriteByte('\n')
		for _, key := range []string{"rowData", "data", "dataSource"} {
			rows, ok := props.Prop(key).([]any)
			if !ok {
				continue
			}
			fmt.Fprintf(&sb, "  %s: %d rows\n", key, len(rows))
			for i, r := range rows {
				if i == MaxPlainRows {
					fmt.Fprintf(&sb, "  … %d more rows (get_state shows all)\n", len(rows)-i)
					break
				}
				fmt.Fprintf(&sb, "  %d. `%s`\n", i+1, jsonOf(r))
			}
		}
	}
	return sb.String()
}

// titleOf is a block's title, content or label text, when it is a string.
func titleOf(props *jsvalue.Object) string {
	if props == nil {
		return ""
	}
	for _, k := range []string{"title", "content", "label"} {
		if s, ok := props.Prop(k).(string); ok && s != "" {
			if len(s) > 200 {
				s = s[:200] + "…"
			}
			return s
		}
	}
	return ""
}

func jsonOf(v any) string {
	if jsvalue.IsUndefined(v) {
		return "null"
	}
	s, ok := jsvalue.Stringify(v, "")
	if !ok {
		return "null"
	}
	return strings.ReplaceAll(s, "`", "\\u0060")
}
