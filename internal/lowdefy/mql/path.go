package mql

import (
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// graphMissingT is mingo's MISSING symbol in resolveGraph results (distinct
// from undefined, which arrays may legitimately hold).
type graphMissingT struct{}

var graphMissing = graphMissingT{}

// getValue reads key from an object or array (mingo's getValue).
func getValue(obj any, key string) any {
	switch x := obj.(type) {
	case *jsvalue.Object:
		if v, ok := x.Get(key); ok {
			return v
		}
	case []any:
		if isDigits(key) {
			i := 0
			for _, c := range key {
				i = i*10 + int(c-'0')
				if i > len(x) {
					break
				}
			}
			if i < len(x) {
				return x[i]
			}
		}
	}
	return missing
}

// resolve is mingo's resolve: a dotted path that descends into arrays.
func resolve(obj any, selector string, unwrapArray bool) any {
	switch obj.(type) {
	case *jsvalue.Object, []any:
	default:
		return obj
	}
	depth := 0
	var rec func(o any, path []string) any
	rec = func(o any, path []string) any {
		value := o
		for i, field := range path {
			if arr, ok := value.([]any); ok && !isDigits(field) {
				if i == 0 && depth > 0 {
					break
				}
				depth++
				acc := []any{}
				for _, item := range arr {
					if v := rec(item, path[i:]); !isMissing(v) {
						acc = append(acc, v)
					}
				}
				value = acc
				break
			}
			value = getValue(value, field)
			if isMissing(value) {
				break
			}
		}
		return value
	}
	result := rec(obj, strings.Split(selector, "."))
	if arr, ok := result.([]any); ok && unwrapArray && depth >= 1 {
		var v any = arr
		for d := depth; d > 0; d-- {
			a, ok := v.([]any)
			if !ok || len(a) != 1 {
				break
			}
			v = a[0]
		}
		return v
	}
	return result
}

// resolveGraph is mingo's resolveGraph with preserveMissing: the sub-document
// holding the value at selector.
func resolveGraph(obj any, selector string) any {
	names := strings.SplitN(selector, ".", 2)
	key := names[0]
	hasNext := len(names) > 1
	if arr, ok := obj.([]any); ok {
		if isDigits(key) {
			r := getValue(arr, key)
			if hasNext {
				r = resolveGraph(r, names[1])
			}
			return []any{r}
		}
		out := []any{}
		for _, item := range arr {
			v := resolveGraph(item, selector)
			if isMissing(v) {
				v = graphMissing
			}
			out = append(out, v) // removed by filterMissing
		}
		return out
	}
	value := getValue(obj, key)
	if hasNext {
		value = resolveGraph(value, names[1])
	}
	if isMissing(value) {
		return missing
	}
	return jsvalue.ObjectOf(key, value)
}

// filterMissing removes missing entries from arrays, recursively.
func filterMissing(v any) any {
	switch x := v.(type) {
	case []any:
		out := x[:0:0]
		for _, e := range x {
			if _, gm := e.(graphMissingT); !gm {
				out = append(out, filterMissing(e))
			}
		}
		return out
	case *jsvalue.Object:
		for k, e := range x.Range {
			x.Set(k, filterMissing(e))
		}
	}
	return v
}

// mergeInto merges src into dst (mingo's merge with flatten).
func mergeInto(dst, src any) any {
	if isMissing(dst) {
		return src
	}
	if isMissing(src) {
		return dst
	}
	switch d := dst.(type) {
	case []any:
		s, ok := src.([]any)
		if !ok {
			return dst
		}
		i := 0
		for ; i < len(d) && i < len(s); i++ {
			d[i] = mergeInto(d[i], s[i])
		}
		for ; i < len(s); i++ {
			d = append(d, s[i])
		}
		return d
	case *jsvalue.Object:
		s, ok := src.(*jsvalue.Object)
		if !ok {
			return dst
		}
		for k, v := range s.Range {
			if old, ok := d.Get(k); ok {
				d.Set(k, mergeInto(old, v))
			} else {
				d.Set(k, v)
			}
		}
		return d
	}
	return dst
}

// setValue sets a dotted path, building objects on the way (mingo setValue).
func setValue(obj *jsvalue.Object, selector string, value any) {
	var cur any = obj
	parts := strings.Split(selector, ".")
	for i, p := range parts {
		last := i == len(parts)-1
		switch c := cur.(type) {
		case *jsvalue.Object:
			if last {
				c.Set(p, value)
				return
			}
			next, ok := c.Get(p)
			if !ok || next == nil {
				next = &jsvalue.Object{}
				c.Set(p, next)
			}
			cur = next
		case []any:
			if !isDigits(p) {
				return
			}
			idx := 0
			for _, ch := range p {
				idx = idx*10 + int(ch-'0')
			}
			if idx >= len(c) {
				return
			}
			if last {
				c[idx] = value
				return
			}
			cur = c[idx]
		default:
			return
		}
	}
}

// removeValue deletes a dotted path; with descend, a non-index key on an
// array removes the key from each object element.
func removeValue(obj any, selector string, descend bool) {
	parts := strings.SplitN(selector, ".", 2)
	key := parts[0]
	if len(parts) == 1 {
		switch c := obj.(type) {
		case *jsvalue.Object:
			c.Delete(key)
		case []any:
			if !isDigits(key) && descend {
				for _, e := range c {
					if m, ok := e.(*jsvalue.Object); ok {
						m.Delete(key)
					}
				}
			}
		}
		return
	}
	var item any
	switch c := obj.(type) {
	case *jsvalue.Object:
		item = c.Prop(key)
	case []any:
		item = getValue(c, key)
	default:
		return
	}
	if !jsvalue.Truthy(item) {
		return
	}
	if arr, ok := item.([]any); ok && descend && !isDigits(strings.SplitN(parts[1], ".", 2)[0]) {
		for _, e := range arr {
			removeValue(e, parts[1], descend)
		}
		return
	}
	removeValue(item, parts[1], descend)
}
