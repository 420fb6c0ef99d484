package config

import (
	"strings"
	"testing"
)

// Hostile values of limits.rate, call_timeout, concurrent_calls_per_principal and
// audit.retention: each is a FILE:LINE:COL problem that says what to write.
func TestAttackLimitValues(t *testing.T) {
	for _, tc := range []struct {
		yaml, want string
	}{
		{`limits: {rate: {per_principal: -x}}`, `a.yaml:1:32: limits.rate.per_principal: expected a rate such as 10/s, 600/m or 5000/h (or off), got "-x"`},
		{`limits: {rate: {per_principal: -1/s}}`, `a.yaml:1:32: limits.rate.per_principal: expected a rate such as 10/s`},
		{`limits: {rate: {per_principal: 0/s}}`, `a.yaml:1:32: limits.rate.per_principal: the count of rate "0/s" must be above 0 and at most 1e9 (write off for no limit)`},
		{`limits: {rate: {per_principal: 1e400/s}}`, `a.yaml:1:32: limits.rate.per_principal: expected a rate such as 10/s`},
		{`limits: {rate: {per_principal: ` + strings.Repeat("9", 400) + `/s}}`, `the count of rate "` + strings.Repeat("9", 400)},
		{`limits: {rate: {per_principal: NaN/s}}`, `a.yaml:1:32: limits.rate.per_principal: expected a rate such as 10/s`},
		{`limits: {rate: {per_principal: .nan}}`, `a.yaml:1:32: limits.rate.per_principal: expected a rate such as 10/s`},
		{`limits: {rate: {per_principal: [1, s]}}`, `a.yaml:1:32: limits.rate.per_principal: expected a rate such as 10/s, 600/m or 5000/h (or off), got a list`},
		{`limits: {rate: {per_principal: 10/s, burst: 99999999999999999999}}`, `a.yaml:1:45: limits.rate.burst: the integer 99999999999999999999 is too large (at most 9223372036854775807)`},
		{`limits: {rate: {per_principal: 10/s, burst: -5}}`, `a.yaml:1:45: limits.rate.burst: must not be negative`},
		{`limits: {call_timeout: -x}`, `a.yaml:1:24: limits.call_timeout: expected a duration such as 5s, 2m, 12h or 30d, got "-x"`},
		{`limits: {call_timeout: -1s}`, `a.yaml:1:24: limits.call_timeout: expected a duration such as 5s, 2m, 12h or 30d, got "-1s"`},
		{`limits: {call_timeout: 99999999999999999999d}`, `a.yaml:1:24: limits.call_timeout: a duration in days must be at most 36500d (100 years), got "99999999999999999999d"`},
		{`limits: {call_timeout: NaN}`, `a.yaml:1:24: limits.call_timeout: expected a duration such as 5s, 2m, 12h or 30d, got "NaN"`},
		{`limits: {call_timeout: 30}`, `a.yaml:1:24: limits.call_timeout: expected a duration with a unit, such as 30s`},
		{`limits: {concurrent_calls_per_principal: -x}`, `a.yaml:1:42: limits.concurrent_calls_per_principal: expected`},
		{`limits: {concurrent_calls_per_principal: 99999999999999999999}`, `a.yaml:1:42: limits.concurrent_calls_per_principal: the integer 99999999999999999999 is too large`},
		{`limits: {concurrent_calls_per_principal: -1}`, `a.yaml:1:42: limits.concurrent_calls_per_principal: must not be negative`},
		{`audit: {retention: -1d}`, `a.yaml:1:20: audit.retention: expected a duration such as 5s, 2m, 12h or 30d, got "-1d"`},
		{`audit: {retention: 99999999999999999999d}`, `a.yaml:1:20: audit.retention: a duration in days must be at most 36500d (100 years), got "99999999999999999999d"`},
		{`audit: {retention: 36501d}`, `a.yaml:1:20: audit.retention: a duration in days must be at most 36500d (100 years), got "36501d"`},
		{`audit: {retention: 1.5d}`, `a.yaml:1:20: audit.retention: expected a duration such as 5s, 2m, 12h or 30d, got "1.5d"`},
	} {
		_, err := Parse("a.yaml", t.TempDir(), []byte(tc.yaml+"\nservers: {a: {kind: echo, description: d}}\n"), echoKind{})
		if err == nil {
			t.Errorf("%s: accepted", tc.yaml)
			continue
		}
		if got := err.Error(); !strings.Contains(got, tc.want) || len(got) > 1000 {
			t.Errorf("%s:\n got %.600s\nwant %s", tc.yaml, got, tc.want)
		}
	}
}
