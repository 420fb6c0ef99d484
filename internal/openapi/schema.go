package openapi

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// Limits of schema inlining. A recursive schema is inlined once; its next occurrence inside
// itself becomes a stub. Independently, every tool's argument schema is bounded in nesting and
// in the number of schema objects, so one huge or adversarial spec cannot produce an
// unbounded config.
const (
	maxRecursion     = 1    // times one $ref may be open on the inlining stack
	maxSchemaDepth   = 8    // nesting of schemas below an argument
	maxSchemaNodes   = 400  // schema objects per tool
	maxSchemaDescLen = 1000 // bytes of one argument's description
	maxNestedDescLen = 300  // bytes of a description deeper inside an argument
)

// schemaConverter turns OpenAPI schema objects into self-contained JSON Schema (2020-12
// style, no $ref) for one tool. It is not safe for concurrent use.
type schemaConverter struct {
	root    any
	version string // "3.0" or "3.1"
	stack   []string
	nodes   int

	truncated   []string // refs cut because of recursion or limits, for a warning
	unresolved  []string // refs that could not be resolved
	badPatterns []string // patterns dropped because they do not compile
	badDefaults []string // defaults dropped because they contradict their schema
}

func newSchemaConverter(root any, version string) *schemaConverter {
	return &schemaConverter{root: root, version: version}
}

// jsonType reports whether t is one of JSON Schema's type names.
func jsonType(t string) bool {
	switch t {
	case "string", "number", "integer", "boolean", "array", "object", "null":
		return true
	}
	return false
}

// convert returns a JSON Schema value: an *jsvalue.Object or a boolean schema.
func (c *schemaConverter) convert(v any, depth int) any {
	switch s := v.(type) {
	case bool:
		return s
	case *jsvalue.Object:
		return c.convertObject(s, depth)
	default:
		return jsvalue.NewObject(0)
	}
}

