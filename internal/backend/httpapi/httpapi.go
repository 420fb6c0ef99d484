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
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/expr"
	"github.com/mcpbridge/mcpbridge/internal/safehttp"
)

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
	ExpressionTimeout = time.Second
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

// openStatic creates the backend of an http server's definition, without running its
// transforms: it resolves secrets and prepares one request template per tool (the
// definition was checked and its expressions compiled by decode).
func (sp *spec) openStatic(deps backend.Deps) (*Backend, error) {
	s := sp.server
	sec := &secrets{deps: deps}
	serverHeaders, serverSecret, err := resolveHeaders(sec, "headers", sp.conf.Headers)
	if err != nil {
		return nil, err
	}
	b := &Backend{name: s.Name, tools: map[string]*tool{}}
	for _, name := range s.ToolNames() {
		ts := sp.tools[name]
		t, err := openTool(sec, sp, name, ts, serverHeaders, serverSecret)
		if err != nil {
			return nil, fmt.Errorf("tools.%s: %w", name, err)
		}
		b.tools[name] = t
		b.list = append(b.list, backend.ToolFromConfig(name, s.Tools[name]))
	}
	b.scrub = newScrubber(sec.values)
	b.client = newClient(deps, policyOf(sp.conf))
	return b, nil
}

// checkSecrets resolves every secret the definition names, so a missing one is reported
// before the server is served.
func (sp *spec) checkSecrets(deps backend.Deps) config.Problems {
	var ps config.Problems
	check := func(sec config.Section, path, ref string) {
		ps = append(ps, backend.CheckRef(deps, sec, path, ref)...)
	}
	for _, k := range slices.Sorted(maps.Keys(sp.conf.Headers)) {
		check(sp.server.Section, "headers."+k, sp.conf.Headers[k])
	}
	for _, name := range sp.server.ToolNames() {
		ts, sec := sp.tools[name], sp.server.Tools[name].Section
		for _, k := range slices.Sorted(maps.Keys(ts.Headers)) {
			check(sec, "headers."+k, ts.Headers[k])
		}
		for i, m := range ts.Mappings {
			if c, ok := m.Constant.(string); ok {
				check(sec, fmt.Sprintf("mappings[%d].constant", i), c)
			}
		}
	}
	return ps
}

func resolveHeaders(sec *secrets, where string, hs map[string]string) (http.Header, map[string]bool, error) {
	out := http.Header{}
	secret := map[string]bool{}
	keys := slices.Sorted(maps.Keys(hs))
	for _, k := range keys {
		if !safehttp.ValidToken(k) {
			return nil, nil, fmt.Errorf("%s: %q is not a valid header name", where, k)
		}
		if reservedHeader(k) {
			return nil, nil, fmt.Errorf("%s.%s: this header is set by mcpbridge and cannot be configured", where, k)
		}
		v, err := sec.resolve(where+"."+k, hs[k])
		if err != nil {
			return nil, nil, err
		}
		if !safehttp.ValidHeaderValue(v) {
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

func openTool(sec *secrets, sp *spec, name string, ct *toolSection, serverHeaders http.Header, serverSecret map[string]bool) (*tool, error) {
	t := &tool{
		name:      name,
		method:    strings.ToUpper(ct.Method),
		path:      ct.Path,
		base:      sp.base,
		body:      ct.Body,
		static:    ct.StaticFields,
		timeout:   cmp.Or(ct.Timeout, sp.conf.Timeout, config.DefaultTimeout),
		maxOutput: cmp.Or(ct.MaxOutput, config.DefaultMaxOutput),
		headers:   serverHeaders.Clone(),
		secretHdr: map[string]bool{},
		response:  ct.response,
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
	for i, cm := range ct.Mappings {
		m, err := openMapping(sec, i, cm, ct.programs[i])
		if err != nil {
			return nil, err
		}
		t.mappings = append(t.mappings, m)
	}
	// The whole-body mapping (field "") goes first, so the others are set inside it.
	sort.SliceStable(t.mappings, func(i, j int) bool {
		return t.mappings[i].in == "body" && t.mappings[i].field == "" && !(t.mappings[j].in == "body" && t.mappings[j].field == "")
	})
	return t, nil
}

// checkBodyField rejects JSON body fields that overlap (a and a.b), which could only fail or
// overwrite each other at call time.
func checkBodyField(seen map[string]string, field, label string) error {
	if field == "" {
		if prev, dup := seen[""]; dup {
			return fmt.Errorf("%s: the whole body (field \"\") is already mapped by %s", label, prev)
		}
		seen[""] = label
		return nil
	}
	for f, prev := range seen {
		if f == "" {
			continue
		}
		if f == field {
			return fmt.Errorf("%s: body field %s is already mapped by %s", label, field, prev)
		}
		if strings.HasPrefix(field, f+".") || strings.HasPrefix(f, field+".") {
			return fmt.Errorf("%s: body field %s overlaps %s of %s; map the object or its fields, not both", label, field, f, prev)
		}
	}
	seen[field] = label
	return nil
}

func openMapping(sec *secrets, i int, cm Mapping, prog *expr.Program) (*mapping, error) {
	m := &mapping{
		field: cm.Field, in: cm.In, direct: cm.Direct,
		constant: cm.Constant, hasConstant: cm.HasConstant,
		label: fmt.Sprintf("mappings[%d] (%s %s)", i, cm.In, fieldLabel(cm.In, cm.Field)),
		prog:  prog,
	}
	if cs, ok := m.constant.(string); ok && isRef(cs) {
		v, err := sec.resolve(m.label+".constant", cs)
		if err != nil {
			return nil, err
		}
		m.constant = v
		m.secret = true
	}
	if prog != nil {
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

// Quiet reports that a call sends the client nothing but its result (backend.Quiet).
func (b *Backend) Quiet() bool { return true }

// Catalog returns the server's tools.
func (b *Backend) Catalog(context.Context) (*backend.Catalog, error) {
	return &backend.Catalog{Tools: b.list}, nil
}

// CallTool builds the HTTP request of tool name from the arguments, sends it and turns the
// response into a tool result.
func (b *Backend) CallTool(ctx context.Context, c *backend.Call) (*mcp.CallToolResult, error) {
	name, raw := c.Name, c.Arguments
	t, ok := b.tools[name]
	if !ok {
		return backend.ErrorResult("unknown tool %q", name), nil
	}
	args, err := backend.DecodeArgs(raw)
	if err != nil {
		return backend.ErrorResult("arguments must be a JSON object: %v", err), nil
	}
	return b.scrub.result(b.call(ctx, t, args)), nil
}
