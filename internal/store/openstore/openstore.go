// Package openstore opens the store.Store named by a URL: the embedded SQLite
// store for "sqlite:PATH", "sqlite://PATH" or a bare path ending in ".db", and
// the PostgreSQL store for "postgres://…" or "postgresql://…". Passwords in
// URLs never appear in its errors or logs.
package openstore

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/postgres"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

// Accepted describes the accepted store URLs, for messages and help text.
const Accepted = `sqlite:PATH, sqlite://PATH, a file path ending in .db, or postgres://USER@HOST:PORT/DB (also postgresql://)`

// Open opens the store named by rawURL. log may be nil (slog.Default()).
func Open(ctx context.Context, rawURL string, log *slog.Logger) (*store.Store, error) {
	if log == nil {
		log = slog.Default()
	}
	kind, target, err := Parse(rawURL)
	if err != nil {
		return nil, err
	}
	secrets := passwords(rawURL)
	var s *store.Store
	switch kind {
	case "sqlite":
		s, err = sqlite.Open(ctx, target, sqlite.Options{Logger: log})
	case "postgres":
		s, err = postgres.Open(ctx, target, postgres.Options{Logger: log})
	}
	if err != nil {
		return nil, &redactedError{err: err, secrets: secrets}
	}
	log.Info("store opened", "kind", kind, "url", Redact(rawURL))
	return s, nil
}

// Parse says which implementation rawURL names ("sqlite" or "postgres") and
// what to pass it (a file path, or the URL itself).
func Parse(rawURL string) (kind, target string, err error) {
	u := strings.TrimSpace(rawURL)
	lower := strings.ToLower(u)
	switch {
	case u == "":
		return "", "", fmt.Errorf("empty store URL: use %s", Accepted)
	case strings.HasPrefix(lower, "sqlite://"):
		target = u[len("sqlite://"):]
	case strings.HasPrefix(lower, "sqlite:"):
		target = u[len("sqlite:"):]
	case strings.HasPrefix(lower, "postgres://"), strings.HasPrefix(lower, "postgresql://"):
		return "postgres", u, nil
	case !strings.Contains(u, "://") && strings.HasSuffix(lower, ".db"):
		return "sqlite", u, nil
	default:
		return "", "", fmt.Errorf("unknown store URL %q: use %s", Redact(u), Accepted)
	}
	if target == "" {
		return "", "", fmt.Errorf("store URL %q has no file path: use sqlite:./mcpbridge.db", Redact(u))
	}
	return "sqlite", target, nil
}

// credentialsInAuthority matches "scheme://user:password@" when the URL does
// not parse.
var credentialsInAuthority = lazy.Regexp{Expr: `(://[^/@:]*:)[^@/]*@`}

// passwordParam matches password=… in query strings and key=value strings.
var passwordParam = lazy.Regexp{Expr: `(?i)(password=)[^&\s]*`}

// Redact returns rawURL with any password replaced by "xxxxx", for logs and
// messages.
func Redact(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil && u.Scheme != "" {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		q := u.Query()
		for k := range q {
			if strings.EqualFold(k, "password") {
				q.Set(k, "xxxxx")
				u.RawQuery = q.Encode()
			}
		}
		return u.String()
	}
	s := credentialsInAuthority.Get().ReplaceAllString(rawURL, "${1}xxxxx@")
	return passwordParam.Get().ReplaceAllString(s, "${1}xxxxx")
}

// passwords returns the secrets in rawURL in every form they may be echoed.
func passwords(rawURL string) []string {
	var out []string
	add := func(s string) {
		if len(s) >= 1 {
			out = append(out, s)
			if e := url.QueryEscape(s); e != s {
				out = append(out, e)
			}
			if e := url.PathEscape(s); e != s {
				out = append(out, e)
			}
		}
	}
	if u, err := url.Parse(rawURL); err == nil {
		if p, has := u.User.Password(); has {
			add(p)
		}
		for k, vs := range u.Query() {
			if strings.EqualFold(k, "password") {
				for _, v := range vs {
					add(v)
				}
			}
		}
	}
	if m := credentialsInAuthority.Get().FindStringSubmatch(rawURL); m != nil {
		whole := m[0]
		add(whole[len(m[1]) : len(whole)-1])
	}
	for _, m := range passwordParam.Get().FindAllString(rawURL, -1) {
		add(m[len("password="):])
	}
	return out
}

// redactedError hides secrets in the text of an error while keeping it
// inspectable with errors.Is and errors.As.
type redactedError struct {
	err     error
	secrets []string
}

func (e *redactedError) Error() string {
	msg := e.err.Error()
	for _, s := range e.secrets {
		msg = strings.ReplaceAll(msg, s, "xxxxx")
	}
	return msg
}

func (e *redactedError) Unwrap() error { return e.err }
