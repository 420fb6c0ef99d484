package postgres

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	mig "github.com/mcpbridge/mcpbridge/internal/store/internal/migrate"
)

// migrationLock is the advisory lock key that serialises migrators
// (the bytes of "mcpbridg").
const migrationLock int64 = 0x6d63706272696467

var migrations = []mig.Migration{
	{Version: 1, Name: "initial schema", Statements: []string{
		`CREATE TABLE definitions (
			slug       text PRIMARY KEY,
			doc        text NOT NULL,
			revision   bigint NOT NULL,
			created_at timestamptz NOT NULL,
			updated_at timestamptz NOT NULL
		)`,
		`CREATE SEQUENCE definition_revision`,
		`CREATE TABLE blobs (
			id         text PRIMARY KEY,
			data       bytea NOT NULL,
			size       bigint NOT NULL,
			created_at timestamptz NOT NULL
		)`,
		`CREATE TABLE api_keys (
			id         text PRIMARY KEY,
			hash       text NOT NULL UNIQUE,
			hint       text NOT NULL,
			name       text NOT NULL,
			user_id    text NOT NULL,
			roles      text[] NOT NULL,
			admin      boolean NOT NULL,
			created_at timestamptz NOT NULL,
			revoked_at timestamptz
		)`,
		`CREATE TABLE work_sessions (
			id         text PRIMARY KEY,
			app        text NOT NULL,
			owner      text NOT NULL,
			data       text NOT NULL,
			created_at timestamptz NOT NULL,
			updated_at timestamptz NOT NULL,
			expires_at timestamptz,
			version    bigint NOT NULL,
			closed     boolean NOT NULL DEFAULT false
		)`,
		`CREATE INDEX work_sessions_owner ON work_sessions (owner, updated_at)`,
		`CREATE INDEX work_sessions_expires ON work_sessions (expires_at)`,
		`CREATE TABLE audit (
			id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
			time        timestamptz NOT NULL,
			server      text NOT NULL,
			tool        text NOT NULL,
			principal   text NOT NULL,
			outcome     text NOT NULL,
			duration_ns bigint NOT NULL,
			error       text NOT NULL
		)`,
		`CREATE INDEX audit_server ON audit (server, id)`,
		`CREATE INDEX audit_time ON audit (time)`,
	}},
	{Version: 2, Name: "api key user name, email and servers", Statements: []string{
		`ALTER TABLE api_keys ADD COLUMN user_name text NOT NULL DEFAULT ''`,
		`ALTER TABLE api_keys ADD COLUMN user_email text NOT NULL DEFAULT ''`,
		`ALTER TABLE api_keys ADD COLUMN servers text[] NOT NULL DEFAULT '{}'`,
	}},
	{Version: 3, Name: "audit via and arguments", Statements: []string{
		`ALTER TABLE audit ADD COLUMN via text NOT NULL DEFAULT ''`,
		`ALTER TABLE audit ADD COLUMN arguments text NOT NULL DEFAULT ''`,
	}},
	{Version: 4, Name: "audit client address", Statements: []string{
		`ALTER TABLE audit ADD COLUMN client text NOT NULL DEFAULT ''`,
	}},
}

// migrate applies pending migrations in one transaction that first takes a
// transaction-level advisory lock: a second process starting at the same time
// waits, then finds nothing left to do.
func migrate(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	var from, to int
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
			return fmt.Errorf("taking the migration lock: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    integer PRIMARY KEY,
			name       text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now()
		)`); err != nil {
			return fmt.Errorf("creating schema_migrations: %w", err)
		}
		if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&from); err != nil {
			return fmt.Errorf("reading schema_migrations: %w", err)
		}
		pending, err := mig.Pending(migrations, from)
		if err != nil {
			return err
		}
		to = from
		for _, m := range pending {
			for i, stmt := range m.Statements {
				if _, err := tx.Exec(ctx, stmt); err != nil {
					return fmt.Errorf("migration %d (%s) statement %d: %w", m.Version, m.Name, i+1, err)
				}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.Version, m.Name); err != nil {
				return fmt.Errorf("recording migration %d: %w", m.Version, err)
			}
			to = m.Version
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("migrating schema: %w", err)
	}
	if to != from {
		log.Info("postgres schema migrated", "from", from, "to", to)
	}
	return nil
}
