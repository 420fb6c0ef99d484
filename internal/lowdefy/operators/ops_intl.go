package operators

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// _intl is a native subset of ECMA-402 (Go has no ICU): English formats
// (en, en-US; other "en-*" locales format like en-US), plus number formats for
// de and fr. See docs/lowdefy-operators.md for the supported options.

var intlMeta = lazy.Value[map[string]*method]{New: func() map[string]*method {
	return map[string]*method{
		"dateTimeFormat":     named(arrObj, "on", "options", "locale"),
		"listFormat":         named(arrObj, "on", "options", "locale"),
		"numberFormat":       named(arrObj, "on", "options", "locale"),
		"relativeTimeFormat": named(arrObj, "on", "unit", "options", "locale"),
	}
}}

var intlFuncs = lazy.Value[map[string]classFunc]{New: func() map[string]classFunc {
	return map[string]classFunc{
		"numberFormat": func(c *call, args []any) (any, error) {
			opts, _ := arg(args, 1).(*jsvalue.Object)
			return formatNumber(jsvalue.ToNumber(arg(args, 0)), opts, arg(args, 2))
		},
		"dateTimeFormat": func(c *call, args []any) (any, error) {
			opts, _ := arg(args, 1).(*jsvalue.Object)
			var t time.Time
			switch v := arg(args, 0).(type) {
			case time.Time:
				t = v
			default:
				if jsvalue.IsUndefined(v) {
					t = c.ctx().now()
				} else {
					n := jsvalue.ToNumber(v)
					d, ok := serial.NewDate(n)
					if !ok {
						return nil, fmt.Errorf("RangeError: Invalid time value")
					}
					t = d
				}
			}
			return formatDateTime(t, opts, arg(args, 2))
		},
		"listFormat": func(c *call, args []any) (any, error) {
			opts, _ := arg(args, 1).(*jsvalue.Object)
			return formatList(arg(args, 0), opts)
		},
		"relativeTimeFormat": func(c *call, args []any) (any, error) {
			opts, _ := arg(args, 2).(*jsvalue.Object)
			return formatRelative(jsvalue.ToNumber(arg(args, 0)), arg(args, 1), opts)
		},
	}
}}

func opIntl(c *call) (any, error) { return runClass(c, intlMeta.Get(), intlFuncs.Get(), "") }

func localeOf(locale any) string {
	switch l := locale.(type) {
	case string:
		return strings.ToLower(l)
	case []any:
		if len(l) > 0 {
			return localeOf(l[0])
		}
	}
	return "en-us"
}

func numberSymbols(locale any) (dec, group string, after bool) {
	l := localeOf(locale)
	switch {
	case strings.HasPrefix(l, "de"):
		return ",", ".", true
	case strings.HasPrefix(l, "fr"):
		return ",", "\u202f", true
	}
	return ".", ",", false
}

var currencySymbols = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "INR": "₹", "CNY": "CN¥", "CAD": "CA$", "AUD": "A$", "ZAR": "ZAR"}
}}
var currencyDigits = lazy.Value[map[string]int]{New: func() map[string]int {
	return map[string]int{"JPY": 0, "KRW": 0}
}}

func optInt(opts *jsvalue.Object, key string, def, lo, hi int) (int, error) {
	v, ok := opts.Get(key)
	if !ok || jsvalue.IsUndefined(v) {
		return def, nil
	}
	n := jsvalue.ToNumber(v)
	if math.IsNaN(n) || n < float64(lo) || n > float64(hi) {
		return 0, fmt.Errorf("RangeError: %s value is out of range.", key)
	}
	return int(math.Floor(n)), nil
}

func optString(opts *jsvalue.Object, key, def string) string {
	if v, ok := opts.Get(key); ok && !jsvalue.IsUndefined(v) {
		return jsvalue.ToString(v)
	}
	return def
}

