package server

import (
	"context"
	"io"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
)

// Options configure a Server.
type Options struct {
	// Connections are the connection types the server can run, by name.
	Connections connections.Set
	// Secrets are the app secrets by name, as `_secret: NAME` reads them. The caller
	// passes the LOWDEFY_SECRET_* variables of its environment (see SecretsFromEnv).
	Secrets map[string]string
	// Deps are the services handed to connections; nil uses the zero Deps.
	Deps *connections.Deps
	// Logger receives debug records of each call and the output of `:log`; nil
	// discards them.
	Logger *slog.Logger
	// Now is the clock of `_date: now` in request properties; time.Now if nil.
	Now func() time.Time
}

// Server runs the server side of one Lowdefy app: page requests, API endpoints and
// the authorisation of pages and endpoints. It is safe for concurrent use.
type Server struct {
	app       *app.App
	conns     connections.Set
	secrets   *jsvalue.Object
	hidden    []string // secret values (and their JSON-escaped forms) scrubbed from errors
	deps      *connections.Deps
	log       *slog.Logger
	now       func() time.Time
	endpoints map[string]*endpoint
}

// New returns the server side of a. Endpoints (the late-v4 `api` section) are built
// here the way Lowdefy's build does it (step ids, `auth.api` protection); an endpoint
// with a problem in its routine is reported when it is called.
func New(a *app.App, opts Options) *Server {
	s := &Server{
		app:     a,
		conns:   opts.Connections,
		secrets: jsvalue.NewObject(len(opts.Secrets)),
		deps:    opts.Deps,
		log:     opts.Logger,
		now:     opts.Now,
	}
	if s.conns == nil {
		s.conns = connections.Set{}
	}
	if s.deps == nil {
		s.deps = &connections.Deps{}
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	names := make([]string, 0, len(opts.Secrets))
	for k := range opts.Secrets {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := opts.Secrets[k]
		s.secrets.Set(k, v)
		s.hidden = appendHidden(s.hidden, v)
	}
	// Longest first, so a secret that contains another is hidden whole.
	sort.Slice(s.hidden, func(i, j int) bool { return len(s.hidden[i]) > len(s.hidden[j]) })
	s.endpoints = buildEndpoints(a, s.log)
	return s
}

// minHidden is the shortest secret value scrubbed from error messages: shorter
// values would blank out ordinary words and digits, and hide nothing worth hiding.
const minHidden = 4

func appendHidden(list []string, v string) []string {
	if len(v) < minHidden {
		return list
	}
	list = append(list, v)
	if q := jsvalue.Quote(v); q[1:len(q)-1] != v {
		list = append(list, q[1:len(q)-1])
	}
	return list
}

// SecretsFromEnv returns the secrets of environ (`KEY=value` strings as os.Environ
// gives them) the way Lowdefy's getSecretsFromEnv does: every variable named
// LOWDEFY_SECRET_<NAME> becomes secret <NAME>.
func SecretsFromEnv(environ []string) map[string]string {
	const prefix = "LOWDEFY_SECRET_"
	out := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(k, prefix) || len(k) == len(prefix) {
			continue
		}
		out[k[len(prefix):]] = v
	}
	return out
}

// Error is an error of the server side as Lowdefy names it: Kind is
// "ConfigurationError" (the app or the call names something that is not there, or is
// not allowed), "RequestError" (evaluating or running a request failed) or
// "ServerError" (invalid auth configuration). Message is what the client may see: it
// never contains a secret's value. Err is the cause, for the server's own logs.
type Error struct {
	Kind    string
	Message string
	Err     error
}

// Error returns the message the client may see.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// errorf builds an *Error whose message has the secrets scrubbed.
func (s *Server) newError(kind, msg string, cause error) *Error {
	return &Error{Kind: kind, Message: s.scrub(msg), Err: cause}
}

// scrub replaces every secret value in msg with "[secret]".
func (s *Server) scrub(msg string) string {
	for _, h := range s.hidden {
		if strings.Contains(msg, h) {
			msg = strings.ReplaceAll(msg, h, "[secret]")
		}
	}
	return msg
}

// debug logs a debug record with the call's context.
func (s *Server) debug(ctx context.Context, event string, args ...any) {
	s.log.DebugContext(ctx, "lowdefy server", append([]any{"event", event}, args...)...)
}
