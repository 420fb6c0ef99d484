// Package httpapi is the backend kind "http": tools that call HTTP APIs through declarative
// mappings (seed 003).
//
// Each tool names a method and a path under the server's base_url. Its mappings fill the
// fields of the request, each from a tool argument (direct), a constant, or a JavaScript
// expression (internal/expr) evaluated with the variables args (all arguments) and value (the
// argument named like the field, or like its last dotted segment), and place them in the path
// ({name} segments, URL-escaped), the query (arrays become repeated keys), a header, a cookie,
// or the body. JSON bodies are built structurally from dotted field paths (note.title), so
// JSON types are kept; field "" stands for the whole body. Form bodies are
// application/x-www-form-urlencoded. An argument that is absent or null is left out: no empty
// key is ever sent (use constant: null to send an explicit JSON null). static_fields are
// deep-merged into the body after the mappings.
//
// Header values and string constants may be secret references: secret:NAME (read from the
// environment variable MCPBRIDGE_SECRET_NAME), env:NAME or file:PATH. They are resolved when
// the backend opens, and their values are scrubbed from every result and error text.
//
// A 2xx JSON response becomes structuredContent (a non-object value is wrapped as
// {"result": value}, since MCP requires an object) plus its JSON text; other text stays text;
// binary content becomes an image (image/*) or an embedded resource blob; an empty body says
// so with the status. A 4xx/5xx becomes a tool error with the method, path, status and a body
// excerpt. An optional response expression (variables args and response = {status, headers,
// body}; body is the parsed JSON value, the text, or null when empty; header names are lower
// case) reshapes a 2xx JSON, text or empty response: a string result becomes text, anything
// else structured content plus its JSON text. Binary responses and errors are not reshaped.
//
// Requests go through internal/safehttp, which refuses link-local and metadata addresses
// always, and loopback/private addresses unless allow_private (or allow_hosts) says so. One
// client (one connection pool) is shared by every backend with the same policy.
package httpapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/expr"
)

func init() { backend.Register("http", Open) }

// Defaults of the kind.
const (
	// ExcerptSize bounds the body excerpt of an error result.
	ExcerptSize = 1 << 10
	// drainLimit is how much of an unread response body is discarded so the connection can
	// be reused; a longer rest closes the connection instead.
	drainLimit = 64 << 10
	userAgent  = "mcpbridge"
	// ExpressionTimeout bounds one evaluation of a mapping or response expression. It is
	// wall-clock time, so it is generous enough not to fire on a busy machine; an endless
	// loop is still stopped quickly.
	ExpressionTimeout = 500 * time.Millisecond
)

// exprLimits are the limits of every expression evaluation (memory: the engine's default).
var exprLimits = expr.Limits{Timeout: ExpressionTimeout}

// Backend serves the tools of one http server. It is safe for concurrent use.
type Backend struct {
	name   string
	tools  map[string]*tool
	list   []*mcp.Tool
	scrub  scrubber
	client *http.Client
}

type tool struct {
	name      string
	method    string
	path      string // the configured path template, e.g. /users/{id}
	base      *url.URL
	body      string // "json", "form" or ""
	mappings  []*mapping
	static    map[string]any
	response  *expr.Program
	headers   http.Header // server headers overridden by tool headers, secrets resolved
	secretHdr map[string]bool
	timeout   time.Duration
	maxOutput int64
}

type mapping struct {
	label       string // "mappings[2] (body field note.title)"
	field       string
	in          string
	direct      string
	constant    any
	hasConstant bool
	secret      bool // the constant was a secret reference
	prog        *expr.Program
	valueArg    []string // argument names tried for the expression variable value
}

// Open creates the backend of an http server: it resolves secrets, compiles every
// expression and prepares one request template per tool.
func Open(_ context.Context, s *config.Server, deps backend.Deps) (backend.Backend, error) {
	base, err := url.Parse(s.BaseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		got := s.BaseURL
		if strings.Contains(got, "@") {
			got = "a URL with credentials" // never echo user:password
		}
		return nil, fmt.Errorf("base_url: expected an http or https URL such as https://api.example.com, got %q", got)
	}
	sec := &secrets{dir: deps.Dir}
	serverHeaders, serverSecret, err := resolveHeaders(sec, "headers", s.Headers)
	if err != nil {
		return nil, err
	}
	b := &Backend{name: s.Name, tools: map[string]*tool{}}
	for _, name := range s.ToolNames() {
		ct := s.Tools[name]
		if ct == nil {
			return nil, fmt.Errorf("tools.%s: empty tool definition", name)
		}
		t, err := openTool(sec, s, base, name, ct, serverHeaders, serverSecret)
		if err != nil {
			return nil, fmt.Errorf("tools.%s: %w", name, err)
		}
		b.tools[name] = t
		b.list = append(b.list, backend.ToolFromConfig(name, ct))
	}
	b.scrub = newScrubber(sec.values)
	b.client = clientFor(policyOf(s))
	return b, nil
}

