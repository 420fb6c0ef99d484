package moment

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

func TestFormatTable(t *testing.T) {
	tm := time.Date(2024, 3, 5, 14, 7, 9, 123e6, time.UTC)
	tests := []struct{ layout, want string }{
		{"YYYY-MM-DD HH:mm:ss.SSS", "2024-03-05 14:07:09.123"},
		{"dddd, MMMM Do YYYY, h:mm:ss a", "Tuesday, March 5th 2024, 2:07:09 pm"},
		{"LLLL", "Tuesday, March 5, 2024 2:07 PM"},
		{"[Week] W [of] GGGG", "Week 10 of 2024"},
		{"", "2024-03-05T14:07:09+00:00"},
	}
	for _, tc := range tests {
		if got := Format(tm, tc.layout); got != tc.want {
			t.Errorf("Format(%q) = %q, want %q", tc.layout, got, tc.want)
		}
	}
	plus2 := tm.In(time.FixedZone("", 2*3600))
	if got := Format(plus2, "HH:mm Z"); got != "16:07 +02:00" {
		t.Errorf("Format in +02:00 = %q", got)
	}
}

func TestLowdefyHelpers(t *testing.T) {
	got, err := FormatValue("2024-03-05T14:07:09Z", "en", "D MMM YYYY")
	if err != nil || got != "5 Mar 2024" {
		t.Errorf("FormatValue: %q %v", got, err)
	}
	if got, _ := FormatValue("garbage", "", "YYYY"); got != "Invalid date" {
		t.Errorf("FormatValue invalid: %q", got)
	}
	if _, err := FormatValue(0.0, "fr", "YYYY"); err == nil || !strings.Contains(err.Error(), "locale") {
		t.Errorf("unsupported locale accepted: %v", err)
	}
	got, err = HumanizeDuration(map[string]any{"hours": 3.0}, "en", true, nil)
	if err != nil || got != "in 3 hours" {
		t.Errorf("HumanizeDuration: %q %v", got, err)
	}
	got, err = HumanizeDuration(-90000.0, "en", true, jsvalue.ObjectOf("m", 1))
	if err != nil || got != "an hour ago" { // moment: 2 min is not < m=1, so it rounds to hours (0 ≤ 1 → "an hour")
		t.Errorf("HumanizeDuration thresholds: %q %v", got, err)
	}
	if _, err := HumanizeDuration("nonsense", "en", false, nil); err == nil {
		t.Error("invalid duration accepted")
	}
}

func TestUnitErrors(t *testing.T) {
	tm := time.Now()
	if _, err := Add(tm, 1, "fortnight"); err == nil {
		t.Error("Add accepted an unknown unit")
	}
	if _, err := StartOf(tm, "decade"); err == nil {
		t.Error("StartOf accepted an unknown unit")
	}
	if _, err := Diff(tm, tm, "eons", false); err == nil {
		t.Error("Diff accepted an unknown unit")
	}
	if _, err := Parse("nothing here", "YYYY-MM-DD"); err == nil {
		t.Error("Parse accepted input without any field")
	}
}

func BenchmarkFormat(b *testing.B) {
	tm := time.Date(2024, 3, 5, 14, 7, 9, 123e6, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		_ = Format(tm, "dddd, MMMM Do YYYY, h:mm:ss a [UTC]Z")
	}
}

func BenchmarkHumanize(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = Humanize(DurationOf(123456789), true, nil)
	}
}
