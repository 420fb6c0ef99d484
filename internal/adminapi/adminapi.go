// Package adminapi serves the admin API (/admin/api/…): the servers stored in the database,
// created, replaced and deleted through it, and the recent rows of the audit log. It owns
// the routes, their JSON bodies and errors and the admin-key guard; the served servers, how
// a definition is checked and when a stored change is applied are the gateway's (Servers).
package adminapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// Servers is what the admin API needs of the gateway.
type Servers interface {
	// Served is the served server named slug; ok is false when none is.
	Served(slug string) (s Served, ok bool)
	// All are the served servers, in the gateway's order.
	All() []Served
	// Invalid is why the stored definition of slug is not served ("" when it is).
	Invalid(slug string) string
	// Check checks a stored definition of slug as the config file's servers are checked:
	// nil, config.Problems, or another error saying what is wrong.
	Check(slug string, doc []byte) error
	// Apply applies a stored change of slug, waiting a little for the server to be served.
	Apply(slug string)
}

// Served is a served server as the admin API shows it.
type Served struct {
	Name    string
	Source  string // "file" or "store"
	Kind    string
	Enabled bool
}

// AuditLister lists the rows of the audit log.
type AuditLister interface {
	List(ctx context.Context, f store.AuditFilter) ([]store.Entry, error)
}

// API serves the admin API.
type API struct {
	Servers Servers
	// On reports whether the API is on: admin keys are configured and Definitions is set.
	On bool
	// Definitions holds the stored servers.
	Definitions store.Definitions
	// Audit lists the audit log; nil when the gateway keeps none.
	Audit AuditLister
	// Log receives the store's failures.
	Log *slog.Logger
	// MaxBody and ReadTimeout are limits.max_body and limits.read_timeout.
	MaxBody     int64
	ReadTimeout time.Duration
	// StoreRetryAfter is the Retry-After (seconds) of an answer the store's outage stopped.
	StoreRetryAfter int
	// BaseURL is the base of the endpoints the API gives out for a request.
	BaseURL func(r *http.Request) string
}

// The admin API manages servers stored in the database:
//
//	GET    /admin/api/servers          list every server (file and stored)
//	POST   /admin/api/servers          create: {"slug": "...", "definition": {...}}
//	GET    /admin/api/servers/{slug}   one server, with its definition when stored
//	PUT    /admin/api/servers/{slug}   create or replace: the definition itself
//	DELETE /admin/api/servers/{slug}   remove a stored server
//	GET    /admin/api/audit            recent tool calls (?server=&principal=&limit=)
//
// Definitions are the JSON form of a server's YAML, validated by the same rules. Requests
// need "Authorization: Bearer KEY" with an admin key; without configured keys the API is off.

type server struct {
	Slug       string          `json:"slug"`
	Source     string          `json:"source"` // "file" or "store"
	Kind       string          `json:"kind,omitempty"`
	Enabled    bool            `json:"enabled"`
	Revision   int64           `json:"revision,omitempty"`
	UpdatedAt  *time.Time      `json:"updated_at,omitempty"`
	Endpoint   string          `json:"endpoint"`
	Invalid    string          `json:"invalid,omitempty"`
	Definition json.RawMessage `json:"definition,omitempty"`
}

