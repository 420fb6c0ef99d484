package openapi

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Object is a JSON object that keeps its keys in insertion order, so that generated schemas
// and configs come out in a stable, readable order. The values held are *Object, []any,
// string, Number, bool and nil (JSON null).
type Object struct {
	pairs []pair
	index map[string]int // built once the object grows past indexThreshold keys
}

type pair struct {
	key string
	val any
}

const indexThreshold = 12

// Number is a JSON number kept as its literal text, so that integers of any size and
// decimals survive the import unchanged.
type Number string

// NewObject returns an empty Object.
func NewObject() *Object { return &Object{} }

// Len returns the number of keys.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.pairs)
}

// Keys returns the keys in order.
func (o *Object) Keys() []string {
	if o == nil {
		return nil
	}
	keys := make([]string, len(o.pairs))
	for i, p := range o.pairs {
		keys[i] = p.key
	}
	return keys
}

func (o *Object) find(key string) int {
	if o == nil {
		return -1
	}
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range o.pairs {
		if o.pairs[i].key == key {
			return i
		}
	}
	return -1
}

// Get returns the value stored under key.
func (o *Object) Get(key string) (any, bool) {
	i := o.find(key)
	if i < 0 {
		return nil, false
	}
	return o.pairs[i].val, true
}

// Get2 returns the value under key or nil (a single-result Get for switch statements).
func (o *Object) Get2(key string) any {
	v, _ := o.Get(key)
	return v
}

// Has reports whether key is present.
func (o *Object) Has(key string) bool { return o.find(key) >= 0 }

// Set stores val under key, keeping the key's position if it already exists and appending it
// otherwise.
func (o *Object) Set(key string, val any) {
	if i := o.find(key); i >= 0 {
		o.pairs[i].val = val
		return
	}
	o.pairs = append(o.pairs, pair{key, val})
	if o.index != nil {
		o.index[key] = len(o.pairs) - 1
	} else if len(o.pairs) > indexThreshold {
		o.index = make(map[string]int, len(o.pairs)*2)
		for i, p := range o.pairs {
			o.index[p.key] = i
		}
	}
}

// Delete removes key if present.
func (o *Object) Delete(key string) {
	i := o.find(key)
	if i < 0 {
		return
	}
	o.pairs = append(o.pairs[:i], o.pairs[i+1:]...)
	if o.index != nil {
		delete(o.index, key)
		for j := i; j < len(o.pairs); j++ {
			o.index[o.pairs[j].key] = j
		}
	}
}

// All iterates over the key/value pairs in order.
func (o *Object) All(yield func(string, any) bool) {
	if o == nil {
		return
	}
	for _, p := range o.pairs {
		if !yield(p.key, p.val) {
			return
		}
	}
}

// str returns the string stored under key, or "".
func (o *Object) str(key string) string {
	v, _ := o.Get(key)
	s, _ := v.(string)
	return s
}

// obj returns the object stored under key, or nil.
func (o *Object) obj(key string) *Object {
	v, _ := o.Get(key)
	m, _ := v.(*Object)
	return m
}

// list returns the array stored under key, or nil.
func (o *Object) list(key string) []any {
	v, _ := o.Get(key)
	l, _ := v.([]any)
	return l
}

// boolean returns the boolean stored under key, or false.
func (o *Object) boolean(key string) bool {
	v, _ := o.Get(key)
	b, _ := v.(bool)
	return b
}

// MarshalJSON encodes the object with its keys in order.
func (o *Object) MarshalJSON() ([]byte, error) {
	return appendJSON(nil, o), nil
}

// MarshalYAML encodes the object as a YAML mapping with its keys in order.
func (o *Object) MarshalYAML() (any, error) {
	return yamlNode(o), nil
}

// appendJSON appends the JSON encoding of a tree value.
func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case Number:
		return append(b, v...)
	case string:
		return appendJSONString(b, v)
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e)
		}
		return append(b, ']')
	case []string:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, e)
		}
		return append(b, ']')
	case *Object:
		if v == nil {
			return append(b, "null"...)
		}
		b = append(b, '{')
		for i, p := range v.pairs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, p.key)
			b = append(b, ':')
			b = appendJSON(b, p.val)
		}
		return append(b, '}')
	default:
		// Not produced by the parser; encode as null rather than fail.
		return append(b, "null"...)
	}
}

const hexDigits = "0123456789abcdef"

func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else if r == '\u2028' || r == '\u2029' {
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// yamlNode converts a tree value into a YAML node. Short lists of scalars are written in flow
// style ([a, b]) to keep generated configs compact.
func yamlNode(v any) *yaml.Node {
	switch v := v.(type) {
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)}
	case Number:
		tag := "!!int"
		if strings.ContainsAny(string(v), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(v)}
	case string:
		return strNode(v)
	case []string:
		items := make([]any, len(v))
		for i, s := range v {
			items[i] = s
		}
		return yamlNode(items)
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		flow, width := len(v) <= 12, 0
		for _, e := range v {
			c := yamlNode(e)
			if c.Kind != yaml.ScalarNode || strings.ContainsAny(c.Value, "\n") {
				flow = false
			}
			width += len(c.Value) + 2
			n.Content = append(n.Content, c)
		}
		if flow && width <= 80 {
			n.Style = yaml.FlowStyle
		}
		return n
	case *Object:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		if v == nil {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
		}
		for _, p := range v.pairs {
			n.Content = append(n.Content, strNode(p.key), yamlNode(p.val))
		}
		return n
	default:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
}

func strNode(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.Contains(s, "\n") && literalSafe(s) {
		n.Style = yaml.LiteralStyle
	}
	return n
}

// literalSafe reports whether s can be written as a YAML literal block without changing its
// value: no trailing spaces on lines, no leading space on the first line, only printable
// characters and tabs.
func literalSafe(s string) bool {
	if strings.HasPrefix(s, " ") || strings.HasPrefix(s, "\n") {
		return false
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.HasSuffix(line, " ") || strings.HasSuffix(line, "\t") {
			return false
		}
	}
	for _, r := range s {
		if r == '\t' || r == '\n' {
			continue
		}
		if r < 0x20 || r == 0x7f || r == utf8.RuneError || r == '\ufeff' || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			return false
		}
	}
	return true
}
