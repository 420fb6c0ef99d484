package app

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// maxYAMLNodes bounds the nodes one YAML document may expand to (aliases included), so
// that an alias bomb fails with an error instead of exhausting memory.
const maxYAMLNodes = 500_000

// maxAliasNodes bounds the values produced by expanding aliases in one document.
const maxAliasNodes = 100_000

// parseYAML parses one YAML document with the YAML 1.2 core schema, as the `yaml` npm
// package that Lowdefy uses does: `yes`/`no`/`on`/`off` are strings, `<<` is an ordinary
// key, duplicate keys and multiple documents are errors, timestamps stay strings.
func parseYAML(data []byte, file string) (n *node, err error) {
	defer func() {
		// The YAML library is third-party code; never let a malformed file crash the loader.
		if r := recover(); r != nil {
			n, err = nil, &parseError{pos: position{file: file}, msg: fmt.Sprintf("invalid YAML: %v", r)}
		}
	}()
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return newNull(position{file: file, line: 1, col: 1}), nil
		}
		return nil, yamlError(err, file)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &parseError{pos: position{file: file, line: extra.Line, col: extra.Column}, msg: "source contains more than one YAML document"}
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlError(err, file)
	}
	c := &yamlConverter{file: file}
	return c.convert(&doc, 0)
}

var yamlLineRE = lazy.Regexp{Expr: `^(?:yaml: )?line (\d+): (.*)$`}

// yamlError turns a YAML library error ("yaml: line 3: ...") into a positioned parseError.
func yamlError(err error, file string) error {
	msg := err.Error()
	if m := yamlLineRE.Get().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &parseError{pos: position{file: file, line: line}, msg: m[2]}
	}
	return &parseError{pos: position{file: file}, msg: strings.TrimPrefix(msg, "yaml: ")}
}

type yamlConverter struct {
	file       string
	count      int
	aliasDepth int // > 0 while expanding an alias
	aliasCount int
}

func (c *yamlConverter) pos(y *yaml.Node) position {
	return position{file: c.file, line: y.Line, col: y.Column}
}

func (c *yamlConverter) convert(y *yaml.Node, depth int) (*node, error) {
	c.count++
	if c.aliasDepth > 0 {
		c.aliasCount++
		if c.aliasCount > maxAliasNodes {
			return nil, &parseError{pos: c.pos(y), msg: fmt.Sprintf("aliases expand to more than %d values (alias loop or bomb?)", maxAliasNodes)}
		}
	}
	if c.count > maxYAMLNodes {
		if c.aliasCount == 0 {
			return nil, &parseError{pos: c.pos(y), msg: fmt.Sprintf("document holds more than %d values: split it into smaller files joined with _ref", maxYAMLNodes)}
		}
		return nil, &parseError{pos: c.pos(y), msg: fmt.Sprintf("document expands to more than %d values (alias loop or bomb?)", maxYAMLNodes)}
	}
	if depth > 10000 {
		return nil, &parseError{pos: c.pos(y), msg: "document nests too deeply"}
	}
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return newNull(c.pos(y)), nil
		}
		return c.convert(y.Content[0], depth+1)
	case yaml.AliasNode:
		if y.Alias == nil {
			return nil, &parseError{pos: c.pos(y), msg: fmt.Sprintf("unknown alias %q", y.Value)}
		}
		c.aliasDepth++
		n, err := c.convert(y.Alias, depth+1)
		c.aliasDepth--
		if err != nil {
			return nil, err
		}
		return n, nil
	case yaml.MappingNode:
		m := newMap(c.pos(y))
		if len(y.Content)%2 != 0 {
			return nil, &parseError{pos: c.pos(y), msg: "malformed mapping"}
		}
		for i := 0; i < len(y.Content); i += 2 {
			k, v := y.Content[i], y.Content[i+1]
			key, err := c.key(k)
			if err != nil {
				return nil, err
			}
			if m.has(key) {
				return nil, &parseError{pos: c.pos(k), msg: fmt.Sprintf("duplicate key %q (map keys must be unique)", key)}
			}
			val, err := c.convert(v, depth+1)
			if err != nil {
				return nil, err
			}
			m.fields = append(m.fields, field{key: key, keyPos: c.pos(k), val: val})
		}
		return m, nil
	case yaml.SequenceNode:
		l := newList(c.pos(y))
		for _, it := range y.Content {
			v, err := c.convert(it, depth+1)
			if err != nil {
				return nil, err
			}
			l.items = append(l.items, v)
		}
		return l, nil
	case yaml.ScalarNode:
		return c.scalar(y)
	}
	return nil, &parseError{pos: c.pos(y), msg: "unsupported YAML node"}
}

