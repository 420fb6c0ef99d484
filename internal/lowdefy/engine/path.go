package engine

import (
	"strconv"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// applyArrayIndices replaces each "$" in name by the next list index, outer
// list first (@lowdefy/helpers applyArrayIndices).
func applyArrayIndices(indices []int, name string) string {
	for _, i := range indices {
		if !strings.Contains(name, "$") {
			return name
		}
		name = strings.Replace(name, "$", strconv.Itoa(i), 1)
	}
	return name
}

// splitPath splits a dotted path, joining segments whose last character is a
// backslash with the next one (set-value's split).
func splitPath(path string) []string {
	keys := strings.Split(path, ".")
	if !strings.Contains(path, `\`) {
		return keys
	}
	res := make([]string, 0, len(keys))
	for i := 0; i < len(keys); i++ {
		prop := keys[i]
		for prop != "" && strings.HasSuffix(prop, `\`) && i+1 < len(keys) && keys[i+1] != "" {
			i++
			prop = prop[:len(prop)-1] + "." + keys[i]
		}
		res = append(res, prop)
	}
	return res
}

func validKey(k string) bool { return k != "__proto__" && k != "constructor" && k != "prototype" }

// prop reads key from an object or array the way JavaScript's target[key] does.
func prop(target any, key string) (any, bool) {
	switch t := target.(type) {
	case *jsvalue.Object:
		return t.Get(key)
	case []any:
		if key == "length" {
			return float64(len(t)), true
		}
		if i, ok := jsvalue.ArrayIndex(key); ok && int(i) < len(t) {
			return t[i], true
		}
	}
	return nil, false
}

// getPath reads path from target like @lowdefy/helpers get (get-value): a
// key with dots that exists as such wins, otherwise segments are walked,
// joining segments when a dotted key exists. A missing value is Undefined.
func getPath(target any, path string) any {
	if _, ok := target.(*jsvalue.Object); !ok {
		if _, ok := target.([]any); !ok {
			return jsvalue.Undefined
		}
	}
	if v, ok := prop(target, path); ok {
		return v
	}
	segs := strings.Split(path, ".")
	idx := 0
	for {
		p := segs[idx]
		for strings.HasSuffix(p, `\`) && idx+1 < len(segs) {
			idx++
			p = p[:len(p)-1] + "." + segs[idx]
		}
		if v, ok := prop(target, p); ok {
			target = v
			idx++
		} else {
			found := false
			n := idx + 1
			for n < len(segs) {
				p = p + "." + segs[n]
				n++
				if v, ok := prop(target, p); ok {
					target, idx, found = v, n, true
					break
				}
			}
			if !found {
				return jsvalue.Undefined
			}
		}
		if idx >= len(segs) {
			return target
		}
		switch target.(type) {
		case *jsvalue.Object, []any:
		default:
			return jsvalue.Undefined
		}
	}
}

func isContainer(v any) bool {
	switch v.(type) {
	case *jsvalue.Object, []any, jsvalue.Func:
		return true
	}
	return false
}

func isIntString(s string) bool {
	// parseInt(propUp, 10) is an integer: leading whitespace, sign, digits.
	s = strings.TrimLeft(s, " \t\n\r")
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return s != "" && s[0] >= '0' && s[0] <= '9'
}

// setPath sets path in obj like @lowdefy/helpers set: missing or non-object
// intermediate values are replaced by an object, or by an array when the next
// key is an integer. Arrays grow as JavaScript arrays do (holes are undefined).
func setPath(obj *jsvalue.Object, path string, value any) {
	keys := splitPath(path)
	if len(keys) == 1 {
		if validKey(keys[0]) {
			obj.Set(keys[0], value)
		}
		return
	}
	valid := keys[:0:0]
	for _, k := range keys {
		if validKey(k) {
			valid = append(valid, k)
		}
	}
	if len(valid) == 0 {
		return
	}
	setIn(obj, valid, value)
}

// setIn sets keys in container and returns the (possibly grown) container.
func setIn(container any, keys []string, value any) any {
	k := keys[0]
	if len(keys) == 1 {
		return assign(container, k, value)
	}
	child, _ := prop(container, k)
	if !isContainer(child) {
		if isIntString(keys[1]) {
			child = []any{}
		} else {
			child = jsvalue.NewObject(0)
		}
	}
	child = setIn(child, keys[1:], value)
	return assign(container, k, child)
}

func assign(container any, k string, value any) any {
	switch c := container.(type) {
	case *jsvalue.Object:
		c.Set(k, value)
		return c
	case []any:
		i, ok := jsvalue.ArrayIndex(k)
		if !ok {
			return c // a named property on an array has no place in the model
		}
		for int(i) >= len(c) {
			c = append(c, jsvalue.Undefined)
		}
		c[i] = value
		return c
	}
	return container
}

// unsetPath deletes path from obj like @lowdefy/helpers unset.
func unsetPath(obj *jsvalue.Object, path string) {
	if obj.Has(path) {
		obj.Delete(path)
		return
	}
	if jsvalue.IsUndefined(getPath(obj, path)) {
		return
	}
	segs := strings.Split(path, ".")
	last := segs[len(segs)-1]
	segs = segs[:len(segs)-1]
	for len(segs) > 0 && strings.HasSuffix(segs[len(segs)-1], `\`) {
		s := segs[len(segs)-1]
		last = s[:len(s)-1] + "." + last
		segs = segs[:len(segs)-1]
	}
	var target any = obj
	for _, s := range segs {
		target, _ = prop(target, s)
	}
	switch t := target.(type) {
	case *jsvalue.Object:
		t.Delete(last)
	case []any:
		// delete arr[i] leaves a hole.
		if i, ok := jsvalue.ArrayIndex(last); ok && int(i) < len(t) {
			t[i] = jsvalue.Undefined
		}
	}
}

// deepCopy copies objects and arrays recursively (serializer.copy without
// the JSON round trip: dates and errors are kept, undefined object values
// dropped, functions kept).
func deepCopy(v any) any {
	switch x := v.(type) {
	case *jsvalue.Object:
		o := jsvalue.NewObject(x.Len())
		for k, val := range x.Range {
			if jsvalue.IsUndefined(val) {
				continue
			}
			o.Set(k, deepCopy(val))
		}
		return o
	case []any:
		a := make([]any, len(x))
		for i, val := range x {
			if jsvalue.IsUndefined(val) {
				a[i] = nil
				continue
			}
			a[i] = deepCopy(val)
		}
		return a
	}
	return v
}

func copyObject(o *jsvalue.Object) *jsvalue.Object {
	if o == nil {
		return jsvalue.NewObject(0)
	}
	return deepCopy(o).(*jsvalue.Object)
}
