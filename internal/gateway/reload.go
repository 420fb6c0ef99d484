package gateway

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/mcpbridge/mcpbridge/internal/config"
)

// Reload serves the servers of a new version of the configuration file: servers whose
// definition changed are opened anew and replace the old ones (connected clients get
// list_changed notifications, calls in flight finish on the old backend), new servers are
// added, removed ones retired; unchanged servers keep running untouched. Top-level settings
// (listen, trusted_proxies, store, limits, audit, origins, admin, variables) take effect at
// the next start; Reload returns the names of those that changed so the caller can say so.
func (g *Gateway) Reload(ctx context.Context, next *config.Config) (needRestart []string) {
	for _, name := range next.ServerNames() {
		s := next.Servers[name]
		unlock := g.dyn.lock(name) // a stored server of the same name waits
		e := g.reg.get(name)
		if e != nil && e.stored != nil {
			e = nil // a stored server not opened yet: the file's server takes its place
		}
		if e != nil && e.Config().Source == "file" && e.Config().Digest() == s.Digest() && s.Digest() != "" {
			unlock()
			continue
		}
		st, err := g.openState(ctx, s)
		if err != nil {
			g.log.Error("server cannot be opened; serving it as unavailable", "server", name, "error", err)
			st = unavailableState(s, err.Error())
		}
		if e == nil {
			e = g.newEntry(name, s.Title, s.Description)
			g.apply(e, st)
			g.reg.put(e)
			g.log.Info("server added", "server", name)
		} else {
			g.apply(e, st)
			g.log.Info("server reloaded", "server", name)
		}
		unlock()
	}
	for _, e := range g.reg.all() {
		if _, kept := next.Servers[e.Name]; kept || e.Config().Source != "file" {
			continue
		}
		unlock := g.dyn.lock(e.Name)
		if removed := g.reg.remove(e.Name); removed != nil {
			g.retireEntry(removed)
			g.log.Info("server removed", "server", e.Name)
		}
		unlock()
		// A stored server of that name may be served again.
		if g.opts.Definitions != nil {
			g.dyn.set(e.Name, -1, "")
			g.applyStored(ctx, e.Name)
		}
	}
	cur := g.cfg
	if cur.Listen != next.Listen {
		needRestart = append(needRestart, "listen")
	}
	if cur.Store != next.Store {
		needRestart = append(needRestart, "store")
	}
	if !reflect.DeepEqual(cur.Limits, next.Limits) {
		needRestart = append(needRestart, "limits")
	}
	if cur.Audit != next.Audit {
		needRestart = append(needRestart, "audit")
	}
	if !slices.Equal(cur.Origins, next.Origins) {
		needRestart = append(needRestart, "origins")
	}
	if !slices.Equal(cur.TrustedProxies, next.TrustedProxies) || cur.ProxyHeader != next.ProxyHeader {
		needRestart = append(needRestart, "trusted_proxies")
	}
	if !slices.Equal(cur.Admin.Keys, next.Admin.Keys) {
		needRestart = append(needRestart, "admin")
	}
	if config.Digest(cur.Auth) != config.Digest(next.Auth) {
		needRestart = append(needRestart, "auth")
	}
	if config.Digest(cur.Variables) != config.Digest(next.Variables) {
		needRestart = append(needRestart, "variables")
	}
	return needRestart
}

// ReloadServer opens server s (defined in the configuration, not the store) anew, even when
// its definition is unchanged — what it points at, such as a Lowdefy app's folder, may have
// changed — and serves it in place of the running one: connected clients get list_changed
// notifications and calls in flight finish on the old backend. When the new backend cannot
// be opened the running one is kept and the error returned, so a broken edit never takes a
// working server down.
func (g *Gateway) ReloadServer(ctx context.Context, s *config.Server) error {
	unlock := g.dyn.lock(s.Name)
	defer unlock()
	e := g.reg.get(s.Name)
	if e == nil || e.stored != nil {
		return fmt.Errorf("reloading server %s: it is not served", s.Name)
	}
	st, err := g.openState(ctx, s)
	if err != nil {
		return fmt.Errorf("reloading server %s: %w", s.Name, err)
	}
	g.apply(e, st)
	g.log.Info("server reloaded", "server", s.Name)
	return nil
}
