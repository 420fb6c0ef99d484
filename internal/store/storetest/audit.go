package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

func testAudit(t *testing.T, open Opener) {
	s := open(t)
	ctx := ctxFor(t)
	base := time.Now().Add(-time.Hour)
	var want []store.Entry
	var batch []store.Entry // the last six are recorded in one call
	for i := range 12 {
		e := store.Entry{
			Time:      base.Add(time.Duration(i) * time.Minute),
			Server:    []string{"weather", "crm"}[i%2],
			Tool:      fmt.Sprintf("tool%d", i),
			Principal: []string{"alice", "bob", "carol"}[i%3],
			Via:       []string{"key:k1", "jwt", "admin-key"}[i%3],
			Client:    []string{"127.0.0.1", "2001:db8::7", ""}[i%3],
			Outcome:   "ok",
			Duration:  time.Duration(i)*time.Millisecond + 1234*time.Nanosecond,
		}
		if i == 5 {
			e.Outcome, e.Error = "tool_error", "upstream said 503"
		}
		if i == 7 {
			e.Arguments = `{"city":"Zürich","n":7}`
		}
		if i < 6 {
			must(t, "Record", s.Audit.Record(ctx, e))
		} else {
			batch = append(batch, e)
		}
		e.Time = store.Normalize(e.Time)
		want = append([]store.Entry{e}, want...) // newest first
	}
	must(t, "Record (a batch)", s.Audit.Record(ctx, batch...))
	must(t, "Record (nothing)", s.Audit.Record(ctx))
	ignoreID := cmpopts.IgnoreFields(store.Entry{}, "ID")

	all, err := s.Audit.List(ctx, store.AuditFilter{})
	must(t, "List", err)
	if diff := cmp.Diff(want, all, ignoreID); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	for i := 1; i < len(all); i++ {
		if all[i].ID >= all[i-1].ID {
			t.Errorf("ids not decreasing: %d then %d", all[i-1].ID, all[i].ID)
		}
	}

	filter := func(f store.AuditFilter, keep func(store.Entry) bool) []store.Entry {
		var out []store.Entry
		order := want
		if f.OldestFirst {
			order = slices.Clone(want)
			slices.Reverse(order)
		}
		for _, e := range order {
			if keep(e) && (f.Limit == 0 || len(out) < f.Limit) {
				out = append(out, e)
			}
		}
		return out
	}
	tests := []struct {
		name string
		f    store.AuditFilter
		keep func(store.Entry) bool
	}{
		{"limit", store.AuditFilter{Limit: 3}, func(store.Entry) bool { return true }},
		{"server", store.AuditFilter{Server: "crm"}, func(e store.Entry) bool { return e.Server == "crm" }},
		{"server and limit", store.AuditFilter{Server: "weather", Limit: 2}, func(e store.Entry) bool { return e.Server == "weather" }},
		{"principal", store.AuditFilter{Principal: "carol"}, func(e store.Entry) bool { return e.Principal == "carol" }},
		{"server and principal", store.AuditFilter{Server: "crm", Principal: "bob"}, func(e store.Entry) bool { return e.Server == "crm" && e.Principal == "bob" }},
		{"unknown server", store.AuditFilter{Server: "nope"}, func(store.Entry) bool { return false }},
		// all[4] is tool7's entry (newest first): after it come tool8 … tool11.
		{"after id", store.AuditFilter{AfterID: all[4].ID}, func(e store.Entry) bool { return toolNumber(e) > 7 }},
		{"after id and server", store.AuditFilter{AfterID: all[4].ID, Server: "crm"}, func(e store.Entry) bool { return e.Server == "crm" && toolNumber(e) > 7 }},
		{"after the newest", store.AuditFilter{AfterID: all[0].ID}, func(store.Entry) bool { return false }},
		{"oldest first", store.AuditFilter{OldestFirst: true, Limit: 3}, func(store.Entry) bool { return true }},
		{"after id, oldest first", store.AuditFilter{AfterID: all[4].ID, OldestFirst: true, Limit: 2}, func(e store.Entry) bool { return toolNumber(e) > 7 }},
		{"after id and server, oldest first", store.AuditFilter{AfterID: all[4].ID, Server: "crm", OldestFirst: true}, func(e store.Entry) bool { return e.Server == "crm" && toolNumber(e) > 7 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Audit.List(ctx, tc.f)
			must(t, "List", err)
			if diff := cmp.Diff(filter(tc.f, tc.keep), got, ignoreID, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("List(%+v) (-want +got):\n%s", tc.f, diff)
			}
		})
	}

	t.Run("ZeroTimeIsNow", func(t *testing.T) {
		before := time.Now().Add(-time.Second)
		must(t, "Record", s.Audit.Record(ctx, store.Entry{Server: "x", Tool: "y", Principal: "z", Outcome: "ok"}))
		got, err := s.Audit.List(ctx, store.AuditFilter{Server: "x"})
		must(t, "List", err)
		if len(got) != 1 || got[0].Time.Before(before) || got[0].Time.After(time.Now().Add(time.Second)) {
			t.Errorf("entry recorded without time = %+v; want Time ≈ now", got)
		}
	})

	t.Run("LargeBatch", func(t *testing.T) {
		// More rows than one statement carries (the SQLite store splits at 1,000), in
		// one Record: every row stored, in order.
		var batch []store.Entry
		for i := range 2345 {
			batch = append(batch, store.Entry{Time: base.Add(-time.Hour), Server: "big", Tool: fmt.Sprintf("tool%d", i), Principal: "p", Outcome: "ok", Duration: time.Duration(i)})
		}
		must(t, "Record", s.Audit.Record(ctx, batch...))
		got, err := s.Audit.List(ctx, store.AuditFilter{Server: "big", OldestFirst: true, Limit: 5000})
		must(t, "List", err)
		if len(got) != len(batch) {
			t.Fatalf("%d rows stored, want %d", len(got), len(batch))
		}
		for i, e := range got {
			if toolNumber(e) != i || e.Duration != time.Duration(i) {
				t.Fatalf("row %d is %s (%s), want tool%d", i, e.Tool, e.Duration, i)
			}
		}
		if n, err := s.Audit.Prune(ctx, base.Add(-time.Minute)); err != nil || n != len(batch) {
			t.Fatalf("Prune of the batch: %d, %v", n, err)
		}
	})

	t.Run("Prune", func(t *testing.T) {
		n, err := s.Audit.Prune(ctx, base.Add(5*time.Minute+30*time.Second))
		must(t, "Prune", err)
		if n != 6 {
			t.Errorf("Prune deleted %d, want 6", n)
		}
		got, err := s.Audit.List(ctx, store.AuditFilter{Limit: 100})
		must(t, "List", err)
		if len(got) != 7 {
			t.Errorf("after Prune %d entries remain, want 7", len(got))
		}
	})
}

// toolNumber is i of an entry of testAudit's tool{i}.
func toolNumber(e store.Entry) int {
	var n int
	fmt.Sscanf(e.Tool, "tool%d", &n)
	return n
}
