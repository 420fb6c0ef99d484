package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// Stored servers open on first use. At start-up the gateway lists the stored definitions and
// reads of each only its summary (storedSummary: what the lists and pages show and who may
// use the server); the full decode, the checks and the backend's opening — milliseconds per
// server, most of a minute for 10,000 — wait for the first request that needs the server:
// an MCP request, a REST call, its page, a server:// read. Until then the registry holds an
// unopened entry (Entry.stored), which opened replaces with the opened one.

// maxOpenings bounds how many stored servers open at once, whatever the number of first
// uses that arrive together: each opening decodes a definition and starts a backend (an
// upstream's process or connection and its handshake), so 2,000 servers used for the first
// time in the same second open a few at a time instead of all at once. A request waiting
// for a server that waits for a slot is answered as one waiting for its opening.
const maxOpenings = 8

// storedDef is the stored definition of a server that is served but not opened yet.
type storedDef struct {
	doc      json.RawMessage
	revision int64
	start    sync.Once     // starts the opening once, whoever asks first
	done     chan struct{} // closed when the opening has finished (or was not needed)
}

// storedSummary is what the gateway reads of a stored definition before it opens it.
type storedSummary struct {
	Kind        string `json:"kind"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Enabled     *bool  `json:"enabled"`
	Auth        *struct {
		Public bool     `json:"public"`
		Roles  []string `json:"roles"`
	} `json:"auth"`
	// Tools are read for their roles only (the scopes of the OAuth metadata).
	Tools map[string]*struct {
		Roles []string `json:"roles"`
	} `json:"tools"`
}

// summarize reads the summary of a stored definition as the server's Config until it is
// opened. It reports false when the document does not have the expected shape or names a
// kind this build does not have: the full decode then says what is wrong.
func summarize(slug string, doc []byte, kinds []string) (*config.Server, bool) {
	var sum storedSummary
	if err := json.Unmarshal(doc, &sum); err != nil || !slices.Contains(kinds, sum.Kind) ||
		!config.NamePattern.Get().MatchString(slug) {
		return nil, false
	}
	s := &config.Server{Name: slug, Source: "store", Kind: sum.Kind, Title: sum.Title, Description: sum.Description, Enabled: sum.Enabled}
	if a := sum.Auth; a != nil {
		s.Auth = &config.ServerAuth{Public: a.Public, Roles: a.Roles}
	}
	for name, t := range sum.Tools {
		if t != nil && len(t.Roles) > 0 {
			if s.Tools == nil {
				s.Tools = map[string]*config.Tool{}
			}
			s.Tools[name] = &config.Tool{Roles: t.Roles}
		}
	}
	return s, true
}

// unopenedEntry returns the unopened entry that serves stored definition d until its first
// use, or nil and why d is invalid ("" when a server of the config file has its name: the
// file wins). A definition whose summary cannot be read is decoded in full, to tell why.
func (g *Gateway) unopenedEntry(d store.Definition, kinds []string) (*Entry, string) {
	if e := g.reg.get(d.Slug); e != nil && e.Config().Source == "file" {
		return nil, "" // the file wins; the admin API refuses such slugs
	}
	s, ok := summarize(d.Slug, d.Doc, kinds)
	if !ok {
		full, err := config.ParseServer("stored server "+d.Slug, d.Slug, d.Doc, backend.Kinds())
		if err != nil {
			g.log.Error("stored server is invalid; not served", "server", d.Slug, "revision", d.Revision, "error", err)
			return nil, err.Error()
		}
		s = full // a shape the summary does not read, which the full decode takes
	}
	e := &Entry{Name: d.Slug, stored: &storedDef{doc: d.Doc, revision: d.Revision, done: make(chan struct{})}}
	e.state.Store(&entryState{cfg: s, catalog: &backend.Catalog{}})
	return e, ""
}

// opened returns e opened: e itself when it is, else the entry that replaced it once its
// stored definition was opened, by this call or a concurrent one (concurrent first uses
// open a server once). A definition that cannot be decoded or opened gives an entry that
// is unavailable with the reason, as at start-up. opened returns nil when the server was
// removed meanwhile, and an error when ctx ends first; the opening goes on regardless, so
// a client that gives up does not leave the server unavailable.
func (g *Gateway) opened(ctx context.Context, e *Entry) (*Entry, error) {
	for e != nil && e.stored != nil {
		sd := e.stored
		sd.start.Do(func() { go g.openStored(e) })
		select {
		case <-sd.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("server %s is still opening: %w", e.Name, context.Cause(ctx))
		}
		next := g.reg.get(e.Name)
		if next == e {
			return nil, fmt.Errorf("server %s could not be opened; the gateway log says why", e.Name)
		}
		e = next
	}
	return e, nil
}

// openStored opens the stored definition of the unopened entry p and serves it in p's
// place, unless p was replaced or removed meanwhile (an edit, a deletion, a file server
// that took the name).
func (g *Gateway) openStored(p *Entry) {
	sd := p.stored
	defer close(sd.done)
	g.openSlots <- struct{}{}
	defer func() { <-g.openSlots }()
	unlock := g.dyn.lock(p.Name)
	defer unlock()
	if g.reg.get(p.Name) != p {
		return
	}
	begun := time.Now()
	outcome, why := "ok", ""
	var st *entryState
	s, err := config.ParseServer("stored server "+p.Name, p.Name, sd.doc, backend.Kinds())
	if err != nil {
		outcome, why = "invalid", err.Error()
		g.log.Error("stored server is invalid; serving it as unavailable", "server", p.Name, "revision", sd.revision, "error", err)
		s = p.Config()
		st = unavailableState(s, why)
	} else if st, err = g.openState(context.Background(), s); err != nil {
		outcome, why = "unavailable", err.Error()
		g.log.Error("stored server cannot be opened; serving it as unavailable", "server", p.Name, "error", err)
		st = unavailableState(s, why)
	}
	e := g.newEntry(p.Name, s.Title, s.Description)
	g.apply(e, st)
	g.reg.put(e)
	g.dyn.set(p.Name, sd.revision, why)
	g.metrics.opens.WithLabelValues(outcome).Inc()
	g.log.Info("stored server opened on first use", "server", p.Name, "revision", sd.revision, "outcome", outcome,
		"duration", time.Since(begun).Round(time.Microsecond))
}

// openedFor is opened for a request that may use e, which has passed its checks on the
// summary (the server's rule, enabled): it returns the opened entry, or answers through
// fail (404 when the server was removed meanwhile, 503 when the client left before it was
// opened) and returns nil.
func (g *Gateway) openedFor(w http.ResponseWriter, r *http.Request, e *Entry, fail func(w http.ResponseWriter, status int, msg string)) *Entry {
	name := e.Name
	e, err := g.opened(r.Context(), e)
	switch {
	case err != nil:
		w.Header().Set("Retry-After", "1")
		fail(w, http.StatusServiceUnavailable, fmt.Sprintf("server %q is being opened (its first use); retry", name))
	case e == nil:
		fail(w, http.StatusNotFound, fmt.Sprintf("no server named %q; GET /mcp lists the servers", name))
	}
	return e
}
