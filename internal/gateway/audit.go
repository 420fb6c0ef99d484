package gateway

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

// auditQueue is how many audit entries may wait for the store before new ones are dropped
// (and counted); a slow store never slows tool calls down.
const auditQueue = 4096

// AuditRecorder stores audit entries (store.Audit satisfies it).
type AuditRecorder interface {
	Record(ctx context.Context, es ...store.Entry) error
}

// auditor writes one audit row per tool call from a background goroutine.
type auditor struct {
	rec     AuditRecorder
	log     *slog.Logger
	ch      chan store.Entry
	dropped atomic.Int64
	done    chan struct{}

	mu     sync.RWMutex // guards closed against record racing with close
	closed bool
}

func newAuditor(rec AuditRecorder, log *slog.Logger) *auditor {
	a := &auditor{rec: rec, log: log, ch: make(chan store.Entry, auditQueue), done: make(chan struct{})}
	go a.run()
	return a
}

func (a *auditor) record(e store.Entry) {
	if a == nil {
		return
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.closed {
		return // a call that outlived shutdown
	}
	select {
	case a.ch <- e:
	default:
		if a.dropped.Add(1)%1000 == 1 {
			a.log.Warn("audit queue full: dropping audit entries", "dropped", a.dropped.Load())
		}
	}
}

// auditBatch is the most entries written in one transaction.
const auditBatch = 512

// auditLinger is how long the writer waits, after the first entry of a batch, for more to
// join it. One transaction (and one fsync) per call cost more CPU than the rest of a call
// with one client; a batch of what 20 ms brings makes it a few microseconds per call. Rows
// appear in the store at most this much later.
const auditLinger = 20 * time.Millisecond

// run writes what is queued in batches: the first entry waits at most auditLinger for
// others, so a store that commits (and syncs) once per write keeps up with any call rate.
func (a *auditor) run() {
	defer close(a.done)
	batch := make([]store.Entry, 0, auditBatch)
	linger := time.NewTimer(auditLinger)
	linger.Stop()
	for e := range a.ch {
		batch = append(batch[:0], e)
		linger.Reset(auditLinger)
	more:
		for len(batch) < auditBatch {
			select {
			case e, ok := <-a.ch:
				if !ok {
					break more // closing: write what we have now
				}
				batch = append(batch, e)
			case <-linger.C:
				break more
			}
		}
		linger.Stop()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := a.rec.Record(ctx, batch...); err != nil {
			a.log.Warn("writing audit entries failed", "entries", len(batch), "error", err)
		}
		cancel()
	}
}

// close flushes queued entries (bounded by the store's own timeouts). It may be called more
// than once.
func (a *auditor) close() {
	if a == nil {
		return
	}
	a.mu.Lock()
	if !a.closed {
		a.closed = true
		close(a.ch)
	}
	a.mu.Unlock()
	<-a.done
}
