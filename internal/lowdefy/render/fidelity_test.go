package render_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/lowdefy/blocks"
)

// docs/lowdefy.md's block fidelity table has one row per built-in block type, with the
// type's package and category from the block table, "not supported" exactly for the types
// the block table names as unsupported, and the counts it states are the table's.
func TestBlockFidelityTable(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "lowdefy.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `(\\w+)` \\| `([\\w-]+)` \\| (\\w+) \\| (supported|not supported) \\| (.+) \\|$")
	seen := map[string]bool{}
	supported, unsupported := 0, 0
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		typ, pkg, cat, status := m[1], m[2], m[3], m[4]
		meta, ok := blocks.Lookup(typ)
		if !ok {
			t.Errorf("row %s is not a built-in block type", typ)
			continue
		}
		if seen[typ] {
			t.Errorf("two rows for %s", typ)
		}
		seen[typ] = true
		if "@lowdefy/"+pkg != meta.Package || cat != string(meta.Category) {
			t.Errorf("%s: row says %s %s, the block table %s %s", typ, pkg, cat, meta.Package, meta.Category)
		}
		if (status == "not supported") != (meta.Unsupported != "") {
			t.Errorf("%s: row says %s, the block table says unsupported=%q", typ, status, meta.Unsupported)
		}
		if status == "supported" {
			supported++
		} else {
			unsupported++
		}
	}
	for _, typ := range blocks.Types() {
		if !seen[typ] {
			t.Errorf("no row for %s", typ)
		}
	}
	counts := fmt.Sprintf("Built-in block types: %d — %d rendered with their visible content, %d named as not\nsupported", len(blocks.Types()), supported, unsupported)
	if !strings.Contains(string(doc), counts) {
		t.Errorf("docs/lowdefy.md does not state the table's counts %q", counts)
	}
}
