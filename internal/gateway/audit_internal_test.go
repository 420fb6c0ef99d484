package gateway

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

// Calls at 10,000/s for two seconds, far above what one transaction per row can write (an
// fsync each, ~700/s here), lose no audit entry: the auditor writes what piled up in one
// transaction.
func TestAuditKeepsUpWithABurst(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := newAuditor(st.Audit, slog.New(slog.DiscardHandler))
	const n = 20000
	for i := range n {
		if i%10 == 0 {
			time.Sleep(time.Millisecond)
		}
		a.record(store.Entry{Server: "s", Tool: "t", Principal: "p", Outcome: "ok", Duration: int64ToDuration(i)})
	}
	a.close()
	if d := a.dropped.Load(); d != 0 {
		t.Errorf("%d of %d audit entries were dropped", d, n)
	}
	got, err := st.Audit.List(context.Background(), store.AuditFilter{Limit: store.MaxAuditLimit})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != store.MaxAuditLimit {
		t.Errorf("listed %d entries, want the limit %d", len(got), store.MaxAuditLimit)
	}
	if got[0].Duration != int64ToDuration(n-1) {
		t.Errorf("the newest entry is %v, want the last recorded", got[0].Duration)
	}
}

func int64ToDuration(i int) time.Duration { return time.Duration(i) }

// blockingRecorder holds every Record until release is closed, and keeps what it was given.
type blockingRecorder struct {
	release chan struct{}
	mu      sync.Mutex
	batches [][]store.Entry
}

func (b *blockingRecorder) Record(ctx context.Context, es ...store.Entry) error {
	<-b.release
	b.mu.Lock()
	defer b.mu.Unlock()
	b.batches = append(b.batches, append([]store.Entry(nil), es...))
	return nil
}

// A store that does not answer never slows calls down: once auditMemory entries wait (and no spill directory is set),
// further ones are dropped and counted, and record returns at once. When the store answers
// again, close writes every queued entry, in order, in batches of at most auditBatch, and
// entries recorded after close are refused.
func TestAuditQueueBoundedAndFlushedOnClose(t *testing.T) {
	rec := &blockingRecorder{release: make(chan struct{})}
	a := newAuditor(rec, slog.New(slog.DiscardHandler))
	const extra = 10
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range auditMemory + extra {
			a.record(store.Entry{Tool: "t", Duration: time.Duration(i)})
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("record blocked on a store that does not answer")
	}
	if d := a.dropped.Load(); d != extra {
		t.Errorf("dropped %d entries, want %d", d, extra)
	}
	close(rec.release)
	a.close()
	a.record(store.Entry{Tool: "late"})
	a.close() // a second close is harmless
	var got []store.Entry
	for _, b := range rec.batches {
		if len(b) > auditBatch {
			t.Errorf("a batch of %d entries, want at most %d", len(b), auditBatch)
		}
		got = append(got, b...)
	}
	want := auditMemory
	if len(got) != want {
		t.Fatalf("stored %d entries, want %d", len(got), want)
	}
	for i, e := range got {
		if e.Duration != time.Duration(i) {
			t.Fatalf("entry %d is %v, want the entries in the order recorded", i, e.Duration)
		}
	}
}
