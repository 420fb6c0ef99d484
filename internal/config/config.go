// Package config is mcpbridge's configuration: the YAML model, strict decoding that reports
// every problem with FILE:LINE:COL and the field path, defaults, and validation.
//
// A configuration has a top level of listen, trusted_proxies, store, origins, variables,
// limits, admin and servers. Each server has a kind (command, http, ...), a description, an
// enabled flag, and tools, resources and prompts. The JSON form of a server definition (used by the admin
// API and the database) is decoded by the same rules.
package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
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

	DefaultSessions             = 1000
	DefaultSessionsPerClient    = 100
	DefaultSessionIdle          = 30 * time.Minute
	DefaultConcurrentCalls      = 32
	DefaultCallQueueWait        = 2 * time.Second
	DefaultConnectionsPerClient = 64
	DefaultHeaderTimeout        = 10 * time.Second
	DefaultReadTimeout          = 30 * time.Second
	DefaultIdleTimeout          = 60 * time.Second

	DefaultAuditRetention = 30 * 24 * time.Hour
	DefaultAuditSpillMax  = 1 << 30
)

// The headers a trusted proxy may name the client in (Config.ProxyHeader).
const (
	HeaderXForwardedFor = "X-Forwarded-For"
	HeaderForwarded     = "Forwarded"
)

// TrustedNets parses TrustedProxies: each entry is a CIDR (10.0.0.0/8) or one address
// (a /32 or /128). The config's validation has reported the entries that are neither.
func (c *Config) TrustedNets() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range c.TrustedProxies {
		if p, ok := parseProxy(s); ok {
			out = append(out, p)
		}
	}
	return out
}

func parseProxy(s string) (netip.Prefix, bool) {
	s = strings.TrimSpace(s)
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), true
	}
	if a, err := netip.ParseAddr(s); err == nil {
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), true
	}
	return netip.Prefix{}, false
}

// ClientHeader is the canonical name of the header trusted proxies name the client in:
// ProxyHeader, X-Forwarded-For by default.
func (c *Config) ClientHeader() string {
	if strings.EqualFold(c.ProxyHeader, HeaderForwarded) {
		return HeaderForwarded
	}
	return HeaderXForwardedFor
}

// NamePattern is what a server name must match: it becomes a URL path segment. It is
// compiled on first use (NamePattern.Get()).
var NamePattern = lazy.Regexp{Expr: `^[a-z0-9][a-z0-9_-]{0,62}$`}

// ToolNamePattern is what a tool name must match (MCP's recommended tool name
// characters). It is compiled on first use (ToolNamePattern.Get()).
var ToolNamePattern = lazy.Regexp{Expr: `^[A-Za-z0-9_.-]{1,128}$`}

// reserved names cannot be server names because they are routes of their own.
var reserved = map[string]bool{"meta": true}

// Config is a whole mcpbridge configuration.
type Config struct {
	Listen string `yaml:"listen"`
	// TrustedProxies are the addresses (CIDRs, or single IPs) of the reverse proxies in
	// front of the gateway: from them, and only from them, ProxyHeader says who the client
	// is (for per-client limits, session caps and the audit log).
	TrustedProxies []string `yaml:"trusted_proxies"`
	// ProxyHeader is the header a trusted proxy adds the client's address to:
	// X-Forwarded-For (the default) or Forwarded (RFC 7239). The other one is ignored.
	ProxyHeader string             `yaml:"proxy_header"`
	Store       string             `yaml:"store"`
	Origins     []string           `yaml:"origins"`
	Variables   map[string]any     `yaml:"variables"`
	Limits      Limits             `yaml:"limits"`
	Audit       Audit              `yaml:"audit"`
	Admin       Admin              `yaml:"admin"`
	Auth        *Auth              `yaml:"auth"`
	Servers     map[string]*Server `yaml:"servers"`

	// Path is the file the configuration was read from ("" for an embedded example).
	Path string `yaml:"-"`
	// Dir is the directory file resources are confined to.
	Dir string `yaml:"-"`
	// Warnings are problems that do not make the configuration invalid, in source order.
	Warnings Problems `yaml:"-"`
}

