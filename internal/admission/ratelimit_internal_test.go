package admission

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/config"
)

// fakeClock is a clock that moves only when told.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func rate(t *testing.T, s string) config.RateValue {
	t.Helper()
	v, err := config.ParseRate(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A caller's bucket holds burst tokens and refills at the rate; another caller has its own.
func TestRateLimiterPerCaller(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	l := NewLimiter(clk.now)
	r := config.Rate{PerPrincipal: rate(t, "2/s"), Burst: 3}
	for i := range 3 {
		if limit, _ := l.Allow("s", r, "alice"); limit != "" {
			t.Fatalf("request %d of the burst refused by %s", i+1, limit)
		}
	}
	limit, wait := l.Allow("s", r, "alice")
	if limit != "rate.per_principal" || wait != 500*time.Millisecond {
		t.Fatalf("4th request: %q, wait %s; want rate.per_principal, 500ms (2/s)", limit, wait)
	}
	if limit, _ := l.Allow("s", r, "bob"); limit != "" {
		t.Errorf("bob refused by %s: callers share no bucket", limit)
	}
	if limit, _ := l.Allow("other", r, "alice"); limit != "" {
		t.Errorf("alice refused on another server by %s: each server has its buckets", limit)
	}
	clk.add(499 * time.Millisecond)
	if limit, wait := l.Allow("s", r, "alice"); limit == "" || wait != time.Millisecond {
		t.Errorf("after 499ms: %q, wait %s; want refused, 1ms to go", limit, wait)
	}
	clk.add(time.Millisecond)
	if limit, _ := l.Allow("s", r, "alice"); limit != "" {
		t.Errorf("after 500ms alice is refused by %s; one token has refilled", limit)
	}
	// A long pause refills up to the burst, not beyond.
	clk.add(time.Hour)
	for i := range 4 {
		limit, _ := l.Allow("s", r, "alice")
		if (limit == "") != (i < 3) {
			t.Errorf("after an hour, request %d: %q; want the burst of 3 and no more", i+1, limit)
		}
	}
}

// The server's bucket is shared by every caller; a request it refuses costs the caller
// nothing.
func TestRateLimiterPerServer(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	l := NewLimiter(clk.now)
	r := config.Rate{PerPrincipal: rate(t, "1/m"), Burst: 2, PerServer: rate(t, "60/m"), ServerBurst: 2}
	for _, c := range []string{"a", "b"} {
		if limit, _ := l.Allow("s", r, c); limit != "" {
			t.Fatalf("%s refused by %s", c, limit)
		}
	}
	limit, wait := l.Allow("s", r, "c")
	if limit != "rate.per_server" || wait != time.Second {
		t.Fatalf("third caller: %q, wait %s; want rate.per_server, 1s", limit, wait)
	}
	clk.add(time.Second)
	// a still has one token of its own: the refusal above took none.
	if limit, _ := l.Allow("s", r, "a"); limit != "" {
		t.Errorf("a refused by %s", limit)
	}
	clk.add(time.Second)
	if limit, _ := l.Allow("s", r, "a"); limit != "rate.per_principal" {
		t.Errorf("a's third request: %q; want rate.per_principal (burst 2 at 1/m)", limit)
	}
	// New limits (a reloaded definition) start afresh; none at all is no limit.
	if limit, _ := l.Allow("s", config.Rate{}, "a"); limit != "" {
		t.Errorf("without limits a is refused by %s", limit)
	}
	if len(l.servers) != 0 {
		t.Errorf("a server without limits keeps buckets: %v", l.servers)
	}
}

// Many callers do not grow the buckets past maxBuckets: full ones go first.
func TestRateLimiterBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("inserts 250k buckets")
	}
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	l := NewLimiter(clk.now)
	r := config.Rate{PerPrincipal: rate(t, "10/s"), Burst: 1}
	peak := 0
	for i := range maxBuckets * 5 / 2 {
		l.Allow("s", r, fmt.Sprint("caller-", i))
		if i%1000 == 0 {
			clk.add(time.Millisecond)
		}
		peak = max(peak, len(l.servers["s"].principal.buckets))
	}
	if peak > maxBuckets {
		t.Errorf("%d buckets at the peak; want at most %d", peak, maxBuckets)
	}
	// Idle callers' buckets, full again, are dropped at the next sweep.
	clk.add(time.Hour)
	l.Allow("s", r, "late")
	if n := len(l.servers["s"].principal.buckets); n != 1 {
		t.Errorf("%d buckets after an idle hour; want 1 (the late caller's)", n)
	}
}

func TestCallerSlots(t *testing.T) {
	c := NewCallerSlots(2)
	r1, r2 := c.Acquire("a"), c.Acquire("a")
	if r1 == nil || r2 == nil {
		t.Fatal("a's two slots refused")
	}
	if c.Acquire("a") != nil {
		t.Error("a got a third slot")
	}
	if c.Acquire("b") == nil {
		t.Error("b refused: slots are per caller")
	}
	r1()
	r1() // twice is once
	if c.running["a"] != 1 {
		t.Errorf("a runs %d after one release; want 1", c.running["a"])
	}
	if r3 := c.Acquire("a"); r3 == nil {
		t.Error("a refused after a release")
	}
	if (&CallerSlots{}).Acquire("x") == nil {
		t.Error("no bound refused a call")
	}
}
