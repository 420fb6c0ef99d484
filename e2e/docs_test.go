package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// inspectorPackage is the npm name of the MCP Inspector; pinnedInspector is how every command a
// person copies must run it: -y so npx does not stop to ask, @2 so that npx does not pick
// Inspector 0.15 (which fails with "send MCP requests to /mcp/{server}").
const (
	inspectorPackage = "@modelcontextprotocol/inspector"
	pinnedInspector  = "npx -y " + inspectorPackage + "@2 "
)

// stalePhrases are statements the docs, the pages and the help once made that stopped being
// true; each says why.
var stalePhrases = []struct {
	re  *regexp.Regexp
	why string
}{
	{regexp.MustCompile(`(?i)\bare coming\b`), "upstream MCP servers and Lowdefy apps exist (kinds mcp and lowdefy)"},
	{regexp.MustCompile(`(?i)\buntil\b[^.]*\bis merged\b`), "the Lowdefy page renderer is merged"},
	{regexp.MustCompile(`(?i)\bstand-in\b[^.]*\brender`), "the Lowdefy page renderer is merged"},
	{regexp.MustCompile(`(?i)\bstatic binaries for linux[ /]`), "make dist's darwin binaries link libSystem dynamically (docs/deployment.md#binaries)"},
	{regexp.MustCompile(`(?i)\bstatic mcpbridge binaries\b`), "make dist's darwin binaries link libSystem dynamically (docs/deployment.md#binaries)"},
	{regexp.MustCompile(`(?i)Node ≥ 22\.19; with an older Node`), "with the @2 pin the Inspector runs on Node 20, with engine warnings"},
	{regexp.MustCompile(`\bTODO\b`), "a reader cannot act on a TODO"},
}

// docFiles are the files people read or copy from: README.md, docs/**/*.md, the page
// templates, the Makefile and scripts/dist.sh, and the non-test Go files of cmd/ and internal/
// (the help text, and the copy-paste commands the pages print are built there).
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "Makefile", "scripts/dist.sh"}
	walk := func(dir string, keep func(path string) bool) {
		err := filepath.WalkDir(filepath.Join(repoRoot, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if !d.IsDir() && keep(path) {
				rel, err := filepath.Rel(repoRoot, path)
				if err != nil {
					return err
				}
				files = append(files, rel)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("listing %s: %v", dir, err)
		}
	}
	walk("docs", func(p string) bool { return strings.HasSuffix(p, ".md") })
	walk("internal/web/templates", func(string) bool { return true })
	for _, dir := range []string{"cmd", "internal"} {
		walk(dir, func(p string) bool { return strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") })
	}
	return files
}

// TestDocsInspectorPinned: every MCP Inspector command in the README, the docs, the pages and
// the Go code that builds the pages' snippets runs `npx -y @modelcontextprotocol/inspector@2`.
func TestDocsInspectorPinned(t *testing.T) {
	checked := 0
	for _, rel := range docFiles(t) {
		b, err := os.ReadFile(filepath.Join(repoRoot, rel))
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(b), "\n") {
			for i := 0; ; {
				j := strings.Index(line[i:], inspectorPackage)
				if j < 0 {
					break
				}
				at := i + j
				i = at + len(inspectorPackage)
				checked++
				start := max(0, at-len("npx -y "))
				if !strings.HasPrefix(line[start:], pinnedInspector) {
					t.Errorf("%s:%d: %q: run the Inspector as `%s…` (without -y npx asks; without @2 it picks Inspector 0.15, which fails)",
						rel, n+1, strings.TrimSpace(line), pinnedInspector)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatalf("no Inspector command found in %d files; the README tour has one, so the scan is broken", len(docFiles(t)))
	}
}

// TestDocsNoStalePhrases: the docs, the pages and the help say nothing that stopped being true.
func TestDocsNoStalePhrases(t *testing.T) {
	for _, rel := range docFiles(t) {
		b, err := os.ReadFile(filepath.Join(repoRoot, rel))
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(b), "\n") {
			for _, p := range stalePhrases {
				if p.re.MatchString(line) {
					t.Errorf("%s:%d: %q is stale: %s", rel, n+1, strings.TrimSpace(line), p.why)
					break
				}
			}
		}
	}
}

// TestArchitectureNamesEveryPackage: docs/architecture.md is the map of the code, so every
// package under internal/ (a folder with a non-test Go file) is named in its package list,
// by its last path element with a slash ("gatewaytest/"), on a line of the Packages section.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "## Packages")
	if start < 0 {
		t.Fatal(`docs/architecture.md has no "## Packages" section`)
	}
	section := text[start:]
	if end := strings.Index(section[len("## Packages"):], "\n## "); end >= 0 {
		section = section[:len("## Packages")+end]
	}
	named := map[string]bool{}
	for _, f := range strings.Fields(section) {
		if strings.HasSuffix(f, "/") {
			named[strings.TrimSuffix(f[strings.LastIndex(strings.TrimSuffix(f, "/"), "/")+1:], "/")] = true
		}
	}
	var packages int
	err = filepath.WalkDir(filepath.Join(repoRoot, "internal"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if d.Name() == "testdata" || d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		files, err := filepath.Glob(filepath.Join(path, "*.go"))
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(files, func(f string) bool { return !strings.HasSuffix(f, "_test.go") }) {
			return nil
		}
		packages++
		rel, _ := filepath.Rel(repoRoot, path)
		if !named[filepath.Base(path)] {
			t.Errorf("docs/architecture.md does not name package %s: add %q to its package list with what it provides", filepath.ToSlash(rel), filepath.Base(path)+"/")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if packages < 40 {
		t.Fatalf("found only %d packages under internal/: the walk is broken", packages)
	}
}
