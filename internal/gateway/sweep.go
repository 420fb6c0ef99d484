package gateway

import (
	"context"
	"time"
)

// DefaultSweepInterval is how often Serve (and Sweep) prunes the audit log and deletes
// expired work sessions.
const DefaultSweepInterval = 5 * time.Minute

// auditPruner is an audit store that deletes old rows (store.Audit is one).
type auditPruner interface {
	Prune(ctx context.Context, before time.Time) (int, error)
}

// Sweep prunes the audit log and deletes expired work sessions at once and then every
// Options.SweepInterval until ctx ends, as Serve does; a process that serves the gateway
// otherwise (stdio) runs it beside.
func (g *Gateway) Sweep(ctx context.Context) { g.sweep(ctx) }

// sweep runs sweepOnce at start and then every Options.SweepInterval until ctx ends.
func (g *Gateway) sweep(ctx context.Context) {
	every := g.opts.SweepInterval
	if every < 0 {
		return
	}
	if every == 0 {
		every = DefaultSweepInterval
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		g.sweepOnce(ctx, time.Now())
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sweepOnce deletes the audit rows older than audit.retention and the work sessions that
// expired (or were closed) at or before now. Failures are logged; the next sweep tries again.
// A sweep cut short because the process is stopping (ctx ended) is not a failure and logs
// nothing.
func (g *Gateway) sweepOnce(parent context.Context, now time.Time) {
	ctx, cancel := context.WithTimeout(parent, time.Minute)
	defer cancel()
	if p, ok := g.opts.Audit.(auditPruner); ok {
		retention := g.cfg.Audit.Retention
		n, err := p.Prune(ctx, now.Add(-retention))
		switch {
		case err != nil && parent.Err() != nil:
		case err != nil:
			g.log.Warn("pruning the audit log failed", "error", err)
		case n > 0:
			g.log.Info("audit log pruned", "deleted", n, "retention", retention)
		}
	}
	if ws := g.opts.WorkSessions; ws != nil {
		n, err := ws.Expire(ctx, now)
		switch {
		case err != nil && parent.Err() != nil:
		case err != nil:
			g.log.Warn("deleting expired work sessions failed", "error", err)
		case n > 0:
			g.log.Info("expired work sessions deleted", "deleted", n)
		}
	}
}
