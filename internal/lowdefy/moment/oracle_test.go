package moment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/tools/jslibs-oracle/oracletest"
)

var sampleTimes = append(randomTimes(), []time.Time{
	time.Date(2024, 3, 5, 14, 7, 9, 123e6, time.UTC),
	time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Date(2020, 12, 31, 23, 59, 59, 999e6, time.UTC),
	time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC),
	time.Date(1999, 7, 11, 3, 30, 5, 5e6, time.UTC),
	time.Date(2027, 1, 3, 1, 2, 3, 0, time.UTC),
	time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Date(2016, 12, 31, 12, 0, 0, 0, time.UTC),
	time.Date(2018, 12, 30, 12, 0, 0, 0, time.UTC),
}...)

// randomTimes are deterministic pseudo-random instants between 1950 and 2100.
func randomTimes() []time.Time {
	r := rand.New(rand.NewPCG(4, 2))
	var out []time.Time
	for range 8 {
		ms := r.Int64N(4102444800000+631152000000) - 631152000000
		out = append(out, time.UnixMilli(ms).UTC())
	}
	return out
}

var formats = []string{
	"YYYY-MM-DD", "YY M MM MMM MMMM", "D DD Do DDD DDDo DDDD", "d do dd ddd dddd e E", "H HH h hh k kk m mm s ss",
	"S SS SSS SSSS", "a A", "Z ZZ", "X x", "Q Qo", "w wo ww W Wo WW", "gg gggg GG GGGG", "LT LTS L LL LLL LLLL",
	"l ll lll llll", "[Today is] dddd [at] LT", "YYYY-MM-DDTHH:mm:ss.SSSZ", "", "Y", "Do MMMM YYYY, h:mm:ss a",
	"\\Y\\Y [escaped [brackets]] YYYY", "hmm Hmm hmmss Hmmss", "N NNNN", "unknown: ß ü", "MMMMM", "dddd, MMMM Do YYYY",
}

