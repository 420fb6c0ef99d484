package render

import (
	"strconv"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/blocks"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
)

// column is one shown table column: its header and the row path it shows.
type column struct {
	header string
	path   string
	// format is the column's valueFormatter or cellRenderer (an _function),
	// called as AgGrid does with {value, data}; nil shows the value.
	format jsvalue.Func
}

// value is what the column shows for a row.
func (c column) value(row any) any {
	v := getPath(row, c.path)
	if c.format == nil {
		return v
	}
	out, err := c.format(jsvalue.ObjectOf("value", v, "data", row))
	switch out.(type) {
	case string, float64, bool:
		if err == nil {
			return out
		}
	}
	return v
}

// table renders AgGrid blocks (rowData, columnDefs; the AgGridInput types
// hold their rows as value) and antd-style tables (dataSource or data,
// columns) as a markdown table of at most Options.MaxRows rows.
func (r *renderer) table(n *engine.Node) {
	var rows []any
	var cols []column
	switch {
	case blocks.Category(n.Category) == blocks.Input:
		rows, _ = n.Value.([]any)
	case strings.HasPrefix(n.Type, "AgGrid"):
		rows, _ = prop(n, "rowData").([]any)
	default:
		rows, _ = prop(n, "dataSource").([]any)
		if rows == nil {
			rows, _ = prop(n, "data").([]any)
		}
	}
	if defs, ok := prop(n, "columnDefs").([]any); ok {
		cols = agGridColumns(defs, nil)
	} else if defs, ok := prop(n, "columns").([]any); ok {
		cols = tableColumns(defs)
	}
	if len(cols) == 0 {
		cols = columnsFromRows(rows)
	}
	t := r.common("table", n)
	if blocks.Category(n.Category) == blocks.Input {
		if l := labelOf(n); l != "" {
			t.attr("label", l)
		}
	} else if s := titleOf(n); s != "" {
		t.attr("title", s)
	}
	t.raw("rows", strconv.Itoa(len(rows)))
	validationAttrs(t, n)
	if n.Loading {
		// AgGrid draws its loading overlay over the rows.
		r.line(t.open() + loadingNote + t.close())
		return
	}
	if len(rows) == 0 {
		r.line(t.open() + t.close())
		return
	}
	r.line(t.open())
	limit := min(len(rows), r.opts.maxRows())
	body := make([][]string, 0, limit)
	for _, row := range rows[:limit] {
		line := make([]string, len(cols))
		for i, c := range cols {
			line[i] = cell(c.value(row))
		}
		body = append(body, line)
	}
	headers := make([]string, len(cols))
	for i, c := range cols {
		headers[i] = cell(c.header)
	}
	note := ""
	if limit < len(rows) {
		note = "(rows 1–" + strconv.Itoa(limit) + " of " + strconv.Itoa(len(rows)) + " shown; " + r.opts.moreRows() + ")"
	}
	r.markdownTable(headers, body, note)
	r.line(t.close())
}

// markdownTable writes a fenced markdown table and an optional note below it.
func (r *renderer) markdownTable(headers []string, rows [][]string, note string) {
	var b strings.Builder
	b.WriteString("| " + strings.Join(headers, " | ") + " |\n")
	b.WriteString(strings.Repeat("|---", len(headers)) + "|\n")
	for _, row := range rows {
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	r.fence("", b.String())
	if note != "" {
		r.line(note)
	}
}

// agGridColumns flattens column definitions (groups have children),
// skipping hidden columns.
func agGridColumns(defs []any, out []column) []column {
	for _, d := range defs {
		do, _ := d.(*jsvalue.Object)
		if do == nil || jsvalue.Truthy(do.Prop("hide")) {
			continue
		}
		if ch, ok := do.Prop("children").([]any); ok {
			out = agGridColumns(ch, out)
			continue
		}
		field := text(do.Prop("field"))
		header := text(do.Prop("headerName"))
		if header == "" {
			header = field
		}
		if field == "" && header == "" {
			continue
		}
		col := column{header: header, path: field}
		for _, k := range []string{"valueFormatter", "cellRenderer"} {
			if f, ok := do.Prop(k).(jsvalue.Func); ok {
				col.format = f
				break
			}
		}
		out = append(out, col)
	}
	return out
}

func tableColumns(defs []any) []column {
	var out []column
	for _, d := range defs {
		do, _ := d.(*jsvalue.Object)
		if do == nil {
			continue
		}
		path := text(do.Prop("dataIndex"))
		if parts, ok := do.Prop("dataIndex").([]any); ok {
			var ps []string
			for _, p := range parts {
				ps = append(ps, text(p))
			}
			path = strings.Join(ps, ".")
		}
		if path == "" {
			path = text(do.Prop("key"))
		}
		header := text(do.Prop("title"))
		if header == "" {
			header = path
		}
		out = append(out, column{header: header, path: path})
	}
	return out
}

// columnsFromRows uses the keys of the rows, in first-seen order.
func columnsFromRows(rows []any) []column {
	var out []column
	seen := map[string]bool{}
	for _, row := range rows {
		ro, _ := row.(*jsvalue.Object)
		for k := range ro.Range {
			if !seen[k] {
				seen[k] = true
				out = append(out, column{header: k, path: k})
			}
		}
	}
	if len(out) == 0 && len(rows) > 0 {
		out = append(out, column{header: "value"})
	}
	return out
}

// getPath reads a dotted path from a row ("" is the row itself).
func getPath(v any, path string) any {
	if path == "" {
		return v
	}
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case *jsvalue.Object:
			v = x.Prop(k)
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}
