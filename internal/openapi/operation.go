package openapi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// maxToolDescLen bounds a tool description in bytes.
const maxToolDescLen = 1024

// locationRank sorts parameters: path first, then query, header, cookie; ok is false for
// any other location.
func locationRank(in string) (rank int, ok bool) {
	switch in {
	case InPath:
		return 0, true
	case InQuery:
		return 1, true
	case InHeader:
		return 2, true
	case InCookie:
		return 3, true
	}
	return 0, false
}

// ignoredHeader reports whether a header parameter (its name in lower case) is one OpenAPI
// says to ignore: the gateway sets it.
func ignoredHeader(name string) bool {
	return name == "accept" || name == "content-type" || name == "authorization"
}

var pathVarRE = lazy.Regexp{Expr: `\{([^{}/]+)\}`}

// param is a parameter after $ref resolution and merging.
type param struct {
	name     string
	in       string
	required bool
	obj      *jsvalue.Object
}

// toolBuilder accumulates the arguments of one tool.
type toolBuilder struct {
	props    *jsvalue.Object
	required []string
	mappings []Mapping
	argNames uniqueNames
}

func (b *toolBuilder) add(arg string, schema any, required bool, m Mapping) {
	b.props.Set(arg, schema)
	if required {
		b.required = append(b.required, arg)
	}
	m.Direct = arg
	b.mappings = append(b.mappings, m)
}

// importPath imports the operations of one path item and returns how many it held.
func (im *importer) importPath(path string, item any, server *Server) int {
	pi, err := deref(im.root, item)
	if err != nil {
		im.warnf("path %s skipped: %v", path, err)
		return 0
	}
	count := 0
	for key, opv := range pi.Range {
		if !isMethod(key) {
			continue
		}
		count++
		method := strings.ToUpper(key)
		op, ok := opv.(*jsvalue.Object)
		if !ok {
			im.warnf("%s %s skipped: the operation is %s, expected an object", method, path, describe(opv))
			continue
		}
		if !im.keep(method, path, op) {
			im.filtered++
			if len(im.leftOut) < maxLeftOutShown {
				name := method + " " + path
				if id := getStr(op, "operationId"); id != "" {
					name = id + " (" + name + ")"
				}
				im.leftOut = append(im.leftOut, name)
			}
			continue
		}
		if t := im.importOperation(path, method, pi, op); t != nil {
			server.Tools = append(server.Tools, t)
		}
	}
	return count
}

// importOperation builds one tool, or returns nil after a warning.
func (im *importer) importOperation(path, method string, pathItem, op *jsvalue.Object) *Tool {
	label := method + " " + path
	if id := getStr(op, "operationId"); id != "" {
		label += " (" + id + ")"
	}
	if !strings.HasPrefix(path, "/") {
		im.warnf("%s skipped: the path does not start with '/'", label)
		return nil
	}
	conv := newSchemaConverter(im.root, im.version)
	b := &toolBuilder{props: jsvalue.NewObject(0), argNames: uniqueNames{}}

	params := im.mergeParams(label, getList(pathItem, "parameters"), getList(op, "parameters"))
	templateVars := pathVarRE.Get().FindAllStringSubmatch(path, -1)
	declared := map[string]bool{}
	for _, p := range params {
		if p.in == InPath {
			declared[p.name] = true
		}
	}
	inTemplate := map[string]bool{}
	for _, m := range templateVars {
		inTemplate[m[1]] = true
		if !declared[m[1]] {
			im.warnf("%s: path parameter {%s} is not declared; added as a required string argument", label, m[1])
			params = append(params, param{name: m[1], in: InPath, required: true, obj: jsvalue.NewObject(0)})
			declared[m[1]] = true
		}
	}
	slices.SortStableFunc(params, func(a, b param) int {
		ra, _ := locationRank(a.in)
		rb, _ := locationRank(b.in)
		return ra - rb
	})

	for _, p := range params {
		if p.in == InPath && !inTemplate[p.name] {
			im.warnf("%s: path parameter %q does not appear in the path; ignored", label, p.name)
			continue
		}
		if p.in == InHeader && ignoredHeader(strings.ToLower(p.name)) {
			if strings.EqualFold(p.name, "Authorization") {
				im.warnf("%s: the Authorization header parameter is not an argument; configure it on the server with headers: {Authorization: secret:NAME}", label)
			}
			continue
		}
		argName := sanitizeName(p.name)
		if p.in == InHeader || p.in == InCookie {
			argName = headerArgName(p.name)
		}
		if argName == "" {
			argName = p.in
		}
		if b.argNames[argName] {
			renamed := b.argNames.claim(p.in + "_" + argName)
			im.warnf("%s: %s parameter %q clashes with another argument named %q; renamed to %q", label, p.in, p.name, argName, renamed)
			argName = renamed
		} else {
			b.argNames.claim(argName)
		}
		b.add(argName, im.paramSchema(label, conv, p), p.required || p.in == InPath, Mapping{Field: p.name, In: p.in})
	}

	body, ok := im.requestBody(label, conv, op, b)
	if !ok {
		return nil
	}
	im.noteSecurity(op)
	if op.Has("callbacks") {
		im.warnf("%s: callbacks are not imported", label)
	}
	servers := getList(op, "servers")
	if len(servers) == 0 {
		servers = getList(pathItem, "servers")
	}
	if len(servers) > 0 {
		srv, _ := servers[0].(*jsvalue.Object)
		if u := im.serverURL(srv); u != im.base {
			im.warnf("%s: the operation is served from %s, not base_url; the tool calls base_url", label, u)
		}
	}
	if len(conv.truncated) > 0 {
		im.warnf("%s: argument schema simplified: %s", label, strings.Join(conv.truncated, "; "))
	}
	if len(conv.unresolved) > 0 {
		im.warnf("%s: unresolved $ref %s replaced by an unconstrained schema", label, strings.Join(conv.unresolved, ", "))
	}
	if len(conv.badDefaults) > 0 {
		im.warnf("%s: dropped %d default value(s) that contradict their own schema (e.g. %s)", label, len(conv.badDefaults), truncateText(conv.badDefaults[0], 80))
	}
	if len(conv.badPatterns) > 0 {
		im.warnf("%s: dropped %d pattern(s) that are not valid Go/RE2 regular expressions (e.g. %q)", label, len(conv.badPatterns), truncateText(conv.badPatterns[0], 80))
	}

	schema := jsvalue.NewObject(0)
	schema.Set("type", "object")
	schema.Set("properties", b.props)
	if len(b.required) > 0 {
		schema.Set("required", anyStrings(b.required))
	}
	name := sanitizeName(getStr(op, "operationId"))
	if name == "" {
		name = pathToolName(method, path)
	}
	return &Tool{
		Name:        im.names.claim(name),
		Description: toolDescription(method, path, op),
		InputSchema: schema,
		Method:      method,
		Path:        path,
		Body:        body,
		Mappings:    b.mappings,
	}
}

