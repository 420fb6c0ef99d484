package lowdefytest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every journey script is well formed, and every page and block it names exists in its app
// (block ids inside lists are matched with their index as `$`).
func TestJourneyScripts(t *testing.T) {
	apps := AppsDir(t)
	names := append(append([]string{}, TutorialSteps...), "crud")
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(apps, "tutorial", name)
			if name == "crud" {
				dir = filepath.Join(apps, "crud")
			}
			ids := appIDs(t, dir)
			var steps []map[string]json.RawMessage
			if err := json.Unmarshal(mustRead(t, Journey(t, name)), &steps); err != nil {
				t.Fatal(err)
			}
			if len(steps) == 0 {
				t.Fatal("empty journey")
			}
			index := regexp.MustCompile(`\.\d+\.`)
			for i, s := range steps {
				var kinds []string
				for _, k := range []string{"navigate", "setValue", "trigger", "callMethod", "setState"} {
					if _, ok := s[k]; ok {
						kinds = append(kinds, k)
					}
				}
				if len(kinds) != 1 {
					t.Errorf("step %d: want exactly one of navigate/setValue/trigger/callMethod/setState, got %v", i+1, kinds)
					continue
				}
				allowed := map[string][]string{
					"navigate": {"input", "urlQuery"}, "setValue": {"value"}, "trigger": {"event", "args"},
					"callMethod": {"method", "args"}, "setState": nil,
				}[kinds[0]]
				for k := range s {
					if k != kinds[0] && !contains2(allowed, k) {
						t.Errorf("step %d: unknown key %q", i+1, k)
					}
				}
				var target string
				if kinds[0] != "setState" {
					if err := json.Unmarshal(s[kinds[0]], &target); err != nil {
						t.Errorf("step %d: %s must be a string", i+1, kinds[0])
						continue
					}
				}
				pattern := index.ReplaceAllString(target, ".$$.")
				if kinds[0] != "setState" && !ids[pattern] && !(kinds[0] == "navigate" && (target == "404" || strings.HasPrefix(target, "no-such"))) && !strings.HasPrefix(target, "missing") {
					t.Errorf("step %d: %s %q is not an id in the app", i+1, kinds[0], target)
				}
			}
		})
	}
}

var idLine = regexp.MustCompile(`(?m)^\s*-?\s*id:\s*([^\s#]+)`)

func appIDs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			for _, m := range idLine.FindAllStringSubmatch(string(mustRead(t, p)), -1) {
				ids[strings.Trim(m[1], `"'`)] = true
			}
		}
		return nil
	})
	return ids
}

func contains2(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}