func (c *schemaConverter) convertObject(s *jsvalue.Object, depth int) any {
	c.nodes++
	if c.nodes > maxSchemaNodes || depth > maxSchemaDepth {
		c.noteTruncated(fmt.Sprintf("schema too large (more than %d nodes or %d levels)", maxSchemaNodes, maxSchemaDepth))
		return stubFor(c.root, s)
	}
	if refv, ok := s.Get("$ref"); ok {
		return c.convertRef(s, refv, depth)
	}
	out := jsvalue.NewObject(0)
	var required []string
	dropped := map[string]bool{}
	for key, val := range s.Range {
		switch key {
		case "type":
			c.copyType(out, val)
		case "format", "title", "contentMediaType", "contentEncoding":
			if str, ok := val.(string); ok {
				out.Set(key, str)
			}
		case "description":
			if str, ok := val.(string); ok && strings.TrimSpace(str) != "" {
				limit := maxSchemaDescLen
				if depth > 1 {
					limit = maxNestedDescLen // deep descriptions matter less than the arguments'
				}
				out.Set(key, truncateText(str, limit))
			}
		case "pattern":
			if str, ok := val.(string); ok {
				if _, err := regexp.Compile(str); err != nil {
					c.badPatterns = append(c.badPatterns, str)
				} else {
					out.Set(key, str)
				}
			}
		case "default", "const":
			out.Set(key, val)
		case "enum":
			if l, ok := val.([]any); ok && len(l) > 0 {
				out.Set(key, l)
			}
		case "minimum", "maximum", "multipleOf":
			if n, ok := val.(json.Number); ok {
				out.Set(key, n)
			}
		case "exclusiveMinimum", "exclusiveMaximum":
			switch val.(type) {
			case json.Number, bool: // bool is the 3.0 form, rewritten by fixExclusiveBounds
				out.Set(key, val)
			}
		case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
			if n, ok := val.(json.Number); ok && isNonNegativeInt(n) {
				out.Set(key, n)
			}
		case "uniqueItems", "deprecated":
			if b, ok := val.(bool); ok {
				out.Set(key, b)
			}
		case "readOnly":
			if b, ok := val.(bool); ok && b {
				out.Set(key, true) // removed again by the parent's properties handling
			}
		case "items", "additionalProperties", "not", "contains", "propertyNames", "additionalItems":
			if key == "items" {
				if _, isList := val.([]any); isList {
					continue // draft-4 tuple form; accept any items
				}
			}
			if key == "additionalItems" {
				continue
			}
			out.Set(key, c.convert(val, depth+1))
		case "properties":
			props, ok := val.(*jsvalue.Object)
			if !ok {
				continue
			}
			outProps := jsvalue.NewObject(0)
			for name, ps := range props.Range {
				converted := c.convert(ps, depth+1)
				if co, ok := converted.(*jsvalue.Object); ok && getBool(co, "readOnly") {
					dropped[name] = true
					continue
				}
				outProps.Set(name, converted)
			}
			out.Set(key, outProps)
		case "patternProperties":
			pp, ok := val.(*jsvalue.Object)
			if !ok {
				continue
			}
			outPP := jsvalue.NewObject(0)
			for pat, ps := range pp.Range {
				if _, err := regexp.Compile(pat); err != nil {
					c.badPatterns = append(c.badPatterns, pat)
					continue
				}
				outPP.Set(pat, c.convert(ps, depth+1))
			}
			out.Set(key, outPP)
		case "prefixItems", "allOf", "anyOf", "oneOf":
			l, ok := val.([]any)
			if !ok || len(l) == 0 {
				continue
			}
			outL := make([]any, 0, len(l))
			for _, e := range l {
				outL = append(outL, c.convert(e, depth+1))
			}
			out.Set(key, outL)
		case "required":
			for _, r := range listOfStrings(val) {
				if !slices.Contains(required, r) {
					required = append(required, r)
				}
			}
		case "dependentRequired":
			if o, ok := val.(*jsvalue.Object); ok {
				out.Set(key, o)
			}
		case "example":
			// OpenAPI 3.0 example → JSON Schema examples.
			if c.version == "3.0" && !s.Has("examples") {
				out.Set("examples", []any{val})
			}
		case "examples":
			if l, ok := val.([]any); ok && len(l) > 0 {
				out.Set("examples", l)
			}
		}
		// Everything else (discriminator, xml, externalDocs, nullable handled below, writeOnly,
		// x-* extensions, $defs …) is dropped: it is not JSON Schema or not useful to a tool.
	}
	if len(required) > 0 {
		required = slices.DeleteFunc(required, func(r string) bool { return dropped[r] })
		if len(required) > 0 {
			out.Set("required", anyStrings(required))
		}
	}
	if t, ok := out.Get("type"); ok && t == "file" {
		out.Set("type", "string")
		out.Set("format", "binary")
	}
	c.fixExclusiveBounds(out)
	mergeAllOf(out)
	c.checkDefault(out)
	if getBool(s, "nullable") || getBool(s, "x-nullable") {
		return makeNullable(out)
	}
	return out
}

// convertRef inlines a $ref, cutting recursion and applying sibling keywords on top.
func (c *schemaConverter) convertRef(s *jsvalue.Object, refv any, depth int) any {
	ref, ok := refv.(string)
	if !ok {
		c.unresolved = append(c.unresolved, fmt.Sprintf("%v", refv))
		return jsvalue.NewObject(0)
	}
	target, err := lookupPointer(c.root, ref)
	if err != nil {
		c.unresolved = append(c.unresolved, ref)
		return siblings(c, s, jsvalue.NewObject(0), depth)
	}
	open := 0
	for _, r := range c.stack {
		if r == ref {
			open++
		}
	}
	if open >= maxRecursion {
		c.noteTruncated("recursive " + refName(ref))
		return siblings(c, s, stubFor(c.root, target), depth)
	}
	c.stack = append(c.stack, ref)
	res := c.convert(target, depth) // a $ref adds no nesting; the node budget bounds ref chains
	c.stack = c.stack[:len(c.stack)-1]
	return siblings(c, s, res, depth)
}

// siblings applies the keywords written next to a $ref (description, nullable, readOnly,
// default …) on top of the inlined target.
func siblings(c *schemaConverter, s *jsvalue.Object, res any, depth int) any {
	if s.Len() <= 1 {
		return res
	}
	rest := jsvalue.NewObject(0)
	for k, v := range s.Range {
		if k != "$ref" && k != "nullable" && k != "x-nullable" {
			rest.Set(k, v)
		}
	}
	nullable := getBool(s, "nullable") || getBool(s, "x-nullable")
	ro, isObj := res.(*jsvalue.Object)
	if rest.Len() > 0 {
		co, ok := c.convert(rest, depth).(*jsvalue.Object)
		if ok && isObj {
			merged := jsvalue.NewObject(0)
			for k, v := range ro.Range {
				merged.Set(k, v)
			}
			for k, v := range co.Range {
				merged.Set(k, v)
			}
			ro = merged
		} else if ok {
			// A boolean target with siblings: the siblings alone describe it.
			ro, isObj = co, true
		}
	}
	if !isObj {
		return res
	}
	if nullable {
		return makeNullable(ro)
	}
	return ro
}