// Limits bound what clients may send, hold and start. A zero field takes its default
// (the Default* constants); a negative one is a config error.
type Limits struct {
	MaxBody     int64         `yaml:"max_body"`     // request body bytes; default 4 MiB
	PageSize    int           `yaml:"page_size"`    // items per list page; default 100
	DrainPeriod time.Duration `yaml:"drain_period"` // how long shutdown waits for in-flight calls; default 15s

	// Legacy-era MCP sessions (Streamable HTTP with Mcp-Session-Id, and HTTP+SSE streams)
	// live in memory: how many may be open in all, how many from one client address, and
	// how long an idle one is kept.
	Sessions          int           `yaml:"sessions"`            // default 1000
	SessionsPerClient int           `yaml:"sessions_per_client"` // default 100
	SessionIdle       time.Duration `yaml:"session_idle"`        // default 30m

	// Tool calls running at once on one server (a JSON-RPC batch counts call by call), and
	// how long a call waits for a free slot before it is answered "busy, retry".
	ConcurrentCalls int           `yaml:"concurrent_calls"` // default 32
	CallQueueWait   time.Duration `yaml:"call_queue_wait"`  // default 2s

	// Client connections: open in all (zero: half the process's open-file limit, at most
	// 4096) and from one client address.
	Connections          int `yaml:"connections"`
	ConnectionsPerClient int `yaml:"connections_per_client"` // default 64

	// Rate limits the requests one caller, and all callers together, send to a server
	// (token buckets; see Rate). Off unless set; servers may override it.
	Rate Rate `yaml:"rate"`
	// ConcurrentCallsPerPrincipal bounds the tool calls one caller runs at once, on all
	// servers together; zero means no bound.
	ConcurrentCallsPerPrincipal int `yaml:"concurrent_calls_per_principal"`
	// CallTimeout bounds how long one tool call may run; zero means no bound beyond the
	// kind's own (a command's timeout). Servers may override it.
	CallTimeout time.Duration `yaml:"call_timeout"`

	HeaderTimeout time.Duration `yaml:"header_timeout"` // to read a request's headers; default 10s
	ReadTimeout   time.Duration `yaml:"read_timeout"`   // to read a whole request, body included; default 30s
	IdleTimeout   time.Duration `yaml:"idle_timeout"`   // a keep-alive connection without a request is closed; default 60s
}

// negative names (by YAML key) the limits set below zero.
func (l Limits) negative() []string {
	var names []string
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"max_body", l.MaxBody}, {"page_size", int64(l.PageSize)}, {"drain_period", int64(l.DrainPeriod)},
		{"sessions", int64(l.Sessions)}, {"sessions_per_client", int64(l.SessionsPerClient)}, {"session_idle", int64(l.SessionIdle)},
		{"concurrent_calls", int64(l.ConcurrentCalls)}, {"call_queue_wait", int64(l.CallQueueWait)},
		{"connections", int64(l.Connections)}, {"connections_per_client", int64(l.ConnectionsPerClient)},
		{"concurrent_calls_per_principal", int64(l.ConcurrentCallsPerPrincipal)}, {"call_timeout", int64(l.CallTimeout)},
		{"header_timeout", int64(l.HeaderTimeout)}, {"read_timeout", int64(l.ReadTimeout)}, {"idle_timeout", int64(l.IdleTimeout)},
	} {
		if f.v < 0 {
			names = append(names, f.name)
		}
	}
	return names
}

// SetDefaults fills the zero limits with their defaults (Connections stays zero: its
// default depends on the process and is worked out where connections are accepted). Parse
// calls it; it is idempotent.
func (l *Limits) SetDefaults() {
	orDefault(&l.MaxBody, DefaultMaxBody)
	orDefault(&l.PageSize, DefaultPageSize)
	orDefault(&l.DrainPeriod, DefaultDrainPeriod)
	orDefault(&l.Sessions, DefaultSessions)
	orDefault(&l.SessionsPerClient, DefaultSessionsPerClient)
	orDefault(&l.SessionIdle, DefaultSessionIdle)
	orDefault(&l.ConcurrentCalls, DefaultConcurrentCalls)
	orDefault(&l.CallQueueWait, DefaultCallQueueWait)
	orDefault(&l.ConnectionsPerClient, DefaultConnectionsPerClient)
	orDefault(&l.HeaderTimeout, DefaultHeaderTimeout)
	orDefault(&l.ReadTimeout, DefaultReadTimeout)
	orDefault(&l.IdleTimeout, DefaultIdleTimeout)
}

func orDefault[T int | int64 | time.Duration](v *T, d T) {
	if *v == 0 {
		*v = d
	}
}

// Audit configures the audit log: one row per tool call (who, what, how long, how it ended)
// in the store.
type Audit struct {
	// Retention is how long rows are kept: serve deletes older ones every few minutes.
	// Zero takes DefaultAuditRetention (30 days).
	Retention time.Duration `yaml:"retention"`
	// SpillDir is where rows the store does not take (it is down) are kept, synced, until it
	// takes them again. Empty takes DefaultSpillDir in mcpbridge serve and stdio (a
	// gateway made in code spills nowhere unless told); "off" keeps them in memory only.
	SpillDir string `yaml:"spill_dir"`
	// SpillMax bounds the spill file, in bytes; zero takes DefaultAuditSpillMax (1 GiB).
	SpillMax int64 `yaml:"spill_max"`
	// Required refuses tool calls (503 with Retry-After) while their rows can be kept
	// neither in the store nor in the spill file.
	Required bool `yaml:"required"`
}

