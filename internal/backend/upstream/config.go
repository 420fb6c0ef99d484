package upstream

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/safehttp"
	"github.com/mcpbridge/mcpbridge/internal/secret"
	"github.com/mcpbridge/mcpbridge/internal/transform"
)

// Defaults of the kind.
const (
	// DefaultTimeout bounds one call to an upstream (tools/call, resources/read, ...).
	DefaultTimeout = 60 * time.Second
	// DefaultStartTimeout bounds starting an upstream: the child process or the HTTP
	// connection, and the MCP handshake.
	DefaultStartTimeout = 30 * time.Second
	// DefaultIdleTimeout is how long a per-session upstream connection (and its child) is
	// kept without calls before it is closed.
	DefaultIdleTimeout = 5 * time.Minute
	// DefaultMaxSessions bounds the per-session upstream connections of one upstream.
	DefaultMaxSessions = 64
	// DefaultMaxResponseBytes bounds one message from an upstream (a JSON response body, a
	// server-sent event, a line on a child's stdout): a longer one fails the request and
	// ends the connection.
	DefaultMaxResponseBytes = 16 << 20
	// Separator joins an upstream's prefix and the name of one of its tools or prompts:
	// github__create_issue.
	Separator = "__"
)

// Isolation modes.
const (
	PerSession = "per-session"
	Shared     = "shared"
)

func init() {
	backend.Register(backend.Kind{
		Name:         "mcp",
		ServerFields: append(backend.FieldsOf(serverSection{}), transform.Fields...),
		Decode:       decode,
	})
}

// source is how to reach one upstream MCP server and how to use it. The single form of a
// server definition is one source; upstreams: is a list of them, each with a name.
type source struct {
	Name            string            `yaml:"name"`
	Command         []string          `yaml:"command"`
	URL             string            `yaml:"url"`
	Transport       string            `yaml:"transport"`
	Env             map[string]string `yaml:"env"`
	Headers         map[string]string `yaml:"headers"`
	Workdir         string            `yaml:"workdir"`
	ProtocolVersion string            `yaml:"protocol_version"`
	Isolation       string            `yaml:"isolation"`
	IdleTimeout     time.Duration     `yaml:"idle_timeout"`
	Timeout         time.Duration     `yaml:"timeout"`
	StartTimeout    time.Duration     `yaml:"start_timeout"`
	MaxSessions     int               `yaml:"max_sessions"`
	// MaxResponseBytes bounds one message from the upstream (DefaultMaxResponseBytes).
	MaxResponseBytes int               `yaml:"max_response_bytes"`
	Descriptions     map[string]string `yaml:"descriptions"`

	// path is the field path of the source relative to the server ("" for the single
	// form, "upstreams[1]" in a list), for located problems.
	path string
	// prefix is put before the source's tool and prompt names ("" for none).
	prefix string
}

// serverSection is the mcp kind's part of a server definition: the single form (the fields
// of one source, plus prefix), or upstreams: a list of named sources. isolation, timeouts
// and max_sessions given beside upstreams are defaults for each of them.
type serverSection struct {
	Command          []string          `yaml:"command"`
	URL              string            `yaml:"url"`
	Transport        string            `yaml:"transport"`
	Env              map[string]string `yaml:"env"`
	Headers          map[string]string `yaml:"headers"`
	Workdir          string            `yaml:"workdir"`
	ProtocolVersion  string            `yaml:"protocol_version"`
	Isolation        string            `yaml:"isolation"`
	IdleTimeout      time.Duration     `yaml:"idle_timeout"`
	Timeout          time.Duration     `yaml:"timeout"`
	StartTimeout     time.Duration     `yaml:"start_timeout"`
	MaxSessions      int               `yaml:"max_sessions"`
	MaxResponseBytes int               `yaml:"max_response_bytes"`
	Descriptions     map[string]string `yaml:"descriptions"`
	Prefix           prefixField       `yaml:"prefix"`
	Upstreams        []source          `yaml:"upstreams"`
}

