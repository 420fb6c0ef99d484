package sqlite_test

import (
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
	"github.com/mcpbridge/mcpbridge/internal/store/storetest"
)

func openAt(t *testing.T, path string) *store.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path, sqlite.Options{Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing %s: %v", path, err)
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t,
		func(t *testing.T) *store.Store {
			return openAt(t, filepath.Join(t.TempDir(), "store.db"))
		},
		func(t *testing.T) (*store.Store, *store.Store) {
			path := filepath.Join(t.TempDir(), "shared.db")
			return openAt(t, path), openAt(t, path)
		})
}
