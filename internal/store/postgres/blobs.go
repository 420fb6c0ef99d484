package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

// Blobs implements store.Blobs.
type Blobs struct{ d *db }

var _ store.Blobs = (*Blobs)(nil)

// Put implements store.Blobs.
func (s *Blobs) Put(ctx context.Context, data []byte) (string, error) {
	if err := store.CheckBlobSize(len(data), s.d.limits.MaxBlobBytes); err != nil {
		return "", fmt.Errorf("storing blob: %w", unavailable(err))
	}
	id := store.BlobID(data)
	if data == nil {
		data = []byte{}
	}
	_, err := s.d.pool.Exec(ctx, `INSERT INTO blobs (id, data, size, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`,
		id, data, len(data), store.Now())
	if err != nil {
		return "", fmt.Errorf("storing blob %s: %w", id, unavailable(err))
	}
	return id, nil
}

// Get implements store.Blobs.
func (s *Blobs) Get(ctx context.Context, id string) ([]byte, error) {
	if err := store.CheckBlobID(id); err != nil {
		return nil, fmt.Errorf("getting blob: %w", unavailable(err))
	}
	var data []byte
	err := s.d.pool.QueryRow(ctx, `SELECT data FROM blobs WHERE id = $1`, id).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("blob %s: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("getting blob %s: %w", id, unavailable(err))
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}
