package gateway_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// File resources serve the files they name and nothing else: a URI template's variable is one
// path segment and cannot climb out of its folder (.., encoded, double-encoded, absolute
// paths, backslashes, NUL bytes), and no link leads out of the config's folder, in every
// protocol era.
func TestAttackFileResourceTraversal(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "config")
	os.MkdirAll(filepath.Join(dir, "guides", "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "guides", "style.md"), []byte("# Style"), 0o644)
	os.WriteFile(filepath.Join(dir, "guides", "sub", "deep.md"), []byte("# Deep"), 0o644)
	os.WriteFile(filepath.Join(dir, "secret.md"), []byte("SECRET-NEXT-TO-CONFIG"), 0o644)
	os.WriteFile(filepath.Join(root, "outside.md"), []byte("SECRET-OUTSIDE-CONFIG"), 0o644)
	os.Symlink(filepath.Join(root, "outside.md"), filepath.Join(dir, "guides", "link.md"))
	os.Symlink(root, filepath.Join(dir, "guides", "up"))
	srv := gatewaytest.StartIn(t, dir, `
servers:
  docs:
    kind: command
    description: d
    resources:
      guide: {uri_template: "docs://guides/{name}", file: "guides/{name}.md", mimeType: text/markdown}
      path: {uri_template: "docs://paths/{+path}", file: "guides/{path}.md", mimeType: text/markdown}
`, gateway.Options{})
	ctx := context.Background()
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			cs := connect(t, srv.URL+"/mcp/docs", era)
			read := func(uri string) (string, error) {
				rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				if err != nil {
					return "", err
				}
				return rr.Contents[0].Text, nil
			}
			if got, err := read("docs://guides/style"); err != nil || got != "# Style" {
				t.Fatalf("a plain read: %q, %v", got, err)
			}
			for _, uri := range []string{
				"docs://guides/..%2Fsecret", "docs://guides/%2e%2e%2fsecret", "docs://guides/%2E%2E%2Fsecret",
				"docs://guides/..%252Fsecret", "docs://guides/%252e%252e%252fsecret",
				"docs://guides/..%5Csecret", "docs://guides/%2Fetc%2Fpasswd", "docs://guides/..%2F..%2Foutside",
				"docs://guides/link", "docs://guides/up%2Foutside", "docs://guides/style%00",
				"docs://paths/../secret", "docs://paths/..%2Fsecret", "docs://paths/sub/../../secret",
				"docs://paths//etc/passwd", "docs://paths/up/outside", "docs://paths/link",
				"docs://paths/sub/%2e%2e/%2e%2e/secret", "docs://paths/..\\secret",
			} {
				got, err := read(uri)
				if err == nil {
					t.Errorf("read %s = %q, want an error", uri, got)
				}
				if strings.Contains(got, "SECRET") || (err != nil && strings.Contains(err.Error(), "SECRET")) {
					t.Errorf("read %s leaked a file outside the folder: %q %v", uri, got, err)
				}
			}
			// A variable is one path segment, even where the template allows slashes.
			if got, err := read("docs://paths/sub/deep"); err == nil {
				t.Errorf("docs://paths/sub/deep = %q, want an error (a variable is one segment)", got)
			}
		})
	}
}
