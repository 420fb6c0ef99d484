package blocks

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// DateKind says what a date-valued input block picks.
type DateKind int

// The date-valued blocks of @lowdefy/blocks-antd (4.0.0-rc.11). Lowdefy has no
// TimeSelector block.
const (
	// NotDate is every other block type.
	NotDate DateKind = iota
	// Day is DateSelector: the UTC midnight of the picked calendar date.
	Day
	// DateTime is DateTimeSelector: the picked moment, truncated to the
	// minute (the second or the hour, after properties.timeFormat).
	DateTime
	// Month is MonthSelector: the UTC midnight of the first day of the month.
	Month
	// Week is WeekSelector: the UTC midnight of the Sunday that starts the
	// week (moment's 'en' locale).
	Week
	// DayRange is DateRangeSelector: an array of two Day values.
	DayRange
)

// DateKindOf returns the kind of a block type, NotDate for types that hold no date.
func DateKindOf(typ string) DateKind {
	switch typ {
	case "DateSelector":
		return Day
	case "DateTimeSelector":
		return DateTime
	case "MonthSelector":
		return Month
	case "WeekSelector":
		return Week
	case "DateRangeSelector":
		return DayRange
	}
	return NotDate
}

// DefaultFormat is the moment format a date block shows its value in when its
// properties name none (the components' `properties.format || …`).
func (k DateKind) DefaultFormat() string {
	switch k {
	case Day, DayRange:
		return "YYYY-MM-DD"
	case DateTime:
		return "YYYY-MM-DD HH:mm"
	case Month:
		return "YYYY-MM"
	case Week:
		return "YYYY-wo"
	}
	return ""
}

// Accepted says in a sentence which values a block of this kind takes from an
// agent, for error messages and tool descriptions; tz names the app's time zone.
func (k DateKind) Accepted(tz string) string {
	stamp := `an ISO 8601 timestamp such as "2026-03-01T09:30:00Z" (one with an offset is read in the app's time zone, ` + tz + `)`
	switch k {
	case Day:
		return `a date "YYYY-MM-DD" or ` + stamp + `; {"~d": milliseconds} is kept as it is; null clears it`
	case DateTime:
		return `an ISO 8601 timestamp such as "2026-03-01T09:30" (without an offset it is the app's time zone, ` + tz +
			`; with selectUTC: true, UTC) or a date "YYYY-MM-DD" (midnight); {"~d": milliseconds} is kept as it is; null clears it`
	case Month:
		return `a month "YYYY-MM" or a date "YYYY-MM-DD" in it (or ` + stamp + `); {"~d": milliseconds} is kept as it is; null clears it`
	case Week:
		return `an ISO week "YYYY-Www" or a date "YYYY-MM-DD" in it (or ` + stamp + `); the week starts on Sunday; {"~d": milliseconds} is kept as it is; null clears it`
	case DayRange:
		return `two dates [start, end], each "YYYY-MM-DD" or ` + stamp + `, or "START/END"; null clears it`
	}
	return ""
}

// DateInputError is a value a date block cannot take.
type DateInputError struct {
	Type   string // the block type
	Got    string // the value as JSON
	Reason string // what is wrong, when more than "not a date"
	tz     string
}

func (e *DateInputError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s takes %s; got %s", e.Type, DateKindOf(e.Type).Accepted(e.tz), e.Got)
	if e.Reason != "" {
		b.WriteString(" (" + e.Reason + ")")
	}
	return b.String()
}

