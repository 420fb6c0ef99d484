package web

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tool lists longer than smallToolList get a table of contents and a group heading per
// group; shorter ones are one group in the catalog's order.
const smallToolList = 20

// maxPrefixGroups is the most groups a grouping by name prefix may have; with more, the
// tools are grouped by the first letter of their names.
const maxPrefixGroups = 60

// maxSummary is the longest summary (in runes) a tool gets on the list.
const maxSummary = 160

// Summarize returns the first non-blank line of a tool's description, trimmed and cut at
// maxSummary runes (with an ellipsis when cut).
func Summarize(desc string) string {
	for line := range strings.SplitSeq(desc, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) <= maxSummary {
			return line
		}
		r := []rune(line)
		return strings.TrimSpace(string(r[:maxSummary-1])) + "…"
	}
	return ""
}

// GroupTools sorts a server's tools into the groups of its page. A list of at most
// smallToolList tools is one group, unlabelled, in the given order. A longer one is grouped by
// name prefix (the part before the first '_', '.' or '-') when that gives between 2 and
// maxPrefixGroups groups and at least one group of several tools, else by first letter
// (non-letters under "#"); groups are sorted by label and tools by name within a group.
func GroupTools(tools []ToolSummary) []ToolGroup {
	if len(tools) == 0 {
		return nil
	}
	if len(tools) <= smallToolList {
		return []ToolGroup{{Anchor: "group-all", Tools: tools}}
	}
	groups := groupBy(tools, namePrefix)
	if len(groups) < 2 || len(groups) > maxPrefixGroups || len(groups) == len(tools) {
		groups = groupBy(tools, firstLetter)
	}
	seen := map[string]bool{}
	for i := range groups {
		groups[i].Anchor = groupAnchor(groups[i].Label, i, seen)
	}
	return groups
}

// groupBy groups tools by key, groups sorted by label and tools by name.
func groupBy(tools []ToolSummary, key func(string) string) []ToolGroup {
	index := map[string]int{}
	var groups []ToolGroup
	for _, t := range tools {
		k := key(t.Name)
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, ToolGroup{Label: k})
		}
		groups[i].Tools = append(groups[i].Tools, t)
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].Label < groups[j].Label })
	for _, g := range groups {
		sort.SliceStable(g.Tools, func(i, j int) bool { return g.Tools[i].Name < g.Tools[j].Name })
	}
	return groups
}

// namePrefix is the part of a tool name before its first '_', '.' or '-' (the whole name
// when it has none).
func namePrefix(name string) string {
	if i := strings.IndexAny(name, "_.-"); i > 0 {
		return name[:i]
	}
	return name
}

// firstLetter is the upper-cased first letter of a name, or "#" when it starts otherwise.
func firstLetter(name string) string {
	r, _ := utf8.DecodeRuneInString(name)
	if !unicode.IsLetter(r) {
		return "#"
	}
	return string(unicode.ToUpper(r))
}

// groupAnchor is the element id of group i: "group-" and its label in [a-z0-9_-], or its
// index when the label has no such characters or the id is taken.
func groupAnchor(label string, i int, seen map[string]bool) string {
	slug := strings.Map(func(r rune) rune {
		r = unicode.ToLower(r)
		if r < utf8.RuneSelf && (r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return -1
	}, label)
	id := "group-" + slug
	if slug == "" || seen[id] {
		id = fmt.Sprintf("group-%d", i+1)
	}
	seen[id] = true
	return id
}
