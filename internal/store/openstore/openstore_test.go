package openstore_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/store/openstore"
	"github.com/mcpbridge/mcpbridge/internal/store/postgres/pgtest"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in, kind, target, errHas string
	}{
		{in: "sqlite:./data/mcp.db", kind: "sqlite", target: "./data/mcp.db"},
		{in: "sqlite:///var/lib/mcpbridge.db", kind: "sqlite", target: "/var/lib/mcpbridge.db"},
		{in: "sqlite://rel/x.sqlite", kind: "sqlite", target: "rel/x.sqlite"},
		{in: "SQLite:store", kind: "sqlite", target: "store"},
		{in: "sqlite::memory:", kind: "sqlite", target: ":memory:"},
		{in: "/tmp/x.db", kind: "sqlite", target: "/tmp/x.db"},
		{in: "mcpbridge.DB", kind: "sqlite", target: "mcpbridge.DB"},
		{in: "postgres://u@h/db", kind: "postgres", target: "postgres://u@h/db"},
		{in: "postgresql://u:p@h:5432/db?sslmode=disable", kind: "postgres", target: "postgresql://u:p@h:5432/db?sslmode=disable"},
		{in: "", errHas: "empty store URL"},
		{in: "sqlite:", errHas: "no file path"},
		{in: "sqlite://", errHas: "no file path"},
		{in: "mysql://root:hunter2@h/db", errHas: "unknown store URL"},
		{in: "store.sqlite", errHas: "unknown store URL"},
		{in: "http://x.db", errHas: "unknown store URL"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			kind, target, err := openstore.Parse(tc.in)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("Parse(%q) error = %v, want one containing %q", tc.in, err, tc.errHas)
				}
				if !strings.Contains(err.Error(), "postgres://") || !strings.Contains(err.Error(), "sqlite:") {
					if tc.errHas != "no file path" {
						t.Errorf("error %q does not list the accepted forms", err)
					}
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Errorf("error leaks the password: %v", err)
				}
				return
			}
			if err != nil || kind != tc.kind || target != tc.target {
				t.Errorf("Parse(%q) = %q, %q, %v; want %q, %q", tc.in, kind, target, err, tc.kind, tc.target)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://alice:s3cr3t@db:5432/mcp?sslmode=disable", "postgres://alice:xxxxx@db:5432/mcp?sslmode=disable"},
		{"postgres://alice@db/mcp", "postgres://alice@db/mcp"},
		{"postgres://db/mcp?user=a&password=s3cr3t", "postgres://db/mcp?password=xxxxx&user=a"},
		{"postgres://alice:s3cr3t@db:notaport/mcp", "postgres://alice:xxxxx@db:notaport/mcp"},
		{"postgres://alice:s%zz@db/mcp", "postgres://alice:xxxxx@db/mcp"},
		{"sqlite:./x.db", "sqlite:./x.db"},
		{"/tmp/x.db", "/tmp/x.db"},
	}
	for _, tc := range tests {
		if got := openstore.Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestOpenSQLite(t *testing.T) {
	dir := t.TempDir()
	for _, u := range []string{
		"sqlite:" + filepath.Join(dir, "a.db"),
		"sqlite://" + filepath.Join(dir, "b.db"),
		filepath.Join(dir, "c.db"),
		"sqlite::memory:",
	} {
		t.Run(u, func(t *testing.T) {
			var logs bytes.Buffer
			s, err := openstore.Open(t.Context(), u, slog.New(slog.NewTextHandler(&logs, nil)))
			if err != nil {
				t.Fatalf("Open(%q): %v", u, err)
			}
			defer s.Close()
			if s.Kind != "sqlite" {
				t.Errorf("Kind = %q, want sqlite", s.Kind)
			}
			id, err := s.Blobs.Put(t.Context(), []byte("x"))
			if err != nil {
				t.Fatalf("using the store: %v", err)
			}
			if _, err := s.Blobs.Get(t.Context(), id); err != nil {
				t.Fatalf("using the store: %v", err)
			}
			if !strings.Contains(logs.String(), "store opened") {
				t.Errorf("no 'store opened' log line: %s", logs.String())
			}
		})
	}
	_, err := openstore.Open(t.Context(), "sqlite:"+filepath.Join(dir, "missing-dir", "x.db"), slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Open in a missing directory: %v, want an error saying the directory does not exist", err)
	}
}

func TestOpenPostgres(t *testing.T) {
	u := pgtest.URL(t)
	var logs bytes.Buffer
	s, err := openstore.Open(t.Context(), u, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	if s.Kind != "postgres" {
		t.Errorf("Kind = %q, want postgres", s.Kind)
	}
	parsed, _ := url.Parse(u)
	if pw, ok := parsed.User.Password(); ok && strings.Contains(logs.String(), pw) {
		t.Errorf("log contains the password: %s", logs.String())
	}
	if !strings.Contains(logs.String(), "xxxxx") {
		t.Errorf("log does not show the redacted URL: %s", logs.String())
	}
}

// TestPasswordsNeverInErrors: failures to parse, connect or authenticate name
// the problem without the password.
func TestPasswordsNeverInErrors(t *testing.T) {
	const secret = "Sup3r-S3cret_pw"
	wrongPassword := func() string {
		u, err := url.Parse(pgtest.BaseURL(t))
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.UserPassword(u.User.Username(), secret)
		return u.String()
	}()
	tests := []struct{ name, url string }{
		{"bad port", "postgres://alice:" + secret + "@127.0.0.1:notaport/db"},
		{"bad escape", "postgres://alice:" + secret + "%zz@127.0.0.1/db"},
		{"refused", "postgres://alice:" + secret + "@127.0.0.1:1/db?connect_timeout=2"},
		{"query password refused", "postgres://127.0.0.1:1/db?user=alice&password=" + secret + "&connect_timeout=2"},
		{"wrong password", wrongPassword},
		{"unknown scheme", "mysql://alice:" + secret + "@h/db"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			_, err := openstore.Open(ctx, tc.url, slog.New(slog.NewTextHandler(&logs, nil)))
			if err == nil {
				t.Fatal("Open succeeded, want an error")
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(logs.String(), secret) {
				t.Errorf("password leaked:\nerror: %v\nlogs: %s", err, logs.String())
			}
			if errors.Unwrap(err) == nil && !strings.Contains(err.Error(), "unknown store URL") {
				t.Errorf("error %v wraps nothing; want the cause kept for errors.Is", err)
			}
			t.Logf("error: %v", err)
		})
	}
}
