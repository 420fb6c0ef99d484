package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"

	"github.com/mcpbridge/mcpbridge/internal/expr"
)

// Kinds lists the server kinds the config accepts, with the server-level and tool-level fields
// that belong only to that kind.
var kinds = map[string]struct{ server, tool []string }{
	"command": {
		server: []string{"argv", "env", "workdir", "timeout", "allow_options"},
		tool:   []string{"argv", "stdin", "env", "workdir", "timeout", "max_output"},
	},
	"http": {
		server: []string{"base_url", "headers", "allow_private", "allow_hosts", "timeout"},
		tool:   []string{"method", "path", "body", "mappings", "static_fields", "response", "headers", "timeout", "max_output"},
	},
}

// checkExpression compiles src with the sandboxed expression engine (internal/expr), so
// syntax errors are reported when the config is checked, and returns a problem message or "".
func checkExpression(path, src string) string {
	if _, err := expr.Compile(path, src); err != nil {
		var ee *expr.Error
		if errors.As(err, &ee) {
			return fmt.Sprintf("invalid expression: %s: %s at %d:%d of the expression", ee.Name, ee.Msg, ee.Line, ee.Column)
		}
		return "invalid expression: " + err.Error()
	}
	return ""
}

func (c *Config) validate(file string, root *yaml.Node) Problems {
	var ps Problems
	if c.Listen != "" {
		if _, _, err := net.SplitHostPort(c.Listen); err != nil {
			ps = append(ps, Problem{File: file, Path: "listen", Msg: fmt.Sprintf("expected host:port such as %s: %v", DefaultListen, err)})
		}
	}
	for i, o := range c.Origins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			ps = append(ps, Problem{File: file, Path: fmt.Sprintf("origins[%d]", i), Msg: fmt.Sprintf("expected an origin such as https://example.com, got %q", o)})
		}
	}
	if c.Limits.MaxBody < 0 || c.Limits.PageSize < 0 {
		ps = append(ps, Problem{File: file, Path: "limits", Msg: "limits must not be negative"})
	}
	for _, name := range c.ServerNames() {
		s := c.Servers[name]
		p := "servers." + name
		if s == nil {
			ps = append(ps, Problem{File: file, Path: p, Msg: "empty server definition; give at least kind and description"})
			continue
		}
		ps = append(ps, validateServer(file, name, s, p)...)
	}
	locate(root, ps)
	return ps
}

