package render

import (
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/blocks"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/moment"
)

// dateValue writes a date block's value as the block shows it, with the ISO value beside
// it: value="2026-03-01" iso="2026-03-01T00:00:00.000Z". What each block shows is read from
// its component in @lowdefy/blocks-antd 4.0.0-rc.11: the value in UTC at the start of its
// day (DateSelector), month (MonthSelector) or week (WeekSelector, Sunday), each end of a
// DateRangeSelector likewise by day with its separator (" ~ "), and a DateTimeSelector's
// in the browser's time zone (the app's; UTC with selectUTC), each formatted with the
// block's format property (moment tokens) or its default (blocks.DateKind.DefaultFormat).
// A value that is not a date (set with setState) is shown as it is, with a note that the
// picker shows it empty, as the component does.
func (r *renderer) dateValue(t *tag, n *engine.Node, k blocks.DateKind) {
	if n.Value == nil {
		t.value("value", nil)
		return
	}
	format := k.DefaultFormat()
	switch f := prop(n, "format").(type) {
	case string:
		if f != "" {
			format = f
		}
	case []any: // antd takes a list of formats and shows the first
		if len(f) > 0 {
			if s, ok := f[0].(string); ok && s != "" {
				format = s
			}
		}
	}
	if k == blocks.DayRange {
		arr, ok := n.Value.([]any)
		if !ok || len(arr) == 0 {
			t.value("value", n.Value)
			if ok {
				return
			}
			t.attr("note", "not two dates: the picker shows it empty")
			return
		}
		shown := make([]string, len(arr))
		iso := make([]string, len(arr))
		for i, v := range arr {
			d, ok := v.(time.Time)
			if !ok {
				t.value("value", n.Value)
				t.attr("note", "not two dates: the picker shows it empty")
				return
			}
			shown[i] = r.showDate(d, blocks.Day, format, n)
			iso[i] = jsonAttr(jsvalue.ISOString(d))
		}
		sep := " ~ "
		if s := text(prop(n, "separator")); s != "" {
			sep = " " + s + " "
		}
		t.attr("value", strings.Join(shown, sep))
		t.raw("iso", "["+strings.Join(iso, ",")+"]")
		return
	}
	d, ok := n.Value.(time.Time)
	if !ok {
		t.value("value", n.Value)
		t.attr("note", "not a date: the picker shows it empty")
		return
	}
	t.attr("value", r.showDate(d, k, format, n))
	t.attr("iso", jsvalue.ISOString(d))
}

// showDate formats one date as a block of kind k shows it.
func (r *renderer) showDate(d time.Time, k blocks.DateKind, format string, n *engine.Node) string {
	unit := ""
	switch k {
	case blocks.Day, blocks.DayRange:
		unit = "day"
	case blocks.Month:
		unit = "month"
	case blocks.Week:
		unit = "week"
	case blocks.DateTime:
		if jsvalue.Truthy(prop(n, "selectUTC")) {
			d = d.UTC()
		} else {
			d = d.In(r.tz)
		}
		return moment.Format(d, format)
	}
	d, _ = moment.StartOf(d.UTC(), unit)
	return moment.Format(d, format)
}
