package app

import (
	"fmt"
	"math"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// kind is the JSON type of a node.
type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindMap
	kindList
)

func (k kind) String() string {
	switch k {
	case kindNull:
		return "null"
	case kindBool:
		return "boolean"
	case kindNumber:
		return "number"
	case kindString:
		return "string"
	case kindMap:
		return "object"
	case kindList:
		return "array"
	}
	return "unknown"
}

// position is a place in a source file (1-based line and column).
type position struct {
	file      string
	line, col int
}

func (p position) String() string {
	if p.file == "" {
		return ""
	}
	if p.line == 0 {
		return p.file
	}
	if p.col == 0 {
		return fmt.Sprintf("%s:%d", p.file, p.line)
	}
	return fmt.Sprintf("%s:%d:%d", p.file, p.line, p.col)
}

// node is a JSON-like value that remembers where it was written, so that errors found
// after `_ref` resolution still point at the file, line and column of the source.
type node struct {
	kind   kind
	b      bool
	num    float64
	str    string
	fields []field // kindMap, in source order
	items  []*node // kindList
	pos    position
	// sealed marks nodes that came out of a referenced file whose `_build.*` operators were
	// already evaluated; outer evaluations leave them alone, as Lowdefy's build does.
	sealed bool
}

// field is one key of a map node.
type field struct {
	key    string
	keyPos position
	val    *node
}

func newNull(p position) *node             { return &node{kind: kindNull, pos: p} }
func newString(s string, p position) *node { return &node{kind: kindString, str: s, pos: p} }
func newBool(b bool, p position) *node     { return &node{kind: kindBool, b: b, pos: p} }
func newNumber(f float64, p position) *node {
	return &node{kind: kindNumber, num: f, pos: p}
}
func newMap(p position) *node  { return &node{kind: kindMap, pos: p} }
func newList(p position) *node { return &node{kind: kindList, pos: p} }

// get returns the value of key in a map node, or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != kindMap {
		return nil
	}
	for i := range n.fields {
		if n.fields[i].key == key {
			return n.fields[i].val
		}
	}
	return nil
}

// has reports whether a map node has key.
func (n *node) has(key string) bool {
	if n == nil || n.kind != kindMap {
		return false
	}
	for i := range n.fields {
		if n.fields[i].key == key {
			return true
		}
	}
	return false
}

// set sets key in a map node, keeping the position of an existing key.
func (n *node) set(key string, v *node) {
	for i := range n.fields {
		if n.fields[i].key == key {
			n.fields[i].val = v
			return
		}
	}
	n.fields = append(n.fields, field{key: key, keyPos: v.pos, val: v})
}

// isNone reports whether n is absent or null (Lowdefy's type.isNone).
func (n *node) isNone() bool { return n == nil || n.kind == kindNull }

// truthy reports JavaScript truthiness (jsvalue.Truthy of the node's value).
func (n *node) truthy() bool {
	if n == nil {
		return false
	}
	switch n.kind {
	case kindMap, kindList:
		return true
	}
	return jsvalue.Truthy(n.toPlain(nil))
}

// clone returns a deep copy of n (sealed flags are not copied).
func (n *node) clone() *node {
	if n == nil {
		return nil
	}
	c := *n
	c.sealed = false
	if n.fields != nil {
		c.fields = make([]field, len(n.fields))
		for i, f := range n.fields {
			c.fields[i] = field{key: f.key, keyPos: f.keyPos, val: f.val.clone()}
		}
	}
	if n.items != nil {
		c.items = make([]*node, len(n.items))
		for i, it := range n.items {
			c.items[i] = it.clone()
		}
	}
	return &c
}

// seal marks n and everything under it as already evaluated.
func (n *node) seal() {
	if n == nil {
		return
	}
	n.sealed = true
	for _, f := range n.fields {
		f.val.seal()
	}
	for _, it := range n.items {
		it.seal()
	}
}

// posIndex maps the objects produced by toPlain back to their source positions, so build
// steps that work on plain data can still report file:line:col.
type posIndex map[*jsvalue.Object]position

func (ix posIndex) of(m *jsvalue.Object) position {
	if ix == nil || m == nil {
		return position{}
	}
	return ix[m]
}

// toPlain converts n to JSON-like Go data (maps become *jsvalue.Object in source key
// order), recording object positions in ix (may be nil).
func (n *node) toPlain(ix posIndex) any {
	if n == nil {
		return nil
	}
	switch n.kind {
	case kindBool:
		return n.b
	case kindNumber:
		if math.IsNaN(n.num) || math.IsInf(n.num, 0) {
			return nil // JSON has no NaN or Infinity; Lowdefy's JSON round trips make them null
		}
		return n.num
	case kindString:
		return n.str
	case kindMap:
		m := jsvalue.NewObject(len(n.fields))
		for _, f := range n.fields {
			m.Set(f.key, f.val.toPlain(ix))
		}
		if ix != nil {
			ix[m] = n.pos
		}
		return m
	case kindList:
		l := make([]any, len(n.items))
		for i, it := range n.items {
			l[i] = it.toPlain(ix)
		}
		return l
	}
	return nil
}

// fromPlain converts JSON-like Go data to a node placed at p, keeping the key order of
// objects (Go maps get their keys sorted as jsvalue.FromGo orders them). Unknown Go types
// become their fmt string, so that nothing a plug-in returns can make the loader panic.
func fromPlain(v any, p position) *node {
	switch x := v.(type) {
	case nil:
		return newNull(p)
	case bool:
		return newBool(x, p)
	case float64:
		return newNumber(x, p)
	case float32:
		return newNumber(float64(x), p)
	case int:
		return newNumber(float64(x), p)
	case int64:
		return newNumber(float64(x), p)
	case string:
		return newString(x, p)
	case time.Time:
		// JSON.stringify writes dates as ISO strings.
		return newString(jsvalue.ISOString(x), p)
	case *jsvalue.Object:
		m := newMap(p)
		for k, val := range x.Range {
			m.fields = append(m.fields, field{key: k, keyPos: p, val: fromPlain(val, p)})
		}
		return m
	case map[string]any:
		return fromPlain(jsvalue.FromGo(x), p)
	case []any:
		l := newList(p)
		for _, it := range x {
			l.items = append(l.items, fromPlain(it, p))
		}
		return l
	}
	if jsvalue.IsUndefined(v) {
		return newNull(p)
	}
	return newString(fmt.Sprint(v), p)
}
