package httpapi

import (
	"fmt"
	"maps"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/expr"
	"github.com/mcpbridge/mcpbridge/internal/safehttp"
	"github.com/mcpbridge/mcpbridge/internal/transform"
)

func init() {
	backend.Register(backend.Kind{
		Name:         "http",
		ServerFields: append(backend.FieldsOf(serverSection{}), transform.Fields...),
		ToolFields:   backend.FieldsOf(toolSection{}),
		Decode:       decode,
	})
}

// serverSection is the http kind's part of a server definition.
type serverSection struct {
	BaseURL      string            `yaml:"base_url"`
	Headers      map[string]string `yaml:"headers"`
	AllowPrivate bool              `yaml:"allow_private"`
	AllowHosts   []string          `yaml:"allow_hosts"`
	Timeout      time.Duration     `yaml:"timeout"`
}

// toolSection is the http kind's part of a tool definition.
type toolSection struct {
	Method       string            `yaml:"method"`
	Path         string            `yaml:"path"`
	Body         string            `yaml:"body"`
	Mappings     []Mapping         `yaml:"mappings"`
	StaticFields map[string]any    `yaml:"static_fields"`
	Response     *Response         `yaml:"response"`
	Headers      map[string]string `yaml:"headers"`
	Timeout      time.Duration     `yaml:"timeout"`
	MaxOutput    int64             `yaml:"max_output"`

	// programs are the compiled mapping expressions (by mapping index) and response
	// expression, compiled once when the definition is decoded.
	programs map[int]*expr.Program
	response *expr.Program
}

// Mapping fills one field of an HTTP request from a tool argument, a constant or an
// expression.
type Mapping struct {
	Field      string `yaml:"field"`
	In         string `yaml:"in"`
	Direct     string `yaml:"direct"`
	Constant   any    `yaml:"constant"`
	Expression string `yaml:"expression"`

	// HasConstant says constant was given (it may be null).
	HasConstant bool `yaml:"-"`
}

