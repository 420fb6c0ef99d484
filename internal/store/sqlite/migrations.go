package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"

	mig "github.com/mcpbridge/mcpbridge/internal/store/internal/migrate"
)

// Times are stored as Unix microseconds (INTEGER), durations as nanoseconds.
var migrations = []mig.Migration{
	{Version: 1, Name: "initial schema", Statements: []string{
		`CREATE TABLE definitions (
			slug       TEXT PRIMARY KEY,
			doc        TEXT NOT NULL,
			revision   INTEGER NOT NULL,
			created_at INTEGER NOT NULL,
			updated_at INTEGER NOT NULL
		)`,
		`CREATE TABLE definition_revision (
			id    INTEGER PRIMARY KEY CHECK (id = 1),
			value INTEGER NOT NULL
		)`,
		`INSERT INTO definition_revision (id, value) VALUES (1, 0)`,
		`CREATE TABLE blobs (
			id         TEXT PRIMARY KEY,
			data       BLOB NOT NULL,
			size       INTEGER NOT NULL,
			created_at INTEGER NOT NULL
		)`,
		`CREATE TABLE api_keys (
			id         TEXT PRIMARY KEY,
			hash       TEXT NOT NULL UNIQUE,
			hint       TEXT NOT NULL,
			name       TEXT NOT NULL,
			user_id    TEXT NOT NULL,
			roles      TEXT NOT NULL,
			admin      INTEGER NOT NULL,
			created_at INTEGER NOT NULL,
			revoked_at INTEGER
		)`,
		`CREATE TABLE work_sessions (
			id         TEXT PRIMARY KEY,
			app        TEXT NOT NULL,
			owner      TEXT NOT NULL,
			data       TEXT NOT NULL,
			created_at INTEGER NOT NULL,
			updated_at INTEGER NOT NULL,
			expires_at INTEGER,
			version    INTEGER NOT NULL,
			closed     INTEGER NOT NULL DEFAULT 0
		)`,
		`CREATE INDEX work_sessions_owner ON work_sessions (owner, updated_at)`,
		`CREATE INDEX work_sessions_expires ON work_sessions (expires_at)`,
		`CREATE TABLE audit (
			id          INTEGER PRIMARY KEY AUTOINCREMENT,
			time        INTEGER NOT NULL,
			server      TEXT NOT NULL,
			tool        TEXT NOT NULL,
			principal   TEXT NOT NULL,
			outcome     TEXT NOT NULL,
			duration_ns INTEGER NOT NULL,
			error       TEXT NOT NULL
		)`,
		`CREATE INDEX audit_server ON audit (server, id)`,
		`CREATE INDEX audit_time ON audit (time)`,
	}},
	{Version: 2, Name: "api key user name, email and servers", Statements: []string{
		`ALTER TABLE api_keys ADD COLUMN user_name TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE api_keys ADD COLUMN user_email TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE api_keys ADD COLUMN servers TEXT NOT NULL DEFAULT '[]'`,
	}},
	{Version: 3, Name: "audit via and arguments", Statements: []string{
		`ALTER TABLE audit ADD COLUMN via TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE audit ADD COLUMN arguments TEXT NOT NULL DEFAULT ''`,
	}},
	{Version: 4, Name: "audit client address", Statements: []string{
		`ALTER TABLE audit ADD COLUMN client TEXT NOT NULL DEFAULT ''`,
	}},
}

// migrate applies the pending migrations in one IMMEDIATE transaction on the
// writer, which also holds off other processes migrating the same file.
func migrate(ctx context.Context, w *sql.DB, log *slog.Logger) error {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrating schema: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at INTEGER NOT NULL
	)`); err != nil {
		return fmt.Errorf("migrating schema: creating schema_migrations: %w", err)
	}
	var applied int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&applied); err != nil {
		return fmt.Errorf("migrating schema: reading schema_migrations: %w", err)
	}
	pending, err := mig.Pending(migrations, applied)
	if err != nil {
		return fmt.Errorf("migrating schema: %w", err)
	}
	if len(pending) == 0 {
		return nil
	}
	for _, m := range pending {
		for i, stmt := range m.Statements {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("migrating schema: migration %d (%s) statement %d: %w", m.Version, m.Name, i+1, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, strftime('%s','now') * 1000000)`, m.Version, m.Name); err != nil {
			return fmt.Errorf("migrating schema: recording migration %d: %w", m.Version, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrating schema: %w", err)
	}
	log.Info("sqlite schema migrated", "from", applied, "to", pending[len(pending)-1].Version)
	return nil
}
