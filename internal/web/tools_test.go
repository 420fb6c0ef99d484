package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSummarize(t *testing.T) {
	long := strings.Repeat("é", 200)
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"One line.", "One line."},
		{"\n\n  First line.  \nSecond line.", "First line."},
		{long, strings.Repeat("é", maxSummary-1) + "…"},
	} {
		if got := Summarize(c.in); got != c.want {
			t.Errorf("Summarize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// labels returns each group's label, anchor and tool names.
func labels(groups []ToolGroup) []string {
	var out []string
	for _, g := range groups {
		var names []string
		for _, t := range g.Tools {
			names = append(names, t.Name)
		}
		out = append(out, fmt.Sprintf("%s %s %s", g.Label, g.Anchor, strings.Join(names, ",")))
	}
	return out
}

func tools(names ...string) []ToolSummary {
	var ts []ToolSummary
	for _, n := range names {
		ts = append(ts, ToolSummary{Name: n})
	}
	return ts
}

func TestGroupTools(t *testing.T) {
	// A small server: one group, in the catalog's order.
	if diff := cmp.Diff([]string{" group-all b,a"}, labels(GroupTools(tools("b", "a")))); diff != "" {
		t.Errorf("small (-want +got):\n%s", diff)
	}
	if GroupTools(nil) != nil {
		t.Errorf("no tools: want no groups")
	}
	// By prefix, groups and tools sorted.
	var many []string
	for i := range 12 {
		many = append(many, fmt.Sprintf("repos_%02d", 11-i), fmt.Sprintf("issues.%02d", i))
	}
	got := labels(GroupTools(tools(many...)))
	if len(got) != 2 || !strings.HasPrefix(got[0], "issues group-issues issues.00,issues.01") || !strings.HasPrefix(got[1], "repos group-repos repos_00,repos_01") {
		t.Errorf("by prefix: %q", got)
	}
	// No shared prefixes: by first letter, non-letters under #.
	var odd []string
	for i := range 25 {
		odd = append(odd, fmt.Sprintf("%c%d", "ab1"[i%3], i))
	}
	got = labels(GroupTools(tools(odd...)))
	want := []string{"#", "A", "B"}
	if len(got) != 3 {
		t.Fatalf("by letter: %q", got)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w+" ") {
			t.Errorf("by letter: group %d = %q, want label %q", i, got[i], w)
		}
	}
	if !strings.HasPrefix(got[0], "# group-1 ") || !strings.HasPrefix(got[1], "A group-a ") {
		t.Errorf("anchors: %q", got)
	}
}

func TestGroupAnchorUnique(t *testing.T) {
	seen := map[string]bool{}
	a, b := groupAnchor("Repos", 0, seen), groupAnchor("repos", 1, seen)
	if a != "group-repos" || b != "group-2" {
		t.Errorf("anchors %q %q", a, b)
	}
	if c := groupAnchor(`"><script>`, 2, seen); c != "group-script" {
		t.Errorf("hostile label anchor %q", c)
	}
}
