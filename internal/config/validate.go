package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/yosida95/uritemplate/v3"
	"go.yaml.in/yaml/v3"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

func (c *Config) validate(file string, root *yaml.Node, kinds Kinds) Problems {
	var ps Problems
	if c.Listen != "" {
		if _, _, err := net.SplitHostPort(c.Listen); err != nil {
			ps = append(ps, Problem{File: file, Path: "listen", Msg: fmt.Sprintf("expected host:port such as %s: %v", DefaultListen, err)})
		}
	}
	for i, tp := range c.TrustedProxies {
		if _, ok := parseProxy(tp); !ok {
			ps = append(ps, Problem{File: file, Path: fmt.Sprintf("trusted_proxies[%d]", i), Msg: fmt.Sprintf("expected a CIDR such as 10.0.0.0/8 or an address such as 192.0.2.10, got %q", tp)})
		}
	}
	if h := c.ProxyHeader; h != "" && !strings.EqualFold(h, HeaderXForwardedFor) && !strings.EqualFold(h, HeaderForwarded) {
		ps = append(ps, Problem{File: file, Path: "proxy_header", Msg: fmt.Sprintf("expected %s or %s (the header your proxy adds the client's address to), got %q", HeaderXForwardedFor, HeaderForwarded, h)})
	}
	for i, o := range c.Origins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			ps = append(ps, Problem{File: file, Path: fmt.Sprintf("origins[%d]", i), Msg: fmt.Sprintf("expected an origin such as https://example.com, got %q", o)})
		}
	}
	if c.Auth != nil {
		ps = append(ps, c.Auth.validate(file, c.Servers)...)
	}
	if c.Audit.Retention < 0 {
		ps = append(ps, Problem{File: file, Path: "audit.retention", Msg: "must not be negative"})
	}
	if c.Audit.SpillMax < 0 {
		ps = append(ps, Problem{File: file, Path: "audit.spill_max", Msg: "must not be negative (bytes; default 1 GiB)"})
	}
	if d := c.Audit.SpillDir; d != "" && d != "off" && !filepath.IsAbs(d) {
		ps = append(ps, Problem{File: file, Path: "audit.spill_dir", Msg: fmt.Sprintf("must be an absolute path (or off), got %q: a relative one would depend on the folder mcpbridge starts in", d)})
	}
	for _, name := range c.Limits.negative() {
		ps = append(ps, Problem{File: file, Path: "limits." + name, Msg: "must not be negative"})
	}
	validateRate(&c.Limits.Rate, "limits.rate", func(path, format string, args ...any) {
		ps = append(ps, Problem{File: file, Path: path, Msg: fmt.Sprintf(format, args...)})
	})
	for _, name := range c.ServerNames() {
		s := c.Servers[name]
		p := "servers." + name
		if s == nil {
			ps = append(ps, Problem{File: file, Path: p, Msg: "empty server definition; give at least kind and description"})
			continue
		}
		ps = append(ps, validateServer(file, name, s, p, kinds)...)
	}
	locate(root, ps)
	return ps
}

