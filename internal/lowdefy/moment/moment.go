package moment

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// NormalizeUnit maps moment unit names and aliases (y, years, M, months, w,
// weeks, isoWeek, d, days, date, h, m, s, ms, Q, …) to the canonical singular
// name, or "" if unknown.
func NormalizeUnit(u string) string {
	switch u {
	case "y", "year", "years":
		return "year"
	case "Q", "quarter", "quarters":
		return "quarter"
	case "M", "month", "months":
		return "month"
	case "w", "week", "weeks":
		return "week"
	case "W", "isoWeek", "isoWeeks", "isoweek", "isoweeks":
		return "isoWeek"
	case "d", "day", "days":
		return "day"
	case "D", "date", "dates":
		return "date"
	case "h", "hour", "hours":
		return "hour"
	case "m", "minute", "minutes":
		return "minute"
	case "s", "second", "seconds":
		return "second"
	case "ms", "millisecond", "milliseconds":
		return "millisecond"
	}
	switch strings.ToLower(u) {
	case "year", "years", "quarter", "quarters", "month", "months", "week", "weeks", "day", "days",
		"hour", "hours", "minute", "minutes", "second", "seconds", "millisecond", "milliseconds", "date", "dates":
		return NormalizeUnit(strings.ToLower(u))
	}
	return ""
}

// absRound rounds half away from zero (moment's absRound).
func absRound(f float64) float64 {
	if f < 0 {
		return -math.Round(-f)
	}
	return math.Round(f)
}

// addMonths adds months, clamping the day to the end of the target month.
func addMonths(t time.Time, n int) time.Time {
	if n == 0 {
		return t
	}
	y, m, d := t.Date()
	total := int(m) - 1 + n
	ny := y + floorDiv(total, 12)
	nm := time.Month(total - floorDiv(total, 12)*12 + 1)
	if dim := daysIn(ny, nm); d > dim {
		d = dim
	}
	h, mi, s := t.Clock()
	return time.Date(ny, nm, d, h, mi, s, t.Nanosecond(), t.Location())
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// Add adds n units to t like moment's add: months, quarters and years move
// the calendar month (clamping the day), days and weeks move calendar days,
// and the rest add exact milliseconds. Fractional days/months are rounded as
// moment does. Unknown units return t unchanged and an error.
func Add(t time.Time, n float64, unit string) (time.Time, error) {
	switch NormalizeUnit(unit) {
	case "year":
		return addMonths(t, int(absRound(n*12))), nil
	case "quarter":
		return addMonths(t, int(absRound(n*3))), nil
	case "month":
		return addMonths(t, int(absRound(n))), nil
	case "week", "isoWeek":
		return t.AddDate(0, 0, int(absRound(n*7))), nil
	case "day", "date":
		return t.AddDate(0, 0, int(absRound(n))), nil
	case "hour":
		return t.Add(msDuration(n * 36e5)), nil
	case "minute":
		return t.Add(msDuration(n * 6e4)), nil
	case "second":
		return t.Add(msDuration(n * 1e3)), nil
	case "millisecond":
		return t.Add(msDuration(n)), nil
	}
	return t, fmt.Errorf("moment: unknown unit %q", unit)
}

// Subtract is Add with -n.
func Subtract(t time.Time, n float64, unit string) (time.Time, error) { return Add(t, -n, unit) }

func msDuration(ms float64) time.Duration { return time.Duration(math.Round(ms)) * time.Millisecond }

// StartOf returns the start of the unit containing t (year, quarter, month,
// week (Sunday, 'en'), isoWeek (Monday), day/date, hour, minute, second).
func StartOf(t time.Time, unit string) (time.Time, error) {
	y, m, d := t.Date()
	loc := t.Location()
	switch NormalizeUnit(unit) {
	case "year":
		return time.Date(y, 1, 1, 0, 0, 0, 0, loc), nil
	case "quarter":
		return time.Date(y, m-(m-1)%3, 1, 0, 0, 0, 0, loc), nil
	case "month":
		return time.Date(y, m, 1, 0, 0, 0, 0, loc), nil
	case "week":
		return time.Date(y, m, d-int(t.Weekday()), 0, 0, 0, 0, loc), nil
	case "isoWeek":
		return time.Date(y, m, d-(isoWeekday(t)-1), 0, 0, 0, 0, loc), nil
	case "day", "date":
		return time.Date(y, m, d, 0, 0, 0, 0, loc), nil
	case "hour":
		return time.Date(y, m, d, t.Hour(), 0, 0, 0, loc), nil
	case "minute":
		return time.Date(y, m, d, t.Hour(), t.Minute(), 0, 0, loc), nil
	case "second":
		return time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), 0, loc), nil
	case "millisecond":
		return t.Truncate(time.Millisecond), nil
	}
	return t, fmt.Errorf("moment: unknown unit %q", unit)
}

