// Package pgtest gives tests a fresh PostgreSQL database on the server named
// by MCPBRIDGE_TEST_POSTGRES (start one with scripts/setup-postgres.sh); without it the
// tests skip, or fail under MCPBRIDGE_TEST_REQUIRE_ALL=1.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpbridge/mcpbridge/internal/testenv"
)

// EnvURL names the variable holding the server URL.
const EnvURL = testenv.PostgresEnv

// BaseURL returns MCPBRIDGE_TEST_POSTGRES. When it is unset the test skips, saying to run
// scripts/setup-postgres.sh, or fails under MCPBRIDGE_TEST_REQUIRE_ALL=1 (see testenv).
func BaseURL(t testing.TB) string {
	t.Helper()
	return testenv.PostgresURL(t)
}

// URL creates an empty database for this test, drops it when the test ends,
// and returns its URL.
func URL(t testing.TB) string {
	t.Helper()
	base := BaseURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connecting to %s (from scripts/setup-postgres.sh): %v", EnvURL, err)
	}
	defer admin.Close(context.Background())
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "mcpb_test_" + strings.ToLower(hex.EncodeToString(b[:]))
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" TEMPLATE template0"); err != nil {
		t.Fatalf("creating test database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		admin, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("dropping test database %s: %v", name, err)
			return
		}
		defer admin.Close(context.Background())
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s is not a URL: %v", EnvURL, err)
	}
	u.Path = "/" + name
	return u.String()
}
