package config

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// ParamHeaderKeyword is the input-schema keyword that mirrors a tool argument into an
// HTTP header, Mcp-Param-{Name}, on a 2026-07-28 tools/call over Streamable HTTP
// (SEP-2243). Servers check that the header and the argument agree.
const ParamHeaderKeyword = "x-mcp-header"

// A ParamHeader is one x-mcp-header annotation of an input schema: the header name it
// gives and the property it annotates (Path, from the schema's top-level properties
// down through nested ones).
type ParamHeader struct {
	Header string
	Path   []string
}

// ParamHeaders returns the x-mcp-header annotations of an input schema (any value that
// encodes as a JSON Schema object), or an error that says what is wrong with one: it
// must be a non-empty HTTP token (letters, digits and !#$%&'*+-.^_`|~), on a property of
// type string, integer or boolean, and no two may give the same name (case-insensitively).
// Annotations are looked for where the go-sdk looks for them: on properties, at any depth
// of nested properties.
func ParamHeaders(schema any) ([]ParamHeader, error) {
	var doc map[string]any
	if m, ok := schema.(map[string]any); ok {
		doc = m
	} else {
		b, err := json.Marshal(schema)
		if err != nil {
			return nil, fmt.Errorf("the schema cannot be written as JSON: %w", err)
		}
		if json.Unmarshal(b, &doc) != nil {
			return nil, nil // not an object: no annotations
		}
	}
	var out []ParamHeader
	seen := map[string]string{}
	if err := collectParamHeaders(doc, nil, seen, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func collectParamHeaders(s map[string]any, prefix []string, seen map[string]string, out *[]ParamHeader) error {
	props, _ := s["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		prop, ok := props[name].(map[string]any)
		if !ok {
			continue
		}
		path := append(append([]string(nil), prefix...), name)
		at := "properties." + strings.Join(path, ".properties.")
		if v, has := prop[ParamHeaderKeyword]; has {
			header, _ := v.(string)
			kw := at + "." + ParamHeaderKeyword
			switch t, _ := prop["type"].(string); {
			case header == "":
				return &ParamHeaderError{kw, "must be a non-empty string, the name of the header (Mcp-Param-NAME)"}
			case strings.IndexFunc(header, func(r rune) bool { return !isTokenChar(r) }) >= 0:
				return &ParamHeaderError{kw, fmt.Sprintf("%q is not an HTTP header name: use letters, digits and !#$%%&'*+-.^_`|~", header)}
			case t != "string" && t != "integer" && t != "boolean":
				return &ParamHeaderError{kw, fmt.Sprintf("only a property of type string, integer or boolean can have %s (its value is sent as an HTTP header); this one's type is %s", ParamHeaderKeyword, describeType(prop["type"]))}
			}
			if other, dup := seen[strings.ToLower(header)]; dup {
				return &ParamHeaderError{kw, fmt.Sprintf("%q is already the header of %s (header names are case-insensitive)", header, other)}
			}
			seen[strings.ToLower(header)] = at
			*out = append(*out, ParamHeader{Header: header, Path: path})
		}
		if err := collectParamHeaders(prop, path, seen, out); err != nil {
			return err
		}
	}
	return nil
}

// A ParamHeaderError says what is wrong with an x-mcp-header annotation, and where
// (Path, relative to the schema).
type ParamHeaderError struct {
	Path, Msg string
}

func (e *ParamHeaderError) Error() string { return e.Path + ": " + e.Msg }

func describeType(t any) string {
	if t == nil {
		return "not given"
	}
	b, _ := json.Marshal(t)
	return string(b)
}

// isTokenChar reports whether r may appear in an HTTP field name (RFC 9110 tchar).
func isTokenChar(r rune) bool {
	switch {
	case r >= '0' && r <= '9', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		return true
	}
	return strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}