// EndOf returns the last millisecond of the unit containing t.
func EndOf(t time.Time, unit string) (time.Time, error) {
	s, err := StartOf(t, unit)
	if err != nil {
		return t, err
	}
	var next time.Time
	switch NormalizeUnit(unit) {
	case "year":
		next = s.AddDate(1, 0, 0)
	case "quarter":
		next = s.AddDate(0, 3, 0)
	case "month":
		next = s.AddDate(0, 1, 0)
	case "week", "isoWeek":
		next = s.AddDate(0, 0, 7)
	case "day", "date":
		next = s.AddDate(0, 0, 1)
	case "hour":
		next = s.Add(time.Hour)
	case "minute":
		next = s.Add(time.Minute)
	case "second":
		next = s.Add(time.Second)
	default:
		return s, nil
	}
	return next.Add(-time.Millisecond), nil
}

func ms(t time.Time) float64 { return float64(t.UnixMilli()) }

// monthDiff is moment's monthDiff(a, b): months from a to b with a fraction.
func monthDiff(a, b time.Time) float64 {
	if a.Day() < b.Day() {
		return -monthDiff(b, a)
	}
	whole := (b.Year()-a.Year())*12 + int(b.Month()-a.Month())
	anchor := addMonths(a, whole)
	var adjust float64
	if ms(b)-ms(anchor) < 0 {
		anchor2 := addMonths(a, whole-1)
		adjust = (ms(b) - ms(anchor)) / (ms(anchor) - ms(anchor2))
	} else {
		anchor2 := addMonths(a, whole+1)
		adjust = (ms(b) - ms(anchor)) / (ms(anchor2) - ms(anchor))
	}
	r := -(float64(whole) + adjust)
	if r == 0 || math.IsNaN(r) {
		return 0
	}
	return r
}

// Diff is moment's a.diff(b, unit, precise): a minus b in unit (default
// milliseconds), truncated toward zero unless precise.
func Diff(a, b time.Time, unit string, precise bool) (float64, error) {
	_, offA := a.Zone()
	_, offB := b.Zone()
	zoneDelta := float64(offB-offA) * 1000
	d := ms(a) - ms(b)
	var out float64
	switch u := NormalizeUnit(unit); {
	case unit == "":
		out = d
	case u == "year":
		out = monthDiff(a, b) / 12
	case u == "month":
		out = monthDiff(a, b)
	case u == "quarter":
		out = monthDiff(a, b) / 3
	case u == "second":
		out = d / 1e3
	case u == "minute":
		out = d / 6e4
	case u == "hour":
		out = d / 36e5
	case u == "day" || u == "date":
		out = (d - zoneDelta) / 864e5
	case u == "week" || u == "isoWeek":
		out = (d - zoneDelta) / 6048e5
	case u == "millisecond":
		out = d
	default:
		return 0, fmt.Errorf("moment: unknown unit %q", unit)
	}
	if precise {
		return out, nil
	}
	return math.Trunc(out) + 0, nil
}

var (
	isoRe = lazy.Regexp{Expr: `^\s*((?:[+-]\d{6}|\d{4})-(\d\d)(?:-(\d\d))?|(?:[+-]\d{6}|\d{4})(\d\d)(\d\d)|(?:[+-]\d{6}|\d{4})-?W\d\d(?:-?\d)?|(?:[+-]\d{6}|\d{4})-?\d{3}|\d{4})(?:([T ])(\d\d)(?::?(\d\d)(?::?(\d\d)(?:[.,](\d+))?)?)?(Z|[+-]\d\d(?::?\d\d)?)?)?\s*$`}
)

// FromValue converts a value the way moment(value) does: time.Time as is,
// numbers as Unix milliseconds, strings in ISO 8601 (no offset = UTC) or a
// few common Date-parsable forms. ok is false for values moment would make
// invalid (null, unparsable strings).
func FromValue(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return time.Time{}, false
		}
		return time.UnixMilli(int64(x)).UTC(), true
	case int:
		return time.UnixMilli(int64(x)).UTC(), true
	case int64:
		return time.UnixMilli(x).UTC(), true
	case string:
		return parseISO(x)
	}
	return time.Time{}, false
}