// PickDate turns what an agent gives a date-valued block into the value the
// block's component stores when a person picks that date in it (the onChange
// of DateSelector, DateTimeSelector, MonthSelector, WeekSelector and
// DateRangeSelector in @lowdefy/blocks-antd 4.0.0-rc.11): a time.Time (a JS
// Date), an array of two for DateRangeSelector, or nil to clear.
//
// An ISO 8601 string is what a person picks: a date or a timestamp without an
// offset means that wall-clock date and time in the picker's time zone (loc,
// the app's time zone; UTC for a DateTimeSelector with selectUTC); a timestamp
// with an offset (Z, ±hh:mm) is that instant, seen in the picker's time zone.
// A time.Time or a {"~d": ms} object is Lowdefy's stored form and is kept as it
// is; null, undefined and "" clear the value. props are the block's evaluated
// properties (selectUTC, timeFormat). Any other value is a *DateInputError
// naming the forms the block takes. For a type that holds no date, v is
// returned unchanged.
func PickDate(typ string, props any, v any, loc *time.Location) (any, error) {
	kind := DateKindOf(typ)
	if kind == NotDate {
		return v, nil
	}
	if loc == nil {
		loc = time.UTC
	}
	fail := func(reason string) error {
		return &DateInputError{Type: typ, Got: jsonOf(v), Reason: reason, tz: loc.String()}
	}
	if clears(v) {
		return nil, nil
	}
	if kind == DayRange {
		var parts []any
		switch x := v.(type) {
		case []any:
			parts = x
		case string:
			a, b, ok := strings.Cut(x, "/")
			if !ok {
				return nil, fail("a range is two dates")
			}
			parts = []any{strings.TrimSpace(a), strings.TrimSpace(b)}
		default:
			return nil, fail("")
		}
		if len(parts) != 2 {
			return nil, fail(fmt.Sprintf("a range is two dates, got %d", len(parts)))
		}
		out := make([]any, 2)
		for i, p := range parts {
			if t, ok := storedDate(p); ok {
				out[i] = t
				continue
			}
			s, ok := p.(string)
			if !ok {
				return nil, fail("")
			}
			w, err := parseISO(s)
			if err != nil {
				return nil, fail(err.Error())
			}
			out[i] = dayOf(w, loc)
		}
		if out[1].(time.Time).Before(out[0].(time.Time)) {
			return nil, fail("the range ends before it starts")
		}
		return out, nil
	}
	if t, ok := storedDate(v); ok {
		return t, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, fail("")
	}
	w, err := parseISO(s)
	if err != nil {
		return nil, fail(err.Error())
	}
	switch kind {
	case Day:
		return dayOf(w, loc), nil
	case Month:
		d := dayOf(w, loc)
		return time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC), nil
	case Week:
		d := dayOf(w, loc)
		return d.AddDate(0, 0, -int(d.Weekday())), nil
	}
	// DateTime.
	po, _ := props.(*jsvalue.Object)
	picker := loc
	if jsvalue.Truthy(po.Prop("selectUTC")) {
		picker = time.UTC
	}
	t := w.in(picker).UTC()
	unit := time.Minute
	if tf, ok := po.Prop("timeFormat").(string); ok {
		switch tf {
		case "HH:mm:ss":
			unit = time.Second
		case "HH":
			unit = time.Hour
		}
	}
	return t.Truncate(unit), nil
}

// clears reports whether v empties a date block (the component's clear button).
func clears(v any) bool {
	return v == nil || jsvalue.IsUndefined(v) || v == ""
}

// storedDate reads Lowdefy's stored form of a date: a time.Time, or the
// serializer's {"~d": ms} marker as an agent sends it in JSON.
func storedDate(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x, true
	case *jsvalue.Object:
		if x.Len() != 1 {
			return time.Time{}, false
		}
		ms, ok := x.Prop("~d").(float64)
		if !ok || math.IsNaN(ms) || math.Abs(ms) > 8.64e15 {
			return time.Time{}, false
		}
		return time.UnixMilli(int64(ms)).UTC(), true
	}
	return time.Time{}, false
}

