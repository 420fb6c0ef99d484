package gateway

import (
	"net/http"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

// An Entry is one served server: its go-sdk server and HTTP handlers, which live as long as
// the server's name is served, and its current state (definition, backend, catalog), which is
// replaced whole when the definition changes. Connected legacy sessions stay open across
// changes and are told about them with list_changed notifications.
type Entry struct {
	Name   string
	Server *mcp.Server

	legacy http.Handler // Streamable HTTP, sessions (2024-11-05 … 2025-11-25)
	modern http.Handler // Streamable HTTP, stateless (2026-07-28)
	sse    http.Handler // legacy HTTP+SSE (2024-11-05)

	impl *mcp.Implementation // as the go-sdk server reports it
	// infoMeta is {"io.modelcontextprotocol/serverInfo": impl} encoded: the _meta of a
	// 2026-07-28 result on the lean path.
	infoMeta []byte
	state    atomic.Pointer[entryState]
	applyMu  sync.Mutex   // serialises apply
	calls    serverBounds // tool calls running (limits.concurrent_calls)

	// stored is set on a stored server that is not opened yet (lazy.go): such an entry has
	// only the definition's summary as its Config, no go-sdk server and no backend, and is
	// replaced in the registry by the opened entry on first use (Gateway.opened).
	stored *storedDef
}

// entryState is an immutable snapshot of what an entry serves.
type entryState struct {
	cfg     *config.Server
	backend backend.Backend // nil when disabled or unavailable
	live    *live           // the backend's lifetime; nil when there is no backend
	catalog *backend.Catalog
	schemas map[string]*jsonschema.Resolved
	// paramHeaders holds the tools whose input schema mirrors arguments into Mcp-Param-*
	// headers (x-mcp-header, SEP-2243), whose 2026-07-28 calls must carry them.
	paramHeaders map[string]*mcp.Tool
	// Who reads each resource (by URI) and template (by URI template), and who gets each
	// prompt: the backend, or the configured resources and prompts.
	readers   map[string]backend.ResourceReader
	templates map[string]backend.ResourceReader
	prompts   map[string]backend.PromptGetter
	// The roles the configured resources (by URI), templates (by URI template) and prompts
	// (by name) require; absent: none beyond the server's rule.
	resourceRoles map[string][]string
	templateRoles map[string][]string
	promptRoles   map[string][]string
	// unavailable says why the server cannot be served now ("" when it can).
	unavailable string
}

// enter counts a call in on the state's backend, reloading the entry's state once when the
// backend was retired meanwhile. It returns the state to call and whether a backend took it.
func (e *Entry) enter() (*entryState, bool) {
	for range 2 {
		st := e.state.Load()
		if st.live == nil {
			return st, false
		}
		if st.live.enter() {
			return st, true
		}
	}
	return e.state.Load(), false
}

// Unavailable says why the entry's server cannot be served ("" when it can).
func (e *Entry) Unavailable() string { return e.state.Load().unavailable }

// Config returns the entry's current definition.
func (e *Entry) Config() *config.Server { return e.state.Load().cfg }

// Backend returns the entry's current backend (nil when the server is disabled).
func (e *Entry) Backend() backend.Backend { return e.state.Load().backend }

// Catalog returns the tools, resources and prompts the entry serves (as listed to clients).
func (e *Entry) Catalog() *backend.Catalog {
	if c := e.state.Load().catalog; c != nil {
		return c
	}
	return &backend.Catalog{}
}

// registry maps server names to entries. Readers never block, and a writer costs the same
// whatever the number of servers: a replica with 10,000 stored servers replaces one entry
// each time a server is opened on first use.
type registry struct {
	entries sync.Map // name → *Entry
}

func (r *registry) get(name string) *Entry {
	e, _ := r.entries.Load(name)
	ent, _ := e.(*Entry)
	return ent
}

// all returns the entries, ordered by name.
func (r *registry) all() []*Entry {
	var es []*Entry
	r.entries.Range(func(_, v any) bool {
		es = append(es, v.(*Entry))
		return true
	})
	sort.Slice(es, func(i, j int) bool { return es[i].Name < es[j].Name })
	return es
}

// each calls f for every entry, in no order.
func (r *registry) each(f func(*Entry)) {
	r.entries.Range(func(_, v any) bool {
		f(v.(*Entry))
		return true
	})
}

// count returns how many servers are served and how many of them are not opened yet.
func (r *registry) count() (served, unopened int) {
	r.each(func(e *Entry) {
		served++
		if e.stored != nil {
			unopened++
		}
	})
	return served, unopened
}

func (r *registry) put(e *Entry) (old *Entry) {
	prev, _ := r.entries.Swap(e.Name, e)
	old, _ = prev.(*Entry)
	return old
}

// putAll adds entries.
func (r *registry) putAll(es []*Entry) {
	for _, e := range es {
		r.entries.Store(e.Name, e)
	}
}

func (r *registry) remove(name string) (old *Entry) {
	prev, _ := r.entries.LoadAndDelete(name)
	old, _ = prev.(*Entry)
	return old
}

// retireEntry ends a server taken out of the registry: its backend is closed once its calls
// in flight have finished, and its sessions are closed. An unopened entry has neither.
func (g *Gateway) retireEntry(e *Entry) {
	if l := e.state.Load().live; l != nil {
		l.retire(closerOf(e.Backend()), nil)
	}
	if e.Server != nil {
		for ss := range e.Server.Sessions() {
			ss.Close()
		}
	}
}
