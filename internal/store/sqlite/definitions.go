package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

// Definitions implements store.Definitions.
type Definitions struct{ d *db }

var _ store.Definitions = (*Definitions)(nil)

const defColumns = `slug, doc, revision, created_at, updated_at`

func scanDefinition(row interface{ Scan(...any) error }) (store.Definition, error) {
	var def store.Definition
	var doc []byte
	var created, updated sql.NullInt64
	if err := row.Scan(&def.Slug, &doc, &def.Revision, &created, &updated); err != nil {
		return def, err
	}
	def.Doc = json.RawMessage(doc)
	def.CreatedAt, def.UpdatedAt = fromMicro(created), fromMicro(updated)
	return def, nil
}

// Get implements store.Definitions.
func (s *Definitions) Get(ctx context.Context, slug string) (store.Definition, error) {
	if err := store.CheckSlug(slug); err != nil {
		return store.Definition{}, fmt.Errorf("getting definition: %w", err)
	}
	def, err := scanDefinition(s.d.r.QueryRowContext(ctx, `SELECT `+defColumns+` FROM definitions WHERE slug = ?`, slug))
	if errors.Is(err, sql.ErrNoRows) {
		return def, fmt.Errorf("definition %q: %w", slug, store.ErrNotFound)
	}
	if err != nil {
		return def, fmt.Errorf("getting definition %q: %w", slug, err)
	}
	return def, nil
}

// List implements store.Definitions.
func (s *Definitions) List(ctx context.Context) ([]store.Definition, error) {
	rows, err := s.d.r.QueryContext(ctx, `SELECT `+defColumns+` FROM definitions ORDER BY slug`)
	if err != nil {
		return nil, fmt.Errorf("listing definitions: %w", err)
	}
	defer rows.Close()
	defs := []store.Definition{}
	for rows.Next() {
		def, err := scanDefinition(rows)
		if err != nil {
			return nil, fmt.Errorf("listing definitions: %w", err)
		}
		defs = append(defs, def)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing definitions: %w", err)
	}
	return defs, nil
}

// Put implements store.Definitions.
func (s *Definitions) Put(ctx context.Context, slug string, doc json.RawMessage) (store.Definition, error) {
	return s.write(ctx, slug, doc, true)
}

// Create implements store.Definitions.
func (s *Definitions) Create(ctx context.Context, slug string, doc json.RawMessage) (store.Definition, error) {
	return s.write(ctx, slug, doc, false)
}

func (s *Definitions) write(ctx context.Context, slug string, doc json.RawMessage, replace bool) (store.Definition, error) {
	verb := "putting"
	if !replace {
		verb = "creating"
	}
	if err := store.CheckSlug(slug); err != nil {
		return store.Definition{}, fmt.Errorf("%s definition: %w", verb, err)
	}
	if err := store.CheckDocument("definition document", doc, s.d.limits.MaxDocumentBytes); err != nil {
		return store.Definition{}, fmt.Errorf("%s definition %q: %w", verb, slug, err)
	}
	now := store.Now()
	def := store.Definition{Slug: slug, Doc: append(json.RawMessage(nil), doc...), CreatedAt: now, UpdatedAt: now}
	err := s.d.write(ctx, func(tx *sql.Tx) error {
		if !replace {
			var one int
			err := tx.QueryRowContext(ctx, `SELECT 1 FROM definitions WHERE slug = ?`, slug).Scan(&one)
			if err == nil {
				return fmt.Errorf("definition %q: %w", slug, store.ErrExists)
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		if err := tx.QueryRowContext(ctx, `UPDATE definition_revision SET value = value + 1 WHERE id = 1 RETURNING value`).Scan(&def.Revision); err != nil {
			return err
		}
		var created sql.NullInt64
		err := tx.QueryRowContext(ctx, `INSERT INTO definitions (slug, doc, revision, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (slug) DO UPDATE SET doc = excluded.doc, revision = excluded.revision, updated_at = excluded.updated_at
			RETURNING created_at`,
			slug, string(doc), def.Revision, micro(now), micro(now)).Scan(&created)
		def.CreatedAt = fromMicro(created)
		return err
	})
	if err != nil {
		if errors.Is(err, store.ErrExists) {
			return store.Definition{}, fmt.Errorf("creating definition: %w", err)
		}
		return store.Definition{}, fmt.Errorf("%s definition %q: %w", verb, slug, err)
	}
	s.d.publish(store.Change{Kind: store.ChangePut, Slug: slug})
	return def, nil
}

// Delete implements store.Definitions.
func (s *Definitions) Delete(ctx context.Context, slug string) error {
	if err := store.CheckSlug(slug); err != nil {
		return fmt.Errorf("deleting definition: %w", err)
	}
	err := s.d.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM definitions WHERE slug = ?`, slug)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return fmt.Errorf("definition %q: %w", slug, store.ErrNotFound)
		}
		_, err = tx.ExecContext(ctx, `UPDATE definition_revision SET value = value + 1 WHERE id = 1`)
		return err
	})
	if err != nil {
		return fmt.Errorf("deleting definition: %w", err)
	}
	s.d.publish(store.Change{Kind: store.ChangeDelete, Slug: slug})
	return nil
}

// Watch implements store.Definitions. It reports changes made through any
// Store open on the same file in this process.
func (s *Definitions) Watch(ctx context.Context) <-chan store.Change {
	return s.d.hub.Subscribe(ctx)
}