// prefixField is prefix: true (the server's name), false, or a prefix of one's choosing.
type prefixField struct {
	set   bool
	value string // "" with set: true means the server's name
	off   bool
}

// UnmarshalNode accepts a boolean or a string.
func (p *prefixField) UnmarshalNode(d *config.Decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode {
		d.Errorf(n, path, "expected true, false or a prefix such as gh, got %s", config.KindName(n))
		return
	}
	if n.Tag == "!!bool" {
		var b bool
		_ = n.Decode(&b)
		*p = prefixField{set: b, off: !b}
		return
	}
	*p = prefixField{set: true, value: n.Value}
	if n.Value == "" {
		d.Errorf(n, path, "an empty prefix; write prefix: false for none")
	}
}

// spec is a decoded and checked mcp server, ready to open.
type spec struct {
	server  *config.Server
	sources []*source
	// refs name the transforms of the server's resources and prompts.
	refs transform.Refs
}

var (
	envName = lazy.Regexp{Expr: `^[A-Za-z_][A-Za-z0-9_]*$`}
	// prefixName is an upstream name or prefix: it becomes part of tool names, so it uses
	// their characters, and it cannot contain the separator, so a prefixed name splits in
	// one way only.
	prefixName = lazy.Regexp{Expr: `^[A-Za-z0-9][A-Za-z0-9.-]*(_[A-Za-z0-9.-]+)*$`}
)

var protocolVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

func decode(s *config.Server) (backend.Spec, config.Problems) {
	sec := s.Section
	var conf serverSection
	refs, rest, ps := transform.Decode(sec, "resources", "prompts")
	ps = append(ps, rest.Decode(&conf)...)
	sp := &spec{server: s, refs: refs}
	if refs.Refresh > 0 {
		ps = append(ps, sec.Problem("transform_refresh", "transform_refresh is not available on kind mcp: its transforms run when the server opens"))
	}
	add := func(path, format string, args ...any) { ps = append(ps, sec.Problem(path, format, args...)) }

	for _, name := range s.ToolNames() {
		add("tools."+name, "a server of kind mcp takes its tools from the upstream server; use descriptions to change a tool's description, and tools_include or tools_exclude to choose tools")
		break
	}
	defaults := source{
		Isolation: conf.Isolation, IdleTimeout: conf.IdleTimeout, Timeout: conf.Timeout,
		StartTimeout: conf.StartTimeout, MaxSessions: conf.MaxSessions, MaxResponseBytes: conf.MaxResponseBytes,
	}
	if len(conf.Upstreams) > 0 || sec.Has("upstreams") {
		for _, f := range []string{"command", "url", "transport", "env", "headers", "workdir", "protocol_version", "descriptions", "prefix"} {
			if sec.Has(f) {
				add(f, "%s belongs in each entry of upstreams when upstreams is given", f)
			}
		}
		if len(conf.Upstreams) == 0 {
			add("upstreams", "upstreams is empty; list at least one upstream server")
		}
		seen := map[string]int{}
		for i := range conf.Upstreams {
			u := &conf.Upstreams[i]
			u.path = fmt.Sprintf("upstreams[%d]", i)
			switch {
			case u.Name == "":
				add(u.path, "missing name: each upstream needs a name, which prefixes its tools (name__tool)")
			case !prefixName.Get().MatchString(u.Name):
				add(u.path+".name", "%q cannot prefix tool names: use letters, digits, '.', '-' and single '_'", u.Name)
			case seen[u.Name] > 0:
				add(u.path+".name", "upstream %q is named twice (also upstreams[%d])", u.Name, seen[u.Name]-1)
			default:
				seen[u.Name] = i + 1
			}
			u.prefix = u.Name
			ps = append(ps, checkSource(sec, u)...)
			inherit(u, defaults)
			sp.sources = append(sp.sources, u)
		}
		ps = append(ps, checkIsolation(sec, "", defaults)...)
		return sp, ps
	}
	u := &source{
		Command: conf.Command, URL: conf.URL, Transport: conf.Transport, Env: conf.Env, Headers: conf.Headers,
		Workdir: conf.Workdir, ProtocolVersion: conf.ProtocolVersion, Descriptions: conf.Descriptions,
	}
	inherit(u, defaults) // the defaults are this source's own fields
	if conf.Prefix.set {
		u.prefix = conf.Prefix.value
		if u.prefix == "" {
			u.prefix = s.Name
		}
		if !prefixName.Get().MatchString(u.prefix) {
			add("prefix", "%q cannot prefix tool names: use letters, digits, '.', '-' and single '_' (write prefix: NAME)", u.prefix)
		}
	}
	ps = append(ps, checkSource(sec, u)...)
	sp.sources = []*source{u}
	return sp, ps
}

