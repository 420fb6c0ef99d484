package gateway

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// auditQueue is how many audit entries may wait for the store before new ones are dropped
// (and counted); a slow store never slows tool calls down.
const auditQueue = 4096

// AuditRecorder stores audit entries (store.Audit satisfies it).
type AuditRecorder interface {
	Record(ctx context.Context, es ...store.Entry) error
}

// auditor writes one audit row per tool call from a background goroutine. Entries wait in
// a slice that grows with what is queued and is handed to the writer whole, so an idle
// gateway holds no queue memory (a 4,096-entry channel kept 600 KB resident once its ring
// had gone round).
type auditor struct {
	rec     AuditRecorder
	log     *slog.Logger
	dropped atomic.Int64
	wake    chan struct{} // capacity 1: the writer has something to do
	done    chan struct{}

	mu      sync.Mutex // guards pending, writing and closed
	pending []store.Entry
	writing int // entries taken by the writer and not yet stored
	closed  bool
}

func newAuditor(rec AuditRecorder, log *slog.Logger) *auditor {
	a := &auditor{rec: rec, log: log, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go a.run()
	return a
}

func (a *auditor) record(e store.Entry) {
	if a == nil {
		return
	}
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return // a call that outlived shutdown
	}
	if len(a.pending)+a.writing >= auditQueue {
		a.mu.Unlock()
		if a.dropped.Add(1)%1000 == 1 {
			a.log.Warn("audit queue full: dropping audit entries", "dropped", a.dropped.Load())
		}
		return
	}
	a.pending = append(a.pending, e)
	n := len(a.pending)
	a.mu.Unlock()
	if n == 1 || n == auditBatch {
		a.signal()
	}
}

// signal wakes the writer without blocking; one pending wake-up is enough.
func (a *auditor) signal() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// auditBatch is the most entries written in one transaction.
const auditBatch = 512

// auditLinger is how long the writer waits, after the first entry of a batch, for more to
// join it. One transaction (and one fsync) per call cost more CPU than the rest of a call
// with one client; a batch of what 20 ms brings makes it a few microseconds per call. Rows
// appear in the store at most this much later.
const auditLinger = 20 * time.Millisecond

// run writes what is queued in batches: after the first entry it waits at most auditLinger
// for others (less when a full batch is waiting or the auditor closes), so a store that
// commits (and syncs) once per write keeps up with any call rate.
func (a *auditor) run() {
	defer close(a.done)
	linger := time.NewTimer(auditLinger)
	linger.Stop()
	var spare []store.Entry
	for range a.wake {
		a.mu.Lock()
		hurry := a.closed || len(a.pending) >= auditBatch
		a.mu.Unlock()
		if !hurry {
			linger.Reset(auditLinger)
			select {
			case <-linger.C:
			case <-a.wake: // a full batch, or closing
				linger.Stop()
			}
		}
		a.mu.Lock()
		batch, closed := a.pending, a.closed
		a.pending, a.writing = spare, len(batch)
		a.mu.Unlock()
		for rest := batch; len(rest) > 0; {
			n := min(len(rest), auditBatch)
			a.write(rest[:n])
			rest = rest[n:]
			a.mu.Lock()
			a.writing -= n
			a.mu.Unlock()
		}
		// Keep a batch-sized buffer for the next round; let a burst's larger one go.
		spare = nil
		if cap(batch) <= auditBatch {
			clear(batch)
			spare = batch[:0]
		}
		if closed {
			return
		}
	}
}

// write stores one batch, bounded by a timeout so a stuck store cannot hold the writer.
func (a *auditor) write(batch []store.Entry) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.rec.Record(ctx, batch...); err != nil {
		a.log.Warn("writing audit entries failed", "entries", len(batch), "error", err)
	}
}

// close flushes queued entries (bounded by the store's own timeouts). It may be called more
// than once.
func (a *auditor) close() {
	if a == nil {
		return
	}
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.signal()
	<-a.done
}

// maxAuditArguments bounds the arguments one audit row keeps (bytes of JSON); longer ones
// are cut and end with "…".
const maxAuditArguments = 4096

// secretName matches argument names whose values are masked in audit rows.
// Masking too much is harmless; recording a secret is not.
var secretName = lazy.Regexp{Expr: `(?i)password|passwd|passphrase|^pwd$|secret|token|api[_-]?key|access[_-]?key|^auth$|authori[sz]ation|bearer|jwt|credential|cookie|private[_-]?key|session[_-]?id`}

// invalidArgumentsPlace is the part of an invalid-arguments message before the value it
// quotes: the tool, the argument's place (the innermost of the nested "validating PATH: "
// prefixes) and the schema keyword it breaks; for "required", the names of the missing
// properties (which come from the schema, not from the caller).
var invalidArgumentsPlace = lazy.Regexp{Expr: `^(invalid arguments for tool [^:]+: )(?:validating [^:]*: )*?((?:validating [^:]*: )?)([A-Za-z]+)(?:(: missing properties: \[[^\]]*\])|:|$)`}

// withoutArgumentValues is how the log and the audit record the reason of a call refused
// for its arguments: a schema's message quotes the offending value, which may be a
// secret (a password too long), and argument values are never logged or recorded unasked.
// The argument's name is kept.
func withoutArgumentValues(msg string) string {
	m := invalidArgumentsPlace.Get().FindStringSubmatch(msg)
	switch {
	case m == nil:
		return "invalid arguments (the value is not recorded)"
	case m[4] != "":
		return m[1] + m[3] + m[4] // the names of missing arguments: no value to hide
	}
	return m[1] + m[2] + m[3] + " (the value is not recorded)"
}

// auditArguments is how a call's arguments are recorded (for servers with
// audit: {arguments: true}): the JSON object with the values of secret-looking fields, at
// any depth, replaced by "***", cut at maxAuditArguments bytes.
func auditArguments(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return truncate(string(raw), maxAuditArguments)
	}
	b, err := json.Marshal(maskSecrets(v))
	if err != nil {
		return ""
	}
	return truncate(string(b), maxAuditArguments)
}

// maskSecrets replaces the values of secret-looking object fields in v.
func maskSecrets(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if secretName.Get().MatchString(k) {
				t[k] = "***"
			} else {
				t[k] = maskSecrets(x)
			}
		}
	case []any:
		for i, x := range t {
			t[i] = maskSecrets(x)
		}
	}
	return v
}
