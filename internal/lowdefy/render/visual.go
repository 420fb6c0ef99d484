package render

import (
	"math"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
)

// statistic renders a Statistic: its title, its value, and the value as
// antd shows it (prefix, the number grouped with groupSeparator and rounded
// to precision, suffix) as the text.
func (r *renderer) statistic(n *engine.Node) {
	if jsvalue.Truthy(prop(n, "loading")) {
		// antd draws a skeleton instead of the value.
		r.display(n, "", func(t *tag) {
			if s := htmlInline(text(prop(n, "title"))); s != "" {
				t.attr("title", s)
			}
			t.flag("loading")
		})
		return
	}
	v := orNull(prop(n, "value"))
	shown := text(prop(n, "prefix")) + statisticValue(n, v) + text(prop(n, "suffix"))
	r.display(n, strings.TrimSpace(shown), func(t *tag) {
		if s := htmlInline(text(prop(n, "title"))); s != "" {
			t.attr("title", s)
		}
		t.value("value", v)
	})
}

// statisticValue formats a value as antd's Statistic does: the value's
// text, when it is a decimal number, has its integer part grouped by
// groupSeparator ("," by default) and its decimals padded or cut to
// precision, joined by decimalSeparator ("."); other values as they are.
func statisticValue(n *engine.Node, v any) string {
	val := text(v)
	if _, isStr := v.(string); isStr {
		val = strings.TrimSpace(val)
	}
	neg := strings.HasPrefix(val, "-")
	digits := strings.TrimPrefix(val, "-")
	intPart, frac, hasFrac := strings.Cut(digits, ".")
	if !allDigits(intPart) || hasFrac && (frac == "" || !allDigits(frac)) || v == nil {
		return val
	}
	if intPart == "" {
		intPart = "0"
	}
	group := ","
	if g, ok := prop(n, "groupSeparator").(string); ok {
		group = g
	}
	dec := "."
	if d, ok := prop(n, "decimalSeparator").(string); ok && d != "" {
		dec = d
	}
	if p, ok := prop(n, "precision").(float64); ok && p >= 0 && p <= 100 {
		for len(frac) < int(p) {
			frac += "0"
		}
		frac = frac[:int(p)]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteString(group)
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteString(dec + frac)
	}
	return b.String()
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// progress renders a Progress as antd shows it: the percent ("40%"), the
// success part when there is one, and the status (exception, success,
// active) — a percent of 100 shows as success.
func (r *renderer) progress(n *engine.Node) {
	pct := orNull(prop(n, "percent"))
	body := ""
	if f, ok := pct.(float64); ok && prop(n, "showInfo") != false {
		body = jsvalue.NumberToString(math.Round(f*100)/100) + "%"
	}
	r.display(n, body, func(t *tag) {
		t.value("percent", pct)
		if sp, ok := propOf(prop(n, "success"), "percent").(float64); ok {
			t.value("success", sp)
		}
		status := text(prop(n, "status"))
		if f, ok := pct.(float64); ok && f >= 100 && (status == "" || status == "normal" || status == "active") {
			status = "success"
		}
		if status != "" && status != "normal" {
			t.attr("status", status)
		}
	})
}

// googleMaps renders GoogleMaps and GoogleMapsHeatmap as their data: the
// markers (label, title, position) of markers and marker clusterers, the
// heatmap points, the map's centre and zoom, and the info window area.
func (r *renderer) googleMaps(n *engine.Node) {
	t := r.common("chart", n)
	mapProps, _ := prop(n, "map").(*jsvalue.Object)
	if c, ok := mapProps.Prop("center").(*jsvalue.Object); ok {
		t.raw("center", jsonValue(c))
	}
	if z, ok := mapProps.Prop("zoom").(float64); ok {
		t.raw("zoom", jsvalue.NumberToString(z))
	}
	var markers []*jsvalue.Object
	markers = append(markers, objectsOf(prop(n, "markers"))...)
	for _, mc := range objectsOf(prop(n, "markerClusterers")) {
		markers = append(markers, objectsOf(mc.Prop("markers"))...)
	}
	var tables []chartTable
	if len(markers) > 0 {
		tb := chartTable{caption: "markers", headers: []string{"label", "title", "lat", "lng"}}
		for _, m := range markers {
			label := m.Prop("label")
			if lo, ok := label.(*jsvalue.Object); ok {
				label = lo.Prop("text")
			}
			pos, _ := m.Prop("position").(*jsvalue.Object)
			tb.rows = append(tb.rows, []string{cell(label), cell(m.Prop("title")), cell(pos.Prop("lat")), cell(pos.Prop("lng"))})
		}
		tables = append(tables, tb)
	}
	if n.Type == "GoogleMapsHeatmap" {
		hm, _ := prop(n, "heatmap").(*jsvalue.Object)
		if data, ok := hm.Prop("data").([]any); ok {
			tb := chartTable{caption: "heatmap", headers: []string{"lat", "lng", "weight"}}
			for _, d := range objectsOf(data) {
				loc := d
				if l, ok := d.Prop("location").(*jsvalue.Object); ok {
					loc = l
				}
				tb.rows = append(tb.rows, []string{cell(loc.Prop("lat")), cell(loc.Prop("lng")), cell(d.Prop("weight"))})
			}
			tables = append(tables, tb)
		}
	}
	r.line(t.open())
	for _, tb := range tables {
		r.chartTable(tb)
	}
	r.areas(n.Areas)
	r.line(t.close())
}
