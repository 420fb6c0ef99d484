package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// maxNesting bounds how deeply a document may nest; real specs stay far below it.
const maxNesting = 512

// parseDocument reads a JSON or YAML document into a tree of *Object, []any, string, Number,
// bool and nil. JSON is read with encoding/json (fast); anything else with yaml.v3.
func parseDocument(data []byte) (any, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	trimmed = bytes.TrimPrefix(trimmed, []byte("\ufeff"))
	if len(trimmed) == 0 {
		return nil, errors.New("the document is empty")
	}
	if trimmed[0] == '{' || trimmed[0] == '[' {
		v, err := parseJSON(trimmed)
		if err == nil {
			return v, nil
		}
		// Flow-style YAML also starts with '{'; fall back to YAML before giving up.
		if yv, yerr := parseYAML(data); yerr == nil {
			return yv, nil
		}
		return nil, fmt.Errorf("reading JSON: %w", err)
	}
	v, err := parseYAML(data)
	if err != nil {
		return nil, fmt.Errorf("reading YAML: %w", err)
	}
	return v, nil
}

func parseJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := jsonValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the top-level value")
	}
	return v, nil
}

func jsonValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("nesting deeper than %d levels", maxNesting)
	}
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := NewObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v is not a string", kt)
				}
				val, err := jsonValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.Set(key, val)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			var l []any
			for dec.More() {
				val, err := jsonValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				l = append(l, val)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			if l == nil {
				l = []any{}
			}
			return l, nil
		default:
			return nil, fmt.Errorf("unexpected %q", t)
		}
	case json.Number:
		return Number(t), nil
	case string, bool, nil:
		return t, nil
	default:
		return nil, fmt.Errorf("unexpected token %v", tok)
	}
}

func parseYAML(data []byte) (any, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 {
		return nil, errors.New("the document is empty")
	}
	c := yamlConverter{aliases: map[*yaml.Node]any{}}
	return c.value(&doc, 0)
}

// yamlConverter turns a yaml.Node tree into the importer's tree. Alias targets are converted
// once and shared, so alias bombs cost memory proportional to the document, not its expansion.
type yamlConverter struct {
	aliases map[*yaml.Node]any
}

func (c *yamlConverter) value(n *yaml.Node, depth int) (any, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("line %d: nesting deeper than %d levels", n.Line, maxNesting)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0], depth+1)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, fmt.Errorf("line %d: unknown alias", n.Line)
		}
		if v, ok := c.aliases[n.Alias]; ok {
			return v, nil
		}
		c.aliases[n.Alias] = nil // a self-referencing alias ends as null instead of looping
		v, err := c.value(n.Alias, depth+1)
		if err != nil {
			return nil, err
		}
		c.aliases[n.Alias] = v
		return v, nil
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			v, err := c.value(e, depth+1)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	case yaml.MappingNode:
		o := NewObject()
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, vn := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				if err := c.merge(o, vn, depth+1); err != nil {
					return nil, err
				}
				continue
			}
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: mapping keys must be scalars", k.Line)
			}
			v, err := c.value(vn, depth+1)
			if err != nil {
				return nil, err
			}
			o.Set(k.Value, v)
		}
		return o, nil
	case yaml.ScalarNode:
		return yamlScalar(n), nil
	default:
		return nil, fmt.Errorf("line %d: unsupported YAML node", n.Line)
	}
}

// merge applies a YAML merge key (<<: *alias or <<: [*a, *b]); explicit keys win.
func (c *yamlConverter) merge(o *Object, n *yaml.Node, depth int) error {
	v, err := c.value(n, depth)
	if err != nil {
		return err
	}
	var sources []any
	if l, ok := v.([]any); ok {
		sources = l
	} else {
		sources = []any{v}
	}
	for _, s := range sources {
		m, ok := s.(*Object)
		if !ok {
			return fmt.Errorf("line %d: merge key needs a mapping", n.Line)
		}
		for k, val := range m.All {
			if !o.Has(k) {
				o.Set(k, val)
			}
		}
	}
	return nil
}

func yamlScalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return Number(strconv.FormatInt(i, 10))
		}
		var u uint64
		if n.Decode(&u) == nil {
			return Number(strconv.FormatUint(u, 10))
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	return n.Value
}
