package blocks

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

// What each date block stores for what an agent sends, in UTC and in a zone
// west of it (America/New_York, -05:00 in March before DST).
func TestPickDate(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skipf("no tz database: %v", err)
	}
	props := func(kv ...any) *jsvalue.Object { return jsvalue.ObjectOf(kv...) }
	cases := []struct {
		typ   string
		props *jsvalue.Object
		loc   *time.Location
		in    any
		want  any
	}{
		// DateSelector: the calendar date, as UTC midnight, whatever the zone.
		{"DateSelector", nil, time.UTC, "2026-03-01", utc("2026-03-01T00:00:00Z")},
		{"DateSelector", nil, ny, "2026-03-01", utc("2026-03-01T00:00:00Z")},
		{"DateSelector", nil, ny, "2026-03-01T23:30:00", utc("2026-03-01T00:00:00Z")},
		// A timestamp with an offset is that instant, dated in the app's zone.
		{"DateSelector", nil, time.UTC, "2026-03-01T23:30:00-05:00", utc("2026-03-02T00:00:00Z")},
		{"DateSelector", nil, ny, "2026-03-01T23:30:00-05:00", utc("2026-03-01T00:00:00Z")},
		{"DateSelector", nil, ny, "2026-03-02T03:00:00Z", utc("2026-03-01T00:00:00Z")},
		{"DateSelector", nil, time.UTC, "2026-03", utc("2026-03-01T00:00:00Z")},
		// Lowdefy's stored form is kept as it is.
		{"DateSelector", nil, ny, jsvalue.ObjectOf("~d", 1772400600000.0), time.UnixMilli(1772400600000).UTC()},
		{"DateSelector", nil, ny, utc("2026-03-01T10:00:00Z"), utc("2026-03-01T10:00:00Z")},
		{"DateSelector", nil, ny, nil, nil},
		{"DateSelector", nil, ny, "", nil},
		// DateTimeSelector: the instant, to the minute.
		{"DateTimeSelector", nil, time.UTC, "2026-03-01T09:30:45.5", utc("2026-03-01T09:30:00Z")},
		{"DateTimeSelector", nil, ny, "2026-03-01T09:30", utc("2026-03-01T14:30:00Z")},
		{"DateTimeSelector", nil, ny, "2026-03-01 09:30:00+01:00", utc("2026-03-01T08:30:00Z")},
		{"DateTimeSelector", nil, ny, "2026-07-01T09:30", utc("2026-07-01T13:30:00Z")}, // EDT
		{"DateTimeSelector", nil, ny, "2026-03-01", utc("2026-03-01T05:00:00Z")},
		// A time the spring DST change skips moves forward by the gap, as moment does.
		{"DateTimeSelector", nil, ny, "2026-03-08T02:30", utc("2026-03-08T07:30:00Z")},
		{"DateTimeSelector", props("selectUTC", true), ny, "2026-03-01T09:30", utc("2026-03-01T09:30:00Z")},
		{"DateTimeSelector", props("selectUTC", true), ny, "2026-03-01T09:30+01:00", utc("2026-03-01T08:30:00Z")},
		{"DateTimeSelector", props("timeFormat", "HH:mm:ss"), time.UTC, "2026-03-01T09:30:45.5Z", utc("2026-03-01T09:30:45Z")},
		{"DateTimeSelector", props("timeFormat", "HH"), time.UTC, "2026-03-01T09:30:45Z", utc("2026-03-01T09:00:00Z")},
		{"DateTimeSelector", nil, time.UTC, "2026-03-01T09:30:45+0530", utc("2026-03-01T04:00:00Z")},
		// MonthSelector: the first of the month.
		{"MonthSelector", nil, ny, "2026-03", utc("2026-03-01T00:00:00Z")},
		{"MonthSelector", nil, ny, "2026-03-17", utc("2026-03-01T00:00:00Z")},
		// WeekSelector: the Sunday starting the week ('en' locale).
		{"WeekSelector", nil, time.UTC, "2026-03-04", utc("2026-03-01T00:00:00Z")},
		{"WeekSelector", nil, time.UTC, "2026-03-01", utc("2026-03-01T00:00:00Z")},
		{"WeekSelector", nil, time.UTC, "2026-W10", utc("2026-03-01T00:00:00Z")}, // Monday 2 March
		{"WeekSelector", nil, time.UTC, "2026-W01", utc("2025-12-28T00:00:00Z")}, // Monday 29 Dec 2025
		{"WeekSelector", nil, time.UTC, "2026-W10-7", utc("2026-03-08T00:00:00Z")},
		// DateRangeSelector: two dates.
		{"DateRangeSelector", nil, ny, []any{"2026-03-01", "2026-03-31"}, []any{utc("2026-03-01T00:00:00Z"), utc("2026-03-31T00:00:00Z")}},
		{"DateRangeSelector", nil, ny, "2026-03-01/2026-03-31", []any{utc("2026-03-01T00:00:00Z"), utc("2026-03-31T00:00:00Z")}},
		{"DateRangeSelector", nil, ny, []any{jsvalue.ObjectOf("~d", 0.0), "1970-01-02"}, []any{utc("1970-01-01T00:00:00Z"), utc("1970-01-02T00:00:00Z")}},
		{"DateRangeSelector", nil, ny, nil, nil},
		// Other blocks are not touched.
		{"TextInput", nil, ny, "2026-03-01", "2026-03-01"},
	}
	for _, c := range cases {
		got, err := PickDate(c.typ, c.props, c.in, c.loc)
		if err != nil {
			t.Errorf("%s %v in %s: %v", c.typ, c.in, c.loc, err)
			continue
		}
		if !jsvalue.DeepEqual(got, c.want) {
			t.Errorf("%s %v in %s = %v, want %v", c.typ, c.in, c.loc, got, c.want)
		}
	}
}