// parseISO parses ISO 8601 strings the way moment does, with fallbacks for
// forms JavaScript's Date parses.
func parseISO(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{
		"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05Z07:00", "2006-01-02T15:04Z07:00",
		"2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05.999999999",
		"2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15", "2006-01-02", "2006-01", "20060102", "2006",
		"2006-01-02 15:04:05Z07:00", "2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04:05Z0700",
		"2006-01-02T15:04:05.999999999Z07", "2006-01-02T15:04:05Z07",
		// JavaScript Date fallbacks
		time.RFC1123, time.RFC1123Z, "Mon, 2 Jan 2006 15:04:05 MST", "Mon Jan 02 2006 15:04:05 GMT-0700",
		"2006/01/02", "2006/01/02 15:04:05", "01/02/2006", "1/2/2006", "January 2, 2006", "Jan 2, 2006", "Jan 2 2006", "2 Jan 2006",
	} {
		if t, err := time.Parse(layout, s); err == nil {
			if t.Location() != time.UTC {
				return t, true
			}
			return t.UTC(), true
		}
	}
	if strings.HasPrefix(s, "Mon ") || len(s) > 4 {
		if i := strings.Index(s, " ("); i > 0 {
			return parseISO(s[:i])
		}
	}
	return time.Time{}, false
}

// Call runs a moment method by name with arguments, for the nunjucks `date`
// filter (value|date("toISOString")). handled is false for names that are not
// supported methods (the caller then treats the name as a format).
func Call(t time.Time, name string, args []any) (any, bool) {
	num := func(i int) float64 {
		if i < len(args) {
			if f, ok := args[i].(float64); ok {
				return f
			}
		}
		return 0
	}
	str := func(i int) string {
		if i < len(args) {
			if s, ok := args[i].(string); ok {
				return s
			}
		}
		return ""
	}
	switch name {
	case "format":
		return Format(t, str(0)), true
	case "toISOString", "toJSON":
		return t.UTC().Format("2006-01-02T15:04:05.000Z"), true
	case "valueOf":
		return float64(t.UnixMilli()), true
	case "unix":
		return math.Floor(float64(t.UnixMilli()) / 1000), true
	case "year", "years":
		return float64(t.Year()), true
	case "month", "months":
		return float64(t.Month() - 1), true
	case "date", "dates":
		return float64(t.Day()), true
	case "day", "days", "weekday":
		return float64(t.Weekday()), true
	case "isoWeekday":
		return float64(isoWeekday(t)), true
	case "hour", "hours":
		return float64(t.Hour()), true
	case "minute", "minutes":
		return float64(t.Minute()), true
	case "second", "seconds":
		return float64(t.Second()), true
	case "millisecond", "milliseconds":
		return float64(t.Nanosecond() / 1e6), true
	case "dayOfYear":
		return float64(t.YearDay()), true
	case "quarter", "quarters":
		return float64((t.Month()-1)/3 + 1), true
	case "week", "weeks":
		_, w := localeWeek(t)
		return float64(w), true
	case "isoWeek", "isoWeeks":
		_, w := t.ISOWeek()
		return float64(w), true
	case "daysInMonth":
		return float64(daysIn(t.Year(), t.Month())), true
	case "isLeapYear":
		return daysIn(t.Year(), 2) == 29, true
	case "isValid":
		return true, true
	case "locale":
		return "en", true
	case "toString":
		return Format(t, "ddd MMM DD YYYY HH:mm:ss [GMT]ZZ"), true
	case "fromNow":
		out := FromNow(t, time.Now())
		if len(args) > 0 && args[0] == true {
			out = Humanize(DurationOf(float64(t.UnixMilli()-time.Now().UnixMilli())), false, nil)
		}
		return out, true
	case "add", "subtract":
		unit := str(1)
		if unit == "" {
			unit = "ms"
		}
		n := num(0)
		if name == "subtract" {
			n = -n
		}
		r, err := Add(t, n, unit)
		if err != nil {
			return Format(t, "ddd MMM DD YYYY HH:mm:ss [GMT]ZZ"), true
		}
		return Format(r, "ddd MMM DD YYYY HH:mm:ss [GMT]ZZ"), true
	}
	return nil, false
}

// FromNow is moment(t).fromNow() relative to now ("in 5 minutes", "a day ago").
func FromNow(t, now time.Time) string {
	return Humanize(DurationOf(float64(t.UnixMilli()-now.UnixMilli())), true, nil)
}

// Parse parses s with a moment format in forgiving (non-strict) mode, like
// moment(s, layout): each token's pattern is searched in the rest of the
// input and unmatched separators are skipped. Supported tokens: YYYY YY Y M
// MM MMM MMMM D DD Do DDD DDDD H HH h hh k kk m mm s ss S… a A Z ZZ X x and
// the locale formats (L, LL, LT, …). As in moment, missing year, month and
// day are taken from today (only the leading missing ones), the rest default
// to the start of the unit. The result is UTC unless the input has an offset.
func Parse(s, layout string) (time.Time, error) {
	return parseFormat(s, expandLong(layout))
}

func parseInt(s string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(s, "+"))
	return n
}
