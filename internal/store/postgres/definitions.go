package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

// Definitions implements store.Definitions.
type Definitions struct{ d *db }

var _ store.Definitions = (*Definitions)(nil)

const defColumns = `slug, doc, revision, created_at, updated_at`

func scanDefinition(row pgx.Row) (store.Definition, error) {
	var def store.Definition
	var doc string
	if err := row.Scan(&def.Slug, &doc, &def.Revision, &def.CreatedAt, &def.UpdatedAt); err != nil {
		return def, err
	}
	def.Doc = json.RawMessage(doc)
	def.CreatedAt, def.UpdatedAt = store.Normalize(def.CreatedAt), store.Normalize(def.UpdatedAt)
	return def, nil
}

// Get implements store.Definitions.
func (s *Definitions) Get(ctx context.Context, slug string) (store.Definition, error) {
	if err := store.CheckSlug(slug); err != nil {
		return store.Definition{}, fmt.Errorf("getting definition: %w", unavailable(err))
	}
	def, err := scanDefinition(s.d.pool.QueryRow(ctx, `SELECT `+defColumns+` FROM definitions WHERE slug = $1`, slug))
	if errors.Is(err, pgx.ErrNoRows) {
		return def, fmt.Errorf("definition %q: %w", slug, store.ErrNotFound)
	}
	if err != nil {
		return def, fmt.Errorf("getting definition %q: %w", slug, unavailable(err))
	}
	return def, nil
}

// List implements store.Definitions.
func (s *Definitions) List(ctx context.Context) ([]store.Definition, error) {
	rows, err := s.d.pool.Query(ctx, `SELECT `+defColumns+` FROM definitions ORDER BY slug COLLATE "C"`)
	if err != nil {
		return nil, fmt.Errorf("listing definitions: %w", unavailable(err))
	}
	defs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Definition, error) { return scanDefinition(r) })
	if err != nil {
		return nil, fmt.Errorf("listing definitions: %w", unavailable(err))
	}
	if defs == nil {
		defs = []store.Definition{}
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
		return store.Definition{}, fmt.Errorf("%s definition: %w", verb, unavailable(err))
	}
	if err := store.CheckDocument("definition document", doc, s.d.limits.MaxDocumentBytes); err != nil {
		return store.Definition{}, fmt.Errorf("%s definition %q: %w", verb, slug, unavailable(err))
	}
	now := store.Now()
	var def store.Definition
	err := s.d.tx(ctx, func(tx pgx.Tx) error {
		var err error
		if replace {
			// The revision of an update is drawn after the row lock is
			// held, so revisions of one slug follow commit order.
			def, err = scanDefinition(tx.QueryRow(ctx, `INSERT INTO definitions (slug, doc, revision, created_at, updated_at)
				VALUES ($1, $2, nextval('definition_revision'), $3, $3)
				ON CONFLICT (slug) DO UPDATE SET doc = excluded.doc, revision = nextval('definition_revision'), updated_at = excluded.updated_at
				RETURNING `+defColumns, slug, string(doc), now))
		} else {
			def, err = scanDefinition(tx.QueryRow(ctx, `INSERT INTO definitions (slug, doc, revision, created_at, updated_at)
				VALUES ($1, $2, nextval('definition_revision'), $3, $3)
				ON CONFLICT (slug) DO NOTHING
				RETURNING `+defColumns, slug, string(doc), now))
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("definition %q: %w", slug, store.ErrExists)
			}
		}
		if err != nil {
			return err
		}
		return notify(ctx, tx, store.Change{Kind: store.ChangePut, Slug: slug})
	})
	if err != nil {
		if errors.Is(err, store.ErrExists) {
			return store.Definition{}, fmt.Errorf("creating definition: %w", unavailable(err))
		}
		return store.Definition{}, fmt.Errorf("%s definition %q: %w", verb, slug, unavailable(err))
	}
	return def, nil
}

// Delete implements store.Definitions.
func (s *Definitions) Delete(ctx context.Context, slug string) error {
	if err := store.CheckSlug(slug); err != nil {
		return fmt.Errorf("deleting definition: %w", unavailable(err))
	}
	err := s.d.tx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM definitions WHERE slug = $1`, slug)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("definition %q: %w", slug, store.ErrNotFound)
		}
		return notify(ctx, tx, store.Change{Kind: store.ChangeDelete, Slug: slug})
	})
	if err != nil {
		return fmt.Errorf("deleting definition: %w", unavailable(err))
	}
	return nil
}

// Watch implements store.Definitions. It reports changes committed by any
// process using the same database.
func (s *Definitions) Watch(ctx context.Context) <-chan store.Change {
	return s.d.lis.subscribe(ctx)
}
