package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

// outageRecorder is a real store's audit whose writes fail, as PostgreSQL's do when it is
// down (store.ErrUnavailable), while down is set. It notes when each write was tried.
type outageRecorder struct {
	next  AuditRecorder
	down  atomic.Bool
	mu    sync.Mutex
	tries []time.Time
}

func (o *outageRecorder) Record(ctx context.Context, es ...store.Entry) error {
	o.mu.Lock()
	o.tries = append(o.tries, time.Now())
	o.mu.Unlock()
	if o.down.Load() {
		return fmt.Errorf("recording %d audit entries: %w: connection refused", len(es), store.ErrUnavailable)
	}
	return o.next.Record(ctx, es...)
}

// memoryAudit keeps what it is given, in order.
type memoryAudit struct {
	mu   sync.Mutex
	rows []store.Entry
}

func (m *memoryAudit) Record(_ context.Context, es ...store.Entry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rows = append(m.rows, es...)
	return nil
}

func (m *memoryAudit) all() []store.Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]store.Entry(nil), m.rows...)
}

func openSQLiteAudit(t *testing.T, path string) *store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// storedInOrder lists every row of st oldest first and checks they are rows 0…n-1 in order
// (Duration numbers them).
func storedInOrder(t *testing.T, st *store.Store, n int) {
	t.Helper()
	var got []store.Entry
	for {
		f := store.AuditFilter{Limit: store.MaxAuditLimit, OldestFirst: true}
		if len(got) > 0 {
			f.AfterID = got[len(got)-1].ID
		}
		page, err := st.Audit.List(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		got = append(got, page...)
	}
	if len(got) != n {
		t.Fatalf("the store holds %d audit rows, want %d", len(got), n)
	}
	for i, e := range got {
		if e.Duration != time.Duration(i) {
			t.Fatalf("row %d of the store is call %d: rows are not in the order of their calls", i, e.Duration)
		}
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	// A generous deadline: under the race detector the SQLite store writes tens of
	// thousands of rows slowly, and the test is about what is written, not how fast.
	start := time.Now()
	deadline := start.Add(3 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", time.Since(start).Round(time.Second), what)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Logf("waited %v for %s", d.Round(time.Second), what)
	}
}

func spillRows(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, spillName(0)))
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// Rows of calls made while the store is down are neither lost nor reordered: more than
// memory holds go to the spill file, and all reach the (real SQLite) store, in order, when
// it answers again; the file is emptied and nothing is counted as dropped.
func TestAuditOutageKeepsEveryRow(t *testing.T) {
	dir := t.TempDir()
	st := openSQLiteAudit(t, filepath.Join(dir, "a.db"))
	rec := &outageRecorder{next: st.Audit}
	spill := filepath.Join(dir, "spill")
	a := newAuditorWith(rec, slog.New(slog.DiscardHandler), auditOptions{spillDir: spill, spillMax: 1 << 30})
	const before, during = 100, 3 * auditMemory
	for i := range before {
		a.record(store.Entry{Server: "s", Tool: "t", Outcome: "ok", Duration: time.Duration(i)})
	}
	waitFor(t, "the rows before the outage to be stored", func() bool {
		got, _ := st.Audit.List(context.Background(), store.AuditFilter{Limit: store.MaxAuditLimit})
		return len(got) == before
	})
	rec.down.Store(true)
	for i := range during {
		a.record(store.Entry{Server: "s", Tool: "t", Outcome: "ok", Duration: time.Duration(before + i)})
		if i%1000 == 999 {
			// Calls come at a rate, not all at once: the writer gets to run.
			waitFor(t, "the writer to keep the rows", func() bool {
				a.mu.Lock()
				defer a.mu.Unlock()
				return len(a.pending) < auditSpillAt
			})
		}
	}
	waitFor(t, "rows in the spill file", func() bool { return spillRows(t, spill) > auditMemory })
	if a.refusal() != "" {
		t.Errorf("refusal without audit.required: %q", a.refusal())
	}
	rec.down.Store(false)
	waitFor(t, "the spill file to be written to the store", func() bool { return spillRows(t, spill) == 0 && !a.down.Load() })
	a.close()
	if d := a.dropped.Load(); d != 0 {
		t.Errorf("%d rows dropped", d)
	}
	storedInOrder(t, st, before+during)
	if _, err := os.Stat(filepath.Join(spill, spillName(0))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the empty spill file is still there after close: %v", err)
	}
}

// A process that stops while the store is down leaves its rows in the spill file; the
// next one to start with the same spill directory writes them to the store first, in
// order, before its own. A torn last line (a crash during an append) is counted as dropped.
func TestAuditSpillSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	spill := filepath.Join(dir, "spill")
	opts := auditOptions{spillDir: spill, spillMax: 1 << 30}
	rec := &outageRecorder{next: &memoryAudit{}}
	rec.down.Store(true)
	a := newAuditorWith(rec, slog.New(slog.DiscardHandler), opts)
	const n = 1500
	for i := range n {
		a.record(store.Entry{Server: "s", Tool: "t", Duration: time.Duration(i)})
	}
	a.close() // the store is down: the rows go to the spill file
	if got := spillRows(t, spill); got != n {
		t.Fatalf("the spill file holds %d rows after close, want %d", got, n)
	}
	f, err := os.OpenFile(filepath.Join(spill, spillName(0)), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"Server":"s","To`) // the crash
	f.Close()

	st := openSQLiteAudit(t, filepath.Join(dir, "b.db"))
	b := newAuditorWith(st.Audit, slog.New(slog.DiscardHandler), opts)
	b.record(store.Entry{Server: "s", Tool: "t", Duration: n})
	waitFor(t, "the kept rows to be stored", func() bool {
		got, _ := st.Audit.List(context.Background(), store.AuditFilter{Limit: store.MaxAuditLimit})
		return len(got) == n+1
	})
	b.close()
	storedInOrder(t, st, n+1)
	if d := b.dropped.Load(); d != 1 {
		t.Errorf("dropped %d, want 1 (the torn line)", d)
	}
	if _, err := os.Stat(filepath.Join(spill, spillName(0))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the replayed spill file is still there: %v", err)
	}
}

// Past the spill file's bound and memory's, rows are dropped and counted; under
// audit.required calls are refused then (and while no spill directory is set), but not
// while the spill file takes rows.
func TestAuditSpillBoundAndRequired(t *testing.T) {
	dir := t.TempDir()
	rec := &outageRecorder{next: &memoryAudit{}}
	rec.down.Store(true)
	a := newAuditorWith(rec, slog.New(slog.DiscardHandler), auditOptions{spillDir: dir, spillMax: 64 << 10, required: true})
	a.record(store.Entry{Server: "s", Tool: "t"})
	waitFor(t, "the first row to be spilled", func() bool { return spillRows(t, dir) == 1 })
	if why := a.refusal(); why != "" {
		t.Errorf("refused while the spill file takes rows: %q", why)
	}
	for i := range 2 * auditMemory {
		a.record(store.Entry{Server: "s", Tool: "t", Duration: time.Duration(i)})
	}
	waitFor(t, "a refusal once the spill file is full", func() bool { return strings.Contains(a.refusal(), "spill file") })
	if why := a.refusal(); !strings.Contains(why, "spill file") || !strings.Contains(why, "full") {
		t.Errorf("refusal %q does not say the spill file is full", why)
	}
	a.close()
	if info, err := os.Stat(filepath.Join(dir, spillName(0))); err != nil || info.Size() > 64<<10 {
		t.Errorf("spill file: %v, %v; want at most 64 KiB", info, err)
	}
	kept := spillRows(t, dir)
	if d := a.dropped.Load(); d == 0 || int(d)+kept != 2*auditMemory+1 {
		t.Errorf("dropped %d and kept %d of %d rows", d, kept, 2*auditMemory+1)
	}

	b := newAuditorWith(rec, slog.New(slog.DiscardHandler), auditOptions{required: true})
	defer b.close()
	b.record(store.Entry{Server: "s", Tool: "t"})
	waitFor(t, "the writer to find the store down", b.down.Load)
	if why := b.refusal(); !strings.Contains(why, "spill_dir") {
		t.Errorf("refusal without a spill directory: %q", why)
	}
}

// The writer retries a store that fails with backoff — 250 ms, doubling, at most 5 s — and
// writes everything once it answers.
func TestAuditRetryBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := &memoryAudit{}
		rec := &outageRecorder{next: mem}
		rec.down.Store(true)
		a := newAuditor(rec, slog.New(slog.DiscardHandler))
		start := time.Now()
		a.record(store.Entry{Tool: "t"})
		time.Sleep(20 * time.Second)
		rec.down.Store(false)
		time.Sleep(10 * time.Second)
		a.close()
		var gaps []time.Duration
		prev := start
		for _, at := range rec.tries {
			gaps = append(gaps, at.Sub(prev))
			prev = at
		}
		want := []time.Duration{auditLinger, 250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second, 5 * time.Second}
		if len(gaps) < len(want) || fmt.Sprint(gaps[:len(want)]) != fmt.Sprint(want) {
			t.Errorf("tries after %v, want %v…", gaps, want)
		}
		if got := mem.all(); len(got) != 1 {
			t.Errorf("stored %d rows after the store came back, want 1", len(got))
		}
	})
}

// Two processes sharing a spill directory use different files.
func TestAuditSpillFileLocked(t *testing.T) {
	dir := t.TempDir()
	a, _, err := openSpill(dir, 1<<20, true)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	b, _, err := openSpill(dir, 1<<20, true)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	if a.path == b.path {
		t.Errorf("both use %s", a.path)
	}
}
