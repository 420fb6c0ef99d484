package app

import "fmt"

// diffPaths lists the paths at which two JSON-like values differ.
func diffPaths(path string, a, b any) []string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: go %s, oracle %s", path, jsonText(a), jsonText(b))}
		}
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		var out []string
		for _, k := range sortedKeys(keys) {
			va, oka := x[k]
			vb, okb := y[k]
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
