// Package postgres implements store.Store on PostgreSQL (pgx/v5, pgxpool):
// the store of several mcpbridge replicas sharing one database.
//
// Definition changes are announced with NOTIFY in the writing transaction, so
// they are delivered on commit to every Store listening on the same database,
// in this process or another. Each Store keeps one dedicated listening
// connection (not taken from the pool); when it is lost the Store reconnects
// with backoff and then sends its watchers a ChangeResync. The listener also
// pings the server when idle, and sends a ChangeResync at a low, configurable
// interval as a safety net.
//
// Schema migrations run in one transaction holding a transaction-level
// advisory lock, so replicas starting together migrate once.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/internal/changes"
)

// Options configures Open. The zero value is usable.
type Options struct {
	// Logger receives diagnostics; nil means slog.Default().
	Logger *slog.Logger
	// Limits bounds blob and document sizes.
	Limits store.Limits
	// ResyncInterval is how often watchers get a safety ChangeResync; 0 means
	// 10 minutes, negative disables it.
	ResyncInterval time.Duration
	// HealthInterval is how long the idle listener waits before pinging the
	// server to detect a silently lost connection; 0 means 30 seconds.
	HealthInterval time.Duration
	// MaxReconnectDelay caps the backoff between listener reconnects; 0 means
	// 5 seconds.
	MaxReconnectDelay time.Duration
}

// Channel is the NOTIFY channel that carries definition changes. Its payload
// is "<kind>:<slug>".
const Channel = "mcpbridge_definitions"

type db struct {
	pool   *pgxpool.Pool
	limits store.Limits
	log    *slog.Logger
	hub    *changes.Hub
	lis    *listener
}

// Open connects to the PostgreSQL database at url (a postgres:// URL or a
// key=value connection string), applies pending migrations and returns the
// Store. Errors never include the password.
func Open(ctx context.Context, url string, opts Options) (*store.Store, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx redacts passwords in parse errors on a best-effort basis;
		// callers (openstore) redact again.
		return nil, fmt.Errorf("opening postgres store: parsing connection URL: %w", err)
	}
	if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = "mcpbridge"
	}
	where := describe(cfg.ConnConfig)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("opening postgres store %s: %w", where, err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("opening postgres store %s: %w", where, err)
	}
	if err := migrate(ctx, pool, log); err != nil {
		pool.Close()
		return nil, fmt.Errorf("opening postgres store %s: %w", where, err)
	}
	d := &db{pool: pool, limits: opts.Limits.WithDefaults(), log: log, hub: &changes.Hub{}}
	d.lis = newListener(cfg.ConnConfig, d.hub, log, opts)
	log.Debug("postgres store opened", "database", where)
	var closeOnce sync.Once
	return store.New("postgres",
		&Definitions{d}, &Blobs{d}, &Keys{d}, &WorkSessions{d}, &Audit{d},
		func() error {
			closeOnce.Do(func() {
				d.lis.stop()
				d.hub.Close()
				pool.Close()
			})
			return nil
		}), nil
}

// describe names a database for messages without any secret.
func describe(c *pgx.ConnConfig) string {
	return fmt.Sprintf("%s@%s:%d/%s", c.User, c.Host, c.Port, c.Database)
}

// tx runs fn in a transaction.
func (d *db) tx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, d.pool, fn)
}

// unavailable marks err with store.ErrUnavailable when it says the database could not be
// reached or cut the connection — a refused or failed dial, a connection lost mid-answer,
// SQL states of class 08 (connection exception) and 57P (shutdown, cannot connect now) — so
// callers can tell an outage from a bad request. Other errors are returned as they are.
func unavailable(err error) error {
	if err == nil || errors.Is(err, store.ErrUnavailable) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err // the caller gave up: not an outage
	}
	var pgErr *pgconn.PgError
	var connErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.As(err, &pgErr):
		if !strings.HasPrefix(pgErr.Code, "08") && !strings.HasPrefix(pgErr.Code, "57P") {
			return err
		}
	case errors.As(err, &connErr), errors.As(err, &netErr), errors.Is(err, io.ErrUnexpectedEOF), pgconn.SafeToRetry(err):
	default:
		return err
	}
	return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
}

func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// timePtr converts the zero time to NULL.
func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// fromPtr converts a nullable stored time back; NULL gives the zero time.
func fromPtr(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return store.Normalize(*t)
}
