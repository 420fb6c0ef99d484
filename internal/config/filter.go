package config

import "strings"

// Glob reports whether s matches pattern, where * stands for any run of characters
// (including none, and including '/') and every other character stands for itself,
// compared without regard to case. "get_*" matches "get_user"; "GET /repos/*" matches
// "get /repos/a/b".
func Glob(pattern, s string) bool {
	p, t := strings.ToLower(pattern), strings.ToLower(s)
	// Iterative matching with backtracking to the last star: linear in practice.
	pi, ti, star, mark := 0, 0, -1, 0
	for ti < len(t) {
		switch {
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ti
			pi++
		case pi < len(p) && p[pi] == t[ti]:
			pi++
			ti++
		case star >= 0:
			pi = star + 1
			mark++
			ti = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// ToolFilter keeps or drops tools by name: a tool is served when it matches an include
// pattern (or there are none) and no exclude pattern.
type ToolFilter struct {
	Include []string
	Exclude []string
}

// Keep reports whether a tool with any of the given names (its name, and for some kinds
// another spelling such as "GET /path") passes the filter.
func (f ToolFilter) Keep(names ...string) bool {
	match := func(patterns []string) bool {
		for _, p := range patterns {
			for _, n := range names {
				if Glob(p, n) {
					return true
				}
			}
		}
		return false
	}
	if len(f.Include) > 0 && !match(f.Include) {
		return false
	}
	return !match(f.Exclude)
}
