package config

import (
	"embed"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

//go:embed metaschema/schema.json metaschema/meta/*.json
var metaFiles embed.FS

// metaSchema is the JSON Schema 2020-12 meta-schema, resolved once.
var metaSchema = sync.OnceValues(func() (*jsonschema.Resolved, error) {
	read := func(name string) (*jsonschema.Schema, error) {
		b, err := metaFiles.ReadFile("metaschema/" + name)
		if err != nil {
			return nil, err
		}
		var s jsonschema.Schema
		return &s, json.Unmarshal(b, &s)
	}
	root, err := read("schema.json")
	if err != nil {
		return nil, err
	}
	return root.Resolve(&jsonschema.ResolveOptions{Loader: func(u *url.URL) (*jsonschema.Schema, error) {
		if u.Host != "json-schema.org" || !strings.HasPrefix(u.Path, "/draft/2020-12/meta/") {
			return nil, fmt.Errorf("no such meta-schema %s", u)
		}
		return read(strings.TrimPrefix(u.Path, "/draft/2020-12/") + ".json")
	}})
})

// metaProblem checks a JSON-like schema against the JSON Schema 2020-12 meta-schema and
// returns the field path inside the schema (relative, "" for the root) and a message, or
// "", "" when it is valid. It reports the deepest subschema (under properties, items, ...)
// that is invalid, so the path says where to look.
func metaProblem(s map[string]any) (path, msg string) {
	rs, err := metaSchema()
	if err != nil {
		return "", "internal: the JSON Schema meta-schema does not load: " + err.Error()
	}
	if rs.Validate(s) == nil {
		return "", ""
	}
	// Look for an invalid subschema first: its path is more useful.
	for _, key := range []string{"properties", "$defs", "patternProperties"} {
		m, _ := s[key].(map[string]any)
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if sub, ok := m[k].(map[string]any); ok {
				if p, msg := metaProblem(sub); msg != "" {
					return JoinPath(key+"."+k, p), msg
				}
			}
		}
	}
	for _, key := range []string{"items", "additionalProperties", "not", "contains"} {
		if sub, ok := s[key].(map[string]any); ok {
			if p, msg := metaProblem(sub); msg != "" {
				return JoinPath(key, p), msg
			}
		}
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		list, _ := s[key].([]any)
		for i, x := range list {
			if sub, ok := x.(map[string]any); ok {
				if p, msg := metaProblem(sub); msg != "" {
					return JoinPath(fmt.Sprintf("%s[%d]", key, i), p), msg
				}
			}
		}
	}
	return "", "not a valid JSON Schema 2020-12: " + shallowMetaError(s)
}

// shallowMetaError words what is wrong with the keywords of s itself.
func shallowMetaError(s map[string]any) string {
	var bad []string
	for k, v := range s {
		switch k {
		case "type":
			if !validTypeKeyword(v) {
				bad = append(bad, fmt.Sprintf("type %s is not one of array, boolean, integer, null, number, object, string", jsonText(v)))
			}
		case "required":
			if _, ok := v.([]any); !ok {
				bad = append(bad, fmt.Sprintf("required must be a list of property names, got %s", jsonText(v)))
			}
		case "properties", "$defs", "patternProperties":
			if _, ok := v.(map[string]any); !ok {
				bad = append(bad, fmt.Sprintf("%s must be a mapping of names to schemas, got %s", k, jsonText(v)))
			}
		case "enum":
			if _, ok := v.([]any); !ok {
				bad = append(bad, fmt.Sprintf("enum must be a list, got %s", jsonText(v)))
			}
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return strings.Join(bad, "; ")
	}
	// Fall back to the validator's own words, last line first.
	rs, _ := metaSchema()
	err := rs.Validate(s)
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func validTypeKeyword(v any) bool {
	ok := func(x any) bool {
		switch x {
		case "array", "boolean", "integer", "null", "number", "object", "string":
			return true
		}
		return false
	}
	if list, isList := v.([]any); isList {
		for _, x := range list {
			if !ok(x) {
				return false
			}
		}
		return len(list) > 0
	}
	return ok(v)
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
