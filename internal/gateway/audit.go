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

// Audit rows wait in memory while the store does not take them, up to auditMemory rows;
// when auditSpillAt of them wait, or a retry fails too (at once with audit.required), they
// move to the spill file, and every later row follows them there until the store has taken the file back.
// Only rows that find neither room in memory nor in the spill file are dropped (and
// counted in mcpbridge_audit_dropped_total).
const (
	auditMemory  = 10000
	auditSpillAt = 1000
)

// The writer retries a store that failed after auditRetryMin, doubling up to auditRetryMax;
// one write may take auditWriteTimeout.
const (
	auditRetryMin     = 250 * time.Millisecond
	auditRetryMax     = 5 * time.Second
	auditWriteTimeout = 5 * time.Second
)

// AuditRecorder stores audit entries (store.Audit satisfies it).
type AuditRecorder interface {
	Record(ctx context.Context, es ...store.Entry) error
}

// auditOptions say where rows the store does not take are kept (config.Audit).
type auditOptions struct {
	spillDir string // "" keeps them in memory only
	spillMax int64  // bytes of the spill file
	required bool   // refuse calls whose row cannot be kept durably
}

// auditor writes one audit row per tool call from a background goroutine. Entries wait in
// a slice that grows with what is queued and is handed to the writer whole, so an idle
// gateway holds no queue memory (a 4,096-entry channel kept 600 KB resident once its ring
// had gone round). Rows the store does not take are kept and written, in the order of
// their calls, when it takes them again (see auditMemory).
type auditor struct {
	rec     AuditRecorder
	log     *slog.Logger
	opts    auditOptions
	dropped atomic.Int64
	wake    chan struct{} // capacity 1: the writer has something to do
	done    chan struct{}

	down     atomic.Bool                          // the last store write failed
	spillErr atomic.Pointer[string]               // why the spill file cannot take rows; nil when it can
	spill    *spillFile                           // the writer's; nil until first needed
	retry    func(time.Duration) <-chan time.Time // time.After; tests may replace it

	mu      sync.Mutex // guards pending, held and closed
	pending []store.Entry
	held    int // entries taken by the writer and neither stored nor spilled yet
	closed  bool
}

func newAuditor(rec AuditRecorder, log *slog.Logger) *auditor {
	return newAuditorWith(rec, log, auditOptions{})
}

// newAuditorWith starts an auditor; with a spill directory, a spill file left there by an
// earlier process is opened and replayed first.
func newAuditorWith(rec AuditRecorder, log *slog.Logger, opts auditOptions) *auditor {
	a := &auditor{rec: rec, log: log, opts: opts, wake: make(chan struct{}, 1), done: make(chan struct{}), retry: time.After}
	if opts.spillDir != "" {
		sp, torn, err := openSpill(opts.spillDir, opts.spillMax, false)
		switch {
		case err != nil:
			log.Error("the audit spill file cannot be opened; rows kept there by an earlier run are not replayed", "dir", opts.spillDir, "error", err)
		case sp != nil:
			a.spill = sp
			if torn {
				log.Error("the audit spill file ended in a torn row (a crash while it was written); that row is lost", "file", sp.path)
				a.dropped.Add(1)
			}
			if sp.rows > 0 {
				log.Info("audit rows kept by an earlier run found; writing them to the store", "file", sp.path, "rows", sp.rows)
			}
		}
	}
	go a.run()
	if a.spill != nil && a.spill.rows > 0 {
		a.signal()
	}
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
	if len(a.pending)+a.held >= auditMemory {
		a.mu.Unlock()
		a.drop(1, "the audit rows waiting in memory reached their bound and the spill file does not take them (see audit.spill_dir)")
		return
	}
	a.pending = append(a.pending, e)
	n := len(a.pending)
	a.mu.Unlock()
	if n == 1 || n == auditBatch || (n == auditSpillAt && a.down.Load()) {
		a.signal()
	}
}

// drop counts n rows that are lost and logs an error (once per thousand).
func (a *auditor) drop(n int, why string) {
	total := a.dropped.Add(int64(n))
	if total-int64(n) == 0 || (total-int64(n))/1000 != total/1000 {
		a.log.Error("audit rows dropped: "+why, "rows", n, "dropped_total", total)
	}
}

