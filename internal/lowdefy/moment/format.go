package moment

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// DefaultFormat is moment.defaultFormat, used when the layout is empty.
const DefaultFormat = "YYYY-MM-DDTHH:mm:ssZ"

// longFormats are the 'en' locale long date formats. The table is built on first use.
var longFormats = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"LTS": "h:mm:ss A", "LT": "h:mm A", "L": "MM/DD/YYYY", "LL": "MMMM D, YYYY",
		"LLL": "MMMM D, YYYY h:mm A", "LLLL": "dddd, MMMM D, YYYY h:mm A",
		"l": "M/D/YYYY", "ll": "MMM D, YYYY", "lll": "MMM D, YYYY h:mm A", "llll": "ddd, MMM D, YYYY h:mm A",
	}
}}

var (
	longTokenRe = lazy.Regexp{Expr: `(\[[^\[]*\])|(\\)?(LTS|LT|LL?L?L?|l{1,4})`}
	formatRe    = lazy.Regexp{Expr: `(\[[^\[]*\])|(\\)?([Hh]mm(ss)?|Mo|MM?M?M?|Do|DDDo|DD?D?D?|ddd?d?|do?|w[o|w]?|W[o|W]?|Qo?|N{1,5}|YYYYYY|YYYYY|YYYY|YY|y{2,4}|yo?|gg(ggg?)?|GG(GGG?)?|e|E|a|A|hh?|HH?|kk?|mm?|ss?|S{1,9}|x|X|zz?|ZZ?|(?s:.))`}
)

var (
	monthsLong  = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	monthsShort = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	daysLong    = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	daysShort   = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	daysMin     = []string{"Su", "Mo", "Tu", "We", "Th", "Fr", "Sa"}
)

