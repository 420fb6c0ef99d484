package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

// Blobs implements store.Blobs.
type Blobs struct{ d *db }

var _ store.Blobs = (*Blobs)(nil)

// Put implements store.Blobs.
func (s *Blobs) Put(ctx context.Context, data []byte) (string, error) {
	if err := store.CheckBlobSize(len(data), s.d.limits.MaxBlobBytes); err != nil {
		return "", fmt.Errorf("storing blob: %w", err)
	}
	id := store.BlobID(data)
	if data == nil {
		data = []byte{}
	}
	err := s.d.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO blobs (id, data, size, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			id, data, len(data), micro(store.Now()))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("storing blob %s: %w", id, err)
	}
	return id, nil
}

// Get implements store.Blobs.
func (s *Blobs) Get(ctx context.Context, id string) ([]byte, error) {
	if err := store.CheckBlobID(id); err != nil {
		return nil, fmt.Errorf("getting blob: %w", err)
	}
	var data []byte
	err := s.d.r.QueryRowContext(ctx, `SELECT data FROM blobs WHERE id = ?`, id).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("blob %s: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("getting blob %s: %w", id, err)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}
