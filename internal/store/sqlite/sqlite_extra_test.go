package sqlite_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

// Data survives closing and reopening, and migrations are not re-applied.
func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "persist.db")
	s, err := sqlite.Open(t.Context(), path, sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	def, err := s.Definitions.Put(t.Context(), "kept", json.RawMessage(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := openAt(t, path)
	got, err := s2.Definitions.Get(t.Context(), "kept")
	if err != nil || string(got.Doc) != `{"a":1}` || got.Revision != def.Revision {
		t.Fatalf("after reopen: %+v, %v", got, err)
	}
	next, err := s2.Definitions.Put(t.Context(), "other", json.RawMessage(`{}`))
	if err != nil || next.Revision <= def.Revision {
		t.Fatalf("revision after reopen = %d, %v; want > %d", next.Revision, err, def.Revision)
	}

	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	var mode string
	var last int
	if err := db.QueryRow(`SELECT count(*), max(version) FROM schema_migrations`).Scan(&n, &last); err != nil || n != last || n < 4 {
		t.Errorf("schema_migrations has %d rows up to version %d (%v); want one per migration, none re-applied", n, last, err)
	}
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
}

// A database migrated by a newer mcpbridge is refused with a clear error.
func TestNewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "newer.db")
	openAt(t, path).Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = sqlite.Open(t.Context(), path, sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err == nil || !strings.Contains(err.Error(), "newer than this mcpbridge") {
		t.Fatalf("Open of a newer schema: %v; want an error saying to upgrade", err)
	}
}

// Two Stores on one file (two writer pools in one process) writing at once:
// the busy timeout queues them, nothing fails with SQLITE_BUSY.
func TestConcurrentWritersTwoStores(t *testing.T) {
	path := filepath.Join(t.TempDir(), "busy.db")
	stores := []*store.Store{openAt(t, path), openAt(t, path)}
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for w := range 8 {
		s := stores[w%2]
		wg.Go(func() {
			for i := range 25 {
				if _, err := s.Definitions.Put(t.Context(), fmt.Sprintf("w%d-%d", w, i), json.RawMessage(`{}`)); err != nil {
					errs <- err
				}
				if err := s.Audit.Record(t.Context(), store.Entry{Server: "s", Tool: "t", Principal: "p", Outcome: "ok"}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent write: %v", err)
	}
	list, err := stores[0].Definitions.List(t.Context())
	if err != nil || len(list) != 200 {
		t.Errorf("List = %d definitions, %v; want 200", len(list), err)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := sqlite.Open(t.Context(), "", sqlite.Options{}); err == nil {
		t.Error("Open(\"\") succeeded")
	}
	if _, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "no", "such", "dir.db"), sqlite.Options{}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Open in a missing directory: %v", err)
	}
}

// A key made before migration 2 (user name, email and servers) still works after it, with
// those fields empty.
func TestKeysMigration2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.db")
	s := openAt(t, path)
	secret, _, err := s.Keys.Create(t.Context(), store.KeyInfo{User: "old", Roles: []string{"r"}})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	execOn(t, path,
		`ALTER TABLE api_keys DROP COLUMN user_name`, `ALTER TABLE api_keys DROP COLUMN user_email`,
		`ALTER TABLE api_keys DROP COLUMN servers`, `DELETE FROM schema_migrations WHERE version = 2`,
		// and back out the later migrations, as a database made before migration 2 has none
		`ALTER TABLE audit DROP COLUMN client`, `DELETE FROM schema_migrations WHERE version = 4`,
		`ALTER TABLE audit DROP COLUMN via`, `ALTER TABLE audit DROP COLUMN arguments`, `DELETE FROM schema_migrations WHERE version = 3`,
	)
	k, err := openAt(t, path).Keys.Lookup(t.Context(), secret)
	if err != nil || k.User != "old" || k.UserName != "" || k.Servers == nil || len(k.Servers) != 0 || len(k.Roles) != 1 {
		t.Fatalf("Lookup after migration 2 = %+v, %v", k, err)
	}
}

// An audit row recorded before migration 3 (via and arguments) is still listed after it,
// with those fields empty, and new rows keep them.
func TestAuditMigration3(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.db")
	s := openAt(t, path)
	if err := s.Audit.Record(t.Context(), store.Entry{Server: "crm", Tool: "read", Principal: "old", Outcome: "ok"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	execOn(t, path,
		`ALTER TABLE audit DROP COLUMN client`, `DELETE FROM schema_migrations WHERE version = 4`,
		`ALTER TABLE audit DROP COLUMN via`, `ALTER TABLE audit DROP COLUMN arguments`, `DELETE FROM schema_migrations WHERE version = 3`,
	)
	s = openAt(t, path)
	if err := s.Audit.Record(t.Context(), store.Entry{Server: "crm", Tool: "read", Principal: "new", Via: "key:k1", Outcome: "ok", Arguments: `{"id":1}`}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Audit.List(t.Context(), store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Via != "key:k1" || got[0].Arguments != `{"id":1}` || got[1].Principal != "old" || got[1].Via != "" || got[1].Arguments != "" {
		t.Fatalf("List after migration 3 = %+v", got)
	}
}

// An audit row recorded before migration 4 (the client address) is still listed after it,
// with no address, and new rows keep theirs.
func TestAuditMigration4(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.db")
	s := openAt(t, path)
	if err := s.Audit.Record(t.Context(), store.Entry{Server: "crm", Tool: "read", Principal: "old", Outcome: "ok"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	execOn(t, path, `ALTER TABLE audit DROP COLUMN client`, `DELETE FROM schema_migrations WHERE version = 4`)
	s = openAt(t, path)
	if err := s.Audit.Record(t.Context(), store.Entry{Server: "crm", Tool: "read", Client: "192.0.2.7", Outcome: "ok"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Audit.List(t.Context(), store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Client != "192.0.2.7" || got[1].Principal != "old" || got[1].Client != "" {
		t.Fatalf("List after migration 4 = %+v", got)
	}
}

// execOn runs stmts on the database file at path, outside the store: to make it look like a
// database an older mcpbridge left.
func execOn(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range stmts {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}
