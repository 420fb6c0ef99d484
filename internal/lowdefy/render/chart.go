package render

import (
	"math"
	"strconv"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
)

// MaxChartRows bounds each table a chart is drawn as; the rows left out are
// counted below the table.
const MaxChartRows = 50

// chartTable is one table of what a chart shows.
type chartTable struct {
	caption string
	headers []string
	rows    [][]string
}

// echart renders an EChart block as the data a person reads off the chart:
// its title, and one markdown table per dataset or group of series —
// categories against series values for category axes, name/value pairs for
// pie, funnel and gauge series, points for value axes, indicator values for
// radar, links for sankey and graph, paths for trees.
func (r *renderer) echart(n *engine.Node) {
	opt, _ := prop(n, "option").(*jsvalue.Object)
	t := r.common("chart", n)
	if s := chartTitle(opt); s != "" {
		t.attr("title", s)
	}
	tables := chartTables(opt)
	if len(tables) == 0 {
		r.line(t.open() + "(no data)" + t.close())
		return
	}
	r.line(t.open())
	for _, tb := range tables {
		r.chartTable(tb)
	}
	r.line(t.close())
}

// chartTable writes one table of a chart, at most MaxChartRows rows.
func (r *renderer) chartTable(tb chartTable) {
	if tb.caption != "" {
		r.text(tb.caption)
	}
	rows, note := tb.rows, ""
	if len(rows) > MaxChartRows {
		note = "… " + strconv.Itoa(len(rows)-MaxChartRows) + " more rows"
		rows = rows[:MaxChartRows]
	}
	if len(rows) == 0 {
		r.line("(no data)")
		return
	}
	headers := make([]string, len(tb.headers))
	for i, h := range tb.headers {
		headers[i] = cell(h)
	}
	r.markdownTable(headers, rows, note)
}

// chartTitle is the option's title text (and subtext), of every title.
func chartTitle(opt *jsvalue.Object) string {
	var parts []string
	for _, t := range asList(opt.Prop("title")) {
		to, _ := t.(*jsvalue.Object)
		for _, k := range []string{"text", "subtext"} {
			if s := strings.TrimSpace(text(to.Prop(k))); s != "" {
				parts = append(parts, oneLine(s))
			}
		}
	}
	return strings.Join(parts, " — ")
}

// asList is v as a list: arrays as they are, another value as a list of
// one, undefined and null as none.
func asList(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case nil, jsvalue.UndefinedType:
		return nil
	}
	return []any{v}
}

func objectsOf(v any) []*jsvalue.Object {
	var out []*jsvalue.Object
	for _, x := range asList(v) {
		if o, ok := x.(*jsvalue.Object); ok {
			out = append(out, o)
		}
	}
	return out
}

