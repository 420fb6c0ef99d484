package command

import "testing"

func TestValueScrubber(t *testing.T) {
	sc := newScrubber(map[string]string{"s3cr3t-token": "secret T", "s3cr3t": "secret S", "ab": "secret AB",
		"abcdXYZW": "secret W", "XYZWqrst": "secret V", "qrstuvwx": "secret U"})
	cases := []struct {
		in               string
		cutStart, cutEnd bool
		want             string
	}{
		{"x s3cr3t-token y s3cr3t z", false, false, "x [secret T] y [secret S] z"},
		{"short ab ab", false, false, "short [secret AB] [secret AB]"},
		{"out: s3cr3t-to", false, true, "out: "},               // a piece of 9 bytes at the cut end
		{"out: s3c", false, true, "out: s3c"},                  // 3 bytes: left alone
		{"out: s3cr", false, true, "out: "},                    // 4 bytes
		{"out: s3cr3t-to", false, false, "out: [secret S]-to"}, // not cut: only whole secrets
		{"3t-token and more", true, false, " and more"},        // the end of T at the cut start
		{"ken and more", true, false, "ken and more"},
		{"oken and more", true, false, " and more"},
		{"cr3t-to", true, true, ""}, // all inside a secret
		{"ken s3cr3t-token s3cr", true, true, "ken [secret T] "},
		// The piece at the cut end, XYZW (the start of V), is the end of a whole W: W goes
		// with it rather than leaving abcd.
		{"see abcdXYZW", false, true, "see "},
		// The piece at the cut start, qrst (the end of V), is the start of a whole U.
		{"qrstuvwx see", true, false, " see"},
	}
	for _, c := range cases {
		if got := sc.ScrubCut(c.in, c.cutStart, c.cutEnd); got != c.want {
			t.Errorf("ScrubCut(%q, %v, %v) = %q, want %q", c.in, c.cutStart, c.cutEnd, got, c.want)
		}
	}
	var none *valueScrubber
	if got := none.ScrubCut("s3cr3t", true, true); got != "s3cr3t" {
		t.Errorf("nil scrubber: %q", got)
	}
	if newScrubber(nil) != nil {
		t.Error("newScrubber(nil) is not nil")
	}
}
