package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

// WorkSessions implements store.WorkSessions.
type WorkSessions struct{ d *db }

var _ store.WorkSessions = (*WorkSessions)(nil)

const sessionColumns = `id, app, owner, data, created_at, updated_at, expires_at, version, closed`

func scanSession(row pgx.Row) (store.WorkSession, error) {
	var ws store.WorkSession
	var data string
	var expires *time.Time
	if err := row.Scan(&ws.ID, &ws.App, &ws.Owner, &data, &ws.CreatedAt, &ws.UpdatedAt, &expires, &ws.Version, &ws.Closed); err != nil {
		return ws, err
	}
	ws.Data = json.RawMessage(data)
	ws.CreatedAt, ws.UpdatedAt, ws.ExpiresAt = store.Normalize(ws.CreatedAt), store.Normalize(ws.UpdatedAt), fromPtr(expires)
	return ws, nil
}

// Create implements store.WorkSessions.
func (s *WorkSessions) Create(ctx context.Context, ws store.WorkSession) (store.WorkSession, error) {
	ws, err := store.PrepareSession(ws, s.d.limits.MaxDocumentBytes)
	if err != nil {
		return store.WorkSession{}, fmt.Errorf("creating work session: %w", unavailable(err))
	}
	now := store.Now()
	ws.CreatedAt, ws.UpdatedAt, ws.Version, ws.Closed = now, now, 1, false
	ws.Data = append(json.RawMessage(nil), ws.Data...)
	_, err = s.d.pool.Exec(ctx, `INSERT INTO work_sessions (`+sessionColumns+`) VALUES ($1, $2, $3, $4, $5, $5, $6, $7, false)`,
		ws.ID, ws.App, ws.Owner, string(ws.Data), now, timePtr(ws.ExpiresAt), ws.Version)
	if isUniqueViolation(err) {
		return store.WorkSession{}, fmt.Errorf("creating work session: work session %q: %w", ws.ID, store.ErrExists)
	}
	if err != nil {
		return store.WorkSession{}, fmt.Errorf("creating work session %q: %w", ws.ID, unavailable(err))
	}
	return ws, nil
}

// Load implements store.WorkSessions.
func (s *WorkSessions) Load(ctx context.Context, id, owner string) (store.WorkSession, error) {
	if err := store.CheckSessionID(id); err != nil {
		return store.WorkSession{}, fmt.Errorf("loading work session: %w", unavailable(err))
	}
	ws, err := scanSession(s.d.pool.QueryRow(ctx, `SELECT `+sessionColumns+` FROM work_sessions WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && !ws.VisibleTo(owner, time.Now())) {
		return store.WorkSession{}, fmt.Errorf("loading work session %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.WorkSession{}, fmt.Errorf("loading work session %q: %w", id, unavailable(err))
	}
	return ws, nil
}

// Save implements store.WorkSessions. The row is locked while the version is
// checked, so of concurrent saves from one version exactly one succeeds.
func (s *WorkSessions) Save(ctx context.Context, ws store.WorkSession) (store.WorkSession, error) {
	if err := store.CheckSessionID(ws.ID); err != nil {
		return store.WorkSession{}, fmt.Errorf("saving work session: %w", unavailable(err))
	}
	if err := store.CheckDocument("work session data", ws.Data, s.d.limits.MaxDocumentBytes); err != nil {
		return store.WorkSession{}, fmt.Errorf("saving work session %q: %w", ws.ID, unavailable(err))
	}
	var saved store.WorkSession
	err := s.d.tx(ctx, func(tx pgx.Tx) error {
		cur, err := scanSession(tx.QueryRow(ctx, `SELECT `+sessionColumns+` FROM work_sessions WHERE id = $1 FOR UPDATE`, ws.ID))
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		now := store.Now()
		if saved, err = store.ApplySave(cur, ws, now); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE work_sessions SET data = $1, expires_at = $2, updated_at = $3, version = $4 WHERE id = $5`,
			string(saved.Data), timePtr(saved.ExpiresAt), now, saved.Version, ws.ID)
		return err
	})
	if err != nil {
		return store.WorkSession{}, fmt.Errorf("saving work session %q: %w", ws.ID, unavailable(err))
	}
	return saved, nil
}

// List implements store.WorkSessions.
func (s *WorkSessions) List(ctx context.Context, owner string) ([]store.WorkSession, error) {
	rows, err := s.d.pool.Query(ctx, `SELECT `+sessionColumns+` FROM work_sessions
		WHERE owner = $1 AND NOT closed AND (expires_at IS NULL OR expires_at > $2)
		ORDER BY updated_at DESC, id`, owner, store.Now())
	if err != nil {
		return nil, fmt.Errorf("listing work sessions of %q: %w", owner, unavailable(err))
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.WorkSession, error) { return scanSession(r) })
	if err != nil {
		return nil, fmt.Errorf("listing work sessions of %q: %w", owner, unavailable(err))
	}
	if list == nil {
		list = []store.WorkSession{}
	}
	return list, nil
}

// Close implements store.WorkSessions.
func (s *WorkSessions) Close(ctx context.Context, id string) error {
	if err := store.CheckSessionID(id); err != nil {
		return fmt.Errorf("closing work session: %w", unavailable(err))
	}
	err := s.d.tx(ctx, func(tx pgx.Tx) error {
		var closed bool
		err := tx.QueryRow(ctx, `SELECT closed FROM work_sessions WHERE id = $1 FOR UPDATE`, id).Scan(&closed)
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil || closed {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE work_sessions SET closed = true, version = version + 1, updated_at = $1 WHERE id = $2`, store.Now(), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("closing work session %q: %w", id, unavailable(err))
	}
	return nil
}

// Expire implements store.WorkSessions.
func (s *WorkSessions) Expire(ctx context.Context, before time.Time) (int, error) {
	tag, err := s.d.pool.Exec(ctx, `DELETE FROM work_sessions
		WHERE (expires_at IS NOT NULL AND expires_at <= $1) OR (closed AND updated_at <= $1)`, before)
	if err != nil {
		return 0, fmt.Errorf("expiring work sessions: %w", unavailable(err))
	}
	return int(tag.RowsAffected()), nil
}