// chartTables reads the tables of an ECharts option.
func chartTables(opt *jsvalue.Object) []chartTable {
	if opt == nil {
		return nil
	}
	var out []chartTable
	datasets := objectsOf(opt.Prop("dataset"))
	for i, ds := range datasets {
		if tb, ok := datasetTable(ds); ok {
			if len(datasets) > 1 {
				tb.caption = "dataset " + strconv.Itoa(i+1)
				if id := text(ds.Prop("id")); id != "" {
					tb.caption = "dataset " + id
				}
			}
			out = append(out, tb)
		}
	}
	series := objectsOf(opt.Prop("series"))
	names := make([]string, len(series))
	for i, s := range series {
		names[i] = strings.TrimSpace(text(s.Prop("name")))
		switch {
		case names[i] != "":
		case len(series) == 1:
			names[i] = "value"
		default:
			names[i] = "series " + strconv.Itoa(i+1)
		}
	}
	// Cartesian series on the same axes with aligned data share a table.
	type group struct {
		axis   *categoryAxis
		series []int
	}
	var groups []*group
	for i, s := range series {
		data, hasData := s.Prop("data").([]any)
		if !hasData {
			// Series drawn from a dataset are in the dataset's table; links and
			// nodes may stand for data.
			if links, ok := s.Prop("links").([]any); ok {
				out = append(out, linksTable(names[i], links, len(series) > 1))
			} else if links, ok := s.Prop("edges").([]any); ok {
				out = append(out, linksTable(names[i], links, len(series) > 1))
			}
			continue
		}
		typ := text(s.Prop("type"))
		caption := ""
		if len(series) > 1 {
			caption = "series " + names[i]
			if typ != "" {
				caption += " (" + typ + ")"
			}
		}
		switch typ {
		case "pie", "funnel", "gauge":
			out = append(out, nameValueTable(caption, names[i], data))
		case "radar":
			out = append(out, radarTable(caption, opt, s, data))
		case "sankey", "graph":
			links, _ := s.Prop("links").([]any)
			if links == nil {
				links, _ = s.Prop("edges").([]any)
			}
			if len(links) > 0 {
				out = append(out, linksTable(names[i], links, len(series) > 1))
			} else {
				out = append(out, nameValueTable(caption, names[i], data))
			}
		case "tree", "treemap", "sunburst":
			tb := chartTable{caption: caption, headers: []string{"path", "value"}}
			flattenTree(data, "", &tb.rows)
			out = append(out, tb)
		default:
			x, y := axisOf(opt, "xAxis", s.Prop("xAxisIndex")), axisOf(opt, "yAxis", s.Prop("yAxisIndex"))
			cat := categoryOf(x, y)
			if cat != nil && scalarData(data) {
				var g *group
				for _, gg := range groups {
					if gg.axis.obj == cat.obj {
						g = gg
					}
				}
				if g == nil {
					g = &group{axis: cat}
					groups = append(groups, g)
				}
				g.series = append(g.series, i)
				continue
			}
			out = append(out, pointsTable(caption, x, y, data))
		}
	}
	for _, g := range groups {
		headers := []string{g.axis.name}
		n := len(g.axis.labels)
		for _, i := range g.series {
			headers = append(headers, names[i])
			n = max(n, len(asList(series[i].Prop("data"))))
		}
		tb := chartTable{headers: headers}
		for row := range n {
			line := []string{""}
			if row < len(g.axis.labels) {
				line[0] = cell(g.axis.labels[row])
			}
			for _, i := range g.series {
				data := asList(series[i].Prop("data"))
				v := any(nil)
				if row < len(data) {
					v = itemValue(data[row])
				}
				line = append(line, chartCell(v))
			}
			tb.rows = append(tb.rows, line)
		}
		out = append(out, tb)
	}
	return out
}

// categoryAxis is the category axis of a cartesian series: its labels.
type categoryAxis struct {
	obj    *jsvalue.Object
	name   string
	labels []any
}

// axisOf returns the axis of a series (by its index, default 0).
func axisOf(opt *jsvalue.Object, key string, index any) *jsvalue.Object {
	axes := objectsOf(opt.Prop(key))
	i := 0
	if f, ok := index.(float64); ok && f >= 0 && f == math.Trunc(f) {
		i = int(f)
	}
	if i < len(axes) {
		return axes[i]
	}
	return nil
}

// categoryOf returns the labelled category axis among x and y (x first).
func categoryOf(x, y *jsvalue.Object) *categoryAxis {
	for _, a := range []*jsvalue.Object{x, y} {
		if a == nil {
			continue
		}
		labels, ok := a.Prop("data").([]any)
		if !ok {
			continue
		}
		if typ := text(a.Prop("type")); typ != "" && typ != "category" {
			continue
		}
		out := make([]any, len(labels))
		for i, l := range labels {
			out[i] = itemLabel(l)
		}
		name := strings.TrimSpace(text(a.Prop("name")))
		if name == "" {
			name = "category"
		}
		return &categoryAxis{obj: a, name: name, labels: out}
	}
	return nil
}

// itemLabel is an axis label: a string or number, or the value of {value}.
func itemLabel(v any) any {
	if o, ok := v.(*jsvalue.Object); ok {
		return o.Prop("value")
	}
	return v
}

// itemValue is a data item's value: the item, or the value of {value, …}.
func itemValue(v any) any {
	if o, ok := v.(*jsvalue.Object); ok {
		return o.Prop("value")
	}
	return v
}

