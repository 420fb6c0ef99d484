package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

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

type adminServer struct {
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

type adminProblem struct {
	Path    string `json:"path,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
}

func adminError(w http.ResponseWriter, status int, msg string, problems ...adminProblem) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	body := map[string]any{"error": msg}
	if len(problems) > 0 {
		body["problems"] = problems
	}
	json.NewEncoder(w).Encode(body)
}

// adminStoreError answers a request the store failed: 503 with Retry-After (as a tool call
// gets, storeRetryAfter) and reason store_unavailable when the store cannot be reached
// right now, else 500. The error itself is in the gateway log.
func adminStoreError(w http.ResponseWriter, err error, what string) {
	if errors.Is(err, store.ErrUnavailable) {
		w.Header().Set("Retry-After", fmt.Sprint(storeRetryAfter))
		adminJSON(w, http.StatusServiceUnavailable, map[string]any{
			"error":             what + " failed: the gateway's store (its database) cannot be reached right now; retry in a few seconds",
			"reason":            "store_unavailable",
			"retryAfterSeconds": storeRetryAfter,
		})
		return
	}
	adminError(w, http.StatusInternalServerError, what+" failed; see the gateway log")
}

func adminJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// adminRoutes registers the admin API. Every route is guarded by adminGuard.
func (g *Gateway) adminRoutes(mux *http.ServeMux) {
	handle := func(pattern string, h http.HandlerFunc) { mux.Handle(pattern, g.adminGuard(h)) }
	handle("GET /admin/api/servers", g.adminList)
	handle("POST /admin/api/servers", g.adminCreate)
	handle("/admin/api/servers", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", "GET, POST")
		adminError(w, http.StatusMethodNotAllowed, "use GET or POST on /admin/api/servers")
	})
	handle("GET /admin/api/servers/{slug}", g.adminGet)
	handle("PUT /admin/api/servers/{slug}", g.adminPut)
	handle("DELETE /admin/api/servers/{slug}", g.adminDelete)
	handle("/admin/api/servers/{slug}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", "GET, PUT, DELETE")
		adminError(w, http.StatusMethodNotAllowed, "use GET, PUT or DELETE on /admin/api/servers/{slug}")
	})
	handle("GET /admin/api/audit", g.adminAudit)
	handle("/admin/api/", func(w http.ResponseWriter, r *http.Request) {
		adminError(w, http.StatusNotFound, "unknown admin API path; see /admin/api/servers")
	})
}

// adminGuard answers 404 while the admin API is off and 401 unless the authentication
// middleware found an admin principal (a request with one of the admin keys).
func (g *Gateway) adminGuard(h http.Handler) http.Handler {
	unauthorized := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcpbridge admin"`)
		adminError(w, http.StatusUnauthorized, "send an admin key as Authorization: Bearer KEY")
	})
	guarded := auth.Require(auth.IsAdmin, unauthorized)(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.adminKeys.Len() == 0 || g.opts.Definitions == nil {
			adminError(w, http.StatusNotFound, "the admin API is off: set MCPBRIDGE_ADMIN_KEY (or admin.keys in the config) to turn it on")
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

func (g *Gateway) summary(r *http.Request, e *Entry) adminServer {
	s := e.Config()
	return adminServer{Slug: e.Name, Source: s.Source, Kind: s.Kind, Enabled: s.IsEnabled(), Endpoint: baseURL(r) + "/mcp/" + e.Name}
}

func (g *Gateway) adminList(w http.ResponseWriter, r *http.Request) {
	out := []adminServer{}
	seen := map[string]bool{}
	for _, e := range g.reg.all() {
		if e.Config().Source == "file" {
			out = append(out, g.summary(r, e))
			seen[e.Name] = true
		}
	}
	defs, err := g.opts.Definitions.List(r.Context())
	if err != nil {
		g.log.Error("admin: listing stored servers", "error", err)
		adminStoreError(w, err, "listing stored servers")
		return
	}
	for _, d := range defs {
		if seen[d.Slug] {
			continue
		}
		out = append(out, g.storedView(r, d, false))
	}
	adminJSON(w, http.StatusOK, map[string]any{"servers": out})
}

func (g *Gateway) storedView(r *http.Request, d store.Definition, withDoc bool) adminServer {
	v := adminServer{Slug: d.Slug, Source: "store", Revision: d.Revision, Endpoint: baseURL(r) + "/mcp/" + d.Slug}
	t := d.UpdatedAt
	v.UpdatedAt = &t
	if e := g.reg.get(d.Slug); e != nil && e.Config().Source == "store" {
		v.Kind, v.Enabled = e.Config().Kind, e.Config().IsEnabled()
	}
	g.dyn.mu.Lock()
	v.Invalid = g.dyn.invalid[d.Slug]
	g.dyn.mu.Unlock()
	if withDoc {
		v.Definition = d.Doc
	}
	return v
}

func (g *Gateway) adminGet(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("slug")
	if e := g.reg.get(slug); e != nil && e.Config().Source == "file" {
		adminJSON(w, http.StatusOK, g.summary(r, e))
		return
	}
	d, err := g.opts.Definitions.Get(r.Context(), slug)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrInvalid) {
		adminError(w, http.StatusNotFound, fmt.Sprintf("no server %q", slug))
		return
	}
	if err != nil {
		g.log.Error("admin: reading stored server", "server", slug, "error", err)
		adminStoreError(w, err, "reading the server")
		return
	}
	adminJSON(w, http.StatusOK, g.storedView(r, d, true))
}

// readDefinition reads and validates a definition body; on failure it has answered.
func (g *Gateway) readDefinition(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		adminError(w, http.StatusUnsupportedMediaType, "send the definition as Content-Type: application/json")
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.cfg.Limits.MaxBody))
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		adminError(w, http.StatusRequestTimeout, fmt.Sprintf("the definition did not arrive within %s (limits.read_timeout)", g.cfg.Limits.ReadTimeout))
		return nil, false
	case err != nil:
		adminError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the definition is larger than %d bytes", g.cfg.Limits.MaxBody))
		return nil, false
	}
	if !json.Valid(body) {
		adminError(w, http.StatusBadRequest, "the body is not valid JSON")
		return nil, false
	}
	return body, true
}