// key converts a mapping key to the string JavaScript would use.
func (c *yamlConverter) key(k *yaml.Node) (string, error) {
	if k.Kind == yaml.AliasNode && k.Alias != nil {
		k = k.Alias
	}
	if k.Kind != yaml.ScalarNode {
		return "", &parseError{pos: c.pos(k), msg: "map keys must be scalars"}
	}
	n, err := c.scalar(k)
	if err != nil {
		return "", err
	}
	switch n.kind {
	case kindString:
		return n.str, nil
	case kindNumber:
		return jsvalue.NumberToString(n.num), nil
	case kindBool:
		return strconv.FormatBool(n.b), nil
	}
	return "", nil
}

var (
	reInt   = lazy.Regexp{Expr: `^[-+]?[0-9]+$`}
	reOct   = lazy.Regexp{Expr: `^0o[0-7]+$`}
	reHex   = lazy.Regexp{Expr: `^0x[0-9a-fA-F]+$`}
	reFloat = lazy.Regexp{Expr: `^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$`}
)

func (c *yamlConverter) scalar(y *yaml.Node) (*node, error) {
	p := c.pos(y)
	v := y.Value
	if y.Style&yaml.TaggedStyle != 0 {
		switch y.Tag {
		case "!!str", "tag:yaml.org,2002:str":
			return newString(v, p), nil
		case "!!null", "tag:yaml.org,2002:null":
			return newNull(p), nil
		case "!!bool", "tag:yaml.org,2002:bool":
			if b, ok := coreBool(v); ok {
				return newBool(b, p), nil
			}
			return nil, &parseError{pos: p, msg: fmt.Sprintf("%q is not a boolean", v)}
		case "!!int", "!!float", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float":
			if f, ok := coreNumber(v); ok {
				return newNumber(f, p), nil
			}
			return nil, &parseError{pos: p, msg: fmt.Sprintf("%q is not a number", v)}
		}
		// Other tags (custom or !!binary, !!timestamp): keep the text, as yaml does with a warning.
		return newString(v, p), nil
	}
	if y.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return newString(v, p), nil
	}
	switch v {
	case "", "~", "null", "Null", "NULL":
		return newNull(p), nil
	}
	if b, ok := coreBool(v); ok {
		return newBool(b, p), nil
	}
	if f, ok := coreNumber(v); ok {
		return newNumber(f, p), nil
	}
	return newString(v, p), nil
}

func coreBool(v string) (bool, bool) {
	switch v {
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	}
	return false, false
}

func coreNumber(v string) (float64, bool) {
	switch v {
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return math.Inf(1), true
	case "-.inf", "-.Inf", "-.INF":
		return math.Inf(-1), true
	case ".nan", ".NaN", ".NAN":
		return math.NaN(), true
	}
	switch {
	case reOct.Get().MatchString(v):
		i, err := strconv.ParseUint(v[2:], 8, 64)
		return float64(i), err == nil
	case reHex.Get().MatchString(v):
		i, err := strconv.ParseUint(v[2:], 16, 64)
		if err != nil {
			f, _ := strconv.ParseFloat("0x"+v[2:]+"p0", 64)
			return f, true
		}
		return float64(i), true
	case reInt.Get().MatchString(v), reFloat.Get().MatchString(v):
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			// Out of range: JavaScript gives ±Infinity.
			var ne *strconv.NumError
			if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
				return f, true
			}
			return 0, false
		}
		return f, true
	}
	return 0, false
}
