package gateway

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// dynamic tracks servers defined in the store (by slug), as opposed to the config file.
type dynamic struct {
	mu      sync.Mutex       // serialises applying changes
	applied map[string]int64 // slug → revision being served
	invalid map[string]string
}

// loadStored serves every stored definition. A stored definition that is invalid is logged
// and skipped, so one bad row never stops the gateway.
func (g *Gateway) loadStored(ctx context.Context) error {
	defs, err := g.opts.Definitions.List(ctx)
	if err != nil {
		return fmt.Errorf("listing stored servers: %w", err)
	}
	for _, d := range defs {
		g.applyStored(ctx, d.Slug)
	}
	return nil
}

// watchStored applies changes from the store (this replica's and others') until ctx ends.
func (g *Gateway) watchStored(ctx context.Context) {
	ch := g.opts.Definitions.Watch(ctx)
	// Changes made between loading at start-up and subscribing are caught by a resync
	// after subscribing.
	g.resync(ctx)
	for c := range ch {
		switch c.Kind {
		case store.ChangeResync:
			g.resync(ctx)
		default:
			g.applyStored(ctx, c.Slug)
		}
	}
}

// resync reloads every stored definition and drops those that are gone.
func (g *Gateway) resync(ctx context.Context) {
	defs, err := g.opts.Definitions.List(ctx)
	if err != nil {
		g.log.Error("resync of stored servers failed", "error", err)
		return
	}
	present := map[string]bool{}
	for _, d := range defs {
		present[d.Slug] = true
		g.applyStored(ctx, d.Slug)
	}
	g.dyn.mu.Lock()
	var gone []string
	for slug := range g.dyn.applied {
		if !present[slug] {
			gone = append(gone, slug)
		}
	}
	g.dyn.mu.Unlock()
	for _, slug := range gone {
		g.applyStored(ctx, slug)
	}
}

// applyStored brings the served state of slug in line with the store. It is idempotent.
func (g *Gateway) applyStored(ctx context.Context, slug string) {
	g.dyn.mu.Lock()
	defer g.dyn.mu.Unlock()
	if e := g.reg.get(slug); e != nil && e.Config().Source == "file" {
		return // the file wins; the admin API refuses such slugs
	}
	d, err := g.opts.Definitions.Get(ctx, slug)
	if errors.Is(err, store.ErrNotFound) {
		if _, ok := g.dyn.applied[slug]; ok {
			if e := g.reg.remove(slug); e != nil {
				closeBackend(e.Backend())
				for ss := range e.Server.Sessions() {
					ss.Close()
				}
			}
			delete(g.dyn.applied, slug)
			g.log.Info("stored server removed", "server", slug)
		}
		delete(g.dyn.invalid, slug)
		return
	}
	if err != nil {
		g.log.Error("reading stored server", "server", slug, "error", err)
		return
	}
	if rev, ok := g.dyn.applied[slug]; ok && rev >= d.Revision {
		return
	}
	s, err := config.ParseServer("stored server "+slug, slug, d.Doc, backend.Kinds())
	if err != nil {
		g.dyn.invalid[slug] = err.Error()
		g.log.Error("stored server is invalid; not served", "server", slug, "revision", d.Revision, "error", err)
		return
	}
	st, err := g.openState(ctx, s)
	if err != nil {
		g.dyn.invalid[slug] = err.Error()
		g.log.Error("stored server cannot be opened; not served", "server", slug, "error", err)
		return
	}
	e := g.reg.get(slug)
	if e == nil {
		e = g.newEntry(slug, s.Title, s.Description)
		g.apply(e, st)
		g.reg.put(e)
	} else {
		g.apply(e, st)
	}
	g.dyn.applied[slug] = d.Revision
	delete(g.dyn.invalid, slug)
	g.log.Info("stored server applied", "server", slug, "revision", strconv.FormatInt(d.Revision, 10))
}
