package cli

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

// `audit tail --follow` prints every row of a burst larger than one page of the store
// (store.MaxAuditLimit), in order, not just the newest page of it.
func TestAuditFollowPrintsAWholeBurst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.db")
	st, err := sqlite.Open(t.Context(), path, sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Audit.Record(t.Context(), store.Entry{Server: "s", Tool: "before", Outcome: "ok"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var out, errs syncBuffer
	done := make(chan int)
	go func() {
		done <- Run(ctx, []string{"audit", "tail", "--store", "sqlite:" + path, "--follow", "-n", "0"}, strings.NewReader(""), &out, &errs)
	}()
	// The follower starts after the newest row it finds, so the burst must come after it
	// has started: record markers until it prints one.
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(out.String(), "tool=marker "); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the follower printed no marker row within 30s: %s", errs.String())
		}
		if err := st.Audit.Record(t.Context(), store.Entry{Server: "s", Tool: "marker", Outcome: "ok"}); err != nil {
			t.Fatal(err)
		}
	}

	const n = store.MaxAuditLimit + 50
	burst := make([]store.Entry, n)
	for i := range burst {
		burst[i] = store.Entry{Server: "s", Tool: fmt.Sprintf("t%d", i), Outcome: "ok"}
	}
	if err := st.Audit.Record(t.Context(), burst...); err != nil {
		t.Fatal(err)
	}
	// The burst's rows, without the markers (some may still arrive before it).
	burstLines := func() []string {
		var lines []string
		for l := range strings.Lines(out.String()) {
			if !strings.Contains(l, "tool=marker ") {
				lines = append(lines, strings.TrimSuffix(l, "\n"))
			}
		}
		return lines
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(burstLines()) < n && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("audit tail exited %d: %s", code, errs.String())
	}
	lines := burstLines()
	if len(lines) != n {
		t.Fatalf("printed %d lines, want the %d rows of the burst", len(lines), n)
	}
	for i, l := range lines {
		if !strings.Contains(l, fmt.Sprintf("tool=t%d ", i)) {
			t.Fatalf("line %d is %q, want the burst's row t%d (in order)", i, l, i)
		}
	}
}

// `audit tail` prints rows in the order of their time, though the store numbers them in the
// order they were written: a long call is written after shorter ones that started later.
func TestAuditTailPrintsInTimeOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.db")
	st, err := sqlite.Open(t.Context(), path, sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	// Written in the order the calls ended: "slow" started first.
	for _, e := range []store.Entry{
		{Time: t0.Add(2 * time.Second), Server: "s", Tool: "second", Outcome: "ok"},
		{Time: t0.Add(3 * time.Second), Server: "s", Tool: "third", Outcome: "ok"},
		{Time: t0, Server: "s", Tool: "slow", Outcome: "ok", Duration: 5 * time.Second},
	} {
		if err := st.Audit.Record(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	var out, errs syncBuffer
	if code := Run(t.Context(), []string{"audit", "tail", "--store", "sqlite:" + path}, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("audit tail exited %d: %s", code, errs.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	var tools []string
	for _, l := range lines {
		_, rest, _ := strings.Cut(l, " tool=")
		name, _, _ := strings.Cut(rest, " ")
		tools = append(tools, name)
	}
	if got := strings.Join(tools, ","); got != "slow,second,third" {
		t.Fatalf("rows printed in the order %s, want slow,second,third (by time):\n%s", got, out.String())
	}
}
