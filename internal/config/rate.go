package config

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// Rate is limits.rate: token-bucket limits on the requests one caller, and all callers
// together, send to a server. A caller is a principal's user id, or the client address of
// an anonymous request. A request is an MCP request message (a JSON-RPC message with a
// method and an id: each one of a batch counts) or one call of a REST route. Fields left
// out take the top-level value; unset at both levels means no limit.
type Rate struct {
	// PerPrincipal is how many requests one caller may send to one server, e.g. 10/s.
	PerPrincipal RateValue `yaml:"per_principal"`
	// PerServer is how many requests one server takes from all its callers together.
	PerServer RateValue `yaml:"per_server"`
	// Burst is how many requests one caller may send at once after a quiet spell (the
	// size of its bucket); zero takes the count of per_principal (10 for 10/s).
	Burst int `yaml:"burst"`
	// ServerBurst is the same for per_server.
	ServerBurst int `yaml:"server_burst"`
}

// Override returns r with the fields that o sets replaced. A rate given in o without its
// burst takes its default burst, not r's.
func (r Rate) Override(o *Rate) Rate {
	if o == nil {
		return r
	}
	if o.PerPrincipal.Set {
		r.PerPrincipal, r.Burst = o.PerPrincipal, 0
	}
	if o.Burst != 0 {
		r.Burst = o.Burst
	}
	if o.PerServer.Set {
		r.PerServer, r.ServerBurst = o.PerServer, 0
	}
	if o.ServerBurst != 0 {
		r.ServerBurst = o.ServerBurst
	}
	return r
}

// PrincipalBucket returns the per-caller refill rate (tokens per second) and bucket size;
// a zero rate means no limit.
func (r Rate) PrincipalBucket() (perSecond float64, burst int) {
	return r.PerPrincipal.bucket(r.Burst)
}

// Off reports whether r limits nothing (neither per principal nor per server).
func (r Rate) Off() bool {
	return r.PerPrincipal.PerSecond() == 0 && r.PerServer.PerSecond() == 0
}

// ServerBucket is PrincipalBucket for the per-server limit.
func (r Rate) ServerBucket() (perSecond float64, burst int) {
	return r.PerServer.bucket(r.ServerBurst)
}

func (v RateValue) bucket(burst int) (float64, int) {
	ps := v.PerSecond()
	if ps == 0 {
		return 0, 0
	}
	if burst <= 0 {
		burst = max(1, int(math.Ceil(v.Count)))
	}
	return ps, burst
}

// A RateValue is a rate written COUNT/UNIT: 10/s, 600/m, 5000/h (units s, m, h; the
// count may have a fraction), or off. The zero value is "not set".
type RateValue struct {
	Count float64       // requests per Per; 0 with Set means off
	Per   time.Duration // a second, a minute or an hour
	Set   bool          // the field was written (off included)
	Text  string        // as written
}

// PerSecond is the rate in requests per second; 0 when off or not set.
func (v RateValue) PerSecond() float64 {
	if v.Per <= 0 {
		return 0
	}
	return v.Count / v.Per.Seconds()
}

func (v RateValue) String() string { return v.Text }

var rateForm = lazy.Regexp{Expr: `^\s*([0-9]+(?:\.[0-9]+)?)\s*/\s*(s|sec|second|m|min|minute|h|hour)\s*$`}

// ParseRate parses COUNT/UNIT (10/s, 600/m, 5000/h) or off.
func ParseRate(s string) (RateValue, error) {
	if s == "off" {
		return RateValue{Set: true, Text: s}, nil
	}
	m := rateForm.Get().FindStringSubmatch(s)
	if m == nil {
		return RateValue{}, fmt.Errorf("expected a rate such as 10/s, 600/m or 5000/h (or off), got %q", s)
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil || n <= 0 || n > 1e9 {
		return RateValue{}, fmt.Errorf("the count of rate %q must be above 0 and at most 1e9 (write off for no limit)", s)
	}
	per := map[string]time.Duration{"s": time.Second, "sec": time.Second, "second": time.Second,
		"m": time.Minute, "min": time.Minute, "minute": time.Minute, "h": time.Hour, "hour": time.Hour}[m[2]]
	return RateValue{Count: n, Per: per, Set: true, Text: s}, nil
}

// UnmarshalNode implements NodeUnmarshaler.
func (v *RateValue) UnmarshalNode(d *Decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		d.Errorf(n, path, "expected a rate such as 10/s, 600/m or 5000/h (or off), got %s", kindName(n))
		return
	}
	r, err := ParseRate(n.Value)
	if err != nil {
		d.Errorf(n, path, "%v", err)
		return
	}
	*v = r
}

// ServerLimits are the limits a server sets for itself, over the top-level limits.
type ServerLimits struct {
	// Rate overrides limits.rate field by field for this server.
	Rate *Rate `yaml:"rate"`
	// CallTimeout overrides limits.call_timeout for this server's tool calls.
	CallTimeout time.Duration `yaml:"call_timeout"`
}

// RateFor is the rate limit of server s: limits.rate with the server's overrides.
func (c *Config) RateFor(s *Server) Rate {
	if s == nil || s.Limits == nil {
		return c.Limits.Rate
	}
	return c.Limits.Rate.Override(s.Limits.Rate)
}

// CallTimeoutFor is how long a tool call of server s may run (0: no bound).
func (c *Config) CallTimeoutFor(s *Server) time.Duration {
	if s != nil && s.Limits != nil && s.Limits.CallTimeout > 0 {
		return s.Limits.CallTimeout
	}
	return c.Limits.CallTimeout
}

// validateRate reports negative bursts of a rate section at path.
func validateRate(r *Rate, path string, add func(path, format string, args ...any)) {
	if r == nil {
		return
	}
	if r.Burst < 0 {
		add(path+".burst", "must not be negative")
	}
	if r.ServerBurst < 0 {
		add(path+".server_burst", "must not be negative")
	}
}
