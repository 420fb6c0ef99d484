package sqlite

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

// Keys implements store.Keys. Only the SHA-256 hash of a secret is stored.
type Keys struct{ d *db }

var _ store.Keys = (*Keys)(nil)

const keyColumns = `id, hash, hint, name, user_id, roles, admin, created_at, revoked_at, user_name, user_email, servers`

func scanKey(row interface{ Scan(...any) error }) (store.KeyInfo, string, error) {
	var k store.KeyInfo
	var hash, roles, servers string
	var created, revoked sql.NullInt64
	if err := row.Scan(&k.ID, &hash, &k.Hint, &k.Name, &k.User, &roles, &k.Admin, &created, &revoked, &k.UserName, &k.UserEmail, &servers); err != nil {
		return k, "", err
	}
	if err := json.Unmarshal([]byte(roles), &k.Roles); err != nil {
		return k, "", fmt.Errorf("decoding roles of key %s: %w", k.ID, err)
	}
	if err := json.Unmarshal([]byte(servers), &k.Servers); err != nil {
		return k, "", fmt.Errorf("decoding servers of key %s: %w", k.ID, err)
	}
	k.CreatedAt, k.RevokedAt = fromMicro(created), fromMicro(revoked)
	return k, hash, nil
}

// Create implements store.Keys.
func (s *Keys) Create(ctx context.Context, info store.KeyInfo) (string, store.KeyInfo, error) {
	if strings.TrimSpace(info.User) == "" {
		return "", store.KeyInfo{}, fmt.Errorf("creating API key %q: User is required: %w", info.Name, store.ErrInvalid)
	}
	secret, hash, hint, id, err := store.NewKey()
	if err != nil {
		return "", store.KeyInfo{}, fmt.Errorf("creating API key: %w", err)
	}
	info.ID, info.Hint, info.CreatedAt, info.RevokedAt = id, hint, store.Now(), time.Time{}
	info.Roles = append([]string{}, info.Roles...)
	info.Servers = append([]string{}, info.Servers...)
	roles, err := json.Marshal(info.Roles)
	if err != nil {
		return "", store.KeyInfo{}, fmt.Errorf("creating API key: encoding roles: %w", err)
	}
	servers, err := json.Marshal(info.Servers)
	if err != nil {
		return "", store.KeyInfo{}, fmt.Errorf("creating API key: encoding servers: %w", err)
	}
	err = s.d.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO api_keys (`+keyColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)`,
			info.ID, hash, info.Hint, info.Name, info.User, string(roles), info.Admin, micro(info.CreatedAt), info.UserName, info.UserEmail, string(servers))
		return err
	})
	if err != nil {
		return "", store.KeyInfo{}, fmt.Errorf("creating API key %q: %w", info.Name, err)
	}
	return secret, info, nil
}

// Lookup implements store.Keys.
func (s *Keys) Lookup(ctx context.Context, secret string) (store.KeyInfo, error) {
	if err := store.CheckKeySecret(secret); err != nil {
		return store.KeyInfo{}, fmt.Errorf("looking up API key: %w", err)
	}
	want := store.HashKey(secret)
	k, got, err := scanKey(s.d.r.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE hash = ?`, want))
	if errors.Is(err, sql.ErrNoRows) {
		return store.KeyInfo{}, fmt.Errorf("looking up API key: unknown key: %w", store.ErrNotFound)
	}
	if err != nil {
		return store.KeyInfo{}, fmt.Errorf("looking up API key: %w", err)
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
	rows, err := s.d.r.QueryContext(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("listing API keys: %w", err)
	}
	defer rows.Close()
	keys := []store.KeyInfo{}
	for rows.Next() {
		k, _, err := scanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("listing API keys: %w", err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing API keys: %w", err)
	}
	return keys, nil
}

// Revoke implements store.Keys.
func (s *Keys) Revoke(ctx context.Context, id string) error {
	err := s.d.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, micro(store.Now()), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return fmt.Errorf("key %q: %w", id, store.ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("revoking API key: %w", err)
	}
	return nil
}

// DumpRows returns every row of the api_keys table, each column rendered as
// text and joined by spaces. It is for diagnostics and for the conformance
// suite, which checks that no secret is ever persisted.
func (s *Keys) DumpRows(ctx context.Context) ([]string, error) {
	return dumpTable(ctx, s.d.r, "api_keys")
}

// dumpTable renders every row of a table (a trusted, constant name) as text.
func dumpTable(ctx context.Context, q *sql.DB, table string) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT * FROM `+table)
	if err != nil {
		return nil, fmt.Errorf("dumping %s: %w", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("dumping %s: %w", table, err)
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("dumping %s: %w", table, err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out, rows.Err()
}
