package gateway

import (
	"net/http"
	"slices"

	"github.com/mcpbridge/mcpbridge/internal/adminapi"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

// adminRoutes registers the admin API (internal/adminapi) over the gateway's servers and
// store.
func (g *Gateway) adminRoutes(mux *http.ServeMux) {
	api := &adminapi.API{
		Servers:         adminServers{g},
		On:              g.adminKeys.Len() > 0 && g.opts.Definitions != nil,
		Definitions:     g.opts.Definitions,
		Log:             g.log,
		MaxBody:         g.cfg.Limits.MaxBody,
		ReadTimeout:     g.cfg.Limits.ReadTimeout,
		StoreRetryAfter: storeRetryAfter,
		BaseURL:         baseURL,
	}
	if l, ok := g.opts.Audit.(adminapi.AuditLister); ok {
		api.Audit = l
	}
	api.Routes(mux)
}

// adminError answers an admin API request with {"error": msg}.
func adminError(w http.ResponseWriter, status int, msg string) { adminapi.Error(w, status, msg) }

// adminServers are the gateway's servers as the admin API uses them.
type adminServers struct{ g *Gateway }

func served(e *Entry) adminapi.Served {
	s := e.Config()
	return adminapi.Served{Name: e.Name, Source: s.Source, Kind: s.Kind, Enabled: s.IsEnabled()}
}

func (a adminServers) Served(slug string) (adminapi.Served, bool) {
	if e := a.g.reg.get(slug); e != nil {
		return served(e), true
	}
	return adminapi.Served{}, false
}

func (a adminServers) All() []adminapi.Served {
	var out []adminapi.Served
	for _, e := range a.g.reg.all() {
		out = append(out, served(e))
	}
	return out
}

func (a adminServers) Invalid(slug string) string {
	a.g.dyn.mu.Lock()
	defer a.g.dyn.mu.Unlock()
	return a.g.dyn.invalid[slug]
}

// Check checks a definition as the config file's servers are checked.
func (a adminServers) Check(slug string, doc []byte) error {
	g := a.g
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
	return err
}

func (a adminServers) Apply(slug string) { a.g.applyWait(slug) }
