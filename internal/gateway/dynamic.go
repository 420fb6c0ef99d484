package gateway

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// dynamic tracks servers defined in the store (by slug), as opposed to the config file.
type dynamic struct {
	mu      sync.Mutex       // guards the maps
	applied map[string]int64 // slug → revision being served
	invalid map[string]string
	slugs   map[string]*sync.Mutex // serialises applying changes to one slug
}

// lock serialises the changes to one slug; a slow open of one server blocks no other.
func (d *dynamic) lock(slug string) func() {
	d.mu.Lock()
	m := d.slugs[slug]
	if m == nil {
		m = &sync.Mutex{}
		d.slugs[slug] = m
	}
	d.mu.Unlock()
	m.Lock()
	return m.Unlock
}

func (d *dynamic) revision(slug string) (int64, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	rev, ok := d.applied[slug]
	return rev, ok
}

// setInvalid records why the stored definition of slug is not served, leaving the
// revision being served, if any.
func (d *dynamic) setInvalid(slug, why string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.invalid[slug] = why
}

func (d *dynamic) set(slug string, rev int64, invalid string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if rev < 0 {
		delete(d.applied, slug)
	} else {
		d.applied[slug] = rev
	}
	if invalid == "" {
		delete(d.invalid, slug)
	} else {
		d.invalid[slug] = invalid
	}
}

// loadStored serves every stored definition, unopened: each opens on first use (lazy.go). A
// stored definition that is invalid is logged and skipped, so one bad row never stops the
// gateway.
func (g *Gateway) loadStored(ctx context.Context) error {
	defs, err := g.opts.Definitions.List(ctx)
	if err != nil {
		return fmt.Errorf("listing stored servers: %w", err)
	}
	// Only the summaries are read, in parallel, from what List returned (no read per
	// server), and the entries put in the registry at once.
	begun := time.Now()
	kinds := backend.Kinds().Names()
	entries := make([]*Entry, len(defs))
	invalid := make([]string, len(defs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(defs)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(defs) {
					return
				}
				entries[i], invalid[i] = g.unopenedEntry(defs[i], kinds)
			}
		})
	}
	wg.Wait()
	put := entries[:0:0]
	for i, d := range defs {
		switch {
		case entries[i] != nil:
			put = append(put, entries[i])
			g.dyn.set(d.Slug, d.Revision, "")
		case invalid[i] != "":
			g.dyn.setInvalid(d.Slug, invalid[i])
		}
	}
	g.reg.putAll(put)
	g.log.Info("stored servers listed; each opens on first use", "servers", len(put), "invalid", len(defs)-len(put),
		"duration", time.Since(begun).Round(time.Millisecond))
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
		if ctx.Err() == nil { // not the gateway stopping
			g.log.Error("resync of stored servers failed", "error", err)
		}
		return
	}
	present := map[string]bool{}
	for _, d := range defs {
		present[d.Slug] = true
		if rev, ok := g.dyn.revision(d.Slug); ok && rev >= d.Revision {
			continue // served as listed (opened or not); a later change has its own notification
		}
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

// adminApplyWait is how long an admin API write waits for its server to be served before it
// answers; a slower open goes on in the background.
const adminApplyWait = 3 * time.Second

// applyWait applies a stored change for the admin API: it waits for the server to be served,
// but not longer than adminApplyWait, so a slow backend open does not hold the API.
func (g *Gateway) applyWait(slug string) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.applyStored(context.Background(), slug)
	}()
	select {
	case <-done:
	case <-time.After(adminApplyWait):
		g.log.Warn("stored server is still opening; the admin API answered without waiting", "server", slug)
	}
}

// applyStored brings the served state of slug in line with the store. It is idempotent.
// Changes to one slug are applied one at a time; other slugs are not held up.
func (g *Gateway) applyStored(ctx context.Context, slug string) {
	defer g.dyn.lock(slug)()
	if e := g.reg.get(slug); e != nil && e.Config().Source == "file" {
		return // the file wins; the admin API refuses such slugs
	}
	d, err := g.opts.Definitions.Get(ctx, slug)
	if errors.Is(err, store.ErrNotFound) {
		if _, ok := g.dyn.revision(slug); ok {
			if e := g.reg.remove(slug); e != nil {
				g.retireEntry(e)
			}
			g.log.Info("stored server removed", "server", slug)
		}
		g.dyn.set(slug, -1, "")
		return
	}
	if err != nil {
		g.log.Error("reading stored server", "server", slug, "error", err)
		return
	}
	if rev, ok := g.dyn.revision(slug); ok && rev >= d.Revision {
		return
	}
	s, err := config.ParseServer("stored server "+slug, slug, d.Doc, backend.Kinds())
	if err != nil {
		g.dyn.setInvalid(slug, err.Error())
		g.log.Error("stored server is invalid; not served (a previous revision, if any, stays)", "server", slug, "revision", d.Revision, "error", err)
		return
	}
	st, err := g.openState(ctx, s)
	invalid := ""
	if err != nil {
		invalid = err.Error()
		g.log.Error("stored server cannot be opened; serving it as unavailable", "server", slug, "error", err)
		st = unavailableState(s, err.Error())
	}
	e := g.reg.get(slug)
	if e == nil || e.stored != nil { // new, or not opened yet: opened now, with this revision
		e = g.newEntry(slug, s.Title, s.Description)
		g.apply(e, st)
		g.reg.put(e)
	} else {
		g.apply(e, st)
	}
	g.dyn.set(slug, d.Revision, invalid)
	g.log.Info("stored server applied", "server", slug, "revision", strconv.FormatInt(d.Revision, 10))
}
