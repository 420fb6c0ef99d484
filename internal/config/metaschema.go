package config

import (
	"embed"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
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

// schemaTypes are the JSON Schema types, in the order messages list them.
const schemaTypes = "string, number, integer, boolean, object, array, null"

// Keywords by the kind of value the meta-schema wants.
var (
	numberKeywords   = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
	countKeywords    = []string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains"}
	stringKeywords   = []string{"title", "description", "format", "pattern", "$comment", "$id", "$ref", "$schema", "$anchor", "$dynamicRef", "$dynamicAnchor", "contentMediaType", "contentEncoding"}
	boolKeywords     = []string{"uniqueItems", "readOnly", "writeOnly", "deprecated"}
	schemaKeywords   = []string{"items", "additionalProperties", "not", "contains", "if", "then", "else", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema"}
	mapKeywords      = []string{"properties", "$defs", "patternProperties", "dependentSchemas"}
	listKeywords     = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	anyListKeywords  = []string{"enum", "examples"}
	metaKeywordOrder = slicesConcat(numberKeywords, countKeywords, stringKeywords, boolKeywords, []string{"type", "required", "dependentRequired"}, anyListKeywords, mapKeywords, schemaKeywords, listKeywords)
)

func slicesConcat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// metaProblems checks a JSON-like schema against the JSON Schema 2020-12 meta-schema and
// calls add with the field path inside the schema (relative, "" for the root) and a
// message for every problem, in words a person acts on. When the meta-schema refuses the
// schema for a reason the words do not cover, it adds the validator's own text once.
func metaProblems(s map[string]any, add func(path, msg string)) {
	rs, err := metaSchema()
	if err != nil {
		add("", "internal: the JSON Schema meta-schema does not load: "+err.Error())
		return
	}
	verr := rs.Validate(s)
	if verr == nil {
		return
	}
	n := 0
	walkSchema(s, "", func(path, msg string) { n++; add(path, msg) })
	if n == 0 {
		lines := strings.Split(strings.TrimSpace(verr.Error()), "\n")
		add("", "not a valid JSON Schema 2020-12: "+strings.TrimSpace(lines[len(lines)-1]))
	}
}

// walkSchema reports the problems of the keywords of schema s, at path, and of every
// subschema under it.
func walkSchema(s map[string]any, path string, add func(path, msg string)) {
	for _, k := range metaKeywordOrder {
		v, ok := s[k]
		if !ok {
			continue
		}
		at := JoinPath(path, k)
		switch {
		case slices.Contains(numberKeywords, k):
			if _, ok := v.(float64); !ok {
				add(at, "must be a number, got "+describe(v))
			} else if k == "multipleOf" && v.(float64) <= 0 {
				add(at, "must be a number greater than 0, got "+describe(v))
			}
		case slices.Contains(countKeywords, k):
			if f, ok := v.(float64); !ok || f < 0 || f != float64(int64(f)) {
				add(at, "must be a whole number of 0 or more, got "+describe(v))
			}
		case slices.Contains(stringKeywords, k):
			if str, ok := v.(string); !ok {
				add(at, "must be a string, got "+describe(v))
			} else if k == "pattern" {
				if _, err := regexp.Compile(str); err != nil {
					add(at, fmt.Sprintf("%q is not a valid regular expression: %v", str, strings.TrimPrefix(err.Error(), "error parsing regexp: ")))
				}
			}
		case slices.Contains(boolKeywords, k):
			if _, ok := v.(bool); !ok {
				add(at, "must be true or false, got "+describe(v))
			}
		case k == "type":
			typeProblems(v, at, add)
		case k == "required":
			list, ok := v.([]any)
			if !ok {
				add(at, "must be a list of property names, such as [name, email], got "+describe(v))
				break
			}
			seen := map[string]bool{}
			for i, x := range list {
				name, ok := x.(string)
				switch {
				case !ok:
					add(fmt.Sprintf("%s[%d]", at, i), "must be a property name (a string), got "+describe(x))
				case seen[name]:
					add(fmt.Sprintf("%s[%d]", at, i), fmt.Sprintf("names %q twice; list each property once", name))
				}
				seen[name] = true
			}
		case k == "dependentRequired":
			m, ok := v.(map[string]any)
			if !ok {
				add(at, "must be a mapping of property names to lists of property names, got "+describe(v))
				break
			}
			for _, name := range slices.Sorted(maps.Keys(m)) {
				if list, ok := m[name].([]any); !ok || slices.ContainsFunc(list, func(x any) bool { _, ok := x.(string); return !ok }) {
					add(JoinPath(at, name), "must be a list of property names, got "+describe(m[name]))
				}
			}
		case slices.Contains(anyListKeywords, k):
			if _, ok := v.([]any); !ok {
				add(at, "must be a list of values, such as [low, high], got "+describe(v))
			}
		case slices.Contains(mapKeywords, k):
			m, ok := v.(map[string]any)
			if !ok {
				add(at, "must be a mapping of names to schemas, got "+describe(v))
				break
			}
			for _, name := range slices.Sorted(maps.Keys(m)) {
				subSchema(m[name], JoinPath(at, name), add)
			}
		case slices.Contains(schemaKeywords, k):
			subSchema(v, at, add)
		case slices.Contains(listKeywords, k):
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				add(at, "must be a non-empty list of schemas, got "+describe(v))
				break
			}
			for i, x := range list {
				subSchema(x, fmt.Sprintf("%s[%d]", at, i), add)
			}
		}
	}
}

// subSchema checks a value that must be a schema: a mapping, or true or false.
func subSchema(v any, path string, add func(path, msg string)) {
	switch x := v.(type) {
	case map[string]any:
		walkSchema(x, path, add)
	case bool:
	default:
		add(path, "must be a schema (a mapping such as {type: string}, or true or false), got "+describe(v))
	}
}

// typeProblems checks the value of a type keyword.
func typeProblems(v any, path string, add func(path, msg string)) {
	switch x := v.(type) {
	case string:
		if !validTypeKeyword(x) {
			add(path, fmt.Sprintf("%q is not a JSON Schema type; use one of %s", x, schemaTypes))
		}
	case []any:
		if len(x) == 0 {
			add(path, "must name at least one type; use one of "+schemaTypes)
		}
		for i, t := range x {
			if str, ok := t.(string); !ok || !validTypeKeyword(str) {
				add(fmt.Sprintf("%s[%d]", path, i), fmt.Sprintf("%s is not a JSON Schema type; use one of %s", describe(t), schemaTypes))
			}
		}
	default:
		add(path, fmt.Sprintf("must be a type name or a list of them (%s), got %s", schemaTypes, describe(v)))
	}
}

// describe words a JSON value for a message: the string "ten", the number 3, a list, ...
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "nothing (null)"
	case string:
		return fmt.Sprintf("the string %q", x)
	case float64:
		return "the number " + jsonText(x)
	case bool:
		return fmt.Sprintf("%v", x)
	case []any:
		return "a list " + jsonText(x)
	case map[string]any:
		return "a mapping " + jsonText(x)
	}
	return jsonText(v)
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