// A value a date block cannot take is an error that names the forms it takes, never a
// silent null.
func TestPickDateRefuses(t *testing.T) {
	cases := []struct {
		typ  string
		in   any
		want string
	}{
		{"DateSelector", "next tuesday", `DateSelector takes a date "YYYY-MM-DD" or an ISO 8601 timestamp`},
		{"DateSelector", "2026-02-30", `got "2026-02-30" (no such date)`},
		{"DateSelector", "2026-03-01T25:00", `(no such time of day)`},
		{"DateSelector", 1772400600000.0, `got 1772400600000`},
		{"DateSelector", true, `got true`},
		{"DateSelector", jsvalue.ObjectOf("~d", "x"), `got {"~d":"x"}`},
		{"DateTimeSelector", "09:30", `DateTimeSelector takes an ISO 8601 timestamp`},
		{"WeekSelector", "2026-W54", `2026 has no ISO week 54`},
		{"DateRangeSelector", "2026-03-01", `a range is two dates`},
		{"DateRangeSelector", []any{"2026-03-01"}, `a range is two dates, got 1`},
		{"DateRangeSelector", []any{"2026-03-31", "2026-03-01"}, `the range ends before it starts`},
		{"DateRangeSelector", []any{"2026-03-01", nil}, `DateRangeSelector takes two dates`},
		{"MonthSelector", "March", `MonthSelector takes a month "YYYY-MM"`},
	}
	for _, c := range cases {
		got, err := PickDate(c.typ, nil, c.in, time.UTC)
		var de *DateInputError
		if !errors.As(err, &de) {
			t.Errorf("%s %v = %v, %v; want a DateInputError", c.typ, c.in, got, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "UTC") {
			t.Errorf("%s %v: error %q\nwant it to contain %q and the time zone", c.typ, c.in, err, c.want)
		}
	}
}

func TestDateKinds(t *testing.T) {
	for typ, f := range map[string]string{"DateSelector": "YYYY-MM-DD", "DateTimeSelector": "YYYY-MM-DD HH:mm",
		"MonthSelector": "YYYY-MM", "WeekSelector": "YYYY-wo", "DateRangeSelector": "YYYY-MM-DD", "TextInput": ""} {
		if got := DateKindOf(typ).DefaultFormat(); got != f {
			t.Errorf("%s default format %q, want %q", typ, got, f)
		}
	}
}

func BenchmarkPickDate(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PickDate("DateTimeSelector", nil, "2026-03-01T09:30:00+01:00", time.UTC); err != nil {
			b.Fatal(err)
		}
	}
}
