package operators

import (
	"fmt"
	"math"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

var yamlMeta = lazy.Value[map[string]*method]{New: func() map[string]*method {
	return map[string]*method{
		"stringify": named([]string{"object", "array"}, "on", "options"),
		"parse":     named([]string{"object", "array"}, "on", "options"),
	}
}}

var yamlFuncs = lazy.Value[map[string]classFunc]{New: func() map[string]classFunc {
	return map[string]classFunc{
		"parse": func(c *call, args []any) (any, error) {
			in := arg(args, 0)
			if in == "undefined" {
				return jsvalue.Undefined, nil
			}
			s, ok := in.(string)
			if !ok {
				return nil, fmt.Errorf("requires a string type to parse.")
			}
			var node yaml.Node
			if err := yaml.Unmarshal([]byte(s), &node); err != nil {
				return nil, fmt.Errorf("YAMLParseError: %v", err)
			}
			v, err := fromYAMLNode(&node, 0)
			if err != nil {
				return nil, err
			}
			return serial.Decode(serial.Encode(v, true)), nil
		},
		"stringify": func(c *call, args []any) (any, error) {
			on := arg(args, 0)
			if jsvalue.IsUndefined(on) {
				return "", nil
			}
			var b strings.Builder
			writeYAML(&b, serial.Encode(on, true), "", true)
			return b.String(), nil
		},
	}
}}

func opYAML(c *call) (any, error) { return runClass(c, yamlMeta.Get(), yamlFuncs.Get(), "") }

func fromYAML(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	case float64:
		return x
	case map[string]any:
		return jsvalue.FromGo(x)
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = fromYAML(val)
		}
		return out
	}
	return v
}

var (
	yamlNumberLike = lazy.Regexp{Expr: `^(?:[-+]?(?:\d[\d_]*)?\.?\d+(?:[eE][-+]?\d+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|0x[0-9a-fA-F]+|0o[0-7]+|[-+]?\d+\.)$`}
	yamlReserved   = lazy.Value[map[string]bool]{New: func() map[string]bool {
		return map[string]bool{"": true, "~": true, "null": true, "Null": true, "NULL": true, "true": true, "True": true, "TRUE": true, "false": true, "False": true, "FALSE": true}
	}}
)

func yamlScalar(s string) string {
	if s == "" {
		return `""`
	}
	if strings.Contains(s, "\n") {
		return ""
	}
	needQuote := yamlReserved.Get()[s] || yamlNumberLike.Get().MatchString(s) ||
		strings.ContainsAny(s[:1], "-?:,[]{}#&*!|>'\"%@`") && !(s[0] == '-' && len(s) > 1 && s[1] != ' ') ||
		strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") || strings.Contains(s, ": ") ||
		strings.Contains(s, " #") || strings.HasSuffix(s, ":") || strings.ContainsAny(s, "\t\r")
	if s[0] == '-' && (len(s) == 1 || s[1] == ' ') {
		needQuote = true
	}
	if !needQuote {
		return s
	}
	return jsvalue.Quote(s)
}

func yamlValueInline(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "null", true
	case bool:
		if x {
			return "true", true
		}
		return "false", true
	case float64:
		switch {
		case math.IsNaN(x):
			return ".nan", true
		case math.IsInf(x, 1):
			return ".inf", true
		case math.IsInf(x, -1):
			return "-.inf", true
		}
		return jsvalue.NumberToString(x), true
	case string:
		if s := yamlScalar(x); s != "" || x == "" {
			if x == "" {
				return `""`, true
			}
			return s, true
		}
		return "", false
	case []any:
		if len(x) == 0 {
			return "[]", true
		}
	case *jsvalue.Object:
		if x.Len() == 0 {
			return "{}", true
		}
	}
	return "", false
}

func writeYAMLBlockString(b *strings.Builder, s, indent string) {
	chomp := "-"
	if strings.HasSuffix(s, "\n") {
		chomp = ""
		s = strings.TrimSuffix(s, "\n")
	}
	b.WriteString("|" + chomp + "\n")
	for _, line := range strings.Split(s, "\n") {
		if line != "" {
			b.WriteString(indent + "  " + line)
		}
		b.WriteByte('\n')
	}
}

// writeYAML emits v in the style of the yaml npm package's stringify
// (block style, 2-space indent, indented sequences).
func writeYAML(b *strings.Builder, v any, indent string, top bool) {
	if s, ok := yamlValueInline(v); ok {
		b.WriteString(s + "\n")
		return
	}
	switch x := v.(type) {
	case string:
		writeYAMLBlockString(b, x, strings.TrimSuffix(indent, "  "))
	case []any:
		for i, item := range x {
			if i > 0 || !top {
				b.WriteString(indent)
			}
			b.WriteString("- ")
			writeYAMLNested(b, item, indent+"  ")
		}
	case *jsvalue.Object:
		for i, k := range x.Keys() {
			if i > 0 || !top {
				b.WriteString(indent)
			}
			key := yamlScalar(k)
			if key == "" {
				key = jsvalue.Quote(k)
			}
			b.WriteString(key + ":")
			item := x.Prop(k)
			if s, ok := yamlValueInline(item); ok {
				b.WriteString(" " + s + "\n")
				continue
			}
			switch it := item.(type) {
			case string:
				b.WriteString(" ")
				writeYAMLBlockString(b, it, indent)
			default:
				b.WriteString("\n")
				writeYAML(b, item, indent+"  ", false)
			}
		}
	}
}

// writeYAMLNested writes a sequence item whose "- " is already written.
func writeYAMLNested(b *strings.Builder, v any, indent string) {
	if s, ok := yamlValueInline(v); ok {
		b.WriteString(s + "\n")
		return
	}
	if s, ok := v.(string); ok {
		writeYAMLBlockString(b, s, strings.TrimSuffix(indent, "  "))
		return
	}
	writeYAML(b, v, indent, true)
}

// fromYAMLNode converts a YAML 1.2 core-schema document (the yaml npm
// package's default): timestamps stay strings.
func fromYAMLNode(n *yaml.Node, depth int) (any, error) {
	if depth > 200 {
		return nil, fmt.Errorf("YAML nested too deeply")
	}
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return fromYAMLNode(n.Content[0], depth+1)
	case yaml.AliasNode:
		return fromYAMLNode(n.Alias, depth+1)
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := fromYAMLNode(c, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case yaml.MappingNode:
		out := jsvalue.NewObject(len(n.Content) / 2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, err := fromYAMLNode(n.Content[i], depth+1)
			if err != nil {
				return nil, err
			}
			v, err := fromYAMLNode(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			out.Set(jsvalue.ToString(k), v) // document order
		}
		return out, nil
	}
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!str", "!!timestamp", "!!binary":
		return n.Value, nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return n.Value, nil
	}
	return fromYAML(v), nil
}