func validateServer(file, name string, s *Server, p string) Problems {
	var ps Problems
	add := func(path, format string, args ...any) {
		ps = append(ps, Problem{File: file, Path: strings.TrimPrefix(path, "."), Msg: fmt.Sprintf(format, args...)})
	}
	if !NamePattern.MatchString(name) {
		add(p, "server name %q is not allowed: use 1-63 lowercase letters, digits, '-' or '_', starting with a letter or digit", name)
	} else if reserved[name] {
		add(p, "server name %q is reserved for mcpbridge's own pages; choose another", name)
	}
	k, ok := kinds[s.Kind]
	if !ok {
		if s.Kind == "" {
			add(p+".kind", "missing kind; one of: command, http")
		} else {
			add(p+".kind", "unknown kind %q; one of: command, http", s.Kind)
		}
		return ps
	}
	// Fields that belong to another kind.
	set := serverFieldsSet(s)
	for other, ok2 := range kinds {
		if other == s.Kind {
			continue
		}
		for _, f := range ok2.server {
			if set[f] && !contains(k.server, f) {
				add(p+"."+f, "field %q belongs to kind %s, not %s", f, other, s.Kind)
			}
		}
	}
	if s.AutoDiscover {
		if s.Kind != "command" {
			add(p+".auto_discover", "auto_discover is only supported for kind command")
		} else if len(s.Argv) == 0 {
			add(p+".argv", "auto_discover needs a server-level argv (the command to run)")
		} else if _, clash := s.Tools[name]; clash {
			add(p+".tools."+name, "tool %q clashes with the tool auto_discover creates; rename it", name)
		}
	} else if len(s.Argv) > 0 {
		add(p+".argv", "a server-level argv is only used with auto_discover: true")
	}
	if s.AllowOptions && !s.AutoDiscover {
		add(p+".allow_options", "a server-level allow_options is only used with auto_discover: true; put allow_options: true on a tool's argument instead")
	}
	for i, a := range s.Argv {
		ps = append(ps, validateArg(file, fmt.Sprintf("%s.argv[%d]", p, i), a)...)
	}
	if s.Kind == "http" {
		if s.BaseURL == "" {
			add(p+".base_url", "missing base_url, e.g. https://api.example.com")
		} else if u, err := url.Parse(s.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			add(p+".base_url", "expected an http or https URL, got %q", s.BaseURL)
		}
	}
	for _, tn := range s.ToolNames() {
		t := s.Tools[tn]
		tp := p + ".tools." + tn
		if !ToolNamePattern.MatchString(tn) {
			add(tp, "tool name %q is not allowed: use 1-128 letters, digits, '_', '-' or '.'", tn)
		}
		if t == nil {
			add(tp, "empty tool definition; give at least a description")
			continue
		}
		if t.Description == "" {
			add(tp+".description", "missing description: agents choose tools by their description")
		}
		ps = append(ps, validateSchema(file, tp+".inputSchema", t.InputSchema, true)...)
		if t.OutputSchema != nil {
			ps = append(ps, validateSchema(file, tp+".outputSchema", t.OutputSchema, false)...)
		}
		tset := toolFieldsSet(t)
		for other, ok2 := range kinds {
			if other == s.Kind {
				continue
			}
			for _, f := range ok2.tool {
				if tset[f] && !contains(k.tool, f) {
					add(tp+"."+f, "field %q belongs to kind %s, not %s", f, other, s.Kind)
				}
			}
		}
		if t.MaxOutput < 0 {
			add(tp+".max_output", "must not be negative")
		}
		switch s.Kind {
		case "command":
			if len(t.Argv) == 0 {
				add(tp+".argv", "missing argv: the command and its arguments, e.g. [echo, {direct: message}]")
			}
			props := schemaProps(t.InputSchema)
			check := func(path string, a Arg) {
				ps = append(ps, validateArg(file, path, a)...)
				if a.Source == ArgDirect && props != nil {
					if _, ok := props[a.Direct]; !ok {
						add(path+".direct", "argument %q is not a property of inputSchema", a.Direct)
					}
				}
			}
			for i, a := range t.Argv {
				check(fmt.Sprintf("%s.argv[%d]", tp, i), a)
			}
			if t.Stdin != nil {
				check(tp+".stdin", *t.Stdin)
				if t.Stdin.AllowOptions {
					add(tp+".stdin.allow_options", "allow_options only applies to argv")
				}
			}
			for _, ek := range sortedKeys(t.Env) {
				if !envName.MatchString(ek) {
					add(tp+".env."+ek, "not a valid environment variable name")
				}
				check(tp+".env."+ek, t.Env[ek])
				if t.Env[ek].AllowOptions {
					add(tp+".env."+ek+".allow_options", "allow_options only applies to argv")
				}
			}
			if t.Workdir != "" && strings.Contains(t.Workdir, "\x00") {
				add(tp+".workdir", "invalid path")
			}
		case "http":
			ps = append(ps, validateHTTPTool(file, tp, t)...)
		}
	}
	for _, rn := range s.ResourceNames() {
		r := s.Resources[rn]
		rp := p + ".resources." + rn
		if r == nil {
			add(rp, "empty resource definition; give at least uri and one of text, file or blob")
			continue
		}
		ps = append(ps, validateResource(file, rp, r)...)
	}
	for _, pn := range s.PromptNames() {
		pr := s.Prompts[pn]
		pp := p + ".prompts." + pn
		if pr == nil {
			add(pp, "empty prompt definition; give at least messages")
			continue
		}
		args := map[string]bool{}
		for i, a := range pr.Arguments {
			if a.Name == "" {
				add(fmt.Sprintf("%s.arguments[%d].name", pp, i), "missing name")
			}
			if args[a.Name] {
				add(fmt.Sprintf("%s.arguments[%d].name", pp, i), "duplicate argument %q", a.Name)
			}
			args[a.Name] = true
		}
		if len(pr.Messages) == 0 {
			add(pp+".messages", "a prompt needs at least one message")
		}
		for i, m := range pr.Messages {
			mp := fmt.Sprintf("%s.messages[%d]", pp, i)
			if m.Role != "user" && m.Role != "assistant" {
				add(mp+".role", "role must be user or assistant, got %q", m.Role)
			}
			for _, ref := range Placeholders(m.Text) {
				if !args[ref] {
					add(mp+".text", "placeholder {{%s}} names no argument of this prompt", ref)
				}
			}
		}
	}
	return ps
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

var placeholder = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}`)

// Placeholders returns the argument names used as {{name}} in a prompt message.
func Placeholders(text string) []string {
	var names []string
	for _, m := range placeholder.FindAllStringSubmatch(text, -1) {
		names = append(names, m[1])
	}
	return names
}

// Expand replaces {{name}} placeholders in text with values from args; unknown names become "".
func Expand(text string, args map[string]string) string {
	return placeholder.ReplaceAllStringFunc(text, func(m string) string {
		return args[placeholder.FindStringSubmatch(m)[1]]
	})
}

func validateArg(file, path string, a Arg) Problems {
	if a.Source == ArgExpression {
		if msg := checkExpression(path, a.Expression); msg != "" {
			return Problems{{File: file, Path: path + ".expression", Msg: msg}}
		}
	}
	return nil
}

func validateResource(file, rp string, r *Resource) Problems {
	var ps Problems
	add := func(path, format string, args ...any) {
		ps = append(ps, Problem{File: file, Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	if r.URI == "" {
		add(rp+".uri", "missing uri")
		return ps
	}
	u, err := url.Parse(r.URI)
	if err != nil || u.Scheme == "" {
		add(rp+".uri", "expected an absolute URI such as docs://readme, got %q", r.URI)
		return ps
	}
	sources := 0
	if r.Text != nil {
		sources++
	}
	if r.File != "" {
		sources++
		if filepath.IsAbs(r.File) || strings.HasPrefix(filepath.Clean(r.File), "..") {
			add(rp+".file", "file must be a path inside the config's directory, got %q", r.File)
		}
	}
	if r.Blob != nil {
		sources++
	}
	derived := u.Scheme == "cid" || u.Scheme == "variable" || u.Scheme == "server"
	switch {
	case derived && sources > 0:
		add(rp, "a %s:// resource takes its content from its URI; remove text, file and blob", u.Scheme)
	case !derived && sources == 0:
		add(rp, "give one of text, file or blob (or use a cid://, variable:// or server:// URI)")
	case sources > 1:
		add(rp, "give only one of text, file or blob")
	}
	switch u.Scheme {
	case "cid":
		if !cidPattern.MatchString(r.URI) {
			add(rp+".uri", "expected cid://sha256-<64 hex digits>, got %q", r.URI)
		}
	case "variable":
		if u.Host == "" {
			add(rp+".uri", "expected variable://NAME")
		}
	case "server":
		if u.Host == "" || strings.Trim(u.Path, "/") == "" {
			add(rp+".uri", "expected server://SERVER/TOOL[?arg=value]")
		}
	}
	return ps
}

var cidPattern = regexp.MustCompile(`^cid://sha256-[0-9a-f]{64}$`)