func TestDifferentialAgainstMoment(t *testing.T) {
	type gocase struct {
		name string
		run  func() (any, error)
	}
	var cases []oracletest.Case
	var runs []gocase
	add := func(name string, c oracletest.Case, run func() (any, error)) {
		cases = append(cases, c)
		runs = append(runs, gocase{name, run})
	}
	for _, tm := range sampleTimes {
		for _, f := range formats {
			tm, f := tm, f
			add(fmt.Sprintf("format %s %q", tm, f), oracletest.Case{Lib: "moment", Op: "format", Args: []any{tm.UnixMilli(), f}},
				func() (any, error) { return Format(tm, f), nil })
		}
		for _, u := range []string{"year", "quarter", "month", "week", "isoWeek", "day", "hour", "minute", "second"} {
			tm, u := tm, u
			add("startOf "+u, oracletest.Case{Lib: "moment", Op: "startOf", Args: []any{tm.UnixMilli(), u}},
				func() (any, error) { r, err := StartOf(tm, u); return float64(r.UnixMilli()), err })
			add("endOf "+u, oracletest.Case{Lib: "moment", Op: "endOf", Args: []any{tm.UnixMilli(), u}},
				func() (any, error) { r, err := EndOf(tm, u); return float64(r.UnixMilli()), err })
		}
		for _, a := range []struct {
			n float64
			u string
		}{{1, "months"}, {-1, "month"}, {13, "M"}, {1, "years"}, {2, "quarters"}, {1.5, "days"}, {3, "weeks"}, {-36, "hours"}, {90, "minutes"}, {1.5, "h"}, {2.5, "months"}, {1000, "ms"}, {-1.5, "d"}} {
			tm, a := tm, a
			add(fmt.Sprintf("add %v %s", a.n, a.u), oracletest.Case{Lib: "moment", Op: "add", Args: []any{tm.UnixMilli(), a.n, a.u}},
				func() (any, error) { r, err := Add(tm, a.n, a.u); return float64(r.UnixMilli()), err })
		}
		for _, other := range sampleTimes {
			for _, u := range []string{"", "years", "months", "quarters", "weeks", "days", "hours", "minutes", "seconds"} {
				for _, precise := range []bool{false, true} {
					tm, other, u, precise := tm, other, u, precise
					add(fmt.Sprintf("diff %s %s %s %v", tm, other, u, precise), oracletest.Case{Lib: "moment", Op: "diff", Args: []any{tm.UnixMilli(), other.UnixMilli(), u, precise}},
						func() (any, error) { return Diff(tm, other, u, precise) })
				}
			}
		}
	}
	durations := []any{0.0, 1000.0, 44000.0, 45000.0, 89000.0, 90000.0, 44 * 60000.0, 45 * 60000.0, 90 * 60000.0, 21 * 3600000.0, 22 * 3600000.0,
		36 * 3600000.0, 25 * 86400000.0, 26 * 86400000.0, 45 * 86400000.0, 320 * 86400000.0, 345 * 86400000.0, 548 * 86400000.0, 5 * 365 * 86400000.0,
		-5000.0, -3 * 86400000.0, "P1Y2M", "PT36H", "1.02:03:04", "12:30", map[string]any{"days": 2.0, "hours": 12.0}, map[string]any{"weeks": 3.0}, "5000"}
	for _, d := range durations {
		for _, suffix := range []bool{false, true} {
			d, suffix := d, suffix
			add(fmt.Sprintf("humanize %v %v", d, suffix), oracletest.Case{Lib: "moment", Op: "humanize", Args: []any{d, suffix, nil}},
				func() (any, error) {
					du, err := DurationFromValue(d)
					return Humanize(du, suffix, nil), err
				})
		}
	}
	for _, th := range []map[string]any{{"d": 7.0, "w": 4.0}, {"s": 10.0}, {"ss": 3.0}, {"m": 59.0, "h": 30.0}} {
		for _, d := range []float64{5000, 12000, 50 * 60000, 25 * 3600000, 10 * 86400000, 40 * 86400000} {
			th, d := th, d
			add(fmt.Sprintf("humanize %v %v", d, th), oracletest.Case{Lib: "moment", Op: "humanize", Args: []any{d, false, th}},
				func() (any, error) {
					f := map[string]float64{}
					for k, v := range th {
						f[k] = v.(float64)
					}
					return Humanize(DurationOf(d), false, f), nil
				})
		}
	}
	for _, p := range [][2]string{{"2024-03-05", "YYYY-MM-DD"}, {"05/03/2024 14:07", "DD/MM/YYYY HH:mm"}, {"March 5th 2024, 2:07 pm", "MMMM Do YYYY, h:mm a"},
		{"2024-03-05T14:07:09.123+02:00", "YYYY-MM-DDTHH:mm:ss.SSSZ"}, {"1700000000", "X"}, {"1700000000123", "x"}, {"12 Jan 99", "DD MMM YY"}, {"7/4/2023", "L"},
		{"2024 061", "YYYY DDDD"}, {"12:00 am 2024-01-02", "hh:mm a YYYY-MM-DD"}} {
		p := p
		add("parse "+p[0], oracletest.Case{Lib: "moment", Op: "parse", Args: []any{p[0], p[1]}},
			func() (any, error) {
				r, err := Parse(p[0], p[1])
				if err != nil {
					return "invalid", nil
				}
				return float64(r.UnixMilli()), nil
			})
	}
	for _, v := range []any{"2024-03-05", "2024-03-05T14:07:09Z", "2024-03-05T14:07:09.5+01:00", "2024-03-05 14:07", 1.7e12, "20240305", "not a date", "2024-13-45"} {
		v := v
		add(fmt.Sprintf("fromValue %v", v), oracletest.Case{Lib: "moment", Op: "fromValue", Args: []any{v}},
			func() (any, error) {
				r, ok := FromValue(v)
				if !ok {
					return "invalid", nil
				}
				return float64(r.UnixMilli()), nil
			})
	}
	res := oracletest.Run(t, cases)
	agreed := 0
	for i, r := range runs {
		got, err := r.run()
		want := res[i]
		if !want.OK {
			t.Errorf("%s: oracle error %s", r.name, want.Error)
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", r.name, err)
			continue
		}
		if equalish(got, want.Value) {
			agreed++
			continue
		}
		t.Errorf("%s: got %v, moment gives %v", r.name, got, want.Value)
	}
	oracletest.Report(t, "moment", agreed, len(runs))
}

func equalish(a, b any) bool {
	fa, ok1 := a.(float64)
	fb, ok2 := b.(float64)
	if ok1 && ok2 {
		return fa == fb || math.Abs(fa-fb) < 1e-9*math.Max(1, math.Abs(fb))
	}
	return a == b
}