// scalarData reports whether every item is one value (not a point).
func scalarData(data []any) bool {
	for _, d := range data {
		if _, ok := itemValue(d).([]any); ok {
			return false
		}
	}
	return true
}

// chartCell writes a value; ECharts' "-" and null mark a missing value.
func chartCell(v any) string {
	if s, ok := v.(string); ok && s == "-" {
		return ""
	}
	if a, ok := v.([]any); ok {
		parts := make([]string, len(a))
		for i, x := range a {
			parts[i] = chartCell(x)
		}
		return strings.Join(parts, ", ")
	}
	return cell(v)
}

// nameValueTable is a pie-like series: one row per {name, value} item.
func nameValueTable(caption, seriesName string, data []any) chartTable {
	tb := chartTable{caption: caption, headers: []string{"name", seriesName}}
	for _, d := range data {
		name := any("")
		if o, ok := d.(*jsvalue.Object); ok {
			name = o.Prop("name")
		}
		tb.rows = append(tb.rows, []string{cell(name), chartCell(itemValue(d))})
	}
	return tb
}

// pointsTable is a series of points on value (or time) axes: one row per
// point, its coordinates named by the axes; an index on a labelled category
// axis shows the label.
func pointsTable(caption string, x, y *jsvalue.Object, data []any) chartTable {
	axisName := func(a *jsvalue.Object, def string) string {
		if s := strings.TrimSpace(text(a.Prop("name"))); s != "" {
			return s
		}
		return def
	}
	labels := func(a *jsvalue.Object) []any {
		l, _ := a.Prop("data").([]any)
		return l
	}
	axes := []*jsvalue.Object{x, y}
	width := 0
	for _, d := range data {
		if a, ok := itemValue(d).([]any); ok {
			width = max(width, len(a))
		} else {
			width = max(width, 2)
		}
	}
	headers := []string{axisName(x, "x"), axisName(y, "y")}
	for i := 2; i < width; i++ {
		if i == 2 {
			headers = append(headers, "value")
		} else {
			headers = append(headers, "value "+strconv.Itoa(i-1))
		}
	}
	hasName := false
	for _, d := range data {
		if o, ok := d.(*jsvalue.Object); ok && text(o.Prop("name")) != "" {
			hasName = true
		}
	}
	if hasName {
		headers = append([]string{"name"}, headers...)
	}
	tb := chartTable{caption: caption, headers: headers}
	for i, d := range data {
		coords, ok := itemValue(d).([]any)
		if !ok {
			coords = []any{float64(i), itemValue(d)}
		}
		row := make([]string, 0, len(headers))
		if hasName {
			name := any("")
			if o, ok := d.(*jsvalue.Object); ok {
				name = o.Prop("name")
			}
			row = append(row, cell(name))
		}
		for j := range width {
			var v any
			if j < len(coords) {
				v = coords[j]
			}
			if j < 2 {
				if l := labels(axes[j]); l != nil {
					if f, ok := v.(float64); ok && f >= 0 && f == math.Trunc(f) && int(f) < len(l) {
						v = itemLabel(l[int(f)])
					}
				}
			}
			row = append(row, chartCell(v))
		}
		tb.rows = append(tb.rows, row)
	}
	return tb
}

// radarTable is a radar series: one row per item, one column per indicator.
func radarTable(caption string, opt *jsvalue.Object, s *jsvalue.Object, data []any) chartTable {
	idx := 0
	if f, ok := s.Prop("radarIndex").(float64); ok {
		idx = int(f)
	}
	var indicators []string
	radars := objectsOf(opt.Prop("radar"))
	if idx < len(radars) {
		for _, ind := range objectsOf(radars[idx].Prop("indicator")) {
			indicators = append(indicators, text(ind.Prop("name")))
		}
	}
	width := len(indicators)
	for _, d := range data {
		if a, ok := itemValue(d).([]any); ok {
			width = max(width, len(a))
		}
	}
	headers := []string{"name"}
	for i := range width {
		h := ""
		if i < len(indicators) {
			h = indicators[i]
		}
		if h == "" {
			h = "value " + strconv.Itoa(i+1)
		}
		headers = append(headers, h)
	}
	tb := chartTable{caption: caption, headers: headers}
	for _, d := range data {
		name := any("")
		if o, ok := d.(*jsvalue.Object); ok {
			name = o.Prop("name")
		}
		row := []string{cell(name)}
		vals, _ := itemValue(d).([]any)
		for i := range width {
			var v any
			if i < len(vals) {
				v = vals[i]
			}
			row = append(row, chartCell(v))
		}
		tb.rows = append(tb.rows, row)
	}
	return tb
}

