package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

// DeliveryLimit is the longest a change may take to reach a watcher,
// including one on another Store sharing the database.
const DeliveryLimit = 2 * time.Second

// nextChange returns the next change on ch that is not a resync (resyncs are
// allowed at any time by the contract), failing t after DeliveryLimit.
func nextChange(t *testing.T, ch <-chan store.Change) store.Change {
	t.Helper()
	timer := time.NewTimer(DeliveryLimit)
	defer timer.Stop()
	for {
		select {
		case c, ok := <-ch:
			if !ok {
				t.Fatal("watch channel closed while waiting for a change")
			}
			if c.Kind == store.ChangeResync {
				continue
			}
			return c
		case <-timer.C:
			t.Fatalf("no change delivered within %v", DeliveryLimit)
		}
	}
}

// waitClosed fails t unless ch is closed within DeliveryLimit (draining it).
func waitClosed(t *testing.T, what string, ch <-chan store.Change) {
	t.Helper()
	timer := time.NewTimer(DeliveryLimit)
	defer timer.Stop()
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-timer.C:
			t.Fatalf("%s: watch channel still open after %v", what, DeliveryLimit)
		}
	}
}

func testWatch(t *testing.T, open Opener, openPair PairOpener) {
	t.Run("SameStore", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		ch := s.Definitions.Watch(ctx)
		_, err := s.Definitions.Put(ctx, "a", json.RawMessage(`{}`))
		must(t, "Put a", err)
		_, err = s.Definitions.Create(ctx, "b", json.RawMessage(`{}`))
		must(t, "Create b", err)
		// Failed writes notify nothing.
		_, err = s.Definitions.Create(ctx, "b", json.RawMessage(`{}`))
		wantErr(t, "Create b again", err, store.ErrExists)
		wantErr(t, "Delete missing", s.Definitions.Delete(ctx, "missing"), store.ErrNotFound)
		_, err = s.Definitions.Put(ctx, "Bad Slug", json.RawMessage(`{}`))
		wantErr(t, "Put bad slug", err, store.ErrInvalid)
		must(t, "Delete a", s.Definitions.Delete(ctx, "a"))

		want := []store.Change{{Kind: store.ChangePut, Slug: "a"}, {Kind: store.ChangePut, Slug: "b"}, {Kind: store.ChangeDelete, Slug: "a"}}
		var got []store.Change
		for range want {
			got = append(got, nextChange(t, ch))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("changes (-want +got):\n%s", diff)
		}
	})

	t.Run("ManyWatchers", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		chans := make([]<-chan store.Change, 5)
		for i := range chans {
			chans[i] = s.Definitions.Watch(ctx)
		}
		for i := range 20 {
			_, err := s.Definitions.Put(ctx, fmt.Sprintf("d%d", i), json.RawMessage(`{}`))
			must(t, "Put", err)
		}
		for w, ch := range chans {
			for i := range 20 {
				if c := nextChange(t, ch); c.Slug != fmt.Sprintf("d%d", i) || c.Kind != store.ChangePut {
					t.Fatalf("watcher %d change %d = %+v, want put d%d", w, i, c, i)
				}
			}
		}
	})

	t.Run("CancelClosesChannel", func(t *testing.T) {
		s := open(t)
		ctx, cancel := context.WithCancel(ctxFor(t))
		ch := s.Definitions.Watch(ctx)
		cancel()
		waitClosed(t, "after cancel", ch)
	})

	t.Run("StoreCloseClosesChannel", func(t *testing.T) {
		s := open(t)
		ch := s.Definitions.Watch(ctxFor(t))
		must(t, "Close", s.Close())
		waitClosed(t, "after Store.Close", ch)
		ch = s.Definitions.Watch(ctxFor(t))
		waitClosed(t, "Watch after Store.Close", ch)
	})

	t.Run("AcrossStores", func(t *testing.T) {
		a, b := openPair(t)
		ctx := ctxFor(t)
		chB := b.Definitions.Watch(ctx)
		chA := a.Definitions.Watch(ctx)
		const n = 30
		var lat []time.Duration
		for i := range n {
			slug := fmt.Sprintf("s%d", i)
			start := time.Now()
			_, err := a.Definitions.Put(ctx, slug, json.RawMessage(`{}`))
			must(t, "Put on a", err)
			c := nextChange(t, chB)
			lat = append(lat, time.Since(start))
			if c != (store.Change{Kind: store.ChangePut, Slug: slug}) {
				t.Fatalf("b saw %+v, want put %s", c, slug)
			}
			if c := nextChange(t, chA); c.Slug != slug {
				t.Fatalf("a saw %+v, want put %s", c, slug)
			}
		}
		// And the other way round, for deletes.
		must(t, "Delete on b", b.Definitions.Delete(ctx, "s0"))
		if c := nextChange(t, chA); c != (store.Change{Kind: store.ChangeDelete, Slug: "s0"}) {
			t.Fatalf("a saw %+v, want delete s0", c)
		}
		if c := nextChange(t, chB); c != (store.Change{Kind: store.ChangeDelete, Slug: "s0"}) {
			t.Fatalf("b saw %+v, want its own delete s0", c)
		}
		slices.Sort(lat)
		t.Logf("%s: Put on one Store → Watch on another: min %v p50 %v p90 %v max %v (n=%d, includes the Put)",
			a.Kind, lat[0], lat[n/2], lat[n*9/10], lat[n-1], n)
		if lat[n-1] > DeliveryLimit {
			t.Errorf("slowest delivery %v exceeds %v", lat[n-1], DeliveryLimit)
		}
		// Closing one Store leaves the other's watchers working.
		must(t, "Close a", a.Close())
		waitClosed(t, "a's watcher after a.Close", chA)
		_, err := b.Definitions.Put(ctx, "after-close", json.RawMessage(`{}`))
		must(t, "Put on b after a closed", err)
		if c := nextChange(t, chB); c.Slug != "after-close" {
			t.Fatalf("b saw %+v, want put after-close", c)
		}
	})
}
