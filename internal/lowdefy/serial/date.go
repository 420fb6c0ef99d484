package serial

import (
	"strconv"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// isoDate matches the ECMAScript date-time string format (and its date-only
// and extended-year forms).
var isoDate = lazy.Regexp{Expr: `^([+-]\d{6}|\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$`}

// ParseDate parses the ECMAScript date-time string format the way Date.parse
// does for it: date-only forms are UTC, date-time forms without an offset
// are local time (time.Local). Other formats are not recognised.
func ParseDate(s string) (time.Time, bool) {
	m := isoDate.Get().FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	year, _ := strconv.Atoi(m[1])
	if m[1] == "-000000" {
		return time.Time{}, false
	}
	month, day := 1, 1
	if m[2] != "" {
		month, _ = strconv.Atoi(m[2])
	}
	if m[3] != "" {
		day, _ = strconv.Atoi(m[3])
	}
	var hour, minute, sec, nsec int
	if m[4] != "" {
		hour, _ = strconv.Atoi(m[4])
		minute, _ = strconv.Atoi(m[5])
	}
	if m[6] != "" {
		sec, _ = strconv.Atoi(m[6])
	}
	if m[7] != "" {
		frac := m[7]
		if len(frac) > 3 {
			frac = frac[:3]
		}
		for len(frac) < 3 {
			frac += "0"
		}
		ms, _ := strconv.Atoi(frac)
		nsec = ms * 1e6
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 24 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	if hour == 24 && (minute != 0 || sec != 0 || nsec != 0) {
		return time.Time{}, false
	}
	loc := time.UTC
	if m[4] != "" && m[8] == "" {
		loc = time.Local
	}
	if z := m[8]; z != "" && z != "Z" {
		sign := 1
		if z[0] == '-' {
			sign = -1
		}
		digits := z[1:]
		if len(digits) == 5 {
			digits = digits[:2] + digits[3:]
		}
		oh, _ := strconv.Atoi(digits[:2])
		om, _ := strconv.Atoi(digits[2:])
		loc = time.FixedZone("", sign*(oh*3600+om*60))
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, loc)
	ms := float64(t.UnixMilli())
	if ms > 8.64e15 || ms < -8.64e15 {
		return time.Time{}, false
	}
	return t.UTC(), true
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