// validate checks a definition as the config file's servers are checked.
func (g *Gateway) validate(w http.ResponseWriter, slug string, doc []byte) bool {
	if e := g.reg.get(slug); e != nil && e.Config().Source == "file" {
		adminError(w, http.StatusConflict, fmt.Sprintf("server %q is defined in the config file; edit the file instead", slug))
		return false
	}
	if !config.NamePattern.Get().MatchString(slug) {
		adminError(w, http.StatusBadRequest, fmt.Sprintf("slug %q is not allowed: use 1-63 lowercase letters, digits, '-' or '_', starting with a letter or digit", slug))
		return false
	}
	s, err := config.ParseServer("definition", slug, doc, backend.Kinds())
	if err == nil {
		// Refuse what could not be opened (a missing secret); a warning (an app that reads a
		// secret its server does not provide) does not stop a definition, as in check.
		ps := slices.DeleteFunc(backend.Check(s, g.deps(s)), func(p config.Problem) bool { return p.Warning })
		if len(ps) > 0 {
			err = ps
		}
	}
	if err == nil {
		err = g.checkResourceFiles(s)
	}
	var ps config.Problems
	if errors.As(err, &ps) {
		var out []adminProblem
		for _, p := range ps {
			out = append(out, adminProblem{Path: p.Path, Line: p.Line, Column: p.Column, Message: p.Msg})
		}
		adminError(w, http.StatusBadRequest, "the definition is invalid: "+ps[0].Path+": "+ps[0].Msg, out...)
		return false
	}
	if err != nil {
		adminError(w, http.StatusBadRequest, "the definition is invalid: "+err.Error())
		return false
	}
	return true
}

