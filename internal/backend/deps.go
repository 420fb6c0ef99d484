package backend

import (
	"errors"
	"log/slog"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/safehttp"
	"github.com/mcpbridge/mcpbridge/internal/secret"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// Services are what a process holds for the backends it opens or checks: `serve`, `stdio`,
// `app` and the admin API through the gateway, `check` on its own. NewDeps turns them into
// the Deps of one server.
type Services struct {
	// Logger is the process's logger; each server's gets its name (nil discards).
	Logger *slog.Logger
	// WorkSessions and Blobs are the store's (nil when there is no store, as for check).
	WorkSessions store.WorkSessions
	Blobs        store.Blobs
	// Secrets is the gateway's set of every secret value any server resolved: a value
	// resolved through these Deps is added to it, so it is scrubbed from the outputs of every
	// server, not only this one (nil: nothing is collected, as for check).
	Secrets *secret.Set
	// Check says the Deps are for checking definitions without the production secrets
	// (`mcpbridge check`): a reference to a secret that is not set is reported as a warning
	// (see CheckSecrets) instead of failing.
	Check bool
}

// NewDeps returns the services the backend of server s of cfg gets. It is the one place
// Deps are built: every path that opens or checks a definition (serve, stdio, app, the
// admin API's stored servers, check) calls it, so a kind sees the same services whichever
// way its server is reached.
func NewDeps(cfg *config.Config, s *config.Server, sv Services) Deps {
	d := Deps{
		Dir:          cfg.Dir,
		Variables:    cfg.Variables,
		WorkSessions: sv.WorkSessions,
		Blobs:        sv.Blobs,
		Secrets:      EnvSecrets{Dir: cfg.Dir, Set: sv.Secrets},
		HTTPClient:   safehttp.NewClient, // clients of a policy share one pool
	}
	if sv.Logger != nil {
		d.Logger = sv.Logger.With("server", s.Name)
	}
	if sv.Check {
		d.Secrets = CheckSecrets{Dir: cfg.Dir}
	}
	return d
}

// EnvSecrets resolves secret references from the environment and from files
// (internal/secret); a relative file: path is read from Dir. Every value it resolves is
// added to Set (when not nil), the gateway's secrets scrubbed from every server's outputs.
type EnvSecrets struct {
	Dir string
	Set *secret.Set
}

// Resolve returns the value of ref; where names the config field in errors.
func (r EnvSecrets) Resolve(where, ref string) (string, error) {
	v, _, err := secret.ResolveInto(r.Set, r.Dir, where, ref)
	return v, err
}

// CheckSecrets resolves like EnvSecrets for a check run without the production secrets
// (CI): a reference that is not set fails with an error that is a *MissingSecret, which
// CheckRef reports as a warning naming what to set.
type CheckSecrets struct{ Dir string }

// Resolve returns the value of ref, or an error; a reference that is not set gives a
// *MissingSecret.
func (r CheckSecrets) Resolve(where, ref string) (string, error) {
	v, _, err := secret.Resolve(r.Dir, where, ref)
	if errors.Is(err, secret.ErrNotSet) {
		return "", &MissingSecret{err: err}
	}
	return v, err
}

// A MissingSecret is the error of CheckSecrets for a reference that is not set: a warning
// when checking, since the process that serves the definition may have it.
type MissingSecret struct{ err error }

func (e *MissingSecret) Error() string { return e.err.Error() }

// Unwrap returns the resolver's error.
func (e *MissingSecret) Unwrap() error { return e.err }

// CheckRef resolves the secret reference ref at path (relative to sec) through
// deps.Secrets, as opening the server will, and returns the problem to report when that
// fails: a warning when the reference is merely not set and deps are for a check (a
// *MissingSecret), an error otherwise. A string that is not a reference is no problem.
func CheckRef(deps Deps, sec config.Section, path, ref string) config.Problems {
	if !secret.IsRef(ref) {
		return nil
	}
	_, err := deps.Resolve("", ref)
	if err == nil {
		return nil
	}
	msg := strings.TrimPrefix(err.Error(), ": ")
	var m *MissingSecret
	if errors.As(err, &m) {
		return config.Problems{sec.Warning(path, "%s (serve and stdio refuse to start without it)", msg)}
	}
	return config.Problems{sec.Problem(path, "%s", msg)}
}

// Resolve returns the value a configured string stands for through d.Secrets (EnvSecrets
// of d.Dir when unset): a secret reference's value, and any other string as it is. where
// names the config field in errors. Kinds resolve every reference through it.
func (d Deps) Resolve(where, v string) (string, error) {
	if !secret.IsRef(v) {
		return v, nil
	}
	if d.Secrets == nil {
		return EnvSecrets{Dir: d.Dir}.Resolve(where, v)
	}
	return d.Secrets.Resolve(where, v)
}
