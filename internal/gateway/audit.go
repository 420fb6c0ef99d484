package gateway

import (
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
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

// maxAuditArguments bounds the arguments one audit row keeps (bytes of JSON); longer ones
// are cut and end with "…".
const maxAuditArguments = 4096

// secretName matches argument names whose values are masked in audit rows.
// Masking too much is harmless; recording a secret is not.
var secretName = regexp.MustCompile(`(?i)password|passwd|passphrase|^pwd$|secret|token|api[_-]?key|access[_-]?key|^auth$|authori[sz]ation|bearer|jwt|credential|cookie|private[_-]?key|session[_-]?id`)

// invalidArgumentsPlace is the part of an invalid-arguments message before the value it
// quotes: the tool, the argument's place and the schema keyword it breaks.
var invalidArgumentsPlace = regexp.MustCompile(`^invalid arguments for tool [^:]+: (?:validating [^:]*: )?[A-Za-z]+`)

// withoutArgumentValues is how the log and the audit record the reason of a call refused
// for its arguments: a schema's message quotes the offending value, which may be a
// secret (a password too long), and argument values are never logged or recorded unasked.
func withoutArgumentValues(msg string) string {
	if m := invalidArgumentsPlace.FindString(msg); m != "" {
		return m + " (the value is not recorded)"
	}
	return "invalid arguments (the value is not recorded)"
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
			if secretName.MatchString(k) {
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