// formatNumber is new Intl.NumberFormat(locale, options).format(n).
func formatNumber(n float64, opts *jsvalue.Object, locale any) (any, error) {
	style := optString(opts, "style", "decimal")
	minFrac, maxFrac := 0, 3
	currency := strings.ToUpper(optString(opts, "currency", ""))
	switch style {
	case "percent":
		n *= 100
		maxFrac = 0
	case "currency":
		if currency == "" {
			return nil, fmt.Errorf("TypeError: Currency code is required with currency style.")
		}
		d, ok := currencyDigits.Get()[currency]
		if !ok {
			d = 2
		}
		minFrac, maxFrac = d, d
	case "decimal", "unit":
	default:
		return nil, fmt.Errorf("RangeError: Value %s out of range for Intl.NumberFormat options property style", style)
	}
	var err error
	hasMin := opts.Has("minimumFractionDigits")
	hasMax := opts.Has("maximumFractionDigits")
	if minFrac, err = optInt(opts, "minimumFractionDigits", minFrac, 0, 20); err != nil {
		return nil, err
	}
	if hasMin && !hasMax && maxFrac < minFrac {
		maxFrac = minFrac
	}
	if maxFrac, err = optInt(opts, "maximumFractionDigits", maxFrac, 0, 20); err != nil {
		return nil, err
	}
	if hasMax && !hasMin && minFrac > maxFrac {
		minFrac = maxFrac
	}
	if minFrac > maxFrac {
		return nil, fmt.Errorf("RangeError: maximumFractionDigits value is out of range.")
	}
	minInt, err := optInt(opts, "minimumIntegerDigits", 1, 1, 21)
	if err != nil {
		return nil, err
	}
	grouping := true
	if g, ok := opts.Get("useGrouping"); ok && !jsvalue.IsUndefined(g) {
		grouping = jsvalue.Truthy(g)
	}
	dec, group, after := numberSymbols(locale)
	var body string
	neg := n < 0 || (n == 0 && math.Signbit(n))
	switch {
	case math.IsNaN(n):
		body, neg = "NaN", false
	case math.IsInf(n, 0):
		body = "∞"
	default:
		body = formatFixed(math.Abs(n), minFrac, maxFrac, minInt, dec, group, grouping)
	}
	sign := ""
	if neg {
		sign = "-"
	}
	switch style {
	case "percent":
		if after {
			return sign + body + "\u00a0%", nil
		}
		return sign + body + "%", nil
	case "currency":
		display := optString(opts, "currencyDisplay", "symbol")
		sym, ok := currencySymbols.Get()[currency]
		if display == "code" || !ok {
			sym = currency
		}
		if after {
			return sign + body + "\u00a0" + sym, nil
		}
		if len(sym) == 3 && sym == currency {
			return sign + sym + "\u00a0" + body, nil
		}
		return sign + sym + body, nil
	}
	return sign + body, nil
}

// formatFixed rounds x (≥ 0) half away from zero to at most maxFrac digits,
// keeps at least minFrac, and groups the integer part by thousands.
func formatFixed(x float64, minFrac, maxFrac, minInt int, dec, group string, grouping bool) string {
	intPart, frac := roundDecimal(x, maxFrac)
	for len(frac) > minFrac && strings.HasSuffix(frac, "0") {
		frac = frac[:len(frac)-1]
	}
	for len(frac) < minFrac {
		frac += "0"
	}
	for len(intPart) < minInt {
		intPart = "0" + intPart
	}
	if grouping && len(intPart) > 3 {
		var b strings.Builder
		lead := len(intPart) % 3
		if lead > 0 {
			b.WriteString(intPart[:lead])
		}
		for i := lead; i < len(intPart); i += 3 {
			if b.Len() > 0 {
				b.WriteString(group)
			}
			b.WriteString(intPart[i : i+3])
		}
		intPart = b.String()
	}
	if frac == "" {
		return intPart
	}
	return intPart + dec + frac
}

