// Package storetest is the conformance suite every store.Store
// implementation must pass. Implementations call Run from their tests:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, openFresh, openPairOnOneDatabase)
//	}
package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

// Opener returns a Store on a fresh, empty database and registers its Close
// with t.Cleanup. Closing it again in the suite must be harmless.
type Opener func(t *testing.T) *store.Store

// PairOpener returns two Stores sharing one fresh, empty database, opened
// independently (separate pools and listeners, as two replicas would be), and
// registers their Close with t.Cleanup.
type PairOpener func(t *testing.T) (a, b *store.Store)

// Dumper is implemented by the Keys of every implementation so the suite can
// check what is persisted: DumpRows renders every row of the API key table.
type Dumper interface {
	DumpRows(ctx context.Context) ([]string, error)
}

// Run runs the whole suite. Each subtest opens its own Store(s).
func Run(t *testing.T, open Opener, openPair PairOpener) {
	t.Helper()
	if open == nil || openPair == nil {
		t.Fatal("storetest.Run needs both an Opener and a PairOpener")
	}
	// The groups use separate databases, so they run in parallel.
	groups := []struct {
		name string
		fn   func(t *testing.T)
	}{
		{"Definitions", func(t *testing.T) { testDefinitions(t, open) }},
		{"Watch", func(t *testing.T) { testWatch(t, open, openPair) }},
		{"Blobs", func(t *testing.T) { testBlobs(t, open) }},
		{"Keys", func(t *testing.T) { testKeys(t, open) }},
		{"WorkSessions", func(t *testing.T) { testWorkSessions(t, open, openPair) }},
		{"Audit", func(t *testing.T) { testAudit(t, open) }},
		{"Close", func(t *testing.T) { testClose(t, open) }},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			g.fn(t)
		})
	}
}

// ctxFor returns a context that ends with the test or after a minute.
func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// wantErr fails t unless err wraps want.
func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: error = %v, want one wrapping %q", what, err, want)
	}
}

// must fails t now when err is not nil.
func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func testClose(t *testing.T, open Opener) {
	s := open(t)
	if s.Kind == "" {
		t.Error("Store.Kind is empty")
	}
	must(t, "first Close", s.Close())
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
}
