package upstream

import (
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
)

// catalog merges the upstreams' catalogs: tool and prompt names get their upstream's
// prefix, descriptions are overridden, and what the gateway could not serve is left out
// with a warning in the log (a tool with an invalid name or input schema). A resource or
// template listed by two upstreams is served by the first.
func (b *Backend) catalog() *backend.Catalog {
	out := &backend.Catalog{}
	seenTool := map[string]bool{}
	seenRes := map[string]bool{}
	seenTmpl := map[string]bool{}
	seenPrompt := map[string]bool{}
	for _, u := range b.ups {
		u.catMu.RLock()
		cat := u.cat
		u.catMu.RUnlock()
		for _, t := range cat.tools {
			if t == nil {
				continue
			}
			name := u.exposed(t.Name)
			if seenTool[name] {
				continue
			}
			tool, why := u.tool(t, name)
			if tool == nil {
				u.log.Warn("leaving out an upstream tool the gateway cannot serve", "tool", t.Name, "reason", why)
				continue
			}
			seenTool[name] = true
			out.Tools = append(out.Tools, tool)
		}
		for _, r := range cat.resources {
			if r == nil || r.URI == "" || seenRes[r.URI] {
				continue
			}
			seenRes[r.URI] = true
			out.Resources = append(out.Resources, r)
		}
		for _, t := range cat.templates {
			if t == nil || t.URITemplate == "" || seenTmpl[t.URITemplate] {
				continue
			}
			seenTmpl[t.URITemplate] = true
			out.Templates = append(out.Templates, t)
		}
		for _, p := range cat.prompts {
			if p == nil || p.Name == "" {
				continue
			}
			name := u.exposed(p.Name)
			if seenPrompt[name] {
				continue
			}
			seenPrompt[name] = true
			cp := *p
			cp.Name = name
			out.Prompts = append(out.Prompts, &cp)
		}
	}
	return out
}

// listedTool returns the tool named name (its name upstream) as u last listed it, or nil.
// A call over Streamable HTTP at 2026-07-28 sends the Mcp-Param-* headers its input
// schema asks for (x-mcp-header, SEP-2243); the session that makes the call may never
// have listed the tools itself.
func (u *upstream) listedTool(name string) *mcp.Tool {
	u.catMu.RLock()
	defer u.catMu.RUnlock()
	for _, t := range u.cat.tools {
		if t != nil && t.Name == name {
			return t
		}
	}
	return nil
}

// exposed returns the name a tool or prompt of u is served under.
func (u *upstream) exposed(name string) string {
	if u.src.prefix == "" {
		return name
	}
	return u.src.prefix + Separator + name
}

// route returns the upstream of a served tool or prompt name and the name upstream.
func (b *Backend) route(name string) (*upstream, string) {
	if len(b.ups) == 1 && b.ups[0].src.prefix == "" {
		return b.ups[0], name
	}
	prefix, rest, ok := strings.Cut(name, Separator)
	if !ok {
		return nil, ""
	}
	u := b.byName[prefix]
	if u == nil {
		return nil, ""
	}
	return u, rest
}

// resourceOwner returns the upstream that serves uri: the one that lists it, else the
// first whose template's fixed beginning matches it, else the first upstream.
func (b *Backend) resourceOwner(uri string) *upstream {
	var byTemplate *upstream
	best := -1
	for _, u := range b.ups {
		u.catMu.RLock()
		for _, r := range u.cat.resources {
			if r != nil && r.URI == uri {
				u.catMu.RUnlock()
				return u
			}
		}
		for _, t := range u.cat.templates {
			if t == nil {
				continue
			}
			lit, _, _ := strings.Cut(t.URITemplate, "{")
			if strings.HasPrefix(uri, lit) && len(lit) > best {
				byTemplate, best = u, len(lit)
			}
		}
		u.catMu.RUnlock()
	}
	if byTemplate != nil {
		return byTemplate
	}
	return b.ups[0]
}

// tool returns the tool as served: its name, its description (or the configured one),
// and an input schema the gateway can use; or nil and why it cannot be served.
func (u *upstream) tool(t *mcp.Tool, name string) (*mcp.Tool, string) {
	if !validToolName(name) {
		return nil, "its name (" + name + ") is not 1 to 128 letters, digits, '_', '-' or '.'"
	}
	schema, why := inputSchema(t.InputSchema)
	if schema == nil {
		return nil, why
	}
	cp := *t
	cp.Name = name
	cp.InputSchema = schema
	if d, ok := u.src.Descriptions[t.Name]; ok {
		cp.Description = d
	}
	return &cp, ""
}

// inputSchema returns the schema as a JSON object of type object that resolves, or nil
// and why not. A schema without a type gets type object (the spec requires it, and
// some servers leave it out).
func inputSchema(s any) (map[string]any, string) {
	var m map[string]any
	switch x := s.(type) {
	case nil:
		return map[string]any{"type": "object"}, ""
	case map[string]any:
		m = x
	default:
		data, err := json.Marshal(s)
		if err != nil {
			return nil, "its input schema cannot be encoded: " + err.Error()
		}
		if err := json.Unmarshal(data, &m); err != nil || m == nil {
			return nil, "its input schema is not a JSON object"
		}
	}
	if _, ok := m["type"]; !ok {
		c := make(map[string]any, len(m)+1)
		for k, v := range m {
			c[k] = v
		}
		c["type"] = "object"
		m = c
	}
	if m["type"] != "object" {
		return nil, `its input schema is not of type "object"`
	}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, "its input schema cannot be encoded: " + err.Error()
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(data, &js); err != nil {
		return nil, "its input schema is not valid: " + err.Error()
	}
	if _, err := js.Resolve(nil); err != nil {
		return nil, "its input schema is not valid: " + err.Error()
	}
	return m, ""
}

func validToolName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}
