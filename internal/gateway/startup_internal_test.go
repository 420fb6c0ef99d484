package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

// A gateway that starts with stored servers registers every valid one unopened (their
// summaries read in parallel, put in the registry at once) and serves each with its tools
// once used (Entry opens it), keeps the one of an unknown kind out with its reason, and lets
// a file-defined server keep its name.
func TestStoredServersLoadedAtStart(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "s.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const n = 200
	for i := range n {
		doc, _ := json.Marshal(map[string]any{"kind": "command", "description": fmt.Sprintf("server %d", i),
			"tools": map[string]any{"echo": map[string]any{"description": "Echo", "argv": []any{"echo", fmt.Sprint(i)}}}})
		if _, err := st.Definitions.Put(ctx, fmt.Sprintf("s%03d", i), doc); err != nil {
			t.Fatal(err)
		}
	}
	st.Definitions.Put(ctx, "bad", json.RawMessage(`{"kind":"no-such-kind","description":"d"}`))
	st.Definitions.Put(ctx, "file", json.RawMessage(`{"kind":"command","description":"stored","tools":{"x":{"description":"X","argv":["true"]}}}`))
	cfg, err := config.Parse("t.yaml", t.TempDir(), []byte("servers:\n  file:\n    kind: command\n    description: from the file\n    tools:\n      y: {description: Y, argv: [true]}\n"), backend.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(ctx, cfg, Options{Definitions: st.Definitions})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if served, unopened := g.reg.count(); served != n+1 || unopened != n {
		t.Errorf("after start: %d served, %d of them not opened; want %d and %d", served, unopened, n+1, n)
	}
	for i := range n {
		e := g.Entry(fmt.Sprintf("s%03d", i))
		if e == nil {
			t.Fatalf("stored server s%03d is not served", i)
		}
		if tools := e.state.Load().catalog.Tools; len(tools) != 1 || tools[0].Name != "echo" {
			t.Fatalf("s%03d tools: %v", i, tools)
		}
		if e.Unavailable() != "" {
			t.Errorf("s%03d unavailable: %s", i, e.Unavailable())
		}
	}
	if g.Entry("bad") != nil {
		t.Error("the invalid stored server is served")
	}
	g.dyn.mu.Lock()
	why := g.dyn.invalid["bad"]
	g.dyn.mu.Unlock()
	if why == "" {
		t.Error("no reason kept for the invalid stored server")
	}
	if e := g.Entry("file"); e == nil || e.Config().Source != "file" || e.Config().Description != "from the file" {
		t.Errorf("the file-defined server lost its name to the stored one: %+v", e)
	}
}
