// Package config is mcpbridge's configuration: the YAML model, strict decoding that reports
// every problem with FILE:LINE:COL and the field path, defaults, and validation.
//
// A configuration has a top level of listen, store, origins, variables, limits, admin and
// servers. Each server has a kind (command, http, ...), a description, an enabled flag,
// and tools, resources and prompts. The JSON form of a server definition (used by the admin
// API and the database) is decoded by the same rules.
package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"

	"go.yaml.in/yaml/v3"
)

// Defaults used when a field is not set.
const (
	DefaultListen      = "127.0.0.1:8080"
	DefaultTimeout     = 30 * time.Second
	DefaultMaxOutput   = 1 << 20
	DefaultMaxBody     = 4 << 20
	DefaultPageSize    = 100
	DefaultStoreFile   = "mcpbridge.db"
	DefaultDrainPeriod = 15 * time.Second
)

// NamePattern is what a server name must match: it becomes a URL path segment.
var NamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// ToolNamePattern is what a tool name must match (MCP's recommended tool name characters).
var ToolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// reserved names cannot be server names because they are routes of their own.
var reserved = map[string]bool{"meta": true}

// Config is a whole mcpbridge configuration.
type Config struct {
	Listen    string             `yaml:"listen"`
	Store     string             `yaml:"store"`
	Origins   []string           `yaml:"origins"`
	Variables map[string]any     `yaml:"variables"`
	Limits    Limits             `yaml:"limits"`
	Admin     Admin              `yaml:"admin"`
	Servers   map[string]*Server `yaml:"servers"`

	// Path is the file the configuration was read from ("" for an embedded example).
	Path string `yaml:"-"`
	// Dir is the directory file resources are confined to.
	Dir string `yaml:"-"`
}

// Limits bound what clients may send and receive.
type Limits struct {
	MaxBody     int64         `yaml:"max_body"`     // request body bytes; default 4 MiB
	PageSize    int           `yaml:"page_size"`    // items per list page; default 100
	DrainPeriod time.Duration `yaml:"drain_period"` // how long shutdown waits for in-flight calls; default 15s
}

// Admin configures the admin API.
type Admin struct {
	Keys []string `yaml:"keys"` // secret references (env:NAME, file:PATH, secret:NAME)
}

// Server is one exposed MCP server.
type Server struct {
	Kind         string               `yaml:"kind"`
	Title        string               `yaml:"title"`
	Description  string               `yaml:"description"`
	Enabled      *bool                `yaml:"enabled"`
	AutoDiscover bool                 `yaml:"auto_discover"`
	Tools        map[string]*Tool     `yaml:"tools"`
	Resources    map[string]*Resource `yaml:"resources"`
	Prompts      map[string]*Prompt   `yaml:"prompts"`

	// Fields of kind command at server level (auto_discover).
	Argv    []Arg          `yaml:"argv"`
	Env     map[string]Arg `yaml:"env"`
	Workdir string         `yaml:"workdir"`
	Timeout time.Duration  `yaml:"timeout"`
	// AllowOptions lets the auto_discover tool's args start with "-".
	AllowOptions bool `yaml:"allow_options"`

	// Fields of kind http.
	BaseURL      string            `yaml:"base_url"`
	Headers      map[string]string `yaml:"headers"`
	AllowPrivate bool              `yaml:"allow_private"`
	AllowHosts   []string          `yaml:"allow_hosts"`

	// Name is the server's key in servers.
	Name string `yaml:"-"`
	// Source says where the definition came from: "file" or "store".
	Source string `yaml:"-"`
}

// IsEnabled reports whether the server is served (enabled defaults to true).
func (s *Server) IsEnabled() bool { return s.Enabled == nil || *s.Enabled }

// ToolNames returns the tool names in sorted order.
func (s *Server) ToolNames() []string { return sortedKeys(s.Tools) }

// ResourceNames returns the resource keys in sorted order.
func (s *Server) ResourceNames() []string { return sortedKeys(s.Resources) }

// PromptNames returns the prompt names in sorted order.
func (s *Server) PromptNames() []string { return sortedKeys(s.Prompts) }

// ServerNames returns the server names in sorted order.
func (c *Config) ServerNames() []string { return sortedKeys(c.Servers) }

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Tool is one tool of a server. Which of the kind-specific fields apply depends on the
// server's kind.
type Tool struct {
	Title        string         `yaml:"title"`
	Description  string         `yaml:"description"`
	InputSchema  map[string]any `yaml:"inputSchema"`
	OutputSchema map[string]any `yaml:"outputSchema"`
	Annotations  *Annotations   `yaml:"annotations"`

	// kind command
	Argv      []Arg          `yaml:"argv"`
	Stdin     *Arg           `yaml:"stdin"`
	Env       map[string]Arg `yaml:"env"`
	Workdir   string         `yaml:"workdir"`
	Timeout   time.Duration  `yaml:"timeout"`
	MaxOutput int64          `yaml:"max_output"`

	// kind http
	Method       string            `yaml:"method"`
	Path         string            `yaml:"path"`
	Body         string            `yaml:"body"`
	Mappings     []Mapping         `yaml:"mappings"`
	StaticFields map[string]any    `yaml:"static_fields"`
	Response     *Response         `yaml:"response"`
	Headers      map[string]string `yaml:"headers"`

	// Node is where the tool was defined, for problems found after decoding.
	Node *yaml.Node `yaml:"-"`
}