func validateServer(file, name string, s *Server, p string, kinds Kinds) Problems {
	var ps Problems
	add := func(path, format string, args ...any) {
		ps = append(ps, Problem{File: file, Path: strings.TrimPrefix(path, "."), Msg: fmt.Sprintf(format, args...)})
	}
	if !NamePattern.Get().MatchString(name) {
		add(p, "server name %q is not allowed: use 1-63 lowercase letters, digits, '-' or '_', starting with a letter or digit", name)
	} else if reserved[name] {
		add(p, "server name %q is reserved for mcpbridge's own pages; choose another", name)
	}
	names := kinds.Names()
	if !slices.Contains(names, s.Kind) {
		if s.Kind == "" {
			add(p+".kind", "missing kind; one of: %s", strings.Join(names, ", "))
		} else if sg := suggest(s.Kind, names); sg != "" {
			add(p+".kind", "unknown kind %q (did you mean %q?); one of: %s", s.Kind, sg, strings.Join(names, ", "))
		} else {
			add(p+".kind", "unknown kind %q; one of: %s", s.Kind, strings.Join(names, ", "))
		}
		return ps
	}
	validateServerAuth(s.Auth, p, add)
	if l := s.Limits; l != nil {
		validateRate(l.Rate, p+".limits.rate", add)
	}
	for i, pat := range s.ToolsInclude {
		if strings.TrimSpace(pat) == "" {
			add(fmt.Sprintf("%s.tools_include[%d]", p, i), "empty pattern; write a tool name, with * for any characters")
		}
	}
	for i, pat := range s.ToolsExclude {
		if strings.TrimSpace(pat) == "" {
			add(fmt.Sprintf("%s.tools_exclude[%d]", p, i), "empty pattern; write a tool name, with * for any characters")
		}
	}
	for _, tn := range s.ToolNames() {
		t := s.Tools[tn]
		tp := p + ".tools." + tn
		if !ToolNamePattern.Get().MatchString(tn) {
			add(tp, "tool name %q is not allowed: use 1-128 letters, digits, '_', '-' or '.'", tn)
		}
		if t == nil {
			add(tp, "empty tool definition; give at least a description")
			continue
		}
		if t.Description == "" {
			add(tp+".description", "missing description: agents choose tools by their description")
		}
		checkRoles(tp, t.Roles, add)
		ps = append(ps, validateSchema(file, tp+".inputSchema", t.InputSchema, true)...)
		if t.OutputSchema != nil {
			ps = append(ps, validateSchema(file, tp+".outputSchema", t.OutputSchema, false)...)
		}
	}
	for _, rn := range s.ResourceNames() {
		r := s.Resources[rn]
		rp := p + ".resources." + rn
		if r == nil {
			add(rp, "empty resource definition; give at least uri and one of text, file or blob")
			continue
		}
		checkRoles(rp, r.Roles, add)
		ps = append(ps, validateResource(file, rp, r)...)
	}
	for _, pn := range s.PromptNames() {
		pr := s.Prompts[pn]
		pp := p + ".prompts." + pn
		if pr == nil {
			add(pp, "empty prompt definition; give at least messages")
			continue
		}
		checkRoles(pp, pr.Roles, add)
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
			switch n := btoi(m.Text != "") + btoi(m.Resource != "") + btoi(m.Image != ""); {
			case n != 1:
				add(mp, "give exactly one of text, resource (a URI of this server's resources) or image (a file)")
			case m.Resource != "":
				found := false
				for _, r := range s.Resources {
					found = found || (r != nil && r.URI == m.Resource)
				}
				if !found {
					add(mp+".resource", "%q is not the uri of one of this server's resources", m.Resource)
				}
			case m.Image != "":
				if filepath.IsAbs(m.Image) || strings.HasPrefix(filepath.Clean(m.Image), "..") {
					add(mp+".image", "image must be a file inside the config's directory, got %q", m.Image)
				}
			}
			for _, ref := range Placeholders(m.Text) {
				if !args[ref] {
					add(mp+".text", "placeholder {{%s}} names no argument of this prompt", ref)
				}
			}
		}
	}
	// The kind decodes its own sections; their problems are located already.
	ps = append(ps, kinds.Decode(s)...)
	return ps
}

// checkRoles reports the empty roles of a tool, resource or prompt at path.
func checkRoles(path string, roles []string, add func(path, format string, args ...any)) {
	for i, r := range roles {
		if strings.TrimSpace(r) == "" {
			add(fmt.Sprintf("%s.roles[%d]", path, i), "empty role; write a role name, or remove the entry")
		}
	}
}

var placeholder = lazy.Regexp{Expr: `\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}`}

// Placeholders returns the argument names used as {{name}} in a prompt message.
func Placeholders(text string) []string {
	var names []string
	for _, m := range placeholder.Get().FindAllStringSubmatch(text, -1) {
		names = append(names, m[1])
	}
	return names
}

// Expand replaces {{name}} placeholders in text with values from args; unknown names become "".
func Expand(text string, args map[string]string) string {
	return placeholder.Get().ReplaceAllStringFunc(text, func(m string) string {
		return args[placeholder.Get().FindStringSubmatch(m)[1]]
	})
}

