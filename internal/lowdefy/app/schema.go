package app

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// schema is the subset of JSON Schema that Lowdefy's lowdefySchema.js (4.0.0-rc.11) uses.
type schema struct {
	types    []kind             // allowed kinds; empty means any
	props    map[string]*schema // known keys (a nil value means any value)
	closed   bool               // additionalProperties: false
	required []string
	items    *schema // array items
	values   *schema // patternProperties '^.*$'
	// anyOf alternatives; choose picks the branch whose errors are reported when none match.
	anyOf  []*schema
	choose func(n *node) int
	what   string // what the value is, for messages ("block", "action", ...)
}

func obj(what string, closed bool, required []string, props map[string]*schema) *schema {
	return &schema{types: []kind{kindMap}, closed: closed, required: required, props: props, what: what}
}

var (
	anyValue  = &schema{}
	strValue  = &schema{types: []kind{kindString}}
	boolValue = &schema{types: []kind{kindBool}}
	numValue  = &schema{types: []kind{kindNumber}}
	objValue  = &schema{types: []kind{kindMap}}
	strList   = &schema{types: []kind{kindList}, items: strValue}
)

func arrayOf(s *schema) *schema { return &schema{types: []kind{kindList}, items: s} }

// appSchema is lowdefySchema.js translated to Go, plus the late-v4 top-level keys `api`,
// `modules` and `logger`, which are accepted but only shallowly checked. It is built on
// first use.
var appSchema = lazy.Value[*schema]{New: func() *schema {
	action := obj("action", true, []string{"id", "type"}, map[string]*schema{
		"async": boolValue, "id": strValue, "messages": anyValue, "params": anyValue,
		"skip": anyValue, "type": strValue,
	})
	request := obj("request", true, []string{"id", "type", "connectionId"}, map[string]*schema{
		"id": strValue, "type": strValue, "connectionId": strValue, "payload": objValue,
		"properties": objValue,
	})
	block := obj("block", true, []string{"id", "type"}, nil)
	tryCatch := obj("event", true, nil, map[string]*schema{
		"try": arrayOf(action), "catch": arrayOf(action),
		"debounce": obj("debounce", true, nil, map[string]*schema{"immediate": boolValue, "ms": numValue}),
	})
	event := &schema{anyOf: []*schema{arrayOf(action), tryCatch}, choose: func(n *node) int {
		if n.kind == kindMap {
			return 1
		}
		return 0
	}, what: "event (an array of actions or an object with try and catch)"}
	area := &schema{types: []kind{kindMap}, props: map[string]*schema{"blocks": arrayOf(block)}, what: "area"}
	// mcpbridge: a block's (or page's) annotation for the generated MCP tools.
	blockMCP := obj("block mcp annotation", true, nil, map[string]*schema{
		"exclude": boolValue, "toolName": strValue, "description": strValue,
	})
	block.props = map[string]*schema{
		"id": strValue, "type": strValue, "field": strValue, "properties": objValue,
		"layout": objValue, "skeleton": objValue, "style": objValue, "visible": anyValue,
		"loading": anyValue, "blocks": arrayOf(block), "requests": arrayOf(request),
		"required": anyValue, "validate": arrayOf(objValue),
		"events": {types: []kind{kindMap}, values: event},
		"areas":  {types: []kind{kindMap}, values: area},
		"mcp":    blockMCP,
	}
	authPlugin := obj("auth plugin", false, []string{"id", "type"}, map[string]*schema{
		"id": strValue, "type": strValue, "properties": objValue,
	})
	authConfig := obj("auth", true, nil, map[string]*schema{
		"advanced": obj("auth.advanced", false, nil, map[string]*schema{"cookies": objValue}),
		"adapter":  authPlugin,
		"authPages": obj("auth.authPages", true, nil, map[string]*schema{
			"signIn": strValue, "signOut": strValue, "error": strValue, "verifyRequest": strValue, "newUser": strValue,
		}),
		"callbacks": arrayOf(authPlugin),
		"debug":     boolValue,
		"events":    arrayOf(authPlugin),
		"pages": obj("auth.pages", true, nil, map[string]*schema{
			"protected": {types: []kind{kindList, kindBool}, items: strValue},
			"public":    {types: []kind{kindList, kindBool}, items: strValue},
			"roles":     {types: []kind{kindMap}, values: strList},
		}),
		"providers":  arrayOf(authPlugin),
		"session":    objValue,
		"theme":      objValue,
		"userFields": objValue,
		"api":        anyValue, // late v4
		"dev":        anyValue, // late v4
	})
	menuLink := obj("menu link", true, []string{"id", "type"}, map[string]*schema{
		"id": strValue, "type": strValue, "pageId": strValue, "url": strValue, "properties": objValue,
		"urlQuery": anyValue, "input": anyValue, // late v4 (documented MenuLink fields)
	})
	menuGroup := obj("menu group", true, []string{"id", "type"}, map[string]*schema{
		"id": strValue, "type": strValue, "properties": objValue,
	})
	menuItem := &schema{anyOf: []*schema{menuGroup, menuLink}, choose: func(n *node) int {
		if t := n.get("type"); t != nil && t.kind == kindString && t.str == "MenuGroup" {
			return 0
		}
		return 1
	}, what: "menu item"}
	menuGroup.props["links"] = arrayOf(menuItem)
	menu := obj("menu", true, []string{"id"}, map[string]*schema{
		"id": strValue, "properties": objValue, "links": arrayOf(menuItem),
	})
	connection := obj("connection", true, []string{"id", "type"}, map[string]*schema{
		"id": strValue, "type": strValue, "properties": objValue,
	})
	plugin := obj("plugin", true, []string{"name", "version"}, map[string]*schema{
		"name": strValue, "version": strValue, "typePrefix": strValue,
	})
	endpoint := obj("api endpoint", false, []string{"id", "type"}, map[string]*schema{
		"id": strValue, "type": strValue,
		// mcpbridge: the endpoint's generated tool (api_{id}).
		"mcp": obj("endpoint mcp annotation", true, nil, map[string]*schema{
			"exclude": boolValue, "toolName": strValue, "description": strValue, "inputSchema": objValue,
		}),
	})
	// mcpbridge's own section: the limits of work sessions and the generated tools and
	// resources (see docs/lowdefy-mcp.md).
	mcpSection := obj("settings section", true, nil, map[string]*schema{
		"enabled":  boolValue,
		"limits":   objValue,
		"timeZone": strValue,
		"tools": {types: []kind{kindMap}, what: "map of tool name to override", values: obj("tool override", true, nil, map[string]*schema{
			"description": strValue, "enabled": boolValue, "confirm": boolValue,
		})},
		"resources": {types: []kind{kindMap}, what: "map of resource name to settings", values: obj("resource setting", true, nil, map[string]*schema{
			"description": strValue, "enabled": boolValue, "page": strValue, "requests": strList,
		})},
	})
	return obj("app", true, []string{"lowdefy"}, map[string]*schema{
		"name": strValue, "lowdefy": strValue, "license": strValue, "version": strValue,
		"app": obj("app", true, nil, map[string]*schema{
			"html": obj("app.html", false, nil, map[string]*schema{"appendBody": strValue, "appendHead": strValue}),
		}),
		"auth": authConfig,
		"cli":  objValue,
		"config": obj("config", true, nil, map[string]*schema{
			"basePath": strValue, "homePageId": strValue,
		}),
		"plugins":     arrayOf(plugin),
		"global":      objValue,
		"connections": arrayOf(connection),
		"menus":       arrayOf(menu),
		"pages":       arrayOf(block),
		"api":         arrayOf(endpoint),
		"modules":     arrayOf(objValue),
		"logger":      objValue,
		"mcp":         mcpSection, // mcpbridge: the app's MCP settings (limits, tools, resources)
	})
}}