// Annotations are hints about a tool's behaviour, passed to clients as they are.
type Annotations struct {
	Title           string `yaml:"title"`
	ReadOnlyHint    *bool  `yaml:"readOnlyHint"`
	DestructiveHint *bool  `yaml:"destructiveHint"`
	IdempotentHint  *bool  `yaml:"idempotentHint"`
	OpenWorldHint   *bool  `yaml:"openWorldHint"`
}

// Mapping fills one field of an HTTP request from a tool argument, a constant or an expression.
type Mapping struct {
	Field      string `yaml:"field"`
	In         string `yaml:"in"`
	Direct     string `yaml:"direct"`
	Constant   any    `yaml:"constant"`
	Expression string `yaml:"expression"`

	HasConstant bool       `yaml:"-"`
	Node        *yaml.Node `yaml:"-"`
}

// UnmarshalNode decodes a mapping and remembers whether constant was given (it may be null).
func (m *Mapping) UnmarshalNode(d *Decoder, n *yaml.Node, path string) {
	type plain Mapping
	var p plain
	d.decodeStruct(n, reflectValue(&p), path)
	*m = Mapping(p)
	m.Node = n
	if n.Kind == yaml.MappingNode {
		for i := 0; i < len(n.Content); i += 2 {
			if n.Content[i].Value == "constant" {
				m.HasConstant = true
			}
		}
	}
}

// Response shapes an HTTP response before it is returned.
type Response struct {
	Expression string `yaml:"expression"`
}

// Resource is a readable resource: inline text, a file, base64 data, or content derived from
// its URI (cid://, variable://, server://).
type Resource struct {
	URI         string  `yaml:"uri"`
	Name        string  `yaml:"name"`
	Title       string  `yaml:"title"`
	Description string  `yaml:"description"`
	MimeType    string  `yaml:"mimeType"`
	Text        *string `yaml:"text"`
	File        string  `yaml:"file"`
	Blob        []byte  `yaml:"blob"`
}

// Prompt is a prompt template.
type Prompt struct {
	Title       string           `yaml:"title"`
	Description string           `yaml:"description"`
	Arguments   []PromptArgument `yaml:"arguments"`
	Messages    []PromptMessage  `yaml:"messages"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Required    bool   `yaml:"required"`
}

// PromptMessage is one message of a prompt; Text may contain {{argument}} placeholders.
type PromptMessage struct {
	Role string `yaml:"role"`
	Text string `yaml:"text"`
}

// Load reads and validates the configuration file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	return Parse(path, filepath.Dir(abs), data)
}

// Parse decodes and validates configuration data. file names the source in problems; dir is
// the directory relative paths (file resources, workdir) are resolved against.
func Parse(file, dir string, data []byte) (*Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, Problems{yamlProblem(file, err)}
	}
	c := &Config{Path: file, Dir: dir}
	d := &Decoder{File: file}
	if len(root.Content) > 0 {
		d.Decode(&root, c, "")
	}
	for name, s := range c.Servers {
		if s == nil {
			continue
		}
		s.Name = name
		s.Source = "file"
	}
	if len(d.Problems) > 0 {
		return nil, d.Problems
	}
	c.applyDefaults()
	if ps := c.validate(file, &root); len(ps) > 0 {
		return nil, ps
	}
	return c, nil
}

// ParseServer decodes one server definition in its JSON (or YAML) form, as stored in the
// database or sent to the admin API, and validates it. label names the source in problems.
func ParseServer(label, name string, data []byte) (*Server, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, Problems{yamlProblem(label, err)}
	}
	s := &Server{}
	d := &Decoder{File: label}
	if len(root.Content) == 0 {
		return nil, Problems{{File: label, Msg: "empty server definition"}}
	}
	d.Decode(&root, s, "")
	if len(d.Problems) > 0 {
		return nil, d.Problems
	}
	s.Name = name
	s.Source = "store"
	c := &Config{Servers: map[string]*Server{name: s}}
	c.applyDefaults()
	ps := validateServer(label, name, s, "")
	if len(ps) > 0 {
		return nil, ps
	}
	return s, nil
}

func yamlProblem(file string, err error) Problem {
	msg := err.Error()
	var line int
	if _, e := fmt.Sscanf(msg, "yaml: line %d:", &line); e == nil {
		_, rest, _ := bytes.Cut([]byte(msg), []byte(": "))
		_, rest, _ = bytes.Cut(rest, []byte(": "))
		return Problem{File: file, Line: line, Column: 1, Msg: "invalid YAML: " + string(rest)}
	}
	return Problem{File: file, Msg: "invalid YAML: " + msg}
}

func (c *Config) applyDefaults() {
	if c.Limits.MaxBody == 0 {
		c.Limits.MaxBody = DefaultMaxBody
	}
	if c.Limits.PageSize == 0 {
		c.Limits.PageSize = DefaultPageSize
	}
	if c.Limits.DrainPeriod == 0 {
		c.Limits.DrainPeriod = DefaultDrainPeriod
	}
	for _, s := range c.Servers {
		if s == nil {
			continue
		}
		for _, t := range s.Tools {
			if t == nil {
				continue
			}
			if t.InputSchema == nil {
				t.InputSchema = map[string]any{"type": "object"}
			}
		}
	}
}
