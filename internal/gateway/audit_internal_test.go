package gateway

import (
	"context"
	"log/slog"
	"path/filepath"
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
