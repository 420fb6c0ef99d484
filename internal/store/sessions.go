package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// WorkSession is the saved state of one Lowdefy app session (not an MCP
// session): page state, request responses, inputs, globals and the event log,
// all inside Data, which the store keeps opaque.
type WorkSession struct {
	// ID identifies the session; Create generates one when empty.
	ID string
	// App names the Lowdefy app (server) the session belongs to.
	App string
	// Owner is the user id of the principal that created the session; only
	// the owner can Load it.
	Owner string
	// Data is the session state, a JSON document.
	Data json.RawMessage
	// CreatedAt and UpdatedAt are set by the store.
	CreatedAt time.Time
	UpdatedAt time.Time
	// ExpiresAt is when the session lapses; zero means never. Load treats an
	// expired session as not found, and Expire deletes it.
	ExpiresAt time.Time
	// Version counts saves: 1 after Create, +1 after every Save or Close.
	// Save must be given the version it loaded.
	Version int64
	// Closed is set by Close; a closed session can be loaded but not saved.
	Closed bool
}

// WorkSessions stores work sessions with optimistic concurrency.
type WorkSessions interface {
	// Create stores a new session (Version 1) and returns it as stored. App,
	// Owner and Data are required; an existing ID gives ErrExists.
	Create(ctx context.Context, ws WorkSession) (WorkSession, error)
	// Load returns the session id owned by owner. A missing or expired
	// session, or one owned by someone else, gives ErrNotFound.
	Load(ctx context.Context, id, owner string) (WorkSession, error)
	// Save replaces Data and ExpiresAt of ws.ID if its stored version is
	// still ws.Version, and returns the session with the new version. A
	// stale version gives ErrConflict, a closed session ErrClosed, and a
	// missing or expired one, or an Owner that does not match, ErrNotFound.
	Save(ctx context.Context, ws WorkSession) (WorkSession, error)
	// List returns the open, unexpired sessions of owner, most recently
	// updated first.
	List(ctx context.Context, owner string) ([]WorkSession, error)
	// Close marks the session closed. An unknown id gives ErrNotFound;
	// closing a closed session is not an error.
	Close(ctx context.Context, id string) error
	// Expire deletes the sessions whose ExpiresAt is at or before `before`,
	// and the closed sessions last updated at or before `before`, and
	// returns how many it deleted.
	Expire(ctx context.Context, before time.Time) (int, error)
}

// SessionIDPattern is the form of a work session id, compiled on first use
// (SessionIDPattern.Get()).
var SessionIDPattern = lazy.Regexp{Expr: `^[A-Za-z0-9_-]{1,128}$`}

// PrepareSession checks ws for Create, fills in a generated ID when it is
// empty, and normalises ExpiresAt.
func PrepareSession(ws WorkSession, maxData int) (WorkSession, error) {
	if ws.ID == "" {
		id, err := RandomID(16)
		if err != nil {
			return ws, err
		}
		ws.ID = id
	}
	if err := CheckSessionID(ws.ID); err != nil {
		return ws, err
	}
	if ws.App == "" || ws.Owner == "" {
		return ws, fmt.Errorf("work session needs both App and Owner (got app %q, owner %q): %w", ws.App, ws.Owner, ErrInvalid)
	}
	if err := CheckDocument("work session data", ws.Data, maxData); err != nil {
		return ws, err
	}
	ws.ExpiresAt = Normalize(ws.ExpiresAt)
	return ws, nil
}

// VisibleTo reports whether owner may load or save ws at now: the session is
// theirs and not expired. The stores report a session that is not visible
// as ErrNotFound, so no one learns of another's sessions.
func (ws WorkSession) VisibleTo(owner string, now time.Time) bool {
	return ws.Owner == owner && (ws.ExpiresAt.IsZero() || ws.ExpiresAt.After(now))
}

// ApplySave is the rule of Save: it returns the session to store when ws
// is saved over cur, the row read in the save's transaction, at now (Data
// and ExpiresAt from ws, UpdatedAt now, the next version), or the error
// the save fails with: ErrNotFound when cur is not visible to ws.Owner,
// ErrClosed when it is closed, ErrConflict when ws.Version is not cur's.
func ApplySave(cur, ws WorkSession, now time.Time) (WorkSession, error) {
	switch {
	case !cur.VisibleTo(ws.Owner, now):
		return WorkSession{}, ErrNotFound
	case cur.Closed:
		return WorkSession{}, ErrClosed
	case cur.Version != ws.Version:
		return WorkSession{}, fmt.Errorf("saving version %d but the stored version is %d: %w", ws.Version, cur.Version, ErrConflict)
	}
	saved := cur
	saved.Data = append(json.RawMessage(nil), ws.Data...)
	saved.ExpiresAt = Normalize(ws.ExpiresAt)
	saved.UpdatedAt = now
	saved.Version = cur.Version + 1
	return saved, nil
}

// CheckSessionID returns an error wrapping ErrInvalid when id is malformed.
func CheckSessionID(id string) error {
	if !SessionIDPattern.Get().MatchString(id) {
		return fmt.Errorf("work session id %q must be 1-128 characters of A-Z, a-z, 0-9, '_' or '-': %w", truncate(id, 80), ErrInvalid)
	}
	return nil
}

// Normalize returns t in UTC truncated to microseconds, the precision both
// implementations store. The zero time stays zero.
func Normalize(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Truncate(time.Microsecond)
}

// Now returns the current time as the store records it.
func Now() time.Time { return Normalize(time.Now()) }
