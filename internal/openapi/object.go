package openapi

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// The importer's trees are package jsvalue's values as DecodeNumbers gives them:
// *jsvalue.Object (keys in source order, array-index keys first as in JavaScript), []any,
// string, json.Number (numbers kept as their literal text, so integers of any size and
// decimals survive the import unchanged), bool and nil (JSON null).

// getStr returns the string stored under key, or "".
func getStr(o *jsvalue.Object, key string) string {
	s, _ := o.Prop(key).(string)
	return s
}

// getObj returns the object stored under key, or nil.
func getObj(o *jsvalue.Object, key string) *jsvalue.Object {
	m, _ := o.Prop(key).(*jsvalue.Object)
	return m
}

// getList returns the array stored under key, or nil.
func getList(o *jsvalue.Object, key string) []any {
	l, _ := o.Prop(key).([]any)
	return l
}

// getBool returns the boolean stored under key, or false.
func getBool(o *jsvalue.Object, key string) bool {
	b, _ := o.Prop(key).(bool)
	return b
}

// getAny returns the value stored under key or nil.
func getAny(o *jsvalue.Object, key string) any {
	v, _ := o.Get(key)
	return v
}

// yamlNode converts a tree value into a YAML node. Short lists of scalars are written in flow
// style ([a, b]) to keep generated configs compact.
func yamlNode(v any) *yaml.Node {
	switch v := v.(type) {
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)}
	case json.Number:
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
	case *jsvalue.Object:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		if v == nil {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
		}
		for k, val := range v.Range {
			n.Content = append(n.Content, strNode(k), yamlNode(val))
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

// appendJSON appends the JSON encoding of a tree value (null for a value without one).
func appendJSON(b []byte, v any) []byte {
	out, ok := jsvalue.AppendJSON(b, v, "")
	if !ok {
		return append(b, "null"...)
	}
	return out
}

// anyStrings returns ss as a JSON array ([]any).
func anyStrings(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