func (c *schemaConverter) noteTruncated(what string) {
	if !slices.Contains(c.truncated, what) {
		c.truncated = append(c.truncated, what)
	}
}

func (c *schemaConverter) copyType(out *jsvalue.Object, val any) {
	switch t := val.(type) {
	case string:
		if jsonType(t) || t == "file" {
			out.Set("type", t)
		}
	case []any:
		var types []any
		for _, e := range t {
			if s, ok := e.(string); ok && jsonType(s) && !slices.Contains(types, any(s)) {
				types = append(types, s)
			}
		}
		switch len(types) {
		case 0:
		case 1:
			out.Set("type", types[0])
		default:
			out.Set("type", types)
		}
	}
}

// fixExclusiveBounds turns OpenAPI 3.0 boolean exclusiveMinimum/Maximum into the numeric
// form of JSON Schema 2020-12.
func (c *schemaConverter) fixExclusiveBounds(out *jsvalue.Object) {
	for _, pair := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		v, ok := out.Get(pair[0])
		if !ok {
			continue
		}
		if _, isNum := v.(json.Number); isNum {
			continue
		}
		out.Delete(pair[0])
		if b, _ := v.(bool); b {
			if bound, ok := out.Get(pair[1]); ok {
				out.Delete(pair[1])
				out.Set(pair[0], bound)
			}
		}
	}
}

// makeNullable adds null to a schema's accepted values, 3.1 style.
func makeNullable(out *jsvalue.Object) *jsvalue.Object {
	switch t := getAny(out, "type"); tt := t.(type) {
	case string:
		if tt != "null" {
			out.Set("type", []any{tt, "null"})
		}
	case []any:
		if !slices.Contains(tt, any("null")) {
			out.Set("type", append(slices.Clone(tt), "null"))
		}
	default:
		wrapped := jsvalue.NewObject(0)
		wrapped.Set("anyOf", []any{out, typeSchema("null")})
		return wrapped
	}
	if enum := getList(out, "enum"); enum != nil && !slices.Contains(enum, nil) {
		out.Set("enum", append(slices.Clone(enum), nil))
	}
	return out
}

// mergeAllOf flattens an allOf of plain object schemas (the usual "base + extension"
// pattern) into one object schema, so that body properties become separate arguments and
// clients that dislike combinators get a simple schema.
func mergeAllOf(out *jsvalue.Object) {
	members := getList(out, "allOf")
	if len(members) == 0 {
		return
	}
	objs := make([]*jsvalue.Object, 0, len(members))
	for _, m := range members {
		o, ok := m.(*jsvalue.Object)
		if !ok {
			return
		}
		objs = append(objs, o)
	}
	if len(objs) == 1 {
		out.Delete("allOf")
		for k, v := range objs[0].Range {
			if !out.Has(k) {
				out.Set(k, v)
			}
		}
		return
	}
	mergeable := map[string]bool{"type": true, "properties": true, "required": true, "description": true, "title": true}
	for _, o := range objs {
		for k, v := range o.Range {
			if !mergeable[k] || (k == "type" && v != "object") {
				return
			}
		}
	}
	if t, ok := out.Get("type"); ok && t != "object" {
		return
	}
	props := getObj(out, "properties")
	if props == nil {
		props = jsvalue.NewObject(0)
	}
	required := listOfStrings(getAny(out, "required"))
	out.Delete("allOf")
	for _, o := range objs {
		if d := getStr(o, "description"); d != "" && !out.Has("description") {
			out.Set("description", d)
		}
		for k, v := range getObj(o, "properties").Range {
			props.Set(k, v)
		}
		for _, r := range listOfStrings(getAny(o, "required")) {
			if !slices.Contains(required, r) {
				required = append(required, r)
			}
		}
	}
	out.Set("type", "object")
	out.Set("properties", props)
	if len(required) > 0 {
		out.Set("required", anyStrings(required))
	}
}

