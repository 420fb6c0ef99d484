package moment

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// Duration is a moment duration: milliseconds, days and months are kept
// apart, as moment does, because days and months have no fixed length.
type Duration struct {
	Milliseconds float64
	Days         float64
	Months       float64
}

// DurationOf returns a duration of ms milliseconds.
func DurationOf(ms float64) Duration { return Duration{Milliseconds: ms} }

var (
	aspNetRe = lazy.Regexp{Expr: `^(-|\+)?(?:(\d*)[. ])?(\d+):(\d+)(?::(\d+)(\.\d*)?)?$`}
	isoDurRe = lazy.Regexp{Expr: `^(-|\+)?P(?:([-+]?[0-9,.]*)Y)?(?:([-+]?[0-9,.]*)M)?(?:([-+]?[0-9,.]*)W)?(?:([-+]?[0-9,.]*)D)?(?:T(?:([-+]?[0-9,.]*)H)?(?:([-+]?[0-9,.]*)M)?(?:([-+]?[0-9,.]*)S)?)?$`}
)

// DurationFromValue builds a duration like moment.duration(v): numbers (and
// numeric strings) are milliseconds, "d.hh:mm:ss.fff" and ISO 8601 ("P1DT2H")
// strings, and objects with unit keys ({days: 2, hours: 3}).
func DurationFromValue(v any) (Duration, error) {
	switch x := jsvalue.FromGo(v).(type) {
	case nil:
		return Duration{}, nil
	case float64:
		return DurationOf(x), nil
	case int:
		return DurationOf(float64(x)), nil
	case int64:
		return DurationOf(float64(x)), nil
	case string:
		s := strings.TrimSpace(x)
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return DurationOf(f), nil
		}
		if m := aspNetRe.Get().FindStringSubmatch(s); m != nil {
			sign := 1.0
			if m[1] == "-" {
				sign = -1
			}
			num := func(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }
			frac := 0.0
			if m[6] != "" {
				frac = math.Round(num("0"+m[6]) * 1000)
			}
			return Duration{
				Days:         sign * num(m[2]),
				Milliseconds: sign * (num(m[3])*36e5 + num(m[4])*6e4 + num(m[5])*1e3 + frac),
			}, nil
		}
		if m := isoDurRe.Get().FindStringSubmatch(s); m != nil && s != "P" {
			sign := 1.0
			if m[1] == "-" {
				sign = -1
			}
			num := func(s string) float64 {
				f, _ := strconv.ParseFloat(strings.ReplaceAll(s, ",", "."), 64)
				return f * sign
			}
			return Duration{
				Months:       num(m[2])*12 + num(m[3]),
				Days:         num(m[4])*7 + num(m[5]),
				Milliseconds: num(m[6])*36e5 + num(m[7])*6e4 + num(m[8])*1e3,
			}, nil
		}
		return Duration{}, fmt.Errorf("moment: invalid duration %q", x)
	case *jsvalue.Object:
		var d Duration
		for k, val := range x.Range {
			f, ok := val.(float64)
			if !ok {
				continue
			}
			switch NormalizeUnit(k) {
			case "year":
				d.Months += 12 * f
			case "quarter":
				d.Months += 3 * f
			case "month":
				d.Months += f
			case "week", "isoWeek":
				d.Days += 7 * f
			case "day", "date":
				d.Days += f
			case "hour":
				d.Milliseconds += f * 36e5
			case "minute":
				d.Milliseconds += f * 6e4
			case "second":
				d.Milliseconds += f * 1e3
			case "millisecond":
				d.Milliseconds += f
			}
		}
		return d, nil
	}
	return Duration{}, fmt.Errorf("moment: cannot make a duration from %T", v)
}