// DefaultSpillDir is the default audit.spill_dir: mcpbridge in the user's state directory
// ($XDG_STATE_HOME, else ~/.local/state), never the current folder; "" when neither is
// known (rows are then kept in memory only).
func DefaultSpillDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "mcpbridge")
	}
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", "mcpbridge")
	}
	return ""
}

// ServerAudit is what a server's audit rows record beyond the common fields.
type ServerAudit struct {
	// Arguments records each call's argument values (fields whose name looks like a
	// secret are masked); off by default, when rows carry no arguments.
	Arguments bool `yaml:"arguments"`
}

// Admin configures the admin API.
type Admin struct {
	Keys []string `yaml:"keys"` // secret references (env:NAME, file:PATH, secret:NAME)
}

// Server is one exposed MCP server: the fields common to every kind, and the kind's own
// section, which the kind decodes (see Kinds).
type Server struct {
	Kind        string               `yaml:"kind"`
	Title       string               `yaml:"title"`
	Description string               `yaml:"description"`
	Enabled     *bool                `yaml:"enabled"`
	Tools       map[string]*Tool     `yaml:"tools"`
	Resources   map[string]*Resource `yaml:"resources"`
	Prompts     map[string]*Prompt   `yaml:"prompts"`
	// ToolsInclude and ToolsExclude filter the tools the server offers by name, with *
	// globs: only tools matching an include pattern (when there are any) and no exclude
	// pattern are served.
	ToolsInclude []string `yaml:"tools_include"`
	ToolsExclude []string `yaml:"tools_exclude"`
	// Auth says who may use the server; nil takes the default (see Config.ServerRule).
	Auth *ServerAuth `yaml:"auth"`
	// Audit says what the server's audit rows record; nil records no arguments.
	Audit *ServerAudit `yaml:"audit"`
	// Limits are the server's own rate limit and call timeout, over the top-level limits.
	Limits *ServerLimits `yaml:"limits"`

	// Section holds the server-level fields of the kind, undecoded.
	Section Section `yaml:"-"`
	// Spec is the kind's decoded definition, set by Kinds.Decode.
	Spec any `yaml:"-"`

	// Name is the server's key in servers.
	Name string `yaml:"-"`
	// Source says where the definition came from: "file" or "store".
	Source string `yaml:"-"`
}