// inherit fills the unset fields of u from the server-level defaults, then the kind's.
func inherit(u *source, d source) {
	if u.Isolation == "" {
		u.Isolation = d.Isolation
	}
	if u.IdleTimeout == 0 {
		u.IdleTimeout = d.IdleTimeout
	}
	if u.Timeout == 0 {
		u.Timeout = d.Timeout
	}
	if u.StartTimeout == 0 {
		u.StartTimeout = d.StartTimeout
	}
	if u.MaxSessions == 0 {
		u.MaxSessions = d.MaxSessions
	}
	if u.MaxResponseBytes == 0 {
		u.MaxResponseBytes = d.MaxResponseBytes
	}
}

// checkSource checks one source; paths are relative to the server section.
func checkSource(sec config.Section, u *source) config.Problems {
	var ps config.Problems
	p := func(f string) string { return config.JoinPath(u.path, f) }
	add := func(path, format string, args ...any) { ps = append(ps, sec.Problem(path, format, args...)) }
	if u.MaxResponseBytes < 0 {
		add(p("max_response_bytes"), "must be a positive number of bytes (default %d, 16 MiB)", DefaultMaxResponseBytes)
	}
	switch {
	case len(u.Command) == 0 && u.URL == "":
		add(u.path, "give command (a program that speaks MCP on stdio, e.g. [npx, -y, @modelcontextprotocol/server-everything]) or url (a Streamable HTTP or SSE endpoint)")
	case len(u.Command) > 0 && u.URL != "":
		add(p("url"), "give command or url, not both")
	}
	if len(u.Command) > 0 {
		if u.Command[0] == "" {
			add(p("command[0]"), "the program is empty")
		} else {
			ps = append(ps, checkProgram(sec, p("command[0]"), u.Command[0])...)
		}
		for i, a := range u.Command {
			if strings.ContainsRune(a, 0) {
				add(p(fmt.Sprintf("command[%d]", i)), "contains a NUL character")
			}
		}
		if len(u.Headers) > 0 {
			add(p("headers"), "headers are sent to a url; a command gets env instead")
		}
		switch u.Transport {
		case "", "stdio":
		default:
			add(p("transport"), "a command speaks stdio; transport %q is for url", u.Transport)
		}
	}
	if u.URL != "" {
		if pu, err := url.Parse(u.URL); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			got := u.URL
			if strings.Contains(got, "@") {
				got = "a URL with credentials"
			}
			add(p("url"), "expected an http or https URL such as http://127.0.0.1:9000/mcp, got %q", got)
		} else if pu.User != nil {
			add(p("url"), "credentials in the URL would be logged; send them in headers (Authorization: secret:NAME)")
		}
		if len(u.Env) > 0 {
			add(p("env"), "env is for a command's process; a url gets headers instead")
		}
		if u.Workdir != "" {
			add(p("workdir"), "workdir is for a command")
		}
		switch u.Transport {
		case "", "streamable", "sse":
		default:
			add(p("transport"), "transport must be streamable or sse (default: streamable, falling back to sse), got %q", u.Transport)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(u.Env)) {
		if !envName.Get().MatchString(k) {
			add(p("env."+k), "not a valid environment variable name")
		} else if strings.ContainsRune(u.Env[k], 0) {
			add(p("env."+k), "the value contains a NUL character")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(u.Headers)) {
		v := u.Headers[k]
		switch {
		case !safehttp.ValidToken(k):
			add(p("headers."+k), "%q is not a valid header name", k)
		case reservedHeader(k):
			add(p("headers."+k), "this header is set by the MCP transport and cannot be configured")
		case !secret.IsRef(v) && !safehttp.ValidHeaderValue(v):
			add(p("headers."+k), "the value contains a control character (a line break?)")
		case strings.EqualFold(k, "Authorization") && !secret.IsRef(v):
			ps = append(ps, sec.Warning(p("headers."+k), "a credential written in the config; reference it instead (secret:NAME, env:NAME or file:PATH)"))
		}
	}
	if u.ProtocolVersion != "" && !slices.Contains(protocolVersions, u.ProtocolVersion) {
		add(p("protocol_version"), "unknown protocol version %q; known: %s", u.ProtocolVersion, strings.Join(protocolVersions, ", "))
	}
	ps = append(ps, checkIsolation(sec, u.path, *u)...)
	for _, k := range slices.Sorted(maps.Keys(u.Descriptions)) {
		if k == "" {
			add(p("descriptions"), "a description for a tool without a name")
		} else if strings.TrimSpace(u.Descriptions[k]) == "" {
			add(p("descriptions."+k), "an empty description; remove the entry to keep the upstream's")
		}
	}
	return ps
}

// checkIsolation checks the isolation fields of u, found at path.
func checkIsolation(sec config.Section, path string, u source) config.Problems {
	var ps config.Problems
	switch u.Isolation {
	case "", PerSession, Shared:
	default:
		ps = append(ps, sec.Problem(config.JoinPath(path, "isolation"), "isolation must be per-session or shared, got %q", u.Isolation))
	}
	if u.MaxSessions < 0 {
		ps = append(ps, sec.Problem(config.JoinPath(path, "max_sessions"), "must not be negative"))
	}
	return ps
}

// checkProgram warns when the program is not found: it may be installed later.
func checkProgram(sec config.Section, path, name string) config.Problems {
	if strings.ContainsRune(name, '/') {
		if filepath.IsAbs(name) {
			if _, err := os.Stat(name); err != nil {
				return config.Problems{sec.Warning(path, "the program %s does not exist; the server cannot start until it does", name)}
			}
		}
		return nil
	}
	if _, err := exec.LookPath(name); err != nil {
		return config.Problems{sec.Warning(path, "the program %q is not on PATH; the server cannot start until it is installed", name)}
	}
	return nil
}

// Check resolves every secret reference in env and headers, so a missing one is reported
// by `mcpbridge check` and the admin API before the server is served.
func (sp *spec) Check(deps backend.Deps) config.Problems {
	var ps config.Problems
	sec := sp.server.Section
	check := func(path, ref string) {
		ps = append(ps, backend.CheckRef(deps, sec, path, ref)...)
	}
	for _, u := range sp.sources {
		for _, k := range slices.Sorted(maps.Keys(u.Env)) {
			check(config.JoinPath(u.path, "env."+k), u.Env[k])
		}
		for _, k := range slices.Sorted(maps.Keys(u.Headers)) {
			check(config.JoinPath(u.path, "headers."+k), u.Headers[k])
		}
	}
	return ps
}

// ToolNames says the upstream's tools are known only when it starts.
func (sp *spec) ToolNames(backend.Deps) ([]string, bool) { return nil, false }

// reservedHeader reports the headers the HTTP and MCP transports set themselves.
func reservedHeader(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Host", "Content-Length", "Content-Type", "Accept", "Transfer-Encoding", "Connection",
		"Mcp-Session-Id", "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name", "Last-Event-Id":
		return true
	}
	return false
}