// formatList is Intl.ListFormat (English).
func formatList(on any, opts *jsvalue.Object) (any, error) {
	list, ok := on.([]any)
	if s, isStr := on.(string); isStr {
		for _, r := range s {
			list = append(list, string(r))
		}
		ok = true
	}
	if !ok {
		if jsvalue.IsUndefined(on) {
			list = nil
		} else {
			return nil, fmt.Errorf("TypeError: %s is not iterable", jsvalue.ToString(on))
		}
	}
	items := make([]string, len(list))
	for i, v := range list {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("TypeError: Iterable yielded %s which is not a string", jsvalue.ToString(v))
		}
		items[i] = s
	}
	typ := optString(opts, "type", "conjunction")
	style := optString(opts, "style", "long")
	word := " and "
	last := ", and "
	switch typ {
	case "disjunction":
		word, last = " or ", ", or "
	case "unit":
		word, last = ", ", ", "
		if style == "narrow" {
			word, last = " ", " "
		}
	case "conjunction":
		if style == "short" {
			word, last = " & ", ", & "
		} else if style == "narrow" {
			word, last = ", ", ", "
		}
	default:
		return nil, fmt.Errorf("RangeError: Value %s out of range for Intl.ListFormat options property type", typ)
	}
	switch len(items) {
	case 0:
		return "", nil
	case 1:
		return items[0], nil
	case 2:
		return items[0] + word + items[1], nil
	}
	return strings.Join(items[:len(items)-1], ", ") + last + items[len(items)-1], nil
}

var relativeUnits = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"year": "year", "years": "year", "quarter": "quarter", "quarters": "quarter", "month": "month", "months": "month",
		"week": "week", "weeks": "week", "day": "day", "days": "day", "hour": "hour", "hours": "hour",
		"minute": "minute", "minutes": "minute", "second": "second", "seconds": "second",
	}
}}

var relativeAuto = lazy.Value[map[string][3]string]{New: func() map[string][3]string {
	return map[string][3]string{
		"year":    {"last year", "this year", "next year"},
		"quarter": {"last quarter", "this quarter", "next quarter"},
		"month":   {"last month", "this month", "next month"},
		"week":    {"last week", "this week", "next week"},
		"day":     {"yesterday", "today", "tomorrow"},
	}
}}

// formatRelative is Intl.RelativeTimeFormat (English, long style).
func formatRelative(v float64, unitV any, opts *jsvalue.Object) (any, error) {
	unit, ok := relativeUnits.Get()[jsvalue.ToString(unitV)]
	if !ok {
		return nil, fmt.Errorf("RangeError: Invalid unit argument for format() '%s'", jsvalue.ToString(unitV))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, fmt.Errorf("RangeError: Invalid number value")
	}
	if optString(opts, "numeric", "always") == "auto" {
		if words, ok := relativeAuto.Get()[unit]; ok && (v == -1 || v == 0 || v == 1) {
			return words[int(v)+1], nil
		}
		if v == 0 {
			switch unit {
			case "hour":
				return "this hour", nil
			case "minute":
				return "this minute", nil
			case "second":
				return "now", nil
			}
		}
	}
	abs := math.Abs(v)
	num := formatFixed(abs, 0, 3, 1, ".", ",", true)
	name := unit
	if num != "1" {
		name += "s"
	}
	if v < 0 || (v == 0 && math.Signbit(v)) {
		return num + " " + name + " ago", nil
	}
	return "in " + num + " " + name, nil
}

var (
	longMonths  = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	longWeekday = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
)