// Digest identifies the server's definition as written: two definitions with the same digest
// are the same (a reload keeps such a server running untouched).
func (s *Server) Digest() string {
	if s.Section.Anchor == nil {
		return ""
	}
	b, err := yaml.Marshal(s.Section.Anchor)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ServerRule is who may use server s: its own auth, else, when the config has an auth
// section, any authenticated principal, else anyone.
func (c *Config) ServerRule(s *Server) (public bool, roles []string) {
	switch {
	case s != nil && s.Auth != nil:
		return s.Auth.Public, s.Auth.Roles
	case c.Auth != nil:
		return false, nil
	}
	return true, nil
}

// Filter returns the server's tool filter.
func (s *Server) Filter() ToolFilter {
	return ToolFilter{Include: s.ToolsInclude, Exclude: s.ToolsExclude}
}

// IsEnabled reports whether the server is served (enabled defaults to true).
func (s *Server) IsEnabled() bool { return s.Enabled == nil || *s.Enabled }

// ToolNames returns the tool names in sorted order.
func (s *Server) ToolNames() []string { return slices.Sorted(maps.Keys(s.Tools)) }

// ResourceNames returns the resource keys in sorted order.
func (s *Server) ResourceNames() []string { return slices.Sorted(maps.Keys(s.Resources)) }

// PromptNames returns the prompt names in sorted order.
func (s *Server) PromptNames() []string { return slices.Sorted(maps.Keys(s.Prompts)) }

// ServerNames returns the server names in sorted order.
func (c *Config) ServerNames() []string { return slices.Sorted(maps.Keys(c.Servers)) }

// Tool is one tool of a server: the fields common to every kind, and the kind's section.
type Tool struct {
	Title        string         `yaml:"title"`
	Description  string         `yaml:"description"`
	InputSchema  map[string]any `yaml:"inputSchema"`
	OutputSchema map[string]any `yaml:"outputSchema"`
	Annotations  *Annotations   `yaml:"annotations"`
	// Roles, when not empty, limit the tool to principals with at least one of them: others
	// do not see it in tools/list and cannot call it.
	Roles []string `yaml:"roles"`

	// Section holds the tool's kind-specific fields, undecoded.
	Section Section `yaml:"-"`
}

// Annotations are hints about a tool's behaviour, passed to clients as they are.
type Annotations struct {
	Title           string `yaml:"title"`
	ReadOnlyHint    *bool  `yaml:"readOnlyHint"`
	DestructiveHint *bool  `yaml:"destructiveHint"`
	IdempotentHint  *bool  `yaml:"idempotentHint"`
	OpenWorldHint   *bool  `yaml:"openWorldHint"`
}

// Resource is a readable resource: inline text, a file, base64 data, or content derived from
// its URI (cid://, variable://, server://).
type Resource struct {
	URI string `yaml:"uri"`
	// URITemplate (RFC 6570), instead of URI, makes the resource a template: a file
	// path with the same {variables}, or a server://SERVER/TOOL{?arg} template whose
	// variables become the tool's arguments.
	URITemplate string  `yaml:"uri_template"`
	Name        string  `yaml:"name"`
	Title       string  `yaml:"title"`
	Description string  `yaml:"description"`
	MimeType    string  `yaml:"mimeType"`
	Text        *string `yaml:"text"`
	File        string  `yaml:"file"`
	Blob        []byte  `yaml:"blob"`
	// Roles, when not empty, limit the resource (or template) to principals with at least
	// one of them: others do not see it in resources/list (resources/templates/list) and
	// cannot read it, as for a tool's roles.
	Roles []string `yaml:"roles"`
}

// Prompt is a prompt template.
type Prompt struct {
	Title       string           `yaml:"title"`
	Description string           `yaml:"description"`
	Arguments   []PromptArgument `yaml:"arguments"`
	Messages    []PromptMessage  `yaml:"messages"`
	// Roles, when not empty, limit the prompt to principals with at least one of them:
	// others do not see it in prompts/list and cannot get it, as for a tool's roles.
	Roles []string `yaml:"roles"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Required    bool   `yaml:"required"`
	// Values are offered to clients that complete the argument (completion/complete).
	Values []string `yaml:"values"`
}

// PromptMessage is one message of a prompt: text (which may contain {{argument}}
// placeholders), an embedded resource of the server, or an image file.
type PromptMessage struct {
	Role string `yaml:"role"`
	// Exactly one of Text, Resource and Image.
	Text string `yaml:"text"`
	// Resource is the URI of one of the server's resources, embedded in the message.
	Resource string `yaml:"resource"`
	// Image is a file inside the config's directory, sent as image content.
	Image string `yaml:"image"`
}

// Load reads and validates the configuration file at path; kinds decodes each server's
// kind section.
func Load(path string, kinds Kinds) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	return Parse(path, filepath.Dir(abs), data, kinds)
}

// Parse decodes and validates configuration data. file names the source in problems; dir is
// the directory relative paths (file resources, workdir) are resolved against; kinds decodes
// each server's kind section. Every problem found is returned, in source order.
func Parse(file, dir string, data []byte, kinds Kinds) (*Config, error) {
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
	c.applyDefaults()
	ps, warnings := splitWarnings(append(d.Problems, c.validate(file, &root, kinds)...))
	if len(ps) > 0 {
		return nil, append(ps, warnings...).Sorted()
	}
	c.Warnings = warnings.Sorted()
	return c, nil
}

// ParseServer decodes one server definition in its JSON (or YAML) form, as stored in the
// database or sent to the admin API, and validates it. label names the source in problems.
func ParseServer(label, name string, data []byte, kinds Kinds) (*Server, error) {
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
	s.Name = name
	s.Source = "store"
	c := &Config{Servers: map[string]*Server{name: s}}
	c.applyDefaults()
	ps := d.Problems
	if len(ps) == 0 {
		ps = validateServer(label, name, s, "", kinds)
		locate(&root, ps)
	}
	ps, _ = splitWarnings(ps)
	if len(ps) > 0 {
		return nil, ps.Sorted()
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
	c.Limits.SetDefaults()
	orDefault(&c.Audit.Retention, DefaultAuditRetention)
	orDefault(&c.Audit.SpillMax, DefaultAuditSpillMax)
	c.Auth.setDefaults()
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

// splitWarnings separates warnings from problems.
func splitWarnings(all Problems) (problems, warnings Problems) {
	for _, p := range all {
		if p.Warning {
			warnings = append(warnings, p)
		} else {
			problems = append(problems, p)
		}
	}
	return problems, warnings
}

// Digest identifies a JSON-like value (for comparing two versions of a setting).
func Digest(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
