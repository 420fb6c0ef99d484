package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// diffPaths lists the paths at which two JSON-like values differ, key order of objects
// included.
func diffPaths(path string, a, b any) []string {
	switch x := a.(type) {
	case *jsvalue.Object:
		y, ok := b.(*jsvalue.Object)
		if !ok {
			return []string{fmt.Sprintf("%s: go %s, oracle %s", path, jsonText(a), jsonText(b))}
		}
		keys := x.Keys()
		for _, k := range y.Keys() {
			if !x.Has(k) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		var out []string
		for _, k := range keys {
			va, oka := x.Get(k)
			vb, okb := y.Get(k)
			p := joinPath(path, k)
			switch {
			case !oka:
				out = append(out, fmt.Sprintf("%s: missing in go (oracle %s)", p, jsonText(vb)))
			case !okb:
				out = append(out, fmt.Sprintf("%s: extra in go (%s)", p, jsonText(va)))
			default:
				out = append(out, diffPaths(p, va, vb)...)
			}
		}
		if len(out) == 0 && !slices.Equal(x.Keys(), y.Keys()) {
			out = append(out, fmt.Sprintf("%s: key order go [%s], oracle [%s]", path, strings.Join(x.Keys(), " "), strings.Join(y.Keys(), " ")))
		}
		return out
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return []string{fmt.Sprintf("%s: go %s, oracle %s", path, jsonText(a), jsonText(b))}
		}
		var out []string
		for i := range x {
			out = append(out, diffPaths(indexPath(path, i), x[i], y[i])...)
		}
		return out
	}
	if a != b {
		return []string{fmt.Sprintf("%s: go %s, oracle %s", path, jsonText(a), jsonText(b))}
	}
	return nil
}
