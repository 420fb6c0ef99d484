package gateway_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

// Issue 12.9: the SQLite store's database (and its -wal and -shm files) is never served as a
// file resource: refused when the config names it, and at read time when a file resource
// has become it (a symlink or hard link put there after start).
func TestAttackStoreFileResource(t *testing.T) {
	makeDB := func(dir string) {
		st, err := sqlite.Open(context.Background(), filepath.Join(dir, config.DefaultStoreFile), sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		st.Definitions.Put(context.Background(), "x", []byte(`{"kind":"command","description":"secret definition"}`))
		t.Cleanup(func() { st.Close() })
	}
	for _, name := range []string{config.DefaultStoreFile, config.DefaultStoreFile + "-wal", "./sub/../" + config.DefaultStoreFile} {
		dir := t.TempDir()
		makeDB(dir)
		cfg, err := config.Parse("c.yaml", dir, []byte(`servers:
  leak:
    kind: command
    description: leak
    resources:
      db: {uri: "docs://leak/db", file: "`+name+`"}
`), backend.Kinds())
		if err != nil {
			t.Fatal(err)
		}
		// The server is not served (unavailable, with the reason); the others would be.
		g, err := gateway.New(context.Background(), cfg, gateway.Options{})
		if err != nil {
			t.Fatal(err)
		}
		reason := g.Entry("leak").Unavailable()
		g.Close()
		if reason == "" {
			t.Errorf("a file resource naming the store %s was accepted", name)
			continue
		}
		t.Logf("file: %s → %v", name, reason)
		if !strings.Contains(reason, "store") {
			t.Errorf("the reason does not say why: %v", reason)
		}
	}

	// At read time, through HTTP.
	lb := serveLoopback(t, limitsSection("{drain_period: 1s}")+`servers:
  leak:
    kind: command
    description: leak
    resources:
      notes: {uri: "docs://leak/notes", file: notes.txt}
      wal: {uri: "docs://leak/wal", file: other.txt}
`, gateway.Options{}, func(dir string, _ *gateway.Options) {
		makeDB(dir)
		os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("harmless"), 0o644)
		os.WriteFile(filepath.Join(dir, "other.txt"), []byte("harmless"), 0o644)
	})
	cs := connectFrom(t, "127.0.0.1", lb.base+"/mcp/leak", "2025-11-25")
	if r, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "docs://leak/notes"}); err != nil || r.Contents[0].Text != "harmless" {
		t.Fatalf("notes: %v %v", r, err)
	}
	os.Remove(filepath.Join(lb.dir, "notes.txt"))
	os.Symlink(filepath.Join(lb.dir, config.DefaultStoreFile), filepath.Join(lb.dir, "notes.txt"))
	os.Remove(filepath.Join(lb.dir, "other.txt"))
	if err := os.Link(filepath.Join(lb.dir, config.DefaultStoreFile+"-wal"), filepath.Join(lb.dir, "other.txt")); err != nil {
		t.Fatal(err)
	}
	for _, uri := range []string{"docs://leak/notes", "docs://leak/wal"} {
		r, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		if err == nil {
			c := r.Contents[0]
			t.Errorf("%s (now the store's file) served %d bytes: %.16q", uri, len(c.Blob)+len(c.Text), append(c.Blob, c.Text...))
			continue
		}
		t.Logf("%s → %v", uri, err)
	}
}

// Issue 12.9: a server stored through the admin API cannot name the store's files either.
func TestAttackStoreFileResourceAdmin(t *testing.T) {
	lb := serveLoopback(t, limitsSection("{drain_period: 1s}")+echoServers, gateway.Options{}, func(dir string, o *gateway.Options) {
		o.StoreFile = filepath.Join(dir, "state.db") // as serve passes it for --store sqlite:state.db
		st, err := sqlite.Open(context.Background(), o.StoreFile, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		o.Definitions, o.AdminKeys = st.Definitions, []string{adminKey}
	})
	def := `{"kind":"command","description":"leak","resources":{"db":{"uri":"docs://leak/db","file":"state.db-wal"}}}`
	code, m := admin(t, "PUT", lb.base+"/admin/api/servers/leak", adminKey, def)
	t.Logf("PUT a stored server whose resource is the store's -wal file → %d %v", code, m["error"])
	if code != 400 || !strings.Contains(fmt.Sprint(m["error"]), "store") {
		t.Errorf("PUT: %d %v; want 400 naming the store", code, m)
	}
}