// Problem is one problem of an invalid definition, where it is.
type Problem struct {
	Path    string `json:"path,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
}

// Error answers {"error": msg, "problems": [...]} with status.
func Error(w http.ResponseWriter, status int, msg string, problems ...Problem) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	body := map[string]any{"error": msg}
	if len(problems) > 0 {
		body["problems"] = problems
	}
	json.NewEncoder(w).Encode(body)
}

// storeError answers a request the store failed: 503 with Retry-After (as a tool call
// gets, storeRetryAfter) and reason store_unavailable when the store cannot be reached
// right now, else 500. The error itself is in the gateway log.
func (a *API) storeError(w http.ResponseWriter, err error, what string) {
	if errors.Is(err, store.ErrUnavailable) {
		w.Header().Set("Retry-After", fmt.Sprint(a.StoreRetryAfter))
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{
			"error":             what + " failed: the gateway's store (its database) cannot be reached right now; retry in a few seconds",
			"reason":            "store_unavailable",
			"retryAfterSeconds": a.StoreRetryAfter,
		})
		return
	}
	Error(w, http.StatusInternalServerError, what+" failed; see the gateway log")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// Routes registers the admin API. Every route is guarded by guard.
func (a *API) Routes(mux *http.ServeMux) {
	handle := func(pattern string, h http.HandlerFunc) { mux.Handle(pattern, a.guard(h)) }
	handle("GET /admin/api/servers", a.list)
	handle("POST /admin/api/servers", a.create)
	handle("/admin/api/servers", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", "GET, POST")
		Error(w, http.StatusMethodNotAllowed, "use GET or POST on /admin/api/servers")
	})
	handle("GET /admin/api/servers/{slug}", a.get)
	handle("PUT /admin/api/servers/{slug}", a.put)
	handle("DELETE /admin/api/servers/{slug}", a.delete)
	handle("/admin/api/servers/{slug}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", "GET, PUT, DELETE")
		Error(w, http.StatusMethodNotAllowed, "use GET, PUT or DELETE on /admin/api/servers/{slug}")
	})
	handle("GET /admin/api/audit", a.audit)
	handle("/admin/api/", func(w http.ResponseWriter, r *http.Request) {
		Error(w, http.StatusNotFound, "unknown admin API path; see /admin/api/servers")
	})
}

// guard answers 404 while the admin API is off and 401 unless the authentication
// middleware found an admin principal (a request with one of the admin keys).
func (a *API) guard(h http.Handler) http.Handler {
	unauthorized := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcpbridge admin"`)
		Error(w, http.StatusUnauthorized, "send an admin key as Authorization: Bearer KEY")
	})
	guarded := auth.Require(auth.IsAdmin, unauthorized)(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.On {
			Error(w, http.StatusNotFound, "the admin API is off: set MCPBRIDGE_ADMIN_KEY (or admin.keys in the config) to turn it on")
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

func (a *API) summary(r *http.Request, s Served) server {
	return server{Slug: s.Name, Source: s.Source, Kind: s.Kind, Enabled: s.Enabled, Endpoint: a.BaseURL(r) + "/mcp/" + s.Name}
}

func (a *API) list(w http.ResponseWriter, r *http.Request) {
	out := []server{}
	seen := map[string]bool{}
	for _, s := range a.Servers.All() {
		if s.Source == "file" {
			out = append(out, a.summary(r, s))
			seen[s.Name] = true
		}
	}
	defs, err := a.Definitions.List(r.Context())
	if err != nil {
		a.Log.Error("admin: listing stored servers", "error", err)
		a.storeError(w, err, "listing stored servers")
		return
	}
	for _, d := range defs {
		if seen[d.Slug] {
			continue
		}
		out = append(out, a.storedView(r, d, false))
	}
	writeJSON(w, http.StatusOK, map[string]any{"servers": out})
}

func (a *API) storedView(r *http.Request, d store.Definition, withDoc bool) server {
	v := server{Slug: d.Slug, Source: "store", Revision: d.Revision, Endpoint: a.BaseURL(r) + "/mcp/" + d.Slug}
	t := d.UpdatedAt
	v.UpdatedAt = &t
	if s, ok := a.Servers.Served(d.Slug); ok && s.Source == "store" {
		v.Kind, v.Enabled = s.Kind, s.Enabled
	}
	v.Invalid = a.Servers.Invalid(d.Slug)
	if withDoc {
		v.Definition = d.Doc
	}
	return v
}

func (a *API) get(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("slug")
	if s, ok := a.Servers.Served(slug); ok && s.Source == "file" {
		writeJSON(w, http.StatusOK, a.summary(r, s))
		return
	}
	d, err := a.Definitions.Get(r.Context(), slug)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrInvalid) {
		Error(w, http.StatusNotFound, fmt.Sprintf("no server %q", slug))
		return
	}
	if err != nil {
		a.Log.Error("admin: reading stored server", "server", slug, "error", err)
		a.storeError(w, err, "reading the server")
		return
	}
	writeJSON(w, http.StatusOK, a.storedView(r, d, true))
}

// readDefinition reads and validates a definition body; on failure it has answered.
func (a *API) readDefinition(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		Error(w, http.StatusUnsupportedMediaType, "send the definition as Content-Type: application/json")
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, a.MaxBody))
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		Error(w, http.StatusRequestTimeout, fmt.Sprintf("the definition did not arrive within %s (limits.read_timeout)", a.ReadTimeout))
		return nil, false
	case err != nil:
		Error(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the definition is larger than %d bytes", a.MaxBody))
		return nil, false
	}
	if !json.Valid(body) {
		Error(w, http.StatusBadRequest, "the body is not valid JSON")
		return nil, false
	}
	return body, true
}

// validate checks a definition as the config file's servers are checked.
func (a *API) validate(w http.ResponseWriter, slug string, doc []byte) bool {
	if s, ok := a.Servers.Served(slug); ok && s.Source == "file" {
		Error(w, http.StatusConflict, fmt.Sprintf("server %q is defined in the config file; edit the file instead", slug))
		return false
	}
	if !config.NamePattern.Get().MatchString(slug) {
		Error(w, http.StatusBadRequest, fmt.Sprintf("slug %q is not allowed: use 1-63 lowercase letters, digits, '-' or '_', starting with a letter or digit", slug))
		return false
	}
	err := a.Servers.Check(slug, doc)
	var ps config.Problems
	if errors.As(err, &ps) {
		var out []Problem
		for _, p := range ps {
			out = append(out, Problem{Path: p.Path, Line: p.Line, Column: p.Column, Message: p.Msg})
		}
		Error(w, http.StatusBadRequest, "the definition is invalid: "+ps[0].Path+": "+ps[0].Msg, out...)
		return false
	}
	if err != nil {
		Error(w, http.StatusBadRequest, "the definition is invalid: "+err.Error())
		return false
	}
	return true
}