// refusal says why a call must be refused under audit.required: its row could not be kept
// durably (the store fails and the spill file cannot take it, or memory is full). It is ""
// when the call may go on.
func (a *auditor) refusal() string {
	if a == nil || !a.opts.required || !a.down.Load() {
		return ""
	}
	if a.opts.spillDir == "" {
		return "audit.required is set, the store does not take audit rows and audit.spill_dir is not set"
	}
	if why := a.spillErr.Load(); why != nil {
		return "audit.required is set, the store does not take audit rows and the spill file does not either: " + *why
	}
	a.mu.Lock()
	full := len(a.pending)+a.held >= auditMemory
	a.mu.Unlock()
	if full {
		return "audit.required is set and audit rows wait faster than they can be kept"
	}
	return ""
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
// commits (and syncs) once per write keeps up with any call rate. While the store fails, it
// keeps the rows (keep) and tries again with backoff.
func (a *auditor) run() {
	defer close(a.done)
	linger := time.NewTimer(auditLinger)
	linger.Stop()
	var held []store.Entry    // taken from pending, neither stored nor spilled, oldest first
	var backoff time.Duration // the wait before the next try of a store that failed
	for {
		tryStore := true
		if a.down.Load() {
			select {
			case <-a.wake:
				tryStore = false
			case <-a.retry(backoff):
			}
		} else {
			<-a.wake
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
		}
		a.mu.Lock()
		closed := a.closed
		if held == nil && cap(a.pending) <= auditBatch {
			held, a.pending = a.pending, nil // no copy in the common case
		} else {
			held = append(held, a.pending...)
			clear(a.pending)
			a.pending = a.pending[:0]
		}
		a.held = len(held)
		a.mu.Unlock()
		held = a.keep(held, tryStore || closed)
		if closed && len(held) > 0 && !a.toSpill(held) {
			a.drop(len(held), "the store does not take them, the gateway is shutting down and the spill file cannot keep them")
		}
		if len(held) == 0 {
			held = nil // let a burst's buffer go
		}
		a.mu.Lock()
		a.held = len(held)
		a.mu.Unlock()
		switch {
		case !a.down.Load():
			backoff = 0
		case tryStore && backoff == 0:
			backoff = auditRetryMin
		case tryStore:
			backoff = min(2*backoff, auditRetryMax)
		}
		if closed {
			if a.spill != nil {
				a.spill.close()
			}
			return
		}
	}
}

// keep stores held (when tryStore) or keeps it: rows the spill file already holds are
// older, so new rows go behind them and the file is written to the store first. It
// returns the rows still held in memory.
func (a *auditor) keep(held []store.Entry, tryStore bool) []store.Entry {
	if a.spill != nil && a.spill.rows > 0 {
		if len(held) > 0 && a.toSpill(held) {
			held = held[:0]
		}
		if !tryStore || !a.replay() {
			return held
		}
	}
	if !tryStore {
		if len(held) > 0 && (a.opts.required || len(held) >= auditSpillAt) && a.toSpill(held) {
			held = held[:0]
		}
		return held
	}
	wasDown := a.down.Load()
	for len(held) > 0 {
		n := min(len(held), auditBatch)
		if err := a.write(held[:n]); err != nil {
			a.setDown(err)
			// Memory rides out one failed write; a store that fails again is down for
			// longer than a process should hold rows it could lose in a crash.
			if a.opts.required || wasDown || len(held) >= auditSpillAt {
				if a.toSpill(held) {
					held = held[:0]
				}
			}
			return held
		}
		held = held[n:]
	}
	a.setUp()
	return held
}

// write stores one batch, bounded by a timeout so a stuck store cannot hold the writer.
func (a *auditor) write(batch []store.Entry) error {
	ctx, cancel := context.WithTimeout(context.Background(), auditWriteTimeout)
	defer cancel()
	return a.rec.Record(ctx, batch...)
}

func (a *auditor) setDown(err error) {
	if !a.down.Swap(true) {
		a.log.Error("the store does not take audit rows; keeping them (in memory, then in the spill file) and retrying", "error", err, "spill_dir", a.opts.spillDir)
	}
}

func (a *auditor) setUp() {
	if a.down.Swap(false) {
		a.log.Info("the store takes audit rows again")
	}
}

// toSpill appends rows to the spill file (opening it first when needed) and reports
// whether it holds them now.
func (a *auditor) toSpill(rows []store.Entry) bool {
	if a.opts.spillDir == "" {
		return false
	}
	if a.spill == nil {
		sp, _, err := openSpill(a.opts.spillDir, a.opts.spillMax, true)
		if err != nil {
			a.spillFailed(err)
			return false
		}
		a.spill = sp
	}
	if err := a.spill.append(rows); err != nil {
		a.spillFailed(err)
		return false
	}
	if a.spillErr.Swap(nil) != nil {
		a.log.Info("the audit spill file takes rows again", "file", a.spill.path)
	}
	return true
}

func (a *auditor) spillFailed(err error) {
	why := err.Error()
	if a.spillErr.Swap(&why) == nil {
		a.log.Error("the audit spill file does not take rows; they wait in memory (up to its bound)", "error", err)
	}
}

// replay writes the spill file's rows to the store, in order, truncating it when all are
// written; it reports whether the file is empty now.
func (a *auditor) replay() bool {
	total := 0
	for a.spill.read < a.spill.size {
		rows, end, bad, err := a.spill.next(auditBatch)
		if err != nil {
			a.spillFailed(err)
			return false
		}
		if len(rows) > 0 {
			if err := a.write(rows); err != nil {
				a.setDown(err)
				return false
			}
		}
		if bad > 0 {
			a.drop(bad, "lines of the spill file that are not audit rows")
		}
		if err := a.spill.done(end, len(rows)+bad); err != nil {
			a.spillFailed(err)
			return false
		}
		total += len(rows)
	}
	a.setUp()
	if total > 0 {
		a.log.Info("audit rows kept in the spill file written to the store", "rows", total, "file", a.spill.path)
	}
	return true
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