var identRE = lazy.Regexp{Expr: `^[A-Za-z_$][A-Za-z0-9_$]*$`}

func joinPath(path, key string) string {
	if !identRE.Get().MatchString(key) {
		key = strconv.Quote(key)
		return path + "[" + key + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func indexPath(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// validate checks n against s, appending a Problem (with the node's source position and
// field path) for every violation.
func validate(n *node, s *schema, path string, out *[]Problem) {
	if s == nil || n == nil {
		return
	}
	if len(s.anyOf) > 0 {
		var branches [][]Problem
		for _, alt := range s.anyOf {
			var ps []Problem
			validate(n, alt, path, &ps)
			if len(ps) == 0 {
				return
			}
			branches = append(branches, ps)
		}
		*out = append(*out, branches[s.choose(n)]...)
		return
	}
	if len(s.types) > 0 && !hasKind(s.types, n.kind) {
		names := make([]string, len(s.types))
		for i, k := range s.types {
			names[i] = k.String()
		}
		what := strings.Join(names, " or ")
		if s.what != "" {
			what += " (" + s.what + ")"
		}
		*out = append(*out, problemAt(n.pos, path, "must be %s, got %s", what, describe(n)))
		return
	}
	switch n.kind {
	case kindMap:
		for _, r := range s.required {
			if !n.has(r) {
				*out = append(*out, problemAt(n.pos, path, "%s is missing required key %q", article(s.what), r))
			}
		}
		for _, f := range n.fields {
			sub, known := s.props[f.key]
			p := joinPath(path, f.key)
			switch {
			case known:
				validate(f.val, sub, p, out)
			case s.values != nil:
				validate(f.val, s.values, p, out)
			case s.closed:
				*out = append(*out, problemAt(f.keyPos, p, "unknown key %q in %s (allowed: %s)", f.key, article(s.what), strings.Join(keysOf(s.props), ", ")))
			}
		}
	case kindList:
		if s.items != nil {
			for i, it := range n.items {
				validate(it, s.items, indexPath(path, i), out)
			}
		}
	}
}

func hasKind(ks []kind, k kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

func keysOf(m map[string]*schema) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func article(what string) string {
	if what == "" {
		return "object"
	}
	if strings.ContainsRune("aeiou", rune(what[0])) {
		return "an " + what
	}
	return "a " + what
}

// describe names a value's type and, for short scalars, the value itself.
func describe(n *node) string {
	switch n.kind {
	case kindString:
		s := n.str
		if len(s) > 40 {
			s = s[:40] + "…"
		}
		return fmt.Sprintf("string %q", s)
	case kindNumber:
		return "number " + jsvalue.NumberToString(n.num)
	case kindBool:
		return fmt.Sprintf("boolean %v", n.b)
	}
	return n.kind.String()
}