func resolveHeaders(sec *secrets, where string, hs map[string]string) (http.Header, map[string]bool, error) {
	out := http.Header{}
	secret := map[string]bool{}
	keys := make([]string, 0, len(hs))
	for k := range hs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !validToken(k) {
			return nil, nil, fmt.Errorf("%s: %q is not a valid header name", where, k)
		}
		if reservedHeader(k) {
			return nil, nil, fmt.Errorf("%s.%s: this header is set by mcpbridge and cannot be configured", where, k)
		}
		v, err := sec.resolve(where+"."+k, hs[k])
		if err != nil {
			return nil, nil, err
		}
		if !validHeaderValue(v) {
			return nil, nil, fmt.Errorf("%s.%s: the value contains a control character (a line break?)", where, k)
		}
		out.Set(k, v)
		if isRef(hs[k]) {
			secret[http.CanonicalHeaderKey(k)] = true
		}
	}
	return out, secret, nil
}

// reservedHeader reports headers that net/http computes itself.
func reservedHeader(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Host", "Content-Length", "Transfer-Encoding", "Trailer", "Connection":
		return true
	}
	return false
}

func openTool(sec *secrets, s *config.Server, base *url.URL, name string, ct *config.Tool, serverHeaders http.Header, serverSecret map[string]bool) (*tool, error) {
	t := &tool{
		name:      name,
		method:    strings.ToUpper(ct.Method),
		path:      ct.Path,
		base:      base,
		body:      ct.Body,
		static:    ct.StaticFields,
		timeout:   cmp.Or(ct.Timeout, s.Timeout, config.DefaultTimeout),
		maxOutput: ct.MaxOutput,
		headers:   serverHeaders.Clone(),
		secretHdr: map[string]bool{},
	}
	if t.maxOutput <= 0 {
		t.maxOutput = config.DefaultMaxOutput
	}
	if t.method == "" {
		return nil, fmt.Errorf("method: missing (GET, POST, PUT, PATCH or DELETE)")
	}
	if !strings.HasPrefix(t.path, "/") {
		return nil, fmt.Errorf("path: must start with /, got %q", t.path)
	}
	switch t.body {
	case "", "json", "form":
	default:
		return nil, fmt.Errorf("body: must be json or form, got %q", t.body)
	}
	if len(t.static) > 0 && t.body == "" {
		return nil, fmt.Errorf("static_fields: need body: json or body: form on the tool")
	}
	for k := range serverSecret {
		t.secretHdr[k] = true
	}
	toolHeaders, toolSecret, err := resolveHeaders(sec, "headers", ct.Headers)
	if err != nil {
		return nil, err
	}
	for k, vs := range toolHeaders {
		t.headers[k] = vs
		delete(t.secretHdr, k)
		if toolSecret[k] {
			t.secretHdr[k] = true
		}
	}
	bodyFields := map[string]string{}
	for i, cm := range ct.Mappings {
		m, err := openMapping(sec, name, i, cm)
		if err != nil {
			return nil, err
		}
		switch m.in {
		case "path":
			if !strings.Contains(t.path, "{"+m.field+"}") {
				return nil, fmt.Errorf("%s: path %q has no {%s}", m.label, t.path, m.field)
			}
		case "header", "cookie":
			if !validToken(m.field) {
				return nil, fmt.Errorf("%s: %q is not a valid %s name", m.label, m.field, m.in)
			}
			if m.in == "header" && reservedHeader(m.field) {
				return nil, fmt.Errorf("%s: the %s header is set by mcpbridge and cannot be mapped", m.label, m.field)
			}
		case "body":
			if t.body == "" {
				return nil, fmt.Errorf("%s: a body mapping needs body: json or body: form on the tool", m.label)
			}
			if t.body == "json" {
				if err := checkBodyField(bodyFields, m); err != nil {
					return nil, err
				}
			}
		case "query":
		default:
			return nil, fmt.Errorf("%s: in must be one of path, query, header, cookie, body; got %q", m.label, m.in)
		}
		t.mappings = append(t.mappings, m)
	}
	// The whole-body mapping (field "") goes first, so the others are set inside it.
	sort.SliceStable(t.mappings, func(i, j int) bool {
		return t.mappings[i].in == "body" && t.mappings[i].field == "" && !(t.mappings[j].in == "body" && t.mappings[j].field == "")
	})
	for _, seg := range pathParam.FindAllStringSubmatch(t.path, -1) {
		found := false
		for _, m := range t.mappings {
			if m.in == "path" && m.field == seg[1] {
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("path: parameter {%s} has no mapping with in: path", seg[1])
		}
	}
	if ct.Response != nil && ct.Response.Expression != "" {
		p, err := expr.Compile(name+".response", ct.Response.Expression)
		if err != nil {
			return nil, fmt.Errorf("response.expression: %w", err)
		}
		t.response = p
	}
	return t, nil
}

// checkBodyField rejects JSON body fields that overlap (a and a.b), which could only fail or
// overwrite each other at call time.
func checkBodyField(seen map[string]string, m *mapping) error {
	if m.field == "" {
		if prev, dup := seen[""]; dup {
			return fmt.Errorf("%s: the whole body (field \"\") is already mapped by %s", m.label, prev)
		}
		seen[""] = m.label
		return nil
	}
	for f, prev := range seen {
		if f == "" {
			continue
		}
		if f == m.field {
			return fmt.Errorf("%s: body field %s is already mapped by %s", m.label, m.field, prev)
		}
		if strings.HasPrefix(m.field, f+".") || strings.HasPrefix(f, m.field+".") {
			return fmt.Errorf("%s: body field %s overlaps %s of %s; map the object or its fields, not both", m.label, m.field, f, prev)
		}
	}
	seen[m.field] = m.label
	return nil
}

func openMapping(sec *secrets, toolName string, i int, cm config.Mapping) (*mapping, error) {
	m := &mapping{
		field: cm.Field, in: cm.In, direct: cm.Direct,
		constant: cm.Constant, hasConstant: cm.HasConstant,
		label: fmt.Sprintf("mappings[%d] (%s %s)", i, cm.In, fieldLabel(cm.In, cm.Field)),
	}
	n := 0
	if m.direct != "" {
		n++
	}
	if m.hasConstant {
		n++
	}
	if cm.Expression != "" {
		n++
	}
	if n != 1 {
		return nil, fmt.Errorf("%s: give exactly one of direct, constant or expression", m.label)
	}
	if m.field == "" && m.in != "body" {
		return nil, fmt.Errorf("%s: missing field", m.label)
	}
	if cs, ok := m.constant.(string); ok && isRef(cs) {
		v, err := sec.resolve(m.label+".constant", cs)
		if err != nil {
			return nil, err
		}
		m.constant = v
		m.secret = true
	}
	if cm.Expression != "" {
		p, err := expr.Compile(fmt.Sprintf("%s.mappings[%d]", toolName, i), cm.Expression)
		if err != nil {
			return nil, fmt.Errorf("%s.expression: %w", m.label, err)
		}
		m.prog = p
		m.valueArg = []string{m.field}
		if j := strings.LastIndexByte(m.field, '.'); j >= 0 {
			m.valueArg = append(m.valueArg, m.field[j+1:])
		}
	}
	return m, nil
}

func fieldLabel(in, field string) string {
	if field == "" {
		return "(whole body)"
	}
	if in == "body" {
		return "field " + field
	}
	return field
}

// Catalog returns the server's tools.
func (b *Backend) Catalog(context.Context) (*backend.Catalog, error) {
	return &backend.Catalog{Tools: b.list}, nil
}

// CallTool builds the HTTP request of tool name from the arguments, sends it and turns the
// response into a tool result.
func (b *Backend) CallTool(ctx context.Context, _ auth.Principal, name string, raw json.RawMessage) (*mcp.CallToolResult, error) {
	t, ok := b.tools[name]
	if !ok {
		return backend.ErrorResult("unknown tool %q", name), nil
	}
	args, err := decodeArgs(raw)
	if err != nil {
		return backend.ErrorResult("arguments must be a JSON object: %v", err), nil
	}
	return b.scrub.result(b.call(ctx, t, args)), nil
}

// decodeArgs decodes the arguments object keeping numbers exact (json.Number).
func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	if len(raw) == 0 || string(raw) == "null" {
		return args, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&args); err != nil {
		return nil, err
	}
	if args == nil {
		args = map[string]any{}
	}
	return args, nil
}
