package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// maxNesting bounds how deeply a document may nest; real specs stay far below it.
const maxNesting = 512

// parseDocument reads a JSON or YAML document into a tree of *jsvalue.Object, []any, string, Number,
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
	v, err := jsvalue.DecodeNumbers(data)
	if err != nil {
		return nil, err
	}
	if err := checkNesting(v, 0); err != nil {
		return nil, err
	}
	return v, nil
}

// checkNesting rejects trees nested deeper than maxNesting.
func checkNesting(v any, depth int) error {
	if depth > maxNesting {
		return fmt.Errorf("nesting deeper than %d levels", maxNesting)
	}
	switch x := v.(type) {
	case *jsvalue.Object:
		for _, e := range x.Range {
			if err := checkNesting(e, depth+1); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := checkNesting(e, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
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
		o := jsvalue.NewObject(0)
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
func (c *yamlConverter) merge(o *jsvalue.Object, n *yaml.Node, depth int) error {
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
		m, ok := s.(*jsvalue.Object)
		if !ok {
			return fmt.Errorf("line %d: merge key needs a mapping", n.Line)
		}
		for k, val := range m.Range {
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
			return json.Number(strconv.FormatInt(i, 10))
		}
		var u uint64
		if n.Decode(&u) == nil {
			return json.Number(strconv.FormatUint(u, 10))
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	return n.Value
}
