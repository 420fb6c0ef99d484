package postgres

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

// Keys implements store.Keys. Only the SHA-256 hash of a secret is stored.
type Keys struct{ d *db }

var _ store.Keys = (*Keys)(nil)

const keyColumns = `id, hash, hint, name, user_id, roles, admin, created_at, revoked_at, user_name, user_email, servers`

func scanKey(row pgx.Row) (store.KeyInfo, string, error) {
	var k store.KeyInfo
	var hash string
	var revoked *time.Time
	if err := row.Scan(&k.ID, &hash, &k.Hint, &k.Name, &k.User, &k.Roles, &k.Admin, &k.CreatedAt, &revoked, &k.UserName, &k.UserEmail, &k.Servers); err != nil {
		return k, "", err
	}
	if k.Roles == nil {
		k.Roles = []string{}
	}
	if k.Servers == nil {
		k.Servers = []string{}
	}
	k.CreatedAt, k.RevokedAt = store.Normalize(k.CreatedAt), fromPtr(revoked)
	return k, hash, nil
}

// Create implements store.Keys.
func (s *Keys) Create(ctx context.Context, info store.KeyInfo) (string, store.KeyInfo, error) {
	if strings.TrimSpace(info.User) == "" {
		return "", store.KeyInfo{}, fmt.Errorf("creating API key %q: User is required: %w", info.Name, store.ErrInvalid)
	}
	secret, hash, hint, id, err := store.NewKey()
	if err != nil {
		return "", store.KeyInfo{}, fmt.Errorf("creating API key: %w", unavailable(err))
	}
	info.ID, info.Hint, info.CreatedAt, info.RevokedAt = id, hint, store.Now(), time.Time{}
	info.Roles = append([]string{}, info.Roles...)
	info.Servers = append([]string{}, info.Servers...)
	_, err = s.d.pool.Exec(ctx, `INSERT INTO api_keys (`+keyColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, $9, $10, $11)`,
		info.ID, hash, info.Hint, info.Name, info.User, info.Roles, info.Admin, info.CreatedAt, info.UserName, info.UserEmail, info.Servers)
	if err != nil {
		return "", store.KeyInfo{}, fmt.Errorf("creating API key %q: %w", info.Name, unavailable(err))
	}
	return secret, info, nil
}

// Lookup implements store.Keys.
func (s *Keys) Lookup(ctx context.Context, secret string) (store.KeyInfo, error) {
	if err := store.CheckKeySecret(secret); err != nil {
		return store.KeyInfo{}, fmt.Errorf("looking up API key: %w", unavailable(err))
	}
	want := store.HashKey(secret)
	k, got, err := scanKey(s.d.pool.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE hash = $1`, want))
	if errors.Is(err, pgx.ErrNoRows) {
		return store.KeyInfo{}, fmt.Errorf("looking up API key: unknown key: %w", store.ErrNotFound)
	}
	if err != nil {
		return store.KeyInfo{}, fmt.Errorf("looking up API key: %w", unavailable(err))
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return store.KeyInfo{}, fmt.Errorf("looking up API key: unknown key: %w", store.ErrNotFound)
	}
	if !k.RevokedAt.IsZero() {
		return store.KeyInfo{}, fmt.Errorf("looking up API key: key %s was revoked: %w", k.ID, store.ErrNotFound)
	}
	return k, nil
}

// List implements store.Keys.
func (s *Keys) List(ctx context.Context) ([]store.KeyInfo, error) {
	rows, err := s.d.pool.Query(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("listing API keys: %w", unavailable(err))
	}
	keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.KeyInfo, error) {
		k, _, err := scanKey(r)
		return k, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing API keys: %w", unavailable(err))
	}
	if keys == nil {
		keys = []store.KeyInfo{}
	}
	return keys, nil
}

// Revoke implements store.Keys.
func (s *Keys) Revoke(ctx context.Context, id string) error {
	tag, err := s.d.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2`, store.Now(), id)
	if err != nil {
		return fmt.Errorf("revoking API key %q: %w", id, unavailable(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("revoking API key: key %q: %w", id, store.ErrNotFound)
	}
	return nil
}

// DumpRows returns every row of the api_keys table rendered as text. It is
// for diagnostics and for the conformance suite, which checks that no secret
// is ever persisted.
func (s *Keys) DumpRows(ctx context.Context) ([]string, error) {
	rows, err := s.d.pool.Query(ctx, `SELECT t::text FROM api_keys t`)
	if err != nil {
		return nil, fmt.Errorf("dumping api_keys: %w", unavailable(err))
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("dumping api_keys: %w", unavailable(err))
	}
	return out, nil
}