var mappingIn = map[string]bool{"path": true, "query": true, "header": true, "cookie": true, "body": true}

func validateHTTPTool(file, tp string, t *Tool) Problems {
	var ps Problems
	add := func(path, format string, args ...any) {
		ps = append(ps, Problem{File: file, Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	switch strings.ToUpper(t.Method) {
	case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS":
	case "":
		add(tp+".method", "missing method (GET, POST, PUT, PATCH or DELETE)")
	default:
		add(tp+".method", "unknown method %q", t.Method)
	}
	if !strings.HasPrefix(t.Path, "/") {
		add(tp+".path", "path must start with /, got %q", t.Path)
	}
	switch t.Body {
	case "", "json", "form":
	default:
		add(tp+".body", "body must be json or form, got %q", t.Body)
	}
	props := schemaProps(t.InputSchema)
	pathParams := map[string]bool{}
	for i, m := range t.Mappings {
		mp := fmt.Sprintf("%s.mappings[%d]", tp, i)
		if !mappingIn[m.In] {
			add(mp+".in", "in must be one of path, query, header, cookie, body; got %q", m.In)
		}
		if m.Field == "" && m.In != "body" {
			add(mp+".field", "missing field")
		}
		n := 0
		if m.Direct != "" {
			n++
			if props != nil {
				if _, ok := props[m.Direct]; !ok {
					add(mp+".direct", "argument %q is not a property of inputSchema", m.Direct)
				}
			}
		}
		if m.HasConstant {
			n++
		}
		if m.Expression != "" {
			n++
			if msg := checkExpression(mp+".expression", m.Expression); msg != "" {
				add(mp+".expression", "%s", msg)
			}
		}
		if n != 1 {
			add(mp, "give exactly one of direct, constant or expression")
		}
		if m.In == "path" {
			pathParams[m.Field] = true
			if !strings.Contains(t.Path, "{"+m.Field+"}") {
				add(mp+".field", "path %q has no {%s}", t.Path, m.Field)
			}
		}
		if m.In == "body" && t.Body == "" {
			add(mp+".in", "a body mapping needs body: json or body: form on the tool")
		}
	}
	if t.Response != nil && t.Response.Expression != "" {
		if msg := checkExpression(tp+".response.expression", t.Response.Expression); msg != "" {
			add(tp+".response.expression", "%s", msg)
		}
	}
	for _, seg := range pathVar.FindAllStringSubmatch(t.Path, -1) {
		if !pathParams[seg[1]] {
			add(tp+".path", "path parameter {%s} has no mapping with in: path", seg[1])
		}
	}
	return ps
}

var pathVar = regexp.MustCompile(`\{([^}]+)\}`)

func schemaProps(s map[string]any) map[string]any {
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		return map[string]any{}
	}
	return props
}

// validateSchema checks that a schema is valid JSON Schema 2020-12 (and, for input schemas,
// that it describes an object).
func validateSchema(file, path string, s map[string]any, mustBeObject bool) Problems {
	if mustBeObject && s["type"] != "object" {
		return Problems{{File: file, Path: path + ".type", Msg: fmt.Sprintf("an inputSchema must have type: object, got %v", s["type"])}}
	}
	if _, err := ResolveSchema(s); err != nil {
		return Problems{{File: file, Path: path, Msg: fmt.Sprintf("invalid JSON Schema: %v", err)}}
	}
	return nil
}

// ResolveSchema turns a JSON-like schema into a resolved JSON Schema ready for validation.
func ResolveSchema(s map[string]any) (*jsonschema.Resolved, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(b, &sch); err != nil {
		return nil, err
	}
	return sch.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func serverFieldsSet(s *Server) map[string]bool {
	return map[string]bool{
		"argv": len(s.Argv) > 0, "env": len(s.Env) > 0, "workdir": s.Workdir != "", "timeout": s.Timeout != 0, "allow_options": s.AllowOptions,
		"base_url": s.BaseURL != "", "headers": len(s.Headers) > 0, "allow_private": s.AllowPrivate, "allow_hosts": len(s.AllowHosts) > 0,
	}
}

func toolFieldsSet(t *Tool) map[string]bool {
	return map[string]bool{
		"argv": len(t.Argv) > 0, "stdin": t.Stdin != nil, "env": len(t.Env) > 0, "workdir": t.Workdir != "",
		"timeout": t.Timeout != 0, "max_output": t.MaxOutput != 0,
		"method": t.Method != "", "path": t.Path != "", "body": t.Body != "", "mappings": len(t.Mappings) > 0,
		"static_fields": len(t.StaticFields) > 0, "response": t.Response != nil, "headers": len(t.Headers) > 0,
	}
}

// locate fills in the line and column of problems from their field paths.
func locate(root *yaml.Node, ps Problems) {
	for i := range ps {
		if ps[i].Line != 0 || root == nil {
			continue
		}
		if n := Find(root, ps[i].Path); n != nil {
			ps[i].Line, ps[i].Column = n.Line, n.Column
		}
	}
}

// Find returns the node at a field path such as servers.a.tools.b.argv[1], or the deepest
// node found on the way (nil if none).
func Find(root *yaml.Node, path string) *yaml.Node {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	best := n
	rest := path
	for rest != "" {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		if strings.HasPrefix(rest, "[") {
			end := strings.Index(rest, "]")
			var i int
			if end < 0 || n.Kind != yaml.SequenceNode {
				return best
			}
			fmt.Sscanf(rest[1:end], "%d", &i)
			if i < 0 || i >= len(n.Content) {
				return best
			}
			n = n.Content[i]
			best = n
			rest = strings.TrimPrefix(rest[end+1:], ".")
			continue
		}
		if n.Kind != yaml.MappingNode {
			return best
		}
		// Longest key that is a prefix of rest followed by '.', '[' or the end.
		var match *yaml.Node
		var key *yaml.Node
		mlen := -1
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if strings.HasPrefix(rest, k) && len(k) > mlen && (len(rest) == len(k) || rest[len(k)] == '.' || rest[len(k)] == '[') {
				match, key, mlen = n.Content[i+1], n.Content[i], len(k)
			}
		}
		if match == nil {
			return best
		}
		rest = rest[mlen:]
		rest = strings.TrimPrefix(rest, ".")
		if rest == "" {
			// point at a scalar value, or at the key of a larger value
			if match.Kind == yaml.ScalarNode {
				return match
			}
			return key
		}
		n = match
		best = match
	}
	return best
}