func (a *API) create(w http.ResponseWriter, r *http.Request) {
	body, ok := a.readDefinition(w, r)
	if !ok {
		return
	}
	var req struct {
		Slug       string          `json:"slug"`
		Definition json.RawMessage `json:"definition"`
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || req.Slug == "" || len(req.Definition) == 0 {
		Error(w, http.StatusBadRequest, `send {"slug": "name", "definition": {...}} (or PUT the definition to /admin/api/servers/{slug})`)
		return
	}
	if !a.validate(w, req.Slug, req.Definition) {
		return
	}
	d, err := a.Definitions.Create(r.Context(), req.Slug, req.Definition)
	if errors.Is(err, store.ErrExists) {
		Error(w, http.StatusConflict, fmt.Sprintf("server %q exists; PUT /admin/api/servers/%s replaces it", req.Slug, req.Slug))
		return
	}
	if err != nil {
		a.Log.Error("admin: creating server", "server", req.Slug, "error", err)
		a.storeError(w, err, "storing the server")
		return
	}
	a.Servers.Apply(req.Slug)
	w.Header().Set("Location", "/admin/api/servers/"+req.Slug)
	writeJSON(w, http.StatusCreated, a.storedView(r, d, true))
}

func (a *API) put(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("slug")
	body, ok := a.readDefinition(w, r)
	if !ok || !a.validate(w, slug, body) {
		return
	}
	// Create first: a new server costs one write, and the answer says which happened.
	status := http.StatusCreated
	d, err := a.Definitions.Create(r.Context(), slug, body)
	if errors.Is(err, store.ErrExists) {
		status = http.StatusOK
		d, err = a.Definitions.Put(r.Context(), slug, body)
	}
	if err != nil {
		a.Log.Error("admin: storing server", "server", slug, "error", err)
		a.storeError(w, err, "storing the server")
		return
	}
	a.Servers.Apply(slug)
	writeJSON(w, status, a.storedView(r, d, true))
}

func (a *API) delete(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("slug")
	if s, ok := a.Servers.Served(slug); ok && s.Source == "file" {
		Error(w, http.StatusConflict, fmt.Sprintf("server %q is defined in the config file; remove it there", slug))
		return
	}
	err := a.Definitions.Delete(r.Context(), slug)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrInvalid) {
		Error(w, http.StatusNotFound, fmt.Sprintf("no stored server %q", slug))
		return
	}
	if err != nil {
		a.Log.Error("admin: deleting server", "server", slug, "error", err)
		a.storeError(w, err, "deleting the server")
		return
	}
	a.Servers.Apply(slug)
	w.WriteHeader(http.StatusNoContent)
}

type auditView struct {
	Time       time.Time `json:"time"`
	Server     string    `json:"server"`
	Tool       string    `json:"tool"`
	Principal  string    `json:"principal,omitempty"`
	Via        string    `json:"via,omitempty"`
	Client     string    `json:"client,omitempty"`
	Outcome    string    `json:"outcome"`
	DurationMS float64   `json:"duration_ms"`
	Error      string    `json:"error,omitempty"`
	Arguments  string    `json:"arguments,omitempty"`
}

// audit lists recent audit rows, newest first.
func (a *API) audit(w http.ResponseWriter, r *http.Request) {
	lister := a.Audit
	if lister == nil {
		Error(w, http.StatusNotFound, "no audit log is kept by this gateway")
		return
	}
	q := r.URL.Query()
	f := store.AuditFilter{Server: q.Get("server"), Principal: q.Get("principal")}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			Error(w, http.StatusBadRequest, "limit must be a positive number")
			return
		}
		f.Limit = n
	}
	rows, err := lister.List(r.Context(), f)
	if err != nil {
		a.Log.Error("admin: listing audit rows", "error", err)
		a.storeError(w, err, "listing the audit log")
		return
	}
	out := make([]auditView, 0, len(rows))
	for _, e := range rows {
		out = append(out, auditView{Time: e.Time, Server: e.Server, Tool: e.Tool, Principal: e.Principal, Via: e.Via, Client: e.Client, Outcome: e.Outcome, DurationMS: float64(e.Duration.Microseconds()) / 1000, Error: e.Error, Arguments: e.Arguments})
	}
	writeJSON(w, http.StatusOK, map[string]any{"entries": out})
}
