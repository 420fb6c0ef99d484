package knex

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/mcpbridge/mcpbridge/internal/testenv"
)

// The environment variables naming the test servers (see scripts/setup-postgres.sh and
// scripts/setup-mysql.sh); without them the tests skip (see testenv).
const (
	envPostgres = testenv.PostgresEnv
	envMySQL    = testenv.MySQLEnv
)

// testDBName returns a fresh database name.
func testDBName() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "knex_test_" + hex.EncodeToString(b[:])
}

// postgresDB creates an empty database on the server named by MCPBRIDGE_TEST_POSTGRES,
// drops it when the test ends, and returns its URL and name.
func postgresDB(t *testing.T) (string, string) {
	t.Helper()
	base := testenv.PostgresURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connecting to %s: %v", envPostgres, err)
	}
	defer admin.Close(context.Background())
	name := testDBName()
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0"); err != nil {
		t.Fatalf("creating test database: %v", err)
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
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s is not a URL: %v", envPostgres, err)
	}
	u.Path = "/" + name
	return u.String(), name
}

// mysqlDB creates an empty database on the server named by MCPBRIDGE_TEST_MYSQL (a
// mysql://user:password@host:port/ URL), drops it when the test ends, and returns its URL
// and name.
func mysqlDB(t *testing.T) (string, string) {
	t.Helper()
	base := testenv.MySQLURL(t)
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "mysql" {
		t.Fatalf("%s should be mysql://user:password@host:port/, got an invalid URL", envMySQL)
	}
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User = "tcp", u.Host, u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	admin := sql.OpenDB(conn)
	t.Cleanup(func() { admin.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	name := testDBName()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("creating test database on %s: %v", envMySQL, err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name); err != nil {
			t.Errorf("dropping test database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String(), name
}

// mustURL parses a test server URL.
func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