func validateResource(file, rp string, r *Resource) Problems {
	var ps Problems
	add := func(path, format string, args ...any) {
		ps = append(ps, Problem{File: file, Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	if r.URITemplate != "" {
		return validateTemplate(file, rp, r)
	}
	if r.URI == "" {
		add(rp+".uri", "missing uri (or uri_template)")
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
		if !cidPattern.Get().MatchString(r.URI) {
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

var cidPattern = lazy.Regexp{Expr: `^cid://sha256-[0-9a-f]{64}$`}

// SchemaProperties returns the properties of a JSON-like object schema (empty when it has
// none).
func SchemaProperties(s map[string]any) map[string]any {
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		return map[string]any{}
	}
	return props
}

// validateSchema checks that a schema is valid JSON Schema 2020-12 (and, for input schemas,
// that it describes an object).
func validateSchema(file, path string, s map[string]any, mustBeObject bool) Problems {
	var ps Problems
	add := func(rel, msg string) { ps = append(ps, Problem{File: file, Path: JoinPath(path, rel), Msg: msg}) }
	if t, ok := s["type"]; mustBeObject && t != "object" {
		if !ok {
			add("", "an inputSchema must have type: object (it has no type)")
		} else {
			add("type", fmt.Sprintf("an inputSchema must have type: object, got %s", describe(t)))
		}
	}
	// The schema as a client receives it (JSON), checked against the 2020-12 meta-schema:
	// every problem, each where it is.
	var doc map[string]any
	if b, err := json.Marshal(s); err != nil || json.Unmarshal(b, &doc) != nil {
		return Problems{{File: file, Path: path, Msg: "the schema cannot be written as JSON"}}
	}
	metaProblems(doc, func(rel, msg string) {
		if mustBeObject && rel == "type" && len(ps) > 0 {
			return // said above
		}
		add(rel, msg)
	})
	if len(ps) == 0 {
		if _, err := ResolveSchema(s); err != nil {
			add("", fmt.Sprintf("invalid JSON Schema: %v", err))
		}
	}
	checkRequired(file, path, doc, &ps)
	if mustBeObject {
		var pe *ParamHeaderError
		if _, err := ParamHeaders(doc); errors.As(err, &pe) {
			add(pe.Path, pe.Msg)
		} else if err != nil {
			add("", err.Error())
		}
	}
	return ps
}

// checkRequired reports required names that the schema's properties do not describe: an
// agent cannot know what to send for them.
func checkRequired(file, path string, s map[string]any, ps *Problems) {
	// A keyword with no value whose name reads like prose is almost always a YAML flow
	// mapping split at a comma: {description: a, b} has the key "b".
	var split []string
	for k, v := range s {
		if v == nil && strings.Contains(k, " ") {
			split = append(split, k)
		}
	}
	sort.Strings(split)
	for _, k := range split {
		*ps = append(*ps, Problem{File: file, Path: path, Msg: fmt.Sprintf("the schema has a key %q with no value: a comma inside {...} ends a value in YAML; quote the text that contains it", k)})
	}
	props, hasProps := s["properties"].(map[string]any)
	if req, ok := s["required"].([]any); ok && hasProps {
		for i, r := range req {
			name, _ := r.(string)
			if _, ok := props[name]; !ok {
				*ps = append(*ps, Problem{File: file, Path: fmt.Sprintf("%s.required[%d]", path, i), Msg: fmt.Sprintf("names %q, which is not in properties; describe it under properties or remove it", name)})
			}
		}
	}
	names := slices.Sorted(maps.Keys(props))
	for _, k := range names {
		if sub, ok := props[k].(map[string]any); ok {
			checkRequired(file, path+".properties."+k, sub, ps)
		}
	}
	if sub, ok := s["items"].(map[string]any); ok {
		checkRequired(file, path+".items", sub, ps)
	}
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

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// validateTemplate checks a resource template: a valid RFC 6570 template whose content is
// a file path with the same variables, or a server:// tool call.
func validateTemplate(file, rp string, r *Resource) Problems {
	var ps Problems
	add := func(path, format string, args ...any) {
		ps = append(ps, Problem{File: file, Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	if r.URI != "" {
		add(rp+".uri", "give uri or uri_template, not both")
	}
	tpl, err := uritemplate.New(r.URITemplate)
	if err != nil {
		add(rp+".uri_template", "not a valid URI template (RFC 6570): %v", err)
		return ps
	}
	scheme, _, ok := strings.Cut(r.URITemplate, "://")
	if !ok || scheme == "" || strings.ContainsAny(scheme, "{}") {
		add(rp+".uri_template", "expected an absolute URI template such as docs://guides/{name}, got %q", r.URITemplate)
		return ps
	}
	if r.Text != nil || r.Blob != nil {
		add(rp, "a template takes its content from a file or a server:// tool; remove text and blob")
	}
	switch {
	case scheme == "server":
		if r.File != "" {
			add(rp+".file", "a server:// template runs the tool; remove file")
		}
	case r.File == "":
		add(rp+".file", "give the file the template reads, with the same variables, e.g. guides/{name}.md")
	default:
		if filepath.IsAbs(r.File) || strings.HasPrefix(filepath.Clean(r.File), "..") {
			add(rp+".file", "file must be a path inside the config's directory, got %q", r.File)
		}
		vars := map[string]bool{}
		for _, v := range tpl.Varnames() {
			vars[v] = true
		}
		for _, m := range fileVar.Get().FindAllStringSubmatch(r.File, -1) {
			if !vars[m[1]] {
				add(rp+".file", "{%s} is not a variable of uri_template", m[1])
			}
		}
	}
	return ps
}

var fileVar = lazy.Regexp{Expr: `\{([A-Za-z0-9_]+)\}`}