// dayOf is the UTC midnight of the calendar date a person picks for w: its
// date as written, or, for a timestamp with an offset, its date in loc.
func dayOf(w wall, loc *time.Location) time.Time {
	y, m, d := w.year, time.Month(w.month), w.day
	if w.zone != nil {
		y, m, d = w.in(loc).In(loc).Date()
	}
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// wall is a parsed ISO 8601 date or timestamp: its fields as written and its
// offset (nil when it has none).
type wall struct {
	year, month, day, hour, min, sec, nsec int
	zone                                   *time.Location
}

// in is the instant w names: its own offset, else loc's wall clock.
func (w wall) in(loc *time.Location) time.Time {
	if w.zone != nil {
		loc = w.zone
	}
	t := time.Date(w.year, time.Month(w.month), w.day, w.hour, w.min, w.sec, w.nsec, loc)
	if t.Hour() != w.hour || t.Minute() != w.min {
		// A wall-clock time a DST change skips: moment reads it with the offset before the
		// change, which moves it forward by the gap (02:30 → 03:30).
		_, off := t.Add(-24 * time.Hour).Zone()
		t = time.Date(w.year, time.Month(w.month), w.day, w.hour, w.min, w.sec, w.nsec, time.FixedZone("", off)).In(loc)
	}
	return t
}

var (
	isoDateTime = lazy.Regexp{Expr: `^(\d{4})-(\d{2})(?:-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?)?)?$`}
	isoWeek     = lazy.Regexp{Expr: `^(\d{4})-?W(\d{2})(?:-?([1-7]))?$`}
)

// parseISO reads the ISO 8601 forms an agent sends: YYYY-MM, YYYY-MM-DD,
// YYYY-MM-DD[T ]HH:mm[:ss[.fff]] with an optional offset (Z, ±hh, ±hhmm,
// ±hh:mm), and ISO weeks YYYY-Www[-D] (their Monday, or day D).
func parseISO(s string) (wall, error) {
	s = strings.TrimSpace(s)
	if m := isoWeek.Get().FindStringSubmatch(s); m != nil {
		year, week := atoi(m[1]), atoi(m[2])
		day := 1
		if m[3] != "" {
			day = atoi(m[3])
		}
		// ISO week 1 holds January 4th; weeks start on Monday.
		jan4 := time.Date(year, 1, 4, 0, 0, 0, 0, time.UTC)
		monday := jan4.AddDate(0, 0, -((int(jan4.Weekday()) + 6) % 7))
		d := monday.AddDate(0, 0, (week-1)*7+day-1)
		if week < 1 || week > isoWeeks(year) {
			return wall{}, fmt.Errorf("%d has no ISO week %d", year, week)
		}
		return wall{year: d.Year(), month: int(d.Month()), day: d.Day()}, nil
	}
	m := isoDateTime.Get().FindStringSubmatch(s)
	if m == nil {
		return wall{}, fmt.Errorf("not an ISO 8601 date or timestamp")
	}
	w := wall{year: atoi(m[1]), month: atoi(m[2]), day: 1}
	if m[3] != "" {
		w.day = atoi(m[3])
	}
	if w.month < 1 || w.month > 12 || w.day < 1 || w.day > daysIn(w.year, w.month) {
		return wall{}, fmt.Errorf("no such date")
	}
	if m[4] != "" {
		w.hour, w.min = atoi(m[4]), atoi(m[5])
		if m[6] != "" {
			w.sec = atoi(m[6])
		}
		if f := m[7]; f != "" {
			for len(f) < 9 {
				f += "0"
			}
			w.nsec = atoi(f)
		}
		if w.hour > 23 || w.min > 59 || w.sec > 59 {
			return wall{}, fmt.Errorf("no such time of day")
		}
	}
	if z := m[8]; z != "" {
		if z == "Z" || z == "z" {
			w.zone = time.UTC
		} else {
			digits := strings.ReplaceAll(z[1:], ":", "")
			oh := atoi(digits[:2])
			om := 0
			if len(digits) == 4 {
				om = atoi(digits[2:])
			}
			if oh > 23 || om > 59 {
				return wall{}, fmt.Errorf("no such offset %s", z)
			}
			off := oh*3600 + om*60
			if z[0] == '-' {
				off = -off
			}
			w.zone = time.FixedZone(z, off)
		}
	}
	return w, nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// isoWeeks is the number of ISO weeks of a year (52 or 53).
func isoWeeks(year int) int {
	_, w := time.Date(year, 12, 28, 0, 0, 0, 0, time.UTC).ISOWeek()
	return w
}

func jsonOf(v any) string {
	if t, ok := v.(time.Time); ok {
		return jsvalue.Quote(jsvalue.ISOString(t))
	}
	s, ok := jsvalue.Stringify(v, "")
	if !ok {
		return "undefined"
	}
	if len(s) > 80 {
		s = s[:77] + "…"
	}
	return s
}