// Ordinal is the 'en' locale ordinal: 1st, 2nd, 3rd, 4th, 11th, 21st.
func Ordinal(n int) string {
	b := n % 10
	suffix := "th"
	if (n%100)/10 != 1 {
		switch b {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}

func zeroFill(n, width int, forceSign bool) string {
	abs := n
	sign := ""
	if n < 0 {
		abs, sign = -n, "-"
	} else if forceSign {
		sign = "+"
	}
	s := strconv.Itoa(abs)
	for len(s) < width {
		s = "0" + s
	}
	return sign + s
}

// expandLong replaces the locale tokens (LT, L, LL, …) by their formats.
func expandLong(layout string) string {
	for i := 0; i < 5 && longTokenRe.Get().MatchString(layout); i++ {
		next := longTokenRe.Get().ReplaceAllStringFunc(layout, func(m string) string {
			if strings.HasPrefix(m, "[") || strings.HasPrefix(m, "\\") {
				return m
			}
			return longFormats.Get()[m]
		})
		if next == layout {
			break
		}
		layout = next
	}
	return layout
}

// layoutCache keeps tokenized layouts (bounded: cleared past 1024 entries).
var (
	layoutCache     sync.Map
	layoutCacheSize atomic.Int64
)

// layoutTokens expands and tokenizes a layout, cached.
func layoutTokens(layout string) [][]string {
	if v, ok := layoutCache.Load(layout); ok {
		return v.([][]string)
	}
	toks := formatRe.Get().FindAllStringSubmatch(expandLong(layout), -1)
	if layoutCacheSize.Add(1) > 1024 {
		layoutCache.Clear()
		layoutCacheSize.Store(0)
	}
	layoutCache.Store(layout, toks)
	return toks
}

// Format formats t with moment.js format tokens in the 'en' locale, in t's
// own location ("local mode" in moment terms). An empty layout means
// DefaultFormat. Text in [brackets] is literal; unknown characters pass through.
func Format(t time.Time, layout string) string {
	if layout == "" {
		layout = DefaultFormat
	}
	var b strings.Builder
	for _, m := range layoutTokens(layout) {
		tok := m[0]
		switch {
		case m[1] != "":
			b.WriteString(tok[1 : len(tok)-1])
		case m[2] != "":
			b.WriteString(tok[1:])
		default:
			if s, ok := formatToken(t, tok); ok {
				b.WriteString(s)
			} else {
				b.WriteString(strings.ReplaceAll(tok, "\\", ""))
			}
		}
	}
	return b.String()
}

func formatToken(t time.Time, tok string) (string, bool) {
	y, mo, d := t.Date()
	m := int(mo)
	h, mi, s := t.Clock()
	ms := t.Nanosecond() / 1e6
	wd := int(t.Weekday())
	switch tok {
	case "M":
		return strconv.Itoa(m), true
	case "Mo":
		return Ordinal(m), true
	case "MM":
		return zeroFill(m, 2, false), true
	case "MMM":
		return monthsShort[m-1], true
	case "MMMM":
		return monthsLong[m-1], true
	case "Q":
		return strconv.Itoa((m-1)/3 + 1), true
	case "Qo":
		return Ordinal((m-1)/3 + 1), true
	case "D":
		return strconv.Itoa(d), true
	case "Do":
		return Ordinal(d), true
	case "DD":
		return zeroFill(d, 2, false), true
	case "DDD":
		return strconv.Itoa(t.YearDay()), true
	case "DDDo":
		return Ordinal(t.YearDay()), true
	case "DDDD":
		return zeroFill(t.YearDay(), 3, false), true
	case "d", "e":
		return strconv.Itoa(wd), true
	case "do":
		return Ordinal(wd), true
	case "dd":
		return daysMin[wd], true
	case "ddd":
		return daysShort[wd], true
	case "dddd":
		return daysLong[wd], true
	case "E":
		return strconv.Itoa(isoWeekday(t)), true
	case "w":
		_, w := localeWeek(t)
		return strconv.Itoa(w), true
	case "wo":
		_, w := localeWeek(t)
		return Ordinal(w), true
	case "ww":
		_, w := localeWeek(t)
		return zeroFill(w, 2, false), true
	case "W":
		_, w := t.ISOWeek()
		return strconv.Itoa(w), true
	case "Wo":
		_, w := t.ISOWeek()
		return Ordinal(w), true
	case "WW":
		_, w := t.ISOWeek()
		return zeroFill(w, 2, false), true
	case "gg":
		wy, _ := localeWeek(t)
		return zeroFill(abs(wy)%100, 2, false), true
	case "gggg":
		wy, _ := localeWeek(t)
		return zeroFill(wy, 4, false), true
	case "ggggg":
		wy, _ := localeWeek(t)
		return zeroFill(wy, 5, false), true
	case "GG":
		wy, _ := t.ISOWeek()
		return zeroFill(abs(wy)%100, 2, false), true
	case "GGGG":
		wy, _ := t.ISOWeek()
		return zeroFill(wy, 4, false), true
	case "GGGGG":
		wy, _ := t.ISOWeek()
		return zeroFill(wy, 5, false), true
	case "Y":
		if y <= 9999 {
			return zeroFill(y, 4, false), true
		}
		return "+" + strconv.Itoa(y), true
	case "YY":
		return zeroFill(abs(y)%100, 2, false), true
	case "YYYY":
		return zeroFill(y, 4, false), true
	case "YYYYY":
		return zeroFill(y, 5, false), true
	case "YYYYYY":
		return zeroFill(y, 6, true), true
	case "y", "yy", "yyy", "yyyy":
		if y <= 0 {
			return strconv.Itoa(1 - y), true
		}
		return zeroFill(y, len(tok), false)[0:max(len(tok), len(strconv.Itoa(y)))], true
	case "yo":
		return Ordinal(y), true
	case "N", "NN", "NNN":
		if y <= 0 {
			return "BC", true
		}
		return "AD", true
	case "NNNN":
		if y <= 0 {
			return "Before Christ", true
		}
		return "Anno Domini", true
	case "NNNNN":
		if y <= 0 {
			return "BC", true
		}
		return "AD", true
	case "a":
		if h < 12 {
			return "am", true
		}
		return "pm", true
	case "A":
		if h < 12 {
			return "AM", true
		}
		return "PM", true
	case "H":
		return strconv.Itoa(h), true
	case "HH":
		return zeroFill(h, 2, false), true
	case "h":
		return strconv.Itoa(hour12(h)), true
	case "hh":
		return zeroFill(hour12(h), 2, false), true
	case "k":
		return strconv.Itoa(hour24(h)), true
	case "kk":
		return zeroFill(hour24(h), 2, false), true
	case "hmm":
		return strconv.Itoa(hour12(h)) + zeroFill(mi, 2, false), true
	case "hmmss":
		return strconv.Itoa(hour12(h)) + zeroFill(mi, 2, false) + zeroFill(s, 2, false), true
	case "Hmm":
		return strconv.Itoa(h) + zeroFill(mi, 2, false), true
	case "Hmmss":
		return strconv.Itoa(h) + zeroFill(mi, 2, false) + zeroFill(s, 2, false), true
	case "m":
		return strconv.Itoa(mi), true
	case "mm":
		return zeroFill(mi, 2, false), true
	case "s":
		return strconv.Itoa(s), true
	case "ss":
		return zeroFill(s, 2, false), true
	case "X":
		return strconv.FormatInt(int64(math.Floor(float64(t.UnixMilli())/1000)), 10), true
	case "x":
		return strconv.FormatInt(t.UnixMilli(), 10), true
	case "z", "zz":
		return "", true
	case "Z":
		return offset(t, ":"), true
	case "ZZ":
		return offset(t, ""), true
	}
	if tok[0] == 'S' && strings.Trim(tok, "S") == "" {
		switch n := len(tok); n {
		case 1:
			return strconv.Itoa(ms / 100), true
		case 2:
			return zeroFill(ms/10, 2, false), true
		default:
			return zeroFill(ms, 3, false) + strings.Repeat("0", n-3), true
		}
	}
	return "", false
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func hour12(h int) int {
	if h%12 == 0 {
		return 12
	}
	return h % 12
}

func hour24(h int) int {
	if h == 0 {
		return 24
	}
	return h
}

func isoWeekday(t time.Time) int {
	if wd := int(t.Weekday()); wd != 0 {
		return wd
	}
	return 7
}

func offset(t time.Time, sep string) string {
	_, off := t.Zone()
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	off /= 60
	return fmt.Sprintf("%s%02d%s%02d", sign, off/60, sep, off%60)
}

// localeWeek returns the 'en' locale week-year and week (weeks start on
// Sunday; the week containing January 1st is week 1).
func localeWeek(t time.Time) (int, int) {
	y := t.Year()
	start := func(year int) time.Time {
		jan1 := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC)
		return jan1.AddDate(0, 0, -int(jan1.Weekday()))
	}
	day := time.Date(y, t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	if next := start(y + 1); !day.Before(next) {
		return y + 1, 1
	}
	s := start(y)
	return y, int(day.Sub(s).Hours()/24)/7 + 1
}
