package lowdefy

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

// plainSecrets resolves secret references from a map (tests only).
type plainSecrets map[string]string

func (p plainSecrets) Resolve(_, ref string) (string, error) { return p[ref], nil }

// The app's own validation answers a call the gateway's schema check would have stopped
// (a required field left out): the engine's Validate names the field, and nothing is saved.
// The backend is called directly, without the gateway.
func TestSubmitReportsAppValidation(t *testing.T) {
	ta := lowdefytest.Tutorial(t, "08-final", lowdefytest.StartDummyJSON(t))
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"), sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sp := &spec{server: &config.Server{Name: "tickets"}, conf: serverSection{App: ta.Dir, Toolset: ToolsetForms, Secrets: map[string]string{"SQLITE_FILENAME": "env:DB"}, AllowPrivate: true}}
	bk, err := sp.Open(context.Background(), backend.Deps{WorkSessions: st.WorkSessions, Secrets: plainSecrets{"env:DB": ta.SQLite}})
	if err != nil {
		t.Fatal(err)
	}
	b := bk.(*Backend)
	defer b.Close()
	cat, _ := b.Catalog(context.Background())
	if len(cat.Tools) != 1 || cat.Tools[0].Name != "submit_new_ticket" || len(cat.Resources) != 1 {
		t.Fatalf("toolset forms: %d tools, %d resources", len(cat.Tools), len(cat.Resources))
	}
	call := func(args map[string]any) (string, bool) {
		raw, _ := json.Marshal(args)
		res, err := b.CallTool(context.Background(), &backend.Call{Name: "submit_new_ticket", Arguments: raw, Principal: auth.Principal{User: "ada"}, Session: backend.NoSession{}})
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		for _, c := range res.Content {
			b, _ := json.Marshal(c)
			sb.Write(b)
		}
		return sb.String(), res.IsError
	}
	got, isErr := call(map[string]any{"ticket_description": "no title, no type"})
	if !isErr || !strings.Contains(got, "ticket_title: This field is required") || !strings.Contains(got, "ticket_type: This field is required") {
		t.Errorf("missing fields: isError %v: %s", isErr, got)
	}
	if got, isErr := call(map[string]any{"ticket_title": "Fan noise", "ticket_type": "Question"}); isErr || !strings.Contains(got, "save_new_ticket") {
		t.Errorf("submit: isError %v: %s", isErr, got)
	}
	if res, _ := b.CallTool(context.Background(), &backend.Call{Name: "navigate", Session: backend.NoSession{}}); !res.IsError {
		t.Errorf("toolset forms answers navigate")
	}
}
