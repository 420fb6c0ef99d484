package lowdefy

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

// sessionFixture is the tutorial (08-final) served by one or more backends on one real SQLite
// store on disk, called directly (no gateway), as principal ada.
type sessionFixture struct {
	tb  testing.TB
	ta  *lowdefytest.App
	st  *store.Store
	ada auth.Principal
}

func newSessionFixture(tb testing.TB) *sessionFixture {
	tb.Helper()
	ta := lowdefytest.Tutorial(tb, "08-final", lowdefytest.StartDummyJSON(tb))
	st, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "s.db"), sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return &sessionFixture{tb: tb, ta: ta, st: st, ada: auth.Principal{User: "ada", Roles: []string{"support"}}}
}

// open opens a backend (a replica) of the app on the fixture's store.
func (f *sessionFixture) open() *Backend {
	f.tb.Helper()
	sp := &spec{server: &config.Server{Name: "tickets"}, conf: serverSection{App: f.ta.Dir, Toolset: ToolsetSession, Secrets: map[string]string{"SQLITE_FILENAME": "env:DB"}, AllowPrivate: true}}
	bk, err := sp.Open(context.Background(), backend.Deps{WorkSessions: f.st.WorkSessions, Blobs: f.st.Blobs, Secrets: plainSecrets{"env:DB": f.ta.SQLite}})
	if err != nil {
		f.tb.Fatal(err)
	}
	b := bk.(*Backend)
	f.tb.Cleanup(func() { b.Close() })
	return b
}

// call calls tool on b as p with args and returns the text of the result; an error result
// fails unless wantErr.
func (f *sessionFixture) call(b *Backend, p auth.Principal, tool string, args map[string]any, wantErr bool) string {
	f.tb.Helper()
	raw, _ := json.Marshal(args)
	res, err := b.CallTool(context.Background(), &backend.Call{Name: tool, Arguments: raw, Principal: p, Session: backend.NoSession{}})
	if err != nil {
		f.tb.Fatalf("%s: %v", tool, err)
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError != wantErr {
		f.tb.Fatalf("%s: isError %v, want %v: %s", tool, res.IsError, wantErr, text)
	}
	return text
}

// create starts a work session on b as ada and returns its id.
func (f *sessionFixture) create(b *Backend) string {
	f.tb.Helper()
	raw, _ := json.Marshal(map[string]any{"name": "bench"})
	res, err := b.CallTool(context.Background(), &backend.Call{Name: "session_create", Arguments: raw, Principal: f.ada, Session: backend.NoSession{}})
	if err != nil || res.IsError {
		f.tb.Fatalf("session_create: %v %+v", err, res)
	}
	var out struct{ SessionID string }
	var bs []byte
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			bs = append(bs, tc.Text...)
		}
	}
	if err := json.Unmarshal(bs, &out); err != nil || out.SessionID == "" {
		f.tb.Fatalf("session_create answered %s", bs)
	}
	return out.SessionID
}

// BenchmarkSessionCall measures one work-session call through the backend on a real SQLite
// store (load, restore, run, save with a commit), on a session that has run many calls (its
// audit trail full): an interact with one setValue, a get_state (load and restore only), and
// a navigate (onInit, the get_products request to a loopback fake).
func BenchmarkSessionCall(b *testing.B) {
	f := newSessionFixture(b)
	bk := f.open()
	sid := f.create(bk)
	f.call(bk, f.ada, "navigate", map[string]any{"sessionId": sid, "pageId": "new-ticket"}, false)
	setValue := func(i int) map[string]any {
		return map[string]any{"sessionId": sid, "actions": []any{
			map[string]any{"type": "setValue", "blockId": "ticket_title", "value": fmt.Sprintf("bench ticket %d", i)},
		}}
	}
	// Age the session as the bench's are after a few seconds (30 turns of navigate and two
	// interacts): the page's request history and event log grow with every navigate, the
	// audit trail with every action.
	for i := range 30 {
		f.call(bk, f.ada, "navigate", map[string]any{"sessionId": sid, "pageId": "new-ticket"}, false)
		f.call(bk, f.ada, "interact", setValue(i), false)
		f.call(bk, f.ada, "interact", setValue(i), false)
	}
	b.Run("interact-setValue", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			f.call(bk, f.ada, "interact", setValue(i), false)
			i++
		}
	})
	b.Run("get_state", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f.call(bk, f.ada, "get_state", map[string]any{"sessionId": sid}, false)
		}
	})
	b.Run("navigate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f.call(bk, f.ada, "navigate", map[string]any{"sessionId": sid, "pageId": "new-ticket"}, false)
		}
	})
}