// formatDateTime is Intl.DateTimeFormat('en-US', options).format(t).
func formatDateTime(t time.Time, opts *jsvalue.Object, locale any) (any, error) {
	loc := time.Local
	if tz := optString(opts, "timeZone", ""); tz != "" {
		l, err := time.LoadLocation(tz)
		if err != nil {
			return nil, fmt.Errorf("RangeError: Invalid time zone specified: %s", tz)
		}
		loc = l
	}
	t = t.In(loc)
	dateStyle, timeStyle := optString(opts, "dateStyle", ""), optString(opts, "timeStyle", "")
	if dateStyle != "" || timeStyle != "" {
		var date, clock string
		switch dateStyle {
		case "full":
			date = longWeekday[t.Weekday()] + ", " + longMonths[t.Month()-1] + " " + strconv.Itoa(t.Day()) + ", " + strconv.Itoa(t.Year())
		case "long":
			date = longMonths[t.Month()-1] + " " + strconv.Itoa(t.Day()) + ", " + strconv.Itoa(t.Year())
		case "medium":
			date = longMonths[t.Month()-1][:3] + " " + strconv.Itoa(t.Day()) + ", " + strconv.Itoa(t.Year())
		case "short":
			date = fmt.Sprintf("%d/%d/%02d", t.Month(), t.Day(), t.Year()%100)
		case "":
		default:
			return nil, fmt.Errorf("RangeError: Value %s out of range for Intl.DateTimeFormat options property dateStyle", dateStyle)
		}
		switch timeStyle {
		case "full":
			clock = clock12(t, true) + " " + jsvalue.ZoneName(t)
		case "long":
			name, _ := t.Zone()
			clock = clock12(t, true) + " " + name
		case "medium":
			clock = clock12(t, true)
		case "short":
			clock = clock12(t, false)
		case "":
		default:
			return nil, fmt.Errorf("RangeError: Value %s out of range for Intl.DateTimeFormat options property timeStyle", timeStyle)
		}
		switch {
		case date == "":
			return clock, nil
		case clock == "":
			return date, nil
		case dateStyle == "full" || dateStyle == "long":
			return date + " at " + clock, nil
		}
		return date + ", " + clock, nil
	}
	year, month, day := optString(opts, "year", ""), optString(opts, "month", ""), optString(opts, "day", "")
	weekday := optString(opts, "weekday", "")
	hour, minute, second := optString(opts, "hour", ""), optString(opts, "minute", ""), optString(opts, "second", "")
	if year == "" && month == "" && day == "" && weekday == "" && hour == "" && minute == "" && second == "" {
		if s, ok := localNumericDate(t, localeOf(locale)); ok {
			return s, nil
		}
		year, month, day = "numeric", "numeric", "numeric"
	}
	var parts []string
	if year != "" || month != "" || day != "" || weekday != "" {
		parts = append(parts, formatDatePart(t, weekday, year, month, day))
	}
	if hour != "" || minute != "" || second != "" {
		h12 := true
		if v, ok := opts.Get("hour12"); ok && !jsvalue.IsUndefined(v) {
			h12 = jsvalue.Truthy(v)
		}
		parts = append(parts, formatTimePart(t, hour, minute, second, h12))
	}
	return strings.Join(parts, ", "), nil
}

func clock12(t time.Time, seconds bool) string {
	h := t.Hour() % 12
	if h == 0 {
		h = 12
	}
	ampm := "AM"
	if t.Hour() >= 12 {
		ampm = "PM"
	}
	if seconds {
		return fmt.Sprintf("%d:%02d:%02d %s", h, t.Minute(), t.Second(), ampm)
	}
	return fmt.Sprintf("%d:%02d %s", h, t.Minute(), ampm)
}

func numPart(v int, style string) string {
	if style == "2-digit" {
		return fmt.Sprintf("%02d", v%100)
	}
	return strconv.Itoa(v)
}

func formatDatePart(t time.Time, weekday, year, month, day string) string {
	wd := ""
	switch weekday {
	case "long":
		wd = longWeekday[t.Weekday()]
	case "short":
		wd = longWeekday[t.Weekday()][:3]
	case "narrow":
		wd = longWeekday[t.Weekday()][:1]
	}
	y := ""
	if year != "" {
		y = numPart(t.Year(), year)
	}
	switch month {
	case "long", "short", "narrow":
		m := longMonths[t.Month()-1]
		if month == "short" {
			m = m[:3]
		} else if month == "narrow" {
			m = m[:1]
		}
		s := m
		if day != "" {
			s += " " + numPart(t.Day(), day)
		}
		if y != "" {
			if day != "" {
				s += ", " + y
			} else {
				s += " " + y
			}
		}
		if wd != "" {
			s = wd + ", " + s
		}
		return s
	}
	var fields []string
	if month != "" {
		fields = append(fields, numPart(int(t.Month()), month))
	}
	if day != "" {
		fields = append(fields, numPart(t.Day(), day))
	}
	if y != "" {
		fields = append(fields, y)
	}
	s := strings.Join(fields, "/")
	if wd != "" {
		if s == "" {
			return wd
		}
		return wd + ", " + s
	}
	return s
}

