package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testenv"
)

// transformExampleRe finds the files of the transforms example of docs/config.md: a marker
// comment naming the file, then its fenced block.
var transformExampleRe = regexp.MustCompile("(?s)<!-- transform-example: ([^ ]+) -->\n```[a-z]*\n(.*?)\n```")

// TestTransformDocsExample serves the seed's jq example as docs/config.md writes it: the
// tools come from a transform over `jq --help`; they are listed (marked generated), called
// with a filter, and give jq's result. It runs again with the module in the content store
// (cid://, `mcpbridge cid add`), and `mcpbridge check` counts the generated tools.
func TestTransformDocsExample(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		testenv.Missing(t, "jq (the docs example of transforms)", "scripts/setup-jq.sh")
	}
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "config.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{}
	for _, m := range transformExampleRe.FindAllStringSubmatch(string(doc), -1) {
		files[m[1]] = m[2]
		p := filepath.Join(dir, m[1])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(m[2]+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := files["mcpbridge.yaml"]; !ok || files["transforms/jq_tools.js"] == "" {
		t.Fatalf("docs/config.md lacks the transform example's files (found %v)", slices.Collect(func(yield func(string) bool) {
			for k := range files {
				if !yield(k) {
					return
				}
			}
		}))
	}
	cfg := filepath.Join(dir, "mcpbridge.yaml")
	store := "sqlite:" + filepath.Join(dir, "store.db")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bin := mcpbridgeBinary(t)

	out, errOut, err := runLogged(ctx, time.Minute, dir, nil, bin, "check", "--config", cfg)
	if err != nil || !strings.Contains(string(out), "1 server, 3 tools") {
		t.Fatalf("check: %v\nstdout: %s\nstderr: %s", err, out, errOut)
	}

	serveAndCall := func(t *testing.T, name, config string) {
		g := startServe(t, serveOptions{Name: name, Dir: dir, Config: config, Store: store})
		for _, era := range []string{modernEra, legacyEra} {
			cs, err := connectMCP(ctx, g.Base+"/mcp/jq", "", era, nil)
			if err != nil {
				t.Fatalf("%s: connect: %v", era, err)
			}
			res, err := cs.ListTools(ctx, &mcp.ListToolsParams{})
			if err != nil {
				t.Fatalf("%s: tools/list: %v", era, err)
			}
			var names []string
			for _, tl := range res.Tools {
				names = append(names, tl.Name)
				if tl.Meta["io.mcpbridge/generated"] == nil {
					t.Errorf("%s: tool %s is not marked generated: %v", era, tl.Name, tl.Meta)
				}
			}
			slices.Sort(names)
			if !slices.Equal(names, []string{"filter", "filter_compact", "filter_raw"}) {
				t.Fatalf("%s: tools = %v, want filter, filter_compact, filter_raw", era, names)
			}
			input := `{"items": [{"name": "a"}, {"name": "b"}]}`
			got, err := callTool(ctx, cs, "filter", map[string]any{"filter": ".items[].name", "input": input})
			if err != nil || strings.TrimSpace(got) != "\"a\"\n\"b\"" {
				t.Errorf("%s: filter = %q, %v; want \"a\" and \"b\" on two lines", era, got, err)
			}
			got, err = callTool(ctx, cs, "filter_raw", map[string]any{"filter": ".items[].name", "input": input})
			if err != nil || strings.TrimSpace(got) != "a\nb" {
				t.Errorf("%s: filter_raw = %q, %v; want a and b on two lines", era, got, err)
			}
			cs.Close()
		}
	}
	t.Run("path", func(t *testing.T) { serveAndCall(t, "serve-path", cfg) })

	out, errOut, err = runLogged(ctx, time.Minute, dir, nil, bin, "cid", "add", "--config", cfg, "--store", store, filepath.Join(dir, "transforms", "jq_tools.js"))
	ref := strings.TrimSpace(string(out))
	if err != nil || !strings.HasPrefix(ref, "cid://sha256-") {
		t.Fatalf("cid add: %v\nstdout: %s\nstderr: %s", err, out, errOut)
	}
	withCID := strings.Replace(files["mcpbridge.yaml"], "tools_transform: transforms/jq_tools.js", "tools_transform: "+ref, 1)
	if withCID == files["mcpbridge.yaml"] {
		t.Fatal("the example's tools_transform line changed; update this test")
	}
	cfg2 := filepath.Join(dir, "cid.yaml")
	if err := os.WriteFile(cfg2, []byte(withCID), 0o644); err != nil {
		t.Fatal(err)
	}
	// The module is read from the store, not the file.
	if err := os.Remove(filepath.Join(dir, "transforms", "jq_tools.js")); err != nil {
		t.Fatal(err)
	}
	t.Run("cid", func(t *testing.T) { serveAndCall(t, "serve-cid", cfg2) })
}