// stubFor is the schema left where inlining stops: the target's type when it is simple,
// {type: object} for objects, {} otherwise.
func stubFor(root any, target any) *jsvalue.Object {
	o, ok := target.(*jsvalue.Object)
	for range maxRefHops {
		if !ok {
			break
		}
		ref, isRef := o.Get("$ref")
		if !isRef {
			break
		}
		s, _ := ref.(string)
		next, err := lookupPointer(root, s)
		if err != nil {
			break
		}
		o, ok = next.(*jsvalue.Object)
	}
	stub := jsvalue.NewObject(0)
	if !ok {
		return stub
	}
	switch t := getAny(o, "type"); {
	case t == "array":
		stub.Set("type", "array")
	case t == "object" || o.Has("properties") || o.Has("additionalProperties"):
		stub.Set("type", "object")
	case t == "string" || t == "integer" || t == "number" || t == "boolean":
		stub.Set("type", t)
	}
	if d := getStr(o, "description"); d != "" {
		stub.Set("description", truncateText(d, 200))
	}
	return stub
}

func typeSchema(t string) *jsvalue.Object {
	o := jsvalue.NewObject(0)
	o.Set("type", t)
	return o
}

func refName(ref string) string {
	if i := strings.LastIndex(ref, "/"); i >= 0 {
		return ref[i+1:]
	}
	return ref
}

func listOfStrings(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	if sl, ok := v.([]string); ok {
		out = append(out, sl...)
	}
	return out
}

func isNonNegativeInt(n json.Number) bool {
	if n == "" || strings.ContainsAny(string(n), ".eE-") {
		return false
	}
	return true
}

// checkDefault drops a default that contradicts the schema's own type or enum (real specs
// contain defaults such as "'strict'" for an enum of strict/coerce), because clients and
// validators that check defaults would reject the whole tool.
func (c *schemaConverter) checkDefault(out *jsvalue.Object) {
	def, ok := out.Get("default")
	if !ok {
		return
	}
	valid := true
	switch t := getAny(out, "type"); tt := t.(type) {
	case string:
		valid = hasJSONType(def, tt)
	case []any:
		valid = slices.ContainsFunc(tt, func(e any) bool { s, _ := e.(string); return hasJSONType(def, s) })
	}
	if valid {
		if enum := getList(out, "enum"); enum != nil {
			want := string(appendJSON(nil, def))
			valid = slices.ContainsFunc(enum, func(e any) bool { return string(appendJSON(nil, e)) == want })
		}
	}
	_, composite := def.(*jsvalue.Object)
	if _, isList := def.([]any); isList {
		composite = true
	}
	if valid && (composite || out.Has("oneOf") || out.Has("anyOf") || out.Has("allOf") || out.Has("not")) {
		valid = validatesAgainst(out, def)
	}
	if !valid {
		out.Delete("default")
		c.badDefaults = append(c.badDefaults, string(appendJSON(nil, def)))
	}
}

// hasJSONType reports whether v is an instance of the JSON Schema type t.
func hasJSONType(v any, t string) bool {
	switch v := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case json.Number:
		return t == "number" || (t == "integer" && isIntegral(v))
	case []any:
		return t == "array"
	case *jsvalue.Object:
		return t == "object"
	}
	return false
}

// isIntegral reports whether a number literal denotes an integer (1, -3, 2.0, 1e3).
func isIntegral(n json.Number) bool {
	f, err := strconv.ParseFloat(string(n), 64)
	return err == nil && f == math.Trunc(f)
}

// validatesAgainst checks def against a schema with combinators using a real JSON Schema
// validator (the one the MCP SDK uses), ignoring the schema's own default.
func validatesAgainst(schema *jsvalue.Object, def any) bool {
	probe := jsvalue.NewObject(0)
	for k, v := range schema.Range {
		if k != "default" {
			probe.Set(k, v)
		}
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(appendJSON(nil, probe), &js); err != nil {
		return false
	}
	resolved, err := js.Resolve(nil)
	if err != nil {
		return false
	}
	var instance any
	if err := json.Unmarshal(appendJSON(nil, def), &instance); err != nil {
		return false
	}
	return resolved.Validate(instance) == nil
}
