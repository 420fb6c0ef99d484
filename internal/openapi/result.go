package openapi

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// Result is an imported server definition plus what the importer could not carry over.
type Result struct {
	// Filtered counts the operations Options.Include/Exclude left out.
	Filtered int
	// Name is the server's name: the key under `servers:` in the generated config.
	Name string
	// Server is the generated `kind: http` server definition.
	Server *Server
	// Warnings lists skipped operations, unsupported features and security schemes that
	// need a secret, each naming the operation or scheme concerned. Deterministic order.
	Warnings []string
	// Operations is the number of operations found in the document (each became a tool or
	// has a warning saying why not).
	Operations int
}

// Server is the config of a `kind: http` server.
type Server struct {
	// Kind is always "http".
	Kind string
	// Description describes the API for agents and the HTML pages.
	Description string
	// BaseURL is prefixed to every tool's path.
	BaseURL string
	// Tools are in document order (see the package documentation).
	Tools []*Tool
	// Notes are written as comments above the server in YAML output (for example how to
	// supply the credentials a security scheme needs). They are not part of the config.
	Notes []string
}

// Tool is one HTTP operation exposed as an MCP tool.
type Tool struct {
	// Name is the tool name, unique within the server.
	Name string
	// Description tells the model what the tool does.
	Description string
	// InputSchema is a JSON Schema of type object describing the arguments.
	InputSchema *jsvalue.Object
	// Method is the HTTP method in upper case.
	Method string
	// Path is the request path, with {name} placeholders filled by `in: path` mappings.
	Path string
	// Body is "json", "form" (application/x-www-form-urlencoded) or "" (no body).
	Body string
	// Mappings place each argument in the request.
	Mappings []Mapping
}

// Mapping places one tool argument into the HTTP request.
//
// Field is the API-side name: a path placeholder, query parameter, header or cookie name,
// or for `in: body` a dotted path into the JSON body ("note.title"). An empty Field with
// `in: body` means the argument is the whole request body (used for bodies that are not an
// object with properties, such as arrays).
type Mapping struct {
	Field  string
	In     string // path, query, header, cookie or body
	Direct string // the tool argument the value comes from
}

// Locations a mapping can place a value in.
const (
	InPath   = "path"
	InQuery  = "query"
	InHeader = "header"
	InCookie = "cookie"
	InBody   = "body"
)

// node builds the ordered config tree of the server.
func (s *Server) node() *jsvalue.Object {
	o := jsvalue.NewObject(0)
	o.Set("kind", s.Kind)
	if s.Description != "" {
		o.Set("description", s.Description)
	}
	o.Set("base_url", s.BaseURL)
	tools := jsvalue.NewObject(0)
	for _, t := range s.Tools {
		tools.Set(t.Name, t.node())
	}
	o.Set("tools", tools)
	return o
}

func (t *Tool) node() *jsvalue.Object {
	o := jsvalue.NewObject(0)
	o.Set("description", t.Description)
	o.Set("inputSchema", t.InputSchema)
	o.Set("method", t.Method)
	o.Set("path", t.Path)
	if t.Body != "" {
		o.Set("body", t.Body)
	}
	maps := make([]any, 0, len(t.Mappings))
	for _, m := range t.Mappings {
		mo := jsvalue.NewObject(0)
		mo.Set("field", m.Field)
		mo.Set("in", m.In)
		mo.Set("direct", m.Direct)
		maps = append(maps, mo)
	}
	if len(maps) > 0 {
		o.Set("mappings", maps)
	}
	return o
}

// Document returns the full config document {servers: {NAME: server}} as an ordered tree.
func (r *Result) Document() *jsvalue.Object {
	servers := jsvalue.NewObject(0)
	servers.Set(r.Name, r.Server.node())
	doc := jsvalue.NewObject(0)
	doc.Set("servers", servers)
	return doc
}

// YAML renders the full config document `servers: {NAME: {...}}`. Server notes (credentials
// to configure) become comments above the server.
//
// Each tool is encoded on its own and indented into place: yaml.v3 keeps every event of a
// document in memory, so encoding thousands of tools as one document costs far more memory
// and time than encoding them one by one. Shifting a block-style YAML fragment right by a
// constant indentation does not change its meaning.
func (r *Result) YAML() ([]byte, error) {
	head := r.Document()
	server := getObj(getObj(head, "servers"), r.Name)
	server.Set("tools", jsvalue.NewObject(0)) // placeholder, rendered as "tools: {}" and replaced below
	root := yamlNode(head)
	if len(r.Server.Notes) > 0 {
		root.Content[1].Content[0].HeadComment = strings.Join(r.Server.Notes, "\n")
	}
	var buf bytes.Buffer
	if err := encodeYAML(&buf, root); err != nil {
		return nil, fmt.Errorf("encoding server %s as YAML: %w", r.Name, err)
	}
	if len(r.Server.Tools) == 0 {
		return buf.Bytes(), nil
	}
	const placeholder = "    tools: {}\n"
	if !bytes.HasSuffix(buf.Bytes(), []byte(placeholder)) {
		return nil, fmt.Errorf("encoding server %s as YAML: unexpected layout", r.Name)
	}
	buf.Truncate(buf.Len() - len(placeholder))
	buf.WriteString("    tools:\n")
	var one bytes.Buffer
	for _, t := range r.Server.Tools {
		one.Reset()
		entry := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{strNode(t.Name), t.yamlNode()}}
		if err := encodeYAML(&one, entry); err != nil {
			return nil, fmt.Errorf("encoding tool %s as YAML: %w", t.Name, err)
		}
		for line := range bytes.Lines(one.Bytes()) {
			if len(bytes.TrimSpace(line)) > 0 {
				buf.WriteString("      ")
			}
			buf.Write(line)
		}
	}
	return buf.Bytes(), nil
}

func encodeYAML(buf *bytes.Buffer, n *yaml.Node) error {
	enc := yaml.NewEncoder(buf)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{n}}); err != nil {
		return err
	}
	return enc.Close()
}

// yamlNode renders a tool with each mapping entry on one line ({field: id, in: path, direct: id}).
func (t *Tool) yamlNode() *yaml.Node {
	n := yamlNode(t.node())
	for k := 0; k+1 < len(n.Content); k += 2 {
		if n.Content[k].Value == "mappings" {
			for _, m := range n.Content[k+1].Content {
				m.Style = yaml.FlowStyle
			}
		}
	}
	return n
}

// JSON renders the same document as YAML() in JSON, keys in the same order.
func (r *Result) JSON() ([]byte, error) {
	return appendJSON(nil, r.Document()), nil
}

// MarshalYAML encodes the server as its config mapping, keys in config order.
func (s *Server) MarshalYAML() (any, error) {
	n := yamlNode(s.node())
	for k := 0; k+1 < len(n.Content); k += 2 {
		if n.Content[k].Value == "tools" {
			for j, t := range s.Tools {
				n.Content[k+1].Content[2*j+1] = t.yamlNode()
			}
		}
	}
	return n, nil
}

// MarshalJSON encodes the server as its config object, keys in config order.
func (s *Server) MarshalJSON() ([]byte, error) { return appendJSON(nil, s.node()), nil }

// MarshalYAML encodes the tool as its config mapping (without its name, which is the key).
func (t *Tool) MarshalYAML() (any, error) { return t.yamlNode(), nil }

// MarshalJSON encodes the tool as its config object (without its name, which is the key).
func (t *Tool) MarshalJSON() ([]byte, error) { return appendJSON(nil, t.node()), nil }
