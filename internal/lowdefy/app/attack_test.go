package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Hostile lowdefy.yaml files fail with a located problem saying what to fix, within bounded
// time and memory: a file over the size bound is refused before it is parsed, and a large
// document without aliases is not blamed on an alias bomb.
func TestAttackHugeAppFiles(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"over the size bound", "lowdefy: 4.0.0\npages: []\nx: \"" + strings.Repeat("y", maxFileBytes) + "\"\n",
			"lowdefy.yaml is larger than 16 MB, the most one file of an app may hold: split it into smaller files joined with _ref"},
		{"many values", "lowdefy: 4.0.0\npages: []\nx:\n" + strings.Repeat("  - 1\n", maxYAMLNodes),
			"document holds more than 500000 values: split it into smaller files joined with _ref"},
		{"alias bomb", "lowdefy: 4.0.0\npages: []\na: &a [1,1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n",
			"aliases expand to more than 100000 values (alias loop or bomb?)"},
		{"deep nesting", "lowdefy: 4.0.0\npages: []\nx: " + strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000) + "\n",
			"lowdefy.yaml:3:10003: document nests too deeply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "lowdefy.yaml"), []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(dir, Options{Env: map[string]string{}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load: %v\nwant %s", err, tc.want)
			}
		})
	}
}