func (g *Gateway) adminCreate(w http.ResponseWriter, r *http.Request) {
	body, ok := g.readDefinition(w, r)
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
		adminError(w, http.StatusBadRequest, `send {"slug": "name", "definition": {...}} (or PUT the definition to /admin/api/servers/{slug})`)
		return
	}
	if !g.validate(w, req.Slug, req.Definition) {
		return
	}
	d, err := g.opts.Definitions.Create(r.Context(), req.Slug, req.Definition)
	if errors.Is(err, store.ErrExists) {
		adminError(w, http.StatusConflict, fmt.Sprintf("server %q exists; PUT /admin/api/servers/%s replaces it", req.Slug, req.Slug))
		return
	}
	if err != nil {
		g.log.Error("admin: creating server", "server", req.Slug, "error", err)
		adminStoreError(w, err, "storing the server")
		return
	}
	g.applyWait(req.Slug)
	w.Header().Set("Location", "/admin/api/servers/"+req.Slug)
	adminJSON(w, http.StatusCreated, g.storedView(r, d, true))
}

func (g *Gateway) adminPut(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("slug")
	body, ok := g.readDefinition(w, r)
	if !ok || !g.validate(w, slug, body) {
		return
	}
	// Create first: a new server costs one write, and the answer says which happened.
	status := http.StatusCreated
	d, err := g.opts.Definitions.Create(r.Context(), slug, body)
	if errors.Is(err, store.ErrExists) {
		status = http.StatusOK
		d, err = g.opts.Definitions.Put(r.Context(), slug, body)
	}
	if err != nil {
		g.log.Error("admin: storing server", "server", slug, "error", err)
		adminStoreError(w, err, "storing the server")
		return
	}
	g.applyWait(slug)
	adminJSON(w, status, g.storedView(r, d, true))
}

func (g *Gateway) adminDelete(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("slug")
	if e := g.reg.get(slug); e != nil && e.Config().Source == "file" {
		adminError(w, http.StatusConflict, fmt.Sprintf("server %q is defined in the config file; remove it there", slug))
		return
	}
	err := g.opts.Definitions.Delete(r.Context(), slug)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrInvalid) {
		adminError(w, http.StatusNotFound, fmt.Sprintf("no stored server %q", slug))
		return
	}
	if err != nil {
		g.log.Error("admin: deleting server", "server", slug, "error", err)
		adminStoreError(w, err, "deleting the server")
		return
	}
	g.applyWait(slug)
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

// adminAudit lists recent audit rows, newest first.
func (g *Gateway) adminAudit(w http.ResponseWriter, r *http.Request) {
	lister, ok := g.opts.Audit.(interface {
		List(ctx context.Context, f store.AuditFilter) ([]store.Entry, error)
	})
	if !ok {
		adminError(w, http.StatusNotFound, "no audit log is kept by this gateway")
		return
	}
	q := r.URL.Query()
	f := store.AuditFilter{Server: q.Get("server"), Principal: q.Get("principal")}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			adminError(w, http.StatusBadRequest, "limit must be a positive number")
			return
		}
		f.Limit = n
	}
	rows, err := lister.List(r.Context(), f)
	if err != nil {
		g.log.Error("admin: listing audit rows", "error", err)
		adminStoreError(w, err, "listing the audit log")
		return
	}
	out := make([]auditView, 0, len(rows))
	for _, e := range rows {
		out = append(out, auditView{Time: e.Time, Server: e.Server, Tool: e.Tool, Principal: e.Principal, Via: e.Via, Client: e.Client, Outcome: e.Outcome, DurationMS: float64(e.Duration.Microseconds()) / 1000, Error: e.Error, Arguments: e.Arguments})
	}
	adminJSON(w, http.StatusOK, map[string]any{"entries": out})
}
