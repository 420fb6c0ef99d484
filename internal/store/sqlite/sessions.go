package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

// WorkSessions implements store.WorkSessions.
type WorkSessions struct{ d *db }

var _ store.WorkSessions = (*WorkSessions)(nil)

const sessionColumns = `id, app, owner, data, created_at, updated_at, expires_at, version, closed`

func scanSession(row interface{ Scan(...any) error }) (store.WorkSession, error) {
	var ws store.WorkSession
	var data []byte
	var created, updated, expires sql.NullInt64
	if err := row.Scan(&ws.ID, &ws.App, &ws.Owner, &data, &created, &updated, &expires, &ws.Version, &ws.Closed); err != nil {
		return ws, err
	}
	ws.Data = json.RawMessage(data)
	ws.CreatedAt, ws.UpdatedAt, ws.ExpiresAt = fromMicro(created), fromMicro(updated), fromMicro(expires)
	return ws, nil
}

// Create implements store.WorkSessions.
func (s *WorkSessions) Create(ctx context.Context, ws store.WorkSession) (store.WorkSession, error) {
	ws, err := store.PrepareSession(ws, s.d.limits.MaxDocumentBytes)
	if err != nil {
		return store.WorkSession{}, fmt.Errorf("creating work session: %w", err)
	}
	now := store.Now()
	ws.CreatedAt, ws.UpdatedAt, ws.Version, ws.Closed = now, now, 1, false
	ws.Data = append(json.RawMessage(nil), ws.Data...)
	err = s.d.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO work_sessions (`+sessionColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)`,
			ws.ID, ws.App, ws.Owner, string(ws.Data), micro(now), micro(now), micro(ws.ExpiresAt), ws.Version)
		if isUniqueViolation(err) {
			return fmt.Errorf("work session %q: %w", ws.ID, store.ErrExists)
		}
		return err
	})
	if err != nil {
		return store.WorkSession{}, fmt.Errorf("creating work session: %w", err)
	}
	return ws, nil
}

// Load implements store.WorkSessions.
func (s *WorkSessions) Load(ctx context.Context, id, owner string) (store.WorkSession, error) {
	if err := store.CheckSessionID(id); err != nil {
		return store.WorkSession{}, fmt.Errorf("loading work session: %w", err)
	}
	ws, err := scanSession(s.d.r.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM work_sessions WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !ws.VisibleTo(owner, time.Now())) {
		return store.WorkSession{}, fmt.Errorf("loading work session %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.WorkSession{}, fmt.Errorf("loading work session %q: %w", id, err)
	}
	return ws, nil
}

// Save implements store.WorkSessions.
func (s *WorkSessions) Save(ctx context.Context, ws store.WorkSession) (store.WorkSession, error) {
	if err := store.CheckSessionID(ws.ID); err != nil {
		return store.WorkSession{}, fmt.Errorf("saving work session: %w", err)
	}
	if err := store.CheckDocument("work session data", ws.Data, s.d.limits.MaxDocumentBytes); err != nil {
		return store.WorkSession{}, fmt.Errorf("saving work session %q: %w", ws.ID, err)
	}
	var saved store.WorkSession
	err := s.d.write(ctx, func(tx *sql.Tx) error {
		cur, err := scanSession(tx.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM work_sessions WHERE id = ?`, ws.ID))
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		now := store.Now()
		if saved, err = store.ApplySave(cur, ws, now); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE work_sessions SET data = ?, expires_at = ?, updated_at = ?, version = ? WHERE id = ? AND version = ?`,
			string(saved.Data), micro(saved.ExpiresAt), micro(now), saved.Version, ws.ID, cur.Version)
		return err
	})
	if err != nil {
		return store.WorkSession{}, fmt.Errorf("saving work session %q: %w", ws.ID, err)
	}
	return saved, nil
}

// List implements store.WorkSessions.
func (s *WorkSessions) List(ctx context.Context, owner string) ([]store.WorkSession, error) {
	rows, err := s.d.r.QueryContext(ctx, `SELECT `+sessionColumns+` FROM work_sessions
		WHERE owner = ? AND closed = 0 AND (expires_at IS NULL OR expires_at > ?)
		ORDER BY updated_at DESC, id`, owner, micro(store.Now()))
	if err != nil {
		return nil, fmt.Errorf("listing work sessions of %q: %w", owner, err)
	}
	defer rows.Close()
	list := []store.WorkSession{}
	for rows.Next() {
		ws, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("listing work sessions of %q: %w", owner, err)
		}
		list = append(list, ws)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing work sessions of %q: %w", owner, err)
	}
	return list, nil
}

// Close implements store.WorkSessions.
func (s *WorkSessions) Close(ctx context.Context, id string) error {
	if err := store.CheckSessionID(id); err != nil {
		return fmt.Errorf("closing work session: %w", err)
	}
	err := s.d.write(ctx, func(tx *sql.Tx) error {
		var closed bool
		err := tx.QueryRowContext(ctx, `SELECT closed FROM work_sessions WHERE id = ?`, id).Scan(&closed)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil || closed {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE work_sessions SET closed = 1, version = version + 1, updated_at = ? WHERE id = ?`, micro(store.Now()), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("closing work session %q: %w", id, err)
	}
	return nil
}

// Expire implements store.WorkSessions.
func (s *WorkSessions) Expire(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := s.d.write(ctx, func(tx *sql.Tx) error {
		b := before.UnixMicro()
		res, err := tx.ExecContext(ctx, `DELETE FROM work_sessions
			WHERE (expires_at IS NOT NULL AND expires_at <= ?) OR (closed = 1 AND updated_at <= ?)`, b, b)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("expiring work sessions: %w", err)
	}
	return int(n), nil
}