// linksTable is a sankey or graph series: one row per link.
func linksTable(seriesName string, links []any, captioned bool) chartTable {
	tb := chartTable{headers: []string{"source", "target", "value"}}
	if captioned {
		tb.caption = "series " + seriesName + " (links)"
	}
	for _, l := range objectsOf(links) {
		tb.rows = append(tb.rows, []string{cell(l.Prop("source")), cell(l.Prop("target")), chartCell(l.Prop("value"))})
	}
	return tb
}

// flattenTree lists a tree's nodes as "parent / child" paths with values.
func flattenTree(data []any, prefix string, rows *[][]string) {
	for _, d := range objectsOf(data) {
		path := strings.TrimSpace(text(d.Prop("name")))
		if prefix != "" {
			path = prefix + " / " + path
		}
		*rows = append(*rows, []string{cell(path), chartCell(orNull(d.Prop("value")))})
		if ch, ok := d.Prop("children").([]any); ok {
			flattenTree(ch, path, rows)
		}
	}
}

// datasetTable reads a dataset's source: rows of arrays (the first a
// header of names when it holds only strings, or dimensions name the
// columns), rows of objects, or an object of columns.
func datasetTable(ds *jsvalue.Object) (chartTable, bool) {
	var dims []string
	for _, d := range asList(ds.Prop("dimensions")) {
		if o, ok := d.(*jsvalue.Object); ok {
			dims = append(dims, text(o.Prop("name")))
		} else {
			dims = append(dims, text(d))
		}
	}
	switch src := ds.Prop("source").(type) {
	case []any:
		tb := chartTable{}
		if len(src) == 0 {
			return chartTable{headers: dims}, true
		}
		if _, ok := src[0].(*jsvalue.Object); ok {
			headers := dims
			if len(headers) == 0 {
				seen := map[string]bool{}
				for _, row := range objectsOf(src) {
					for k := range row.Range {
						if !seen[k] {
							seen[k] = true
							headers = append(headers, k)
						}
					}
				}
			}
			tb.headers = headers
			for _, row := range objectsOf(src) {
				line := make([]string, len(headers))
				for i, h := range headers {
					line[i] = chartCell(row.Prop(h))
				}
				tb.rows = append(tb.rows, line)
			}
			return tb, true
		}
		rows := src
		header := ds.Prop("sourceHeader")
		first, _ := src[0].([]any)
		if header == true || (jsvalue.IsNullish(header) && len(dims) == 0 && allStrings(first) && len(src) > 1) {
			for _, h := range first {
				dims = append(dims, text(h))
			}
			rows = src[1:]
		}
		width := len(dims)
		for _, row := range rows {
			width = max(width, len(asList(row)))
		}
		for i := len(dims); i < width; i++ {
			dims = append(dims, strconv.Itoa(i))
		}
		tb.headers = dims
		for _, row := range rows {
			vals := asList(row)
			line := make([]string, width)
			for i := range width {
				if i < len(vals) {
					line[i] = chartCell(vals[i])
				}
			}
			tb.rows = append(tb.rows, line)
		}
		return tb, true
	case *jsvalue.Object:
		tb := chartTable{}
		n := 0
		for k, col := range src.Range {
			tb.headers = append(tb.headers, k)
			n = max(n, len(asList(col)))
		}
		for i := range n {
			line := make([]string, 0, len(tb.headers))
			for _, k := range tb.headers {
				col := asList(src.Prop(k))
				var v any
				if i < len(col) {
					v = col[i]
				}
				line = append(line, chartCell(v))
			}
			tb.rows = append(tb.rows, line)
		}
		return tb, true
	}
	return chartTable{}, false
}

func allStrings(row []any) bool {
	if len(row) == 0 {
		return false
	}
	for _, v := range row {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}
