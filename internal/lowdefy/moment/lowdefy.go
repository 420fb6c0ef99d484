package moment

import (
	"fmt"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// FormatValue is Lowdefy's `_moment.format {on, locale, format}`:
// moment(on).locale(locale).format(format). on may be a time.Time, Unix
// milliseconds, an ISO string or nil (now, as moment(undefined)); an
// unparsable value gives "Invalid date". Only the "en" locale (or "") is
// supported; others return an error.
func FormatValue(on any, locale, format string) (string, error) {
	if locale != "" && locale != "en" && locale != "en-us" && locale != "en-US" {
		return "", fmt.Errorf("moment: locale %q is not supported (only \"en\")", locale)
	}
	if on == nil {
		return Format(time.Now().UTC(), format), nil
	}
	t, ok := FromValue(on)
	if !ok {
		return "Invalid date", nil
	}
	return Format(t, format), nil
}

// HumanizeDuration is Lowdefy's `_moment.humanizeDuration {on, locale,
// withSuffix, thresholds}`: moment.duration(on).humanize(withSuffix,
// thresholds). thresholds keys: ss s m h d w M; nil means moment's defaults.
func HumanizeDuration(on any, locale string, withSuffix bool, thresholds *jsvalue.Object) (string, error) {
	if locale != "" && locale != "en" && locale != "en-us" && locale != "en-US" {
		return "", fmt.Errorf("moment: locale %q is not supported (only \"en\")", locale)
	}
	d, err := DurationFromValue(on)
	if err != nil {
		return "", err
	}
	th := map[string]float64{}
	for k, v := range thresholds.Range {
		switch n := jsvalue.FromGo(v).(type) {
		case float64:
			th[k] = n
		default:
			return "", fmt.Errorf("moment: threshold %q must be a number, got %T", k, v)
		}
	}
	return Humanize(d, withSuffix, th), nil
}