func formatTimePart(t time.Time, hour, minute, second string, h12 bool) string {
	var s string
	h := t.Hour()
	if h12 {
		h = h % 12
		if h == 0 {
			h = 12
		}
	}
	hs := strconv.Itoa(h)
	if hour == "2-digit" || !h12 {
		hs = fmt.Sprintf("%02d", h)
	}
	switch {
	case hour != "" && minute == "" && second == "":
		s = hs
	case hour != "":
		s = hs + fmt.Sprintf(":%02d", t.Minute())
		if second != "" {
			s += fmt.Sprintf(":%02d", t.Second())
		}
	case minute != "" && second != "":
		s = fmt.Sprintf("%02d:%02d", t.Minute(), t.Second())
	case minute != "":
		return strconv.Itoa(t.Minute())
	default:
		return strconv.Itoa(t.Second())
	}
	if h12 && hour != "" {
		if t.Hour() >= 12 {
			s += " PM"
		} else {
			s += " AM"
		}
	}
	return s
}

// roundDecimal rounds x (>= 0) half away from zero to maxFrac fraction
// digits, working on the shortest decimal representation of x as ICU does
// (so 1.005 rounds to 1.01). It returns the integer and fraction digits.
func roundDecimal(x float64, maxFrac int) (string, string) {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	if len(frac) <= maxFrac {
		return intPart, frac
	}
	roundUp := frac[maxFrac] >= '5'
	digits := []byte(intPart + frac[:maxFrac])
	if roundUp {
		i := len(digits) - 1
		for ; i >= 0; i-- {
			if digits[i] == '9' {
				digits[i] = '0'
				continue
			}
			digits[i]++
			break
		}
		if i < 0 {
			digits = append([]byte{'1'}, digits...)
		}
	}
	n := len(digits) - maxFrac
	return string(digits[:n]), string(digits[n:])
}

// numericDate is the default (numeric) date pattern of a locale.
type numericDate struct {
	order          string // "DMY" or "YMD"
	sep            string
	padDay, padMon bool
	suffix         string
}

var numericDates = lazy.Value[map[string]numericDate]{New: func() map[string]numericDate {
	return map[string]numericDate{
		"en-gb": {"DMY", "/", true, true, ""}, "en-au": {"DMY", "/", true, true, ""}, "en-in": {"DMY", "/", false, false, ""},
		"en-za": {"YMD", "/", true, true, ""}, "en-ca": {"YMD", "-", true, true, ""}, "fr-ca": {"YMD", "-", true, true, ""},
		"de": {"DMY", ".", false, false, ""}, "da": {"DMY", ".", false, false, ""}, "nb": {"DMY", ".", false, false, ""},
		"fi": {"DMY", ".", false, false, ""}, "fr": {"DMY", "/", true, true, ""}, "it": {"DMY", "/", true, true, ""},
		"pt": {"DMY", "/", true, true, ""}, "es": {"DMY", "/", false, false, ""}, "nl": {"DMY", "-", false, false, ""},
		"ja": {"YMD", "/", false, false, ""}, "zh": {"YMD", "/", false, false, ""}, "sv": {"YMD", "-", true, true, ""},
		"pl": {"DMY", ".", false, true, ""}, "ru": {"DMY", ".", true, true, ""}, "tr": {"DMY", ".", true, true, ""},
		"ko": {"YMD", ". ", false, false, "."},
	}
}}

// localNumericDate formats the default Intl date of common non-US locales.
func localNumericDate(t time.Time, locale string) (string, bool) {
	nd, ok := numericDates.Get()[locale]
	if !ok {
		lang, _, _ := strings.Cut(locale, "-")
		nd, ok = numericDates.Get()[lang]
	}
	if !ok {
		return "", false
	}
	d, m := strconv.Itoa(t.Day()), strconv.Itoa(int(t.Month()))
	if nd.padDay {
		d = fmt.Sprintf("%02d", t.Day())
	}
	if nd.padMon {
		m = fmt.Sprintf("%02d", int(t.Month()))
	}
	y := strconv.Itoa(t.Year())
	if nd.order == "YMD" {
		return y + nd.sep + m + nd.sep + d + nd.suffix, true
	}
	return d + nd.sep + m + nd.sep + y + nd.suffix, true
}
