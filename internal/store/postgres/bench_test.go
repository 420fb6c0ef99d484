package postgres_test

import (
	"encoding/json"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/postgres"
	"github.com/mcpbridge/mcpbridge/internal/store/postgres/pgtest"
)

// BenchmarkWatchAcrossStores measures a Put on one Store until a watcher of
// another Store on the same database sees it (two pools, as two replicas).
func BenchmarkWatchAcrossStores(b *testing.B) {
	u := pgtest.URL(b)
	open := func() *store.Store {
		s, err := postgres.Open(b.Context(), u, postgres.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	writer, reader := open(), open()
	ch := reader.Definitions.Watch(b.Context())
	doc := json.RawMessage(`{"v":1}`)
	var lat []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		if _, err := writer.Definitions.Put(b.Context(), "bench", doc); err != nil {
			b.Fatal(err)
		}
		select {
		case <-ch:
		case <-time.After(2 * time.Second):
			b.Fatal("change not delivered within 2s")
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