// UnmarshalNode decodes a mapping and remembers whether constant was given.
func (m *Mapping) UnmarshalNode(d *config.Decoder, n *yaml.Node, path string) {
	type plain Mapping
	var p plain
	d.Decode(n, &p, path)
	*m = Mapping(p)
	m.Constant = config.Normalize(m.Constant)
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

// spec is a decoded and checked http server, ready to open.
type spec struct {
	server *config.Server
	conf   serverSection
	base   *url.URL
	tools  map[string]*toolSection
	// refs name the transforms of the server.
	refs transform.Refs
}

var mappingIn = map[string]bool{"path": true, "query": true, "header": true, "cookie": true, "body": true}

func decode(s *config.Server) (backend.Spec, config.Problems) {
	sp := &spec{server: s, tools: map[string]*toolSection{}}
	sec := s.Section
	refs, rest, ps := transform.Decode(sec, "tools", "resources", "prompts")
	sp.refs = refs
	ps = append(ps, rest.Decode(&sp.conf)...)
	if sp.conf.BaseURL == "" {
		ps = append(ps, sec.Problem("base_url", "missing base_url, e.g. https://api.example.com"))
	} else if u, err := url.Parse(sp.conf.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		got := sp.conf.BaseURL
		if strings.Contains(got, "@") {
			got = "a URL with credentials" // never echo user:password
		}
		ps = append(ps, sec.Problem("base_url", "expected an http or https URL such as https://api.example.com, got %q", got))
	} else {
		sp.base = u
		if msg := PrivateBaseHint(u, sp.conf.AllowPrivate, sp.conf.AllowHosts); msg != "" {
			ps = append(ps, sec.Warning("base_url", "%s", msg))
		}
	}
	ps = append(ps, checkHeaders(sec, sp.conf.Headers)...)
	for _, name := range s.ToolNames() {
		t := s.Tools[name]
		if t == nil {
			continue
		}
		ts := &toolSection{}
		tsec := t.Section
		ps = append(ps, tsec.Decode(ts)...)
		ps = append(ps, checkTool(tsec, name, t, ts)...)
		sp.tools[name] = ts
	}
	return sp, ps
}

func checkHeaders(sec config.Section, hs map[string]string) config.Problems {
	var ps config.Problems
	keys := slices.Sorted(maps.Keys(hs))
	for _, k := range keys {
		switch {
		case !safehttp.ValidToken(k):
			ps = append(ps, sec.Problem("headers."+k, "%q is not a valid header name", k))
		case reservedHeader(k):
			ps = append(ps, sec.Problem("headers."+k, "this header is set by mcpbridge and cannot be configured"))
		case !isRef(hs[k]) && !safehttp.ValidHeaderValue(hs[k]):
			ps = append(ps, sec.Problem("headers."+k, "the value contains a control character (a line break?)"))
		}
	}
	return ps
}

// checkTool checks an http tool's section and compiles its expressions.
func checkTool(sec config.Section, name string, t *config.Tool, ts *toolSection) config.Problems {
	var ps config.Problems
	add := func(path, format string, args ...any) { ps = append(ps, sec.Problem(path, format, args...)) }
	switch strings.ToUpper(ts.Method) {
	case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS":
	case "":
		add("method", "missing method (GET, POST, PUT, PATCH or DELETE)")
	default:
		add("method", "unknown method %q", ts.Method)
	}
	if !strings.HasPrefix(ts.Path, "/") {
		add("path", "path must start with /, got %q", ts.Path)
	}
	switch ts.Body {
	case "", "json", "form":
	default:
		add("body", "body must be json or form, got %q", ts.Body)
	}
	if len(ts.StaticFields) > 0 && ts.Body == "" {
		add("static_fields", "need body: json or body: form on the tool")
	}
	if ts.MaxOutput < 0 {
		add("max_output", "must not be negative")
	}
	ps = append(ps, checkHeaders(sec, ts.Headers)...)
	props := config.SchemaProperties(t.InputSchema)
	pathParams := map[string]bool{}
	bodyFields := map[string]string{}
	ts.programs = map[int]*expr.Program{}
	for i, m := range ts.Mappings {
		mp := fmt.Sprintf("mappings[%d]", i)
		label := fmt.Sprintf("mappings[%d] (%s %s)", i, m.In, fieldLabel(m.In, m.Field))
		if !mappingIn[m.In] {
			add(mp+".in", "in must be one of path, query, header, cookie, body; got %q", m.In)
		}
		if m.Field == "" && m.In != "body" {
			add(mp+".field", "missing field")
		}
		n := 0
		if m.Direct != "" {
			n++
			if _, ok := props[m.Direct]; !ok {
				add(mp+".direct", "argument %q is not a property of inputSchema", m.Direct)
			}
		}
		if m.HasConstant {
			n++
		}
		if m.Expression != "" {
			n++
			p, err := expr.Compile(fmt.Sprintf("%s.mappings[%d]", name, i), m.Expression)
			if err != nil {
				add(mp+".expression", "%s", expr.Problem(err))
			} else {
				ts.programs[i] = p
			}
		}
		if n != 1 {
			add(mp, "give exactly one of direct, constant or expression")
		}
		switch m.In {
		case "path":
			pathParams[m.Field] = true
			if !strings.Contains(ts.Path, "{"+m.Field+"}") {
				add(mp+".field", "path %q has no {%s}", ts.Path, m.Field)
			}
		case "header", "cookie":
			if m.Field != "" && !safehttp.ValidToken(m.Field) {
				add(mp+".field", "%q is not a valid %s name", m.Field, m.In)
			} else if m.In == "header" && reservedHeader(m.Field) {
				add(mp+".field", "the %s header is set by mcpbridge and cannot be mapped", m.Field)
			}
		case "body":
			if ts.Body == "" {
				add(mp+".in", "a body mapping needs body: json or body: form on the tool")
			} else if ts.Body == "json" {
				if err := checkBodyField(bodyFields, m.Field, label); err != nil {
					add(mp+".field", "%v", err)
				}
			}
		}
	}
	if ts.Response != nil && ts.Response.Expression != "" {
		p, err := expr.Compile(name+".response", ts.Response.Expression)
		if err != nil {
			add("response.expression", "%s", expr.Problem(err))
		} else {
			ts.response = p
		}
	}
	for _, seg := range pathParam.Get().FindAllStringSubmatch(ts.Path, -1) {
		if !pathParams[seg[1]] {
			add("path", "path parameter {%s} has no mapping with in: path", seg[1])
		}
	}
	return ps
}

// PrivateBaseHint says, for a base URL that names a loopback or private address (or
// localhost) which the server does not allow, that every call would be refused and how to
// allow it; it returns "" otherwise. Host names that resolve to private addresses are only
// found at call time.
func PrivateBaseHint(u *url.URL, allowPrivate bool, allowHosts []string) string {
	host := u.Hostname()
	if allowPrivate || slices.Contains(allowHosts, host) {
		return ""
	}
	private := strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost")
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		private = ip.IsLoopback() || ip.IsPrivate()
	}
	if !private {
		return ""
	}
	return fmt.Sprintf("%s is a loopback or private address, which mcpbridge refuses by default (SSRF guard), so every call would fail; add allow_hosts: [%s] (or allow_private: true) to the server", host, host)
}
