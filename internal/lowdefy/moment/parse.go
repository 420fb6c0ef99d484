package moment

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// parseTokenRe and tokenPatterns are built on first use: most processes never parse a date
// with a moment format.
var parseTokenRe = lazy.Regexp{Expr: `(\[[^\[]*\])|(\\)?(YYYYYY|YYYYY|YYYY|YY|Y|MMMM|MMM|MM|Mo|M|DDDD|DDDo|DDD|Do|DD|D|dddd|ddd|dd|d|HH?|hh?|kk?|mm?|ss?|S{1,9}|a|A|ZZ?|X|x|(?s:.))`}

var tokenPatterns = lazy.Value[map[string]*regexp.Regexp]{New: func() map[string]*regexp.Regexp {
	m := map[string]*regexp.Regexp{}
	for _, tok := range []string{"YYYY", "YYYYY", "YYYYYY", "Y", "YY", "M", "MM", "D", "DD", "H", "HH", "h", "hh", "k", "kk",
		"m", "mm", "s", "ss", "DDD", "DDDD", "Do", "Mo", "DDDo", "MMM", "MMMM", "d", "dd", "ddd", "dddd", "a", "A", "Z", "ZZ", "X", "x"} {
		m[tok] = tokPattern(tok)
	}
	for n := 1; n <= 9; n++ {
		m[strings.Repeat("S", n)] = tokPattern("S")
	}
	return m
}}

func tokPattern(tok string) *regexp.Regexp {
	switch tok {
	case "YYYY":
		return regexp.MustCompile(`^.*?([+-]?\d{1,4})`)
	case "YYYYY", "YYYYYY", "Y":
		return regexp.MustCompile(`^.*?([+-]?\d{1,6})`)
	case "YY", "M", "MM", "D", "DD", "H", "HH", "h", "hh", "k", "kk", "m", "mm", "s", "ss":
		return regexp.MustCompile(`^.*?(\d\d?)`)
	case "DDD", "DDDD":
		return regexp.MustCompile(`^.*?(\d{1,3})`)
	case "Do", "Mo", "DDDo":
		return regexp.MustCompile(`^.*?(\d{1,3})(?:st|nd|rd|th)?`)
	case "MMM", "MMMM":
		return regexp.MustCompile(`(?i)^.*?(January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\.?`)
	case "d", "dd", "ddd", "dddd":
		return regexp.MustCompile(`(?i)^.*?(Sunday|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sun|Mon|Tue|Wed|Thu|Fri|Sat|Su|Mo|Tu|We|Th|Fr|Sa|\d)`)
	case "a", "A":
		return regexp.MustCompile(`(?i)^.*?([ap]\.?m?\.?)`)
	case "Z", "ZZ":
		return regexp.MustCompile(`(?i)^.*?(Z|[+-]\d\d:?\d\d)`)
	case "X":
		return regexp.MustCompile(`^.*?([+-]?\d+(?:\.\d{1,3})?)`)
	case "x":
		return regexp.MustCompile(`^.*?([+-]?\d+)`)
	}
	if strings.Trim(tok, "S") == "" {
		return regexp.MustCompile(`^.*?(\d+)`)
	}
	return nil
}

func parseFormat(s, layout string) (time.Time, error) {
	const unset = -1 << 31
	year, month, day, hour, minute, second, milli := unset, unset, unset, 0, 0, 0, 0
	doy := unset
	pm, hasMeridiem := false, false
	var loc *time.Location = time.UTC
	var unixMs *int64
	rest := s
	matched := 0
	for _, m := range parseTokenRe.Get().FindAllStringSubmatch(layout, -1) {
		tok := m[0]
		if m[1] != "" || m[2] != "" || tokenPatterns.Get()[tok] == nil {
			lit := tok
			if m[1] != "" {
				lit = tok[1 : len(tok)-1]
			} else if m[2] != "" {
				lit = tok[1:]
			}
			if i := strings.Index(rest, lit); i >= 0 {
				rest = rest[i+len(lit):]
			}
			continue
		}
		sm := tokenPatterns.Get()[tok].FindStringSubmatch(rest)
		if sm == nil {
			continue
		}
		rest = rest[len(sm[0]):]
		v := sm[1]
		matched++
		switch tok {
		case "YYYY", "YYYYY", "YYYYYY", "Y":
			year = parseInt(v)
		case "YY":
			y := parseInt(v)
			if y > 68 {
				year = 1900 + y
			} else {
				year = 2000 + y
			}
		case "M", "MM", "Mo":
			month = parseInt(v)
		case "MMM", "MMMM":
			lv := strings.ToLower(v)
			for i, name := range monthsLong {
				if strings.HasPrefix(strings.ToLower(name), lv[:3]) {
					month = i + 1
				}
			}
		case "D", "DD", "Do":
			day = parseInt(v)
		case "DDD", "DDDD", "DDDo":
			doy = parseInt(v)
		case "H", "HH", "k", "kk":
			hour = parseInt(v)
			if hour == 24 {
				hour = 0
			}
		case "h", "hh":
			hour = parseInt(v)
		case "m", "mm":
			minute = parseInt(v)
		case "s", "ss":
			second = parseInt(v)
		case "a", "A":
			hasMeridiem = true
			pm = strings.HasPrefix(strings.ToLower(v), "p")
		case "Z", "ZZ":
			if strings.EqualFold(v, "Z") {
				loc = time.UTC
			} else {
				sign := 1
				if v[0] == '-' {
					sign = -1
				}
				digits := strings.ReplaceAll(v[1:], ":", "")
				off := (parseInt(digits[:2])*60 + parseInt(digits[2:])) * 60 * sign
				loc = time.FixedZone("", off)
			}
		case "X":
			var f float64
			fmt.Sscan(v, &f)
			ms := int64(f * 1000)
			unixMs = &ms
		case "x":
			var n int64
			fmt.Sscan(v, &n)
			unixMs = &n
		default: // S…
			for len(v) < 3 {
				v += "0"
			}
			milli = parseInt(v[:3])
		}
	}
	if unixMs != nil {
		return time.UnixMilli(*unixMs).UTC(), nil
	}
	if matched == 0 {
		return time.Time{}, fmt.Errorf("moment: %q does not match format %q", s, layout)
	}
	if hasMeridiem {
		if pm && hour < 12 {
			hour += 12
		} else if !pm && hour == 12 {
			hour = 0
		}
	}
	now := time.Now().In(loc)
	if year == unset {
		year = now.Year()
		if month == unset {
			month = int(now.Month())
			if day == unset {
				day = now.Day()
			}
		}
	}
	if month == unset {
		month = 1
	}
	if day == unset {
		day = 1
	}
	if doy != unset {
		month, day = 1, doy
	}
	if month < 1 || month > 12 || day < 1 || (doy == unset && day > daysIn(year, time.Month(month))) || hour > 23 || minute > 59 || second > 59 {
		return time.Time{}, fmt.Errorf("moment: %q is not a valid date for format %q", s, layout)
	}
	return time.Date(year, time.Month(month), day, hour, minute, second, milli*1e6, loc), nil
}
