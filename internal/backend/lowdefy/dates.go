package lowdefy

import (
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/blocks"
)

// setTimeZone tells the page's nodes (and their list items) the app's time zone, which the
// argument schemas of date blocks name.
func setTimeZone(nodes []*node, tz string) {
	for _, n := range nodes {
		n.tz = tz
		for _, it := range n.items {
			it.tz = tz
		}
	}
}

// dateSchema fills the schema of a date block's argument and returns the sentence that
// says which values it takes (what blocks.PickDate reads). A format the schema advertises
// is a value the tool accepts: date for DateSelector and each end of a DateRangeSelector,
// date-time for DateTimeSelector; MonthSelector and WeekSelector take more than a date
// (YYYY-MM, YYYY-Www), so they advertise none.
func dateSchema(s *jsvalue.Object, n *node) string {
	tz := n.tz
	if tz == "" {
		tz = "UTC"
	}
	props, _ := n.cfg.Prop("properties").(*jsvalue.Object)
	switch blocks.DateKindOf(n.typ) {
	case blocks.Day:
		s.Set("type", "string")
		s.Set("format", "date")
		return "A date, YYYY-MM-DD."
	case blocks.DateTime:
		s.Set("type", "string")
		s.Set("format", "date-time")
		if props.Prop("selectUTC") == true {
			tz = "UTC"
		}
		return "A date and time, ISO 8601 such as 2026-03-01T09:30 (without an offset: " + tz + " time)."
	case blocks.Month:
		s.Set("type", "string")
		return "A month, YYYY-MM (or a date in it)."
	case blocks.Week:
		s.Set("type", "string")
		return "A week: a date in it, YYYY-MM-DD, or an ISO week YYYY-Www (weeks start on Sunday)."
	case blocks.DayRange:
		s.Set("type", "array")
		s.Set("items", jsvalue.ObjectOf("type", "string", "format", "date"))
		s.Set("minItems", 2.0)
		s.Set("maxItems", 2.0)
		return "Two dates [start, end], each YYYY-MM-DD."
	}
	return ""
}
