package command

import (
	"go.yaml.in/yaml/v3"

	"github.com/mcpbridge/mcpbridge/internal/config"
)

// ArgSource says where an Arg's value comes from.
type ArgSource int

// The sources of an Arg.
const (
	ArgConstant   ArgSource = iota // a fixed value
	ArgDirect                      // a tool argument, by name
	ArgExpression                  // a JavaScript expression over args
)

// Arg is one element of a command's argv (or its stdin or an env value). It is written as a
// plain string (a constant), {constant: V}, {direct: ARG} or {expression: JS}; direct and
// expression may add allow_options: true to let the value start with "-".
type Arg struct {
	Source     ArgSource
	Constant   any
	Direct     string
	Expression string
	// AllowOptions lets a direct or expression value in argv start with "-", where the
	// program would read it as an option. By default such a value is refused.
	AllowOptions bool
	Line, Col    int
}

// UnmarshalNode decodes the three spellings of an Arg.
func (a *Arg) UnmarshalNode(d *config.Decoder, n *yaml.Node, path string) {
	a.Line, a.Col = n.Line, n.Column
	switch n.Kind {
	case yaml.ScalarNode:
		a.Source = ArgConstant
		a.Constant = n.Value
		return
	case yaml.MappingNode:
	default:
		d.Errorf(n, path, "expected a string, {constant: V}, {direct: ARG} or {expression: JS}, got %s", config.KindName(n))
		return
	}
	var k, v, allow *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "allow_options" && allow == nil {
			allow = n.Content[i+1]
			continue
		}
		if k != nil {
			d.Errorf(n, path, "expected exactly one of constant, direct or expression")
			return
		}
		k, v = n.Content[i], n.Content[i+1]
	}
	if k == nil {
		d.Errorf(n, path, "expected exactly one of constant, direct or expression")
		return
	}
	if allow != nil {
		if allow.Kind != yaml.ScalarNode || allow.Tag != "!!bool" || allow.Decode(&a.AllowOptions) != nil {
			d.Errorf(allow, config.JoinPath(path, "allow_options"), "expected true or false, got %s", config.KindName(allow))
		} else if k.Value == "constant" {
			d.Errorf(allow, config.JoinPath(path, "allow_options"), "a constant is never checked for options; allow_options goes with direct or expression")
		}
	}
	switch k.Value {
	case "constant":
		a.Source = ArgConstant
		var x any
		if err := v.Decode(&x); err != nil {
			d.Errorf(v, config.JoinPath(path, "constant"), "%v", err)
			return
		}
		a.Constant = config.Normalize(x)
	case "direct":
		a.Source = ArgDirect
		if v.Kind != yaml.ScalarNode || v.Value == "" {
			d.Errorf(v, config.JoinPath(path, "direct"), "expected the name of a tool argument")
			return
		}
		a.Direct = v.Value
	case "expression":
		a.Source = ArgExpression
		if v.Kind != yaml.ScalarNode || v.Value == "" {
			d.Errorf(v, config.JoinPath(path, "expression"), "expected a JavaScript expression")
			return
		}
		a.Expression = v.Value
	default:
		d.Errorf(k, config.JoinPath(path, k.Value), "unknown field %q; an argument is a string, {constant: V}, {direct: ARG} or {expression: JS} (direct and expression may add allow_options: true)", k.Value)
	}
}
