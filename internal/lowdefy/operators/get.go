package operators

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// applyArrayIndices replaces each "$" in name, in order, with the next list
// index (helpers applyArrayIndices).
func applyArrayIndices(indices []int, name string) string {
	for _, idx := range indices {
		i := strings.IndexByte(name, '$')
		if i < 0 {
			continue
		}
		name = name[:i] + strconv.Itoa(idx) + name[i+1:]
	}
	return name
}

// isContainer is get-value's isValidObject.
func isContainer(v any) bool {
	switch v.(type) {
	case *jsvalue.Object, []any:
		return true
	}
	return false
}

// hasProp is JavaScript's `prop in target` for containers.
func hasProp(target any, prop string) (any, bool) {
	switch t := target.(type) {
	case *jsvalue.Object:
		return t.Get(prop)
	case []any:
		if prop == "length" {
			return float64(len(t)), true
		}
		if n, ok := jsvalue.ArrayIndex(prop); ok && int(n) < len(t) {
			if jsvalue.IsUndefined(t[n]) {
				return nil, false
			}
			return t[n], true
		}
	}
	return nil, false
}

// getPath is @lowdefy/helpers get (derived from get-value): dotted paths,
// keys that themselves contain dots, and backslash-escaped dots.
func getPath(target any, path string) (any, bool) {
	if !isContainer(target) {
		return nil, false
	}
	if v, ok := hasProp(target, path); ok {
		return v, true
	}
	if !strings.Contains(path, `\`) {
		// Fast path without allocation: walk the segments; fall back to the
		// general algorithm (keys containing dots) when a segment is missing.
		cur := target
		rest := path
		for {
			seg, tail, more := strings.Cut(rest, ".")
			v, ok := hasProp(cur, seg)
			if !ok {
				break
			}
			if !more {
				return v, true
			}
			if !isContainer(v) {
				return nil, false
			}
			cur, rest = v, tail
		}
	}
	segs := strings.Split(path, ".")
	n := len(segs)
	idx := 0
	for {
		prop := segs[idx]
		for strings.HasSuffix(prop, `\`) {
			idx++
			next := ""
			if idx < n {
				next = segs[idx]
			}
			prop = prop[:len(prop)-1] + "." + next
		}
		if v, ok := hasProp(target, prop); ok {
			target = v
		} else {
			found := false
			for m := idx + 1; m < n; m++ {
				prop = prop + "." + segs[m]
				if v, ok := hasProp(target, prop); ok {
					target = v
					idx = m
					found = true
					break
				}
			}
			if !found {
				return nil, false
			}
		}
		idx++
		if idx >= n || !isContainer(target) {
			break
		}
	}
	if idx == n {
		return target, true
	}
	return nil, false
}

// copyValue is serializer.copy: a deep copy through JSON, so NaN and
// ±Infinity become null, undefined and functions are dropped from objects
// (null in arrays), and {"~d"}/{"~e"} markers are revived. Copying a
// function at the top level fails as in JavaScript.
func copyValue(v any) (any, error) {
	switch x := v.(type) {
	case jsvalue.Func:
		return nil, fmt.Errorf("Unexpected token u in JSON at position 0")
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, nil
		}
	}
	if jsvalue.IsUndefined(v) {
		return v, nil
	}
	out, _ := deepCopy(v)
	return out, nil
}

func deepCopy(v any) (any, bool) {
	switch x := v.(type) {
	case nil, bool, string, time.Time:
		return v, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, true
		}
		return v, true
	case int:
		return float64(x), true
	case *jsvalue.Error:
		e := *x
		return &e, true
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			c, ok := deepCopy(item)
			if ok {
				out[i] = c
			}
		}
		return out, true
	case *jsvalue.Object:
		out := jsvalue.NewObject(x.Len())
		for k, item := range x.Range {
			if c, ok := deepCopy(item); ok {
				out.Set(k, c)
			}
		}
		return serial.ReviveMarker(out), true
	}
	return nil, false
}

// getFromObject is @lowdefy/operators getFromObject, the shared logic of the
// getter operators.
func getFromObject(c *call, object any, operator string) (any, error) {
	params := c.params
	// Fast paths for the common string and integer keys.
	if s, ok := params.(string); ok {
		v, found := getPath(object, applyArrayIndices(c.arrayIndicesOrNil(), s))
		if !found {
			return nil, nil
		}
		return copyValue(v)
	}
	if params == true {
		params = jsvalue.ObjectOf("all", true)
	}
	if isInt(params) {
		params = jsvalue.ObjectOf("key", params)
	}
	pm, ok := params.(*jsvalue.Object)
	if !ok {
		return nil, c.errorf("%s params must be of type string, integer, boolean or object.", operator)
	}
	def := any(nil)
	if d, ok := pm.Get("default"); ok {
		def = d
	}
	key, hasKey := pm.Get("key")
	if hasKey && key == nil {
		return copyValue(def)
	}
	if pm.Prop("all") == true {
		return copyValue(object)
	}
	var path string
	switch k := key.(type) {
	case string:
		path = applyArrayIndices(c.arrayIndicesOrNil(), k)
	case float64:
		if !isInt(k) {
			return nil, c.errorf("%s.key must be of type string or integer.", operator)
		}
		path = jsvalue.NumberToString(k)
	default:
		return nil, c.errorf("%s.key must be of type string or integer.", operator)
	}
	v, found := getPath(object, path)
	if !found {
		v = def
	}
	return copyValue(v)
}

// getFromArray is @lowdefy/operators getFromArray (used by _menu).
func getFromArray(c *call, array []any, key, operator string) (any, error) {
	find := func(value string) any {
		for _, item := range array {
			if m, ok := item.(*jsvalue.Object); ok && jsvalue.StrictEqual(m.Prop(key), value) {
				return item
			}
		}
		return jsvalue.Undefined
	}
	index := func(f float64) any {
		if isInt(f) && f >= 0 && int(f) < len(array) {
			return array[int(f)]
		}
		return jsvalue.Undefined
	}
	switch p := c.params.(type) {
	case bool:
		if p {
			return array, nil
		}
	case string:
		return find(p), nil
	case float64:
		if isNumber(p) {
			return index(p), nil
		}
	case *jsvalue.Object:
		if p.Prop("all") == true {
			return array, nil
		}
		if s, ok := p.Prop("value").(string); ok {
			return find(s), nil
		}
		if idx, ok := p.Prop("index").(float64); ok && isNumber(idx) {
			return index(idx), nil
		}
		if !jsvalue.IsNullish(p.Prop("value")) {
			return nil, c.errorf("%s.value must be of type string.", operator)
		}
		if !jsvalue.IsNullish(p.Prop("index")) {
			return nil, c.errorf("%s.index must be of type number.", operator)
		}
	}
	return nil, c.errorf("%s must be of type string, number or object.", operator)
}
