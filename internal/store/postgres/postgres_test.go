package postgres_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/postgres"
	"github.com/mcpbridge/mcpbridge/internal/store/postgres/pgtest"
	"github.com/mcpbridge/mcpbridge/internal/store/storetest"
)

func openAt(t *testing.T, url string, opts postgres.Options) *store.Store {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	s, err := postgres.Open(t.Context(), url, opts)
	if err != nil {
		t.Fatalf("opening postgres store: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing: %v", err)
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t,
		func(t *testing.T) *store.Store { return openAt(t, pgtest.URL(t), postgres.Options{}) },
		func(t *testing.T) (*store.Store, *store.Store) {
			u := pgtest.URL(t)
			return openAt(t, u, postgres.Options{}), openAt(t, u, postgres.Options{})
		})
}

// TestConcurrentMigrators opens several Stores on one empty database at once:
// the advisory lock makes exactly one of them migrate, and all succeed.
func TestConcurrentMigrators(t *testing.T) {
	u := pgtest.URL(t)
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			s, err := postgres.Open(t.Context(), u, postgres.Options{Logger: slog.New(slog.DiscardHandler)})
			if err == nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("opener %d: %v", i, err)
		}
	}
	conn, err := pgx.Connect(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var rows, max int
	if err := conn.QueryRow(t.Context(), `SELECT count(*), max(version) FROM schema_migrations`).Scan(&rows, &max); err != nil {
		t.Fatal(err)
	}
	if rows != max || rows < 1 {
		t.Errorf("schema_migrations has %d rows up to version %d; want each version recorded once", rows, max)
	}
}

// TestWatchSurvivesConnectionLoss kills the listening backend of one Store;
// its watcher must get a resync, then keep receiving changes from another
// Store.
func TestWatchSurvivesConnectionLoss(t *testing.T) {
	u := pgtest.URL(t)
	a := openAt(t, u, postgres.Options{})
	b := openAt(t, u, postgres.Options{})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	ch := a.Definitions.Watch(ctx)

	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var killed int
	if err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = $1`, postgres.ListenerApplicationName).Scan(&killed); err != nil {
		t.Fatal(err)
	}
	if killed != 1 {
		t.Fatalf("terminated %d listener backends, want 1 (only a watches)", killed)
	}
	start := time.Now()
	select {
	case c := <-ch:
		if c.Kind != store.ChangeResync {
			t.Fatalf("first change after the kill = %+v, want resync", c)
		}
		t.Logf("resync %v after the listener was killed", time.Since(start))
	case <-time.After(10 * time.Second):
		t.Fatal("no resync within 10s of killing the listener connection")
	}
	if _, err := b.Definitions.Put(ctx, "after-reconnect", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-ch:
		if c != (store.Change{Kind: store.ChangePut, Slug: "after-reconnect"}) {
			t.Fatalf("change after reconnect = %+v, want put after-reconnect", c)
		}
	case <-time.After(storetest.DeliveryLimit):
		t.Fatal("change from another Store not delivered after reconnect")
	}
}

// TestIdleListener: an idle listener pings instead of reconnecting, so it
// sends no spurious resyncs; the safety resync arrives on schedule.
func TestIdleListener(t *testing.T) {
	u := pgtest.URL(t)
	quiet := openAt(t, u, postgres.Options{HealthInterval: 50 * time.Millisecond, ResyncInterval: -1})
	periodic := openAt(t, u, postgres.Options{HealthInterval: 50 * time.Millisecond, ResyncInterval: 300 * time.Millisecond})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	qch := quiet.Definitions.Watch(ctx)
	pch := periodic.Definitions.Watch(ctx)

	select {
	case c := <-qch:
		t.Fatalf("idle watcher got %+v; want nothing", c)
	case <-time.After(600 * time.Millisecond):
	}
	if _, err := quiet.Definitions.Put(ctx, "x", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-qch:
		if c != (store.Change{Kind: store.ChangePut, Slug: "x"}) {
			t.Fatalf("got %+v, want put x", c)
		}
	case <-time.After(storetest.DeliveryLimit):
		t.Fatal("change not delivered after idle pings")
	}
	resyncs := 0
	deadline := time.After(2 * time.Second)
	for resyncs < 2 {
		select {
		case c := <-pch:
			if c.Kind == store.ChangeResync {
				resyncs++
			}
		case <-deadline:
			t.Fatalf("got %d safety resyncs in 2s with a 300ms interval, want ≥ 2", resyncs)
		}
	}
}

// TestOpenErrors: an unreachable server and a malformed URL fail Open.
func TestOpenErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := postgres.Open(ctx, "postgres://u:pw@127.0.0.1:1/db?sslmode=disable&connect_timeout=2", postgres.Options{})
	if err == nil {
		t.Fatal("Open on a closed port succeeded")
	}
	_, err = postgres.Open(ctx, "postgres://u:pw@127.0.0.1:notaport/db", postgres.Options{})
	if err == nil {
		t.Fatal("Open with a bad port succeeded")
	}
}
