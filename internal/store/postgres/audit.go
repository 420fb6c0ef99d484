package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

// Audit implements store.Audit.
type Audit struct{ d *db }

var _ store.Audit = (*Audit)(nil)

// Record implements store.Audit: the inserts go in one batch, in one transaction.
func (s *Audit) Record(ctx context.Context, es ...store.Entry) error {
	if len(es) == 0 {
		return nil
	}
	now := time.Now()
	b := &pgx.Batch{}
	for _, e := range es {
		if e.Time.IsZero() {
			e.Time = now
		}
		b.Queue(`INSERT INTO audit (time, server, tool, principal, via, client, outcome, duration_ns, error, arguments) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			store.Normalize(e.Time), e.Server, e.Tool, e.Principal, e.Via, e.Client, e.Outcome, int64(e.Duration), e.Error, e.Arguments)
	}
	err := pgx.BeginFunc(ctx, s.d.pool, func(tx pgx.Tx) error {
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return fmt.Errorf("recording %d audit entries (first %s/%s): %w", len(es), es[0].Server, es[0].Tool, unavailable(err))
	}
	return nil
}

// List implements store.Audit.
func (s *Audit) List(ctx context.Context, f store.AuditFilter) ([]store.Entry, error) {
	order := "DESC"
	if f.OldestFirst {
		order = "ASC"
	}
	rows, err := s.d.pool.Query(ctx, `SELECT id, time, server, tool, principal, via, client, outcome, duration_ns, error, arguments FROM audit
		WHERE ($1 = '' OR server = $1) AND ($2 = '' OR principal = $2) AND id > $4
		ORDER BY id `+order+` LIMIT $3`, f.Server, f.Principal, f.AuditLimit(), f.AfterID)
	if err != nil {
		return nil, fmt.Errorf("listing audit entries: %w", unavailable(err))
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Entry, error) {
		var e store.Entry
		var d int64
		err := r.Scan(&e.ID, &e.Time, &e.Server, &e.Tool, &e.Principal, &e.Via, &e.Client, &e.Outcome, &d, &e.Error, &e.Arguments)
		e.Time, e.Duration = store.Normalize(e.Time), time.Duration(d)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing audit entries: %w", unavailable(err))
	}
	if list == nil {
		list = []store.Entry{}
	}
	return list, nil
}

// Prune implements store.Audit.
func (s *Audit) Prune(ctx context.Context, before time.Time) (int, error) {
	tag, err := s.d.pool.Exec(ctx, `DELETE FROM audit WHERE time < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("pruning audit entries: %w", unavailable(err))
	}
	return int(tag.RowsAffected()), nil
}
