package app

import (
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// lookupPath resolves a Lowdefy dotted path (`a.b.0.c`) in a node the way
// @lowdefy/helpers get does: a key equal to the whole path wins, `\.` escapes a dot, and
// when a segment is missing, following segments are joined with dots and tried as one key.
// It returns nil when the path is not found.
func lookupPath(n *node, path string) *node {
	if n == nil || (n.kind != kindMap && n.kind != kindList) {
		return nil
	}
	if v, ok := child(n, path); ok {
		return v
	}
	segs := strings.Split(path, ".")
	target := n
	for idx := 0; idx < len(segs); idx++ {
		if target == nil || (target.kind != kindMap && target.kind != kindList) {
			return nil
		}
		prop := segs[idx]
		for strings.HasSuffix(prop, `\`) && idx+1 < len(segs) {
			idx++
			prop = prop[:len(prop)-1] + "." + segs[idx]
		}
		if v, ok := child(target, prop); ok {
			target = v
			continue
		}
		found := false
		for j := idx + 1; j < len(segs); j++ {
			prop += "." + segs[j]
			if v, ok := child(target, prop); ok {
				target = v
				idx = j
				found = true
				break
			}
		}
		if !found {
			return nil
		}
	}
	return target
}

// child returns the value at key (maps) or index (lists).
func child(n *node, key string) (*node, bool) {
	switch n.kind {
	case kindMap:
		for i := range n.fields {
			if n.fields[i].key == key {
				return n.fields[i].val, true
			}
		}
	case kindList:
		i, ok := jsvalue.ArrayIndex(key)
		if ok && int(i) < len(n.items) {
			return n.items[i], true
		}
	}
	return nil, false
}
