package config

import (
	"go.yaml.in/yaml/v3"
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
// plain string (a constant), {constant: V}, {direct: ARG} or {expression: JS}.
type Arg struct {
	Source     ArgSource
	Constant   any
	Direct     string
	Expression string
	Line, Col  int
}

// UnmarshalNode decodes the three spellings of an Arg.
func (a *Arg) UnmarshalNode(d *Decoder, n *yaml.Node, path string) {
	a.Line, a.Col = n.Line, n.Column
	switch n.Kind {
	case yaml.ScalarNode:
		a.Source = ArgConstant
		a.Constant = n.Value
		return
	case yaml.MappingNode:
	default:
		d.Errorf(n, path, "expected a string, {constant: V}, {direct: ARG} or {expression: JS}, got %s", kindName(n))
		return
	}
	if len(n.Content) != 2 {
		d.Errorf(n, path, "expected exactly one of constant, direct or expression")
		return
	}
	k, v := n.Content[0], n.Content[1]
	switch k.Value {
	case "constant":
		a.Source = ArgConstant
		var x any
		if err := v.Decode(&x); err != nil {
			d.Errorf(v, joinPath(path, "constant"), "%v", err)
			return
		}
		a.Constant = normalize(x)
	case "direct":
		a.Source = ArgDirect
		if v.Kind != yaml.ScalarNode || v.Value == "" {
			d.Errorf(v, joinPath(path, "direct"), "expected the name of a tool argument")
			return
		}
		a.Direct = v.Value
	case "expression":
		a.Source = ArgExpression
		if v.Kind != yaml.ScalarNode || v.Value == "" {
			d.Errorf(v, joinPath(path, "expression"), "expected a JavaScript expression")
			return
		}
		a.Expression = v.Value
	default:
		d.Errorf(k, joinPath(path, k.Value), "unknown field %q; an argument is a string, {constant: V}, {direct: ARG} or {expression: JS}", k.Value)
	}
}
