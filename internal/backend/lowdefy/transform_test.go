package lowdefy_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// A Lowdefy app's server can have generated resources (its tools come from the app):
// served beside the app's own, limited by their roles.
func TestTransformResources(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lowdefy.yaml"), []byte(truthApp()), 0o644); err != nil {
		t.Fatal(err)
	}
	module := filepath.Join(dir, "res.js")
	if err := os.WriteFile(module, []byte(`export default (serverName, context) => [
  {name: "guide", uri: "docs://" + serverName + "/guide", mimeType: "text/plain", text: "how to use " + context.definition.description},
  {name: "sales", uri: "docs://" + serverName + "/sales", text: "for sales", roles: ["sales"]},
]`), 0o644); err != nil {
		t.Fatal(err)
	}
	dbFile := filepath.Join(dir, "notes.sqlite")
	db, err := sql.Open("sqlite", dbFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	t.Setenv("LD_TEST_SQLITE_FILENAME", dbFile)
	st := openStore(t, filepath.Join(t.TempDir(), "s.db"))
	srv := gatewaytest.Start(t, gatewayConfig(dir, "    resources_transform: "+module+"\n"), gateway.Options{WorkSessions: st.WorkSessions})
	ctx := context.Background()
	uris := func(key string) []string {
		t.Helper()
		a := connect(t, srv.URL+"/mcp/tickets", key)
		rs, err := a.cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs.Resources {
			out = append(out, r.URI)
		}
		return out
	}
	alice, bob := uris(aliceKey), uris(bobKey)
	if !slices.Contains(alice, "docs://tickets/guide") || slices.Contains(alice, "docs://tickets/sales") {
		t.Errorf("alice (support) sees %v: want the guide and not the sales resource", alice)
	}
	if !slices.Contains(bob, "docs://tickets/sales") {
		t.Errorf("bob (sales) sees %v: want the sales resource", bob)
	}
	a := connect(t, srv.URL+"/mcp/tickets", aliceKey)
	rr, err := a.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://tickets/guide"})
	if err != nil || rr.Contents[0].Text != "how to use The ticket app" {
		t.Fatalf("read = %v, %v", rr, err)
	}
}
