package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

// Audit implements store.Audit.
type Audit struct{ d *db }

var _ store.Audit = (*Audit)(nil)

// auditRows is the most rows one INSERT carries: 10 values each, well inside SQLite's
// 32,766 bound parameters.
const auditRows = 1000

// Record implements store.Audit: one transaction for all entries, a multi-row INSERT per
// auditRows of them.
func (s *Audit) Record(ctx context.Context, es ...store.Entry) error {
	if len(es) == 0 {
		return nil
	}
	now := time.Now()
	err := s.d.write(ctx, func(tx *sql.Tx) error {
		// One multi-row INSERT per auditRows entries: the driver starts a goroutine to
		// watch the context of every statement it runs, so a statement per row cost a
		// goroutine per tool call.
		for rest := es; len(rest) > 0; {
			n := min(len(rest), auditRows)
			var q strings.Builder
			q.WriteString(`INSERT INTO audit (time, server, tool, principal, via, client, outcome, duration_ns, error, arguments) VALUES `)
			args := make([]any, 0, 10*n)
			for i, e := range rest[:n] {
				if i > 0 {
					q.WriteByte(',')
				}
				q.WriteString(`(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
				if e.Time.IsZero() {
					e.Time = now
				}
				args = append(args, micro(store.Normalize(e.Time)), e.Server, e.Tool, e.Principal, e.Via, e.Client, e.Outcome, int64(e.Duration), e.Error, e.Arguments)
			}
			if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
				return err
			}
			rest = rest[n:]
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("recording %d audit entries (first %s/%s): %w", len(es), es[0].Server, es[0].Tool, err)
	}
	return nil
}

// List implements store.Audit.
func (s *Audit) List(ctx context.Context, f store.AuditFilter) ([]store.Entry, error) {
	var where []string
	var args []any
	if f.Server != "" {
		where = append(where, "server = ?")
		args = append(args, f.Server)
	}
	if f.Principal != "" {
		where = append(where, "principal = ?")
		args = append(args, f.Principal)
	}
	if f.AfterID != 0 {
		where = append(where, "id > ?")
		args = append(args, f.AfterID)
	}
	q := `SELECT id, time, server, tool, principal, via, client, outcome, duration_ns, error, arguments FROM audit`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	if f.OldestFirst {
		q += " ORDER BY id ASC LIMIT ?"
	} else {
		q += " ORDER BY id DESC LIMIT ?"
	}
	args = append(args, f.AuditLimit())
	rows, err := s.d.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("listing audit entries: %w", err)
	}
	defer rows.Close()
	list := []store.Entry{}
	for rows.Next() {
		var e store.Entry
		var t sql.NullInt64
		var d int64
		if err := rows.Scan(&e.ID, &t, &e.Server, &e.Tool, &e.Principal, &e.Via, &e.Client, &e.Outcome, &d, &e.Error, &e.Arguments); err != nil {
			return nil, fmt.Errorf("listing audit entries: %w", err)
		}
		e.Time, e.Duration = fromMicro(t), time.Duration(d)
		list = append(list, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing audit entries: %w", err)
	}
	return list, nil
}

// Prune implements store.Audit.
func (s *Audit) Prune(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := s.d.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM audit WHERE time < ?`, before.UnixMicro())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("pruning audit entries: %w", err)
	}
	return int(n), nil
}