// toolDescription joins summary and description, bounded; falls back to "METHOD /path".
func toolDescription(method, path string, op *jsvalue.Object) string {
	summary := strings.TrimSpace(getStr(op, "summary"))
	desc := strings.TrimSpace(getStr(op, "description"))
	var text string
	switch {
	case summary != "" && desc != "" && !strings.HasPrefix(desc, summary):
		text = summary + "\n\n" + desc
	case desc != "":
		text = desc
	case summary != "":
		text = summary
	default:
		text = method + " " + path
	}
	if getBool(op, "deprecated") {
		text = "Deprecated. " + text
	}
	return truncateText(text, maxToolDescLen)
}

// mergeParams resolves path-level and operation-level parameters; an operation parameter
// replaces a path-level one with the same name and location.
func (im *importer) mergeParams(label string, pathLevel, opLevel []any) []param {
	var out []param
	add := func(raw any, override bool) {
		o, err := deref(im.root, raw)
		if err != nil {
			im.warnf("%s: parameter skipped: %v", label, err)
			return
		}
		p := param{name: getStr(o, "name"), in: getStr(o, "in"), required: getBool(o, "required"), obj: o}
		if p.name == "" {
			im.warnf("%s: parameter without a name skipped", label)
			return
		}
		if _, ok := locationRank(p.in); !ok {
			im.warnf("%s: parameter %q has unsupported location %q; skipped", label, p.name, p.in)
			return
		}
		for i := range out {
			if out[i].name == p.name && out[i].in == p.in {
				if override {
					out[i] = p
				} else {
					im.warnf("%s: duplicate %s parameter %q; the first is used", label, p.in, p.name)
				}
				return
			}
		}
		out = append(out, p)
	}
	for _, raw := range pathLevel {
		add(raw, false)
	}
	n := len(out)
	for _, raw := range opLevel {
		// Within the operation's own list a duplicate is an error of the spec, not an override.
		dup := false
		if o, err := deref(im.root, raw); err == nil {
			for i := n; i < len(out); i++ {
				if out[i].name == getStr(o, "name") && out[i].in == getStr(o, "in") {
					dup = true
				}
			}
		}
		add(raw, !dup)
	}
	return out
}

// paramSchema converts a parameter's schema (or its content's schema), adding the
// parameter's description and deprecation.
func (im *importer) paramSchema(label string, conv *schemaConverter, p param) any {
	raw, ok := p.obj.Get("schema")
	if !ok {
		if content := getObj(p.obj, "content"); content.Len() > 0 {
			for _, mt := range content.Range {
				if mto, isObj := mt.(*jsvalue.Object); isObj {
					raw, ok = mto.Get("schema")
				}
				break
			}
			im.warnf("%s: parameter %q is described with content; its value is sent as given", label, p.name)
		}
	}
	var schema any = typeSchema("string")
	if ok {
		schema = conv.convert(raw, 0)
	}
	so, isObj := schema.(*jsvalue.Object)
	if !isObj {
		return schema
	}
	if getBool(so, "readOnly") {
		so.Delete("readOnly")
	}
	desc := strings.TrimSpace(getStr(p.obj, "description"))
	if desc != "" || getBool(p.obj, "deprecated") {
		// Copy before adding keys: the converted schema may be shared by a nullable wrapper.
		out := jsvalue.NewObject(0)
		for k, v := range so.Range {
			out.Set(k, v)
		}
		if desc != "" {
			out.Set("description", truncateText(desc, maxSchemaDescLen))
		}
		if getBool(p.obj, "deprecated") {
			out.Set("deprecated", true)
		}
		so = out
	}
	return so
}

