package config

import (
	"strings"
	"testing"
	"time"
)

// limits.rate, concurrent_calls_per_principal and call_timeout decode, and a server's
// limits override the top level field by field.
func TestRateLimits(t *testing.T) {
	c, err := Parse("r.yaml", t.TempDir(), []byte(`
limits:
  rate: {per_principal: 10/s, per_server: 600/m, server_burst: 50}
  concurrent_calls_per_principal: 4
  call_timeout: 2m
servers:
  plain: {kind: echo, description: d}
  slow:
    kind: echo
    description: d
    limits:
      rate: {per_principal: 30/min, burst: 3}
      call_timeout: 10s
  unlimited:
    kind: echo
    description: d
    limits: {rate: {per_principal: "off", per_server: "off"}}
`), echoKind{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Limits.ConcurrentCallsPerPrincipal != 4 || c.Limits.CallTimeout != 2*time.Minute {
		t.Errorf("limits = %+v", c.Limits)
	}
	for _, tc := range []struct {
		server  string
		pps     float64
		pburst  int
		sps     float64
		sburst  int
		timeout time.Duration
	}{
		{"plain", 10, 10, 10, 50, 2 * time.Minute},
		{"slow", 0.5, 3, 10, 50, 10 * time.Second},
		{"unlimited", 0, 0, 0, 0, 2 * time.Minute},
	} {
		r := c.RateFor(c.Servers[tc.server])
		pps, pb := r.PrincipalBucket()
		sps, sb := r.ServerBucket()
		if pps != tc.pps || pb != tc.pburst || sps != tc.sps || sb != tc.sburst {
			t.Errorf("%s: per principal %v/s burst %d, per server %v/s burst %d; want %v/s %d, %v/s %d", tc.server, pps, pb, sps, sb, tc.pps, tc.pburst, tc.sps, tc.sburst)
		}
		if got := c.CallTimeoutFor(c.Servers[tc.server]); got != tc.timeout {
			t.Errorf("%s: call timeout %s, want %s", tc.server, got, tc.timeout)
		}
	}
}

func TestRateProblems(t *testing.T) {
	_, err := Parse("r.yaml", t.TempDir(), []byte(`limits:
  rate: {per_principal: 10 per second, burst: -1}
  concurrent_calls_per_principal: -2
servers:
  a:
    kind: echo
    description: d
    limits: {rate: {per_server: 0/s}, call_timout: 1s}
`), echoKind{})
	want := []string{
		`r.yaml:2:25: limits.rate.per_principal: expected a rate such as 10/s, 600/m or 5000/h (or off), got "10 per second"`,
		`r.yaml:2:47: limits.rate.burst: must not be negative`,
		`r.yaml:3:35: limits.concurrent_calls_per_principal: must not be negative`,
		`r.yaml:8:33: servers.a.limits.rate.per_server: the count of rate "0/s" must be above 0 and at most 1e9 (write off for no limit)`,
		`r.yaml:8:39: servers.a.limits.call_timout: unknown field "call_timout" (did you mean "call_timeout"?)`,
	}
	if err == nil {
		t.Fatal("Parse accepted bad limits")
	}
	got := err.Error()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("problems lack\n  %s\ngot:\n%s", w, got)
		}
	}
}
