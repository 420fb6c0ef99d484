package nunjucks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// Object is an object value that keeps its key order, as JavaScript objects
// do. Go maps have no order, so map[string]any values iterate here in sorted
// key order; pass an *Object in the render variables where iteration order
// matters (for k, v in obj, dump, list, urlencode). Dict literals and the
// groupby filter produce *Object values. An *Object must not be modified
// while a render uses it.
type Object struct {
	keys   []string
	values map[string]any
}

// NewObject returns an empty ordered object.
func NewObject() *Object { return &Object{values: map[string]any{}} }

// Set sets key to v, appending key if it is new.
func (o *Object) Set(key string, v any) {
	if _, ok := o.values[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.values[key] = v
}

// Get returns the value of key.
func (o *Object) Get(key string) (any, bool) {
	v, ok := o.values[key]
	return v, ok
}

// Len returns the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// Keys returns the keys in JavaScript property order: integer-like keys
// ascending, then the others in insertion order.
func (o *Object) Keys() []string {
	var ints, rest []string
	for _, k := range o.keys {
		if _, ok := arrayIndex(k); ok {
			ints = append(ints, k)
		} else {
			rest = append(rest, k)
		}
	}
	if len(ints) == 0 {
		return append([]string(nil), o.keys...)
	}
	sort.Slice(ints, func(i, j int) bool {
		a, _ := arrayIndex(ints[i])
		b, _ := arrayIndex(ints[j])
		return a < b
	})
	return append(ints, rest...)
}

// objKeys returns the ordered keys of an object value (map or *Object).
func objKeys(v any) ([]string, bool) {
	switch x := v.(type) {
	case map[string]any:
		return sortedKeys(x), true
	case *Object:
		return x.Keys(), true
	}
	return nil, false
}

// objGet reads a key of an object value.
func objGet(v any, k string) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		val, ok := x[k]
		return val, ok
	case *Object:
		return x.Get(k)
	}
	return nil, false
}

func isObject(v any) bool {
	switch v.(type) {
	case map[string]any, *Object:
		return true
	}
	return false
}

// MarshalJSON encodes the object with its keys in order.
func (o *Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.Keys() {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(o.values[k])
		if err != nil {
			return nil, fmt.Errorf("encoding key %q: %w", k, err)
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