// requestBody adds the body arguments and returns the tool's body kind. ok is false when the
// operation must be skipped (a required body that cannot be expressed).
func (im *importer) requestBody(label string, conv *schemaConverter, op *jsvalue.Object, b *toolBuilder) (kind string, ok bool) {
	raw, has := op.Get("requestBody")
	if !has {
		return "", true
	}
	rb, err := deref(im.root, raw)
	if err != nil {
		im.warnf("%s: request body ignored: %v", label, err)
		return "", true
	}
	required := getBool(rb, "required")
	content := getObj(rb, "content")
	var mediaType string
	var media *jsvalue.Object
	for mt, v := range content.Range {
		base := strings.ToLower(strings.TrimSpace(strings.SplitN(mt, ";", 2)[0]))
		mo, _ := v.(*jsvalue.Object)
		switch {
		case base == "application/json" || strings.HasSuffix(base, "+json"):
			if kind != "json" {
				kind, mediaType, media = "json", mt, mo
			}
		case base == "application/x-www-form-urlencoded":
			if kind == "" {
				kind, mediaType, media = "form", mt, mo
			}
		}
	}
	if kind == "" {
		types := content.Keys()
		if required {
			im.warnf("%s skipped: its required request body uses %s, which the http backend cannot send (supported: application/json, application/x-www-form-urlencoded)", label, strings.Join(types, ", "))
			return "", false
		}
		if len(types) > 0 {
			im.warnf("%s: optional request body (%s) not supported; the tool sends no body", label, strings.Join(types, ", "))
		}
		return "", true
	}
	var schema any = jsvalue.NewObject(0)
	if s, has := media.Get("schema"); has {
		schema = conv.convert(s, 0)
	}
	so, _ := schema.(*jsvalue.Object)
	if props := getObj(so, "properties"); props.Len() > 0 && (getStr(so, "type") == "object" || !so.Has("type")) &&
		!so.Has("oneOf") && !so.Has("anyOf") && !hasDottedKey(props, kind) {
		reqProps := listOfStrings(getAny(so, "required"))
		var clashes []string
		if addl, has := so.Get("additionalProperties"); has && addl != false {
			im.warnf("%s: the %s body accepts extra properties; only the declared ones are arguments", label, mediaType)
		}
		for name, ps := range props.Range {
			argName := sanitizeName(name)
			if argName == "" {
				argName = "field"
			}
			if b.argNames[argName] {
				renamed := b.argNames.claim("body_" + argName)
				clashes = append(clashes, fmt.Sprintf("%s → %s", name, renamed))
				argName = renamed
			} else {
				b.argNames.claim(argName)
			}
			b.add(argName, ps, slices.Contains(reqProps, name), Mapping{Field: name, In: InBody})
		}
		if len(clashes) > 0 {
			im.warnf("%s: body properties clash with parameter arguments and were renamed: %s", label, strings.Join(clashes, ", "))
		}
		return kind, true
	}
	if kind == "form" && so != nil && so.Has("type") && getStr(so, "type") != "object" {
		if required {
			im.warnf("%s skipped: its form body is not an object", label)
			return "", false
		}
		im.warnf("%s: optional form body is not an object; the tool sends no body", label)
		return "", true
	}
	argName := b.argNames.claim("body")
	if argName != "body" {
		im.warnf("%s: the request body argument is named %q because %q is taken", label, argName, "body")
	}
	if so != nil && so.Len() == 0 {
		so.Set("description", "Request body ("+mediaType+")")
	}
	b.add(argName, schema, required, Mapping{Field: "", In: InBody})
	return kind, true
}

// hasDottedKey reports whether a JSON body has a property whose name contains '.', which a
// dotted body mapping would read as nesting.
func hasDottedKey(props *jsvalue.Object, kind string) bool {
	if kind != "json" {
		return false
	}
	for k := range props.Range {
		if strings.Contains(k, ".") {
			return true
		}
	}
	return false
}

// keep reports whether an operation passes the import's include/exclude patterns, matched
// against its operationId, its tags and "METHOD /path".
func (im *importer) keep(method, path string, op *jsvalue.Object) bool {
	if len(im.filter.Include) == 0 && len(im.filter.Exclude) == 0 {
		return true
	}
	names := []string{method + " " + path}
	if id := getStr(op, "operationId"); id != "" {
		names = append(names, id)
	}
	if tags, ok := op.Get("tags"); ok {
		if list, ok := tags.([]any); ok {
			for _, t := range list {
				if s, ok := t.(string); ok {
					names = append(names, s)
				}
			}
		}
	}
	return im.filter.Keep(names...)
}