// As returns the duration in unit, as moment's duration.as(unit).
func (d Duration) As(unit string) float64 {
	switch u := NormalizeUnit(unit); u {
	case "month", "quarter", "year":
		days := d.Days + d.Milliseconds/864e5
		months := d.Months + days*4800/146097
		switch u {
		case "month":
			return months
		case "quarter":
			return months / 3
		default:
			return months / 12
		}
	default:
		days := d.Days + math.Round(d.Months*146097/4800)
		switch u {
		case "week", "isoWeek":
			return days/7 + d.Milliseconds/6048e5
		case "day", "date":
			return days + d.Milliseconds/864e5
		case "hour":
			return days*24 + d.Milliseconds/36e5
		case "minute":
			return days*1440 + d.Milliseconds/6e4
		case "second":
			return days*86400 + d.Milliseconds/1000
		default:
			return math.Floor(days*864e5) + d.Milliseconds
		}
	}
}

// valueOf is moment's duration valueOf (milliseconds).
func (d Duration) valueOf() float64 {
	return d.Milliseconds + d.Days*864e5 + math.Mod(d.Months, 12)*2592e6 + math.Trunc(d.Months/12)*31536e6
}

// DefaultThresholds are moment's relative-time thresholds. The table is built on first use.
var DefaultThresholds = lazy.Value[map[string]float64]{New: func() map[string]float64 {
	return map[string]float64{"ss": 44, "s": 45, "m": 45, "h": 22, "d": 26, "M": 11}
}}

var relTime = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"s": "a few seconds", "ss": "%d seconds", "m": "a minute", "mm": "%d minutes", "h": "an hour",
		"hh": "%d hours", "d": "a day", "dd": "%d days", "w": "a week", "ww": "%d weeks", "M": "a month",
		"MM": "%d months", "y": "a year", "yy": "%d years",
	}
}}

// jsRound is Math.round.
func jsRound(f float64) float64 { return math.Floor(f + 0.5) }

// Humanize is moment's duration.humanize(withSuffix, thresholds) in 'en'.
// thresholds may override ss, s, m, h, d, w, M (w unset = no weeks); setting
// s without ss sets ss to s-1, as moment does.
func Humanize(d Duration, withSuffix bool, thresholds map[string]float64) string {
	th := map[string]float64{}
	for k, v := range DefaultThresholds.Get() {
		th[k] = v
	}
	_, hasW := thresholds["w"]
	for k, v := range thresholds {
		th[k] = v
	}
	if _, ok := thresholds["s"]; ok {
		if _, ok2 := thresholds["ss"]; !ok2 {
			th["ss"] = thresholds["s"] - 1
		}
	}
	a := Duration{math.Abs(d.Milliseconds), math.Abs(d.Days), math.Abs(d.Months)}
	seconds := jsRound(a.As("s"))
	minutes := jsRound(a.As("m"))
	hours := jsRound(a.As("h"))
	days := jsRound(a.As("d"))
	months := jsRound(a.As("M"))
	weeks := jsRound(a.As("w"))
	years := jsRound(a.As("y"))
	var key string
	var n float64
	switch {
	case seconds <= th["ss"]:
		key, n = "s", seconds
	case seconds < th["s"]:
		key, n = "ss", seconds
	case minutes <= 1:
		key = "m"
	case minutes < th["m"]:
		key, n = "mm", minutes
	case hours <= 1:
		key = "h"
	case hours < th["h"]:
		key, n = "hh", hours
	case days <= 1:
		key = "d"
	case days < th["d"]:
		key, n = "dd", days
	}
	if key == "" && hasW {
		switch {
		case weeks <= 1:
			key = "w"
		case weeks < th["w"]:
			key, n = "ww", weeks
		}
	}
	if key == "" {
		switch {
		case months <= 1:
			key = "M"
		case months < th["M"]:
			key, n = "MM", months
		case years <= 1:
			key = "y"
		default:
			key, n = "yy", years
		}
	}
	out := relTime.Get()[key]
	if strings.Contains(out, "%d") {
		out = strings.Replace(out, "%d", strconv.FormatFloat(n, 'f', -1, 64), 1)
	}
	if withSuffix {
		if d.valueOf() > 0 {
			return "in " + out
		}
		return out + " ago"
	}
	return out
}
