// Package sqlite implements store.Store on an embedded SQLite database
// (modernc.org/sqlite, pure Go): the default store of a single mcpbridge
// process.
//
// The database runs in WAL mode with a busy timeout and foreign keys on. All
// writes go through one pool of a single connection whose transactions begin
// IMMEDIATE, so concurrent writers in one process queue in Go instead of
// failing with SQLITE_BUSY; reads use a separate read-only pool and run in
// parallel with the writer.
//
// Watch reaches every Store opened on the same file in the same process (they
// share one in-process notifier). Another process writing the same file is
// not noticed: run several processes on the postgres store instead.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/internal/changes"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Options configures Open. The zero value is usable.
type Options struct {
	// Logger receives diagnostics; nil means slog.Default().
	Logger *slog.Logger
	// Limits bounds blob and document sizes.
	Limits store.Limits
	// BusyTimeout is how long a write waits for another process holding the
	// database lock; 0 means 10 seconds.
	BusyTimeout time.Duration
	// ReadConns caps the read pool; 0 means max(4, GOMAXPROCS).
	ReadConns int
}

// db is what every part shares.
type db struct {
	r, w    *sql.DB
	hub     *changes.Hub
	publish func(store.Change)
	limits  store.Limits
	log     *slog.Logger
	path    string
}

// Open opens (creating if needed) the SQLite database at path, applies
// pending schema migrations and returns the Store. ":memory:" opens a private
// in-memory database (one connection, for tests and experiments).
func Open(ctx context.Context, path string, opts Options) (*store.Store, error) {
	if path == "" {
		return nil, errors.New("opening sqlite store: empty path; give a file such as ./mcpbridge.db")
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	busy := opts.BusyTimeout
	if busy <= 0 {
		busy = 10 * time.Second
	}
	d := &db{limits: opts.Limits.WithDefaults(), log: log}

	memory := path == ":memory:"
	key := path
	if !memory {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, fmt.Errorf("opening sqlite store %s: %w", path, err)
		}
		if dir := filepath.Dir(abs); dir != "" {
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return nil, fmt.Errorf("opening sqlite store %s: directory %s does not exist; create it first", path, dir)
			}
		}
		if resolved, err := filepath.EvalSymlinks(abs); err == nil {
			abs = resolved
		}
		key = abs
		path = abs
	}
	d.path = path

	params := url.Values{}
	params.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	params.Add("_pragma", "foreign_keys(1)")
	params.Add("_pragma", "synchronous(FULL)")
	if !memory {
		params.Add("_pragma", "journal_mode(WAL)")
	}
	var base string
	if memory {
		base = "file::memory:"
	} else {
		base = "file:" + (&url.URL{Path: path}).EscapedPath()
	}

	wParams := cloneValues(params)
	wParams.Set("_txlock", "immediate")
	w, err := sql.Open("sqlite", base+"?"+wParams.Encode())
	if err != nil {
		return nil, fmt.Errorf("opening sqlite store %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	d.w = w
	if memory {
		d.r = w
	} else {
		rParams := cloneValues(params)
		rParams.Add("_pragma", "query_only(1)")
		r, err := sql.Open("sqlite", base+"?"+rParams.Encode())
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("opening sqlite store %s: %w", path, err)
		}
		n := opts.ReadConns
		if n <= 0 {
			n = max(4, runtime.GOMAXPROCS(0))
		}
		r.SetMaxOpenConns(n)
		r.SetMaxIdleConns(n)
		d.r = r
	}

	// The writer connection is opened first so that it creates the file and
	// switches it to WAL before any reader looks at it.
	if err := d.w.PingContext(ctx); err != nil {
		d.closeDBs()
		return nil, fmt.Errorf("opening sqlite store %s: %w", path, err)
	}
	if err := migrate(ctx, d.w, log); err != nil {
		d.closeDBs()
		return nil, fmt.Errorf("opening sqlite store %s: %w", path, err)
	}
	if err := d.r.PingContext(ctx); err != nil {
		d.closeDBs()
		return nil, fmt.Errorf("opening sqlite store %s: %w", path, err)
	}

	if memory {
		// Each in-memory database is private, so it has no peers.
		key = fmt.Sprintf("memory:%p", d)
	}
	var release func()
	d.hub, d.publish, release = joinPeers(key)
	log.Debug("sqlite store opened", "path", path)
	return store.New("sqlite",
		&Definitions{d}, &Blobs{d}, &Keys{d}, &WorkSessions{d}, &Audit{d},
		func() error {
			release()
			return d.closeDBs()
		}), nil
}

func (d *db) closeDBs() error {
	var errs []error
	if d.r != nil && d.r != d.w {
		errs = append(errs, d.r.Close())
	}
	if d.w != nil {
		errs = append(errs, d.w.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("closing sqlite store %s: %w", d.path, err)
	}
	return nil
}

func cloneValues(v url.Values) url.Values {
	c := url.Values{}
	for k, vs := range v {
		c[k] = append([]string(nil), vs...)
	}
	return c
}

// write runs fn in an IMMEDIATE transaction on the writer connection.
func (d *db) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := d.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// micro converts a time to the stored form: Unix microseconds, or NULL for
// the zero time.
func micro(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
}

// fromMicro converts a stored time back; NULL gives the zero time.
func fromMicro(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.UnixMicro(v.Int64).UTC()
}

func isUniqueViolation(err error) bool {
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}
