package openapi

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// maxNameLen is the longest tool or argument name produced (the limit most model APIs put on
// tool and property names).
const maxNameLen = 64

// sanitizeName keeps [A-Za-z0-9_.-], replaces runs of anything else with one '_', trims '_'
// from both ends and bounds the length.
func sanitizeName(s string) string {
	s = comparisonSuffixes.Get().Replace(s)
	var b strings.Builder
	b.Grow(len(s))
	lastUnderscore := false
	for _, r := range s {
		ok := r == '_' || r == '.' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			r = '_'
		}
		if r == '_' {
			if lastUnderscore {
				continue
			}
			lastUnderscore = true
		} else {
			lastUnderscore = false
		}
		b.WriteRune(r)
	}
	out := strings.Trim(b.String(), "_")
	if len(out) > maxNameLen {
		out = strings.TrimRight(out[:maxNameLen], "_")
	}
	return out
}

// comparisonSuffixes keeps filter parameters such as StartTime< and StartTime> apart. It is
// built on first use.
var comparisonSuffixes = lazy.Value[*strings.Replacer]{New: func() *strings.Replacer {
	return strings.NewReplacer("<=", "_lte", ">=", "_gte", "<", "_lt", ">", "_gt", "!=", "_ne")
}}

// headerArgName turns a header or cookie name into an argument name: X-Request-Id → x_request_id.
func headerArgName(s string) string {
	return sanitizeName(strings.ReplaceAll(strings.ToLower(s), "-", "_"))
}

// pathToolName builds a tool name from the method and path: GET /pets/{id} → get_pets_id.
func pathToolName(method, path string) string {
	return sanitizeName(strings.ToLower(method) + "_" + strings.NewReplacer("/", "_", "{", "", "}", "", "-", "_", ".", "_").Replace(path))
}

// uniqueNames hands out names that have not been used yet, adding _2, _3 … on a clash while
// staying within maxNameLen.
type uniqueNames map[string]bool

func (u uniqueNames) claim(name string) string {
	if name == "" {
		name = "unnamed"
	}
	if !u[name] {
		u[name] = true
		return name
	}
	for i := 2; ; i++ {
		suffix := "_" + strconv.Itoa(i)
		base := name
		if len(base)+len(suffix) > maxNameLen {
			base = base[:maxNameLen-len(suffix)]
		}
		if c := base + suffix; !u[c] {
			u[c] = true
			return c
		}
	}
}

// truncateText trims s and bounds it to max bytes at a rune boundary, marking the cut with "…".
func truncateText(s string, max int) string {
	s = strings.TrimSpace(s)
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + "…"
}
