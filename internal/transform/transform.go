// Package transform runs the JavaScript modules that generate a server's lists (seed 004's
// tools_transform_cid, resources_transform_cid and prompts_transform_cid). A server names a
// module by cid:// (the content store, `mcpbridge cid add`) or by a file path; the module's
// `export default function (serverName, context)` returns the list, in the server's own
// config schema. It runs in the expression sandbox (internal/expr: no I/O) with the limits
// of Lowdefy resolvers (Limits).
//
// Kinds call this package: Decode reads the transform fields of a server definition, Load
// and Run fetch and run a module, Entries splits what it returned, and Build checks each
// entry as the file's own definitions are checked and returns the server with the good
// ones added. Backend serves the result, marking generated tools.
package transform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/expr"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// Limits bound one run of a module: those of Lowdefy resolvers.
var Limits = expr.Limits{Timeout: 2 * time.Second, MaxMemory: 64 << 20}

// MaxModule is the largest module read (1 MiB).
const MaxModule = 1 << 20

// Fields are the keys of a server definition this package reads.
var Fields = []string{
	"tools_transform", "tools_transform_cid",
	"resources_transform", "resources_transform_cid",
	"prompts_transform", "prompts_transform_cid",
	"transform_refresh",
}

// MinRefresh is the shortest transform_refresh.
const MinRefresh = time.Second

// Refs name the modules of a server, by list ("" when the list has none).
type Refs struct {
	Tools, Resources, Prompts string
	// Refresh, when not 0, is how often the transforms run again (transform_refresh).
	Refresh time.Duration
}

// Empty reports whether no module is named.
func (r Refs) Empty() bool { return r.Tools == "" && r.Resources == "" && r.Prompts == "" }

type fields struct {
	Tools        string        `yaml:"tools_transform"`
	ToolsCID     string        `yaml:"tools_transform_cid"`
	Resources    string        `yaml:"resources_transform"`
	ResourcesCID string        `yaml:"resources_transform_cid"`
	Prompts      string        `yaml:"prompts_transform"`
	PromptsCID   string        `yaml:"prompts_transform_cid"`
	Refresh      time.Duration `yaml:"transform_refresh"`
}

var cidPattern = regexp.MustCompile(`^cid://sha256-[0-9a-f]{64}$`)

// Decode reads the transform fields of sec and returns them with sec without them, for the
// kind to decode the rest. lists are the lists the kind lets a transform generate ("tools",
// "resources", "prompts"); a field for another is a problem.
func Decode(sec config.Section, lists ...string) (Refs, config.Section, config.Problems) {
	only, rest := sec, sec
	for _, k := range sec.Keys() {
		if slices.Contains(Fields, k) {
			rest = rest.Without(k)
		} else {
			only = only.Without(k)
		}
	}
	var f fields
	ps := only.Decode(&f)
	var refs Refs
	pick := func(list, plain, alias string, out *string) {
		key := list + "_transform"
		switch {
		case plain != "" && alias != "":
			ps = append(ps, sec.Problem(key+"_cid", "give %s or its alias %s_cid, not both", key, key))
			return
		case plain == "" && alias == "":
			return
		}
		ref, field := plain, key
		if ref == "" {
			ref, field = alias, key+"_cid"
		}
		if !slices.Contains(lists, list) {
			ps = append(ps, sec.Problem(field, "a server of kind %s gets its %s elsewhere; %s is not used here", kindOf(sec), list, field))
			return
		}
		if msg := checkRef(ref); msg != "" {
			ps = append(ps, sec.Problem(field, "%s", msg))
			return
		}
		*out = ref
	}
	pick("tools", f.Tools, f.ToolsCID, &refs.Tools)
	pick("resources", f.Resources, f.ResourcesCID, &refs.Resources)
	pick("prompts", f.Prompts, f.PromptsCID, &refs.Prompts)
	switch {
	case f.Refresh == 0:
	case refs.Empty():
		ps = append(ps, sec.Problem("transform_refresh", "transform_refresh is only used with a transform (tools_transform, resources_transform or prompts_transform)"))
	case f.Refresh < MinRefresh:
		ps = append(ps, sec.Problem("transform_refresh", "transform_refresh must be at least %s, got %s", MinRefresh, f.Refresh))
	default:
		refs.Refresh = f.Refresh
	}
	return refs, rest, ps
}

func kindOf(sec config.Section) string {
	if n := config.Find(sec.Anchor, "kind"); n != nil {
		return n.Value
	}
	return "this kind"
}

// checkRef returns what is wrong with a module reference, or "".
func checkRef(ref string) string {
	switch {
	case strings.HasSuffix(strings.ToLower(ref), ".py"):
		return fmt.Sprintf("%s is a Python module, and Python modules cannot run here: write the transform in JavaScript, as a module whose `export default function (serverName, context)` returns the list", ref)
	case strings.HasPrefix(ref, "cid://"):
		if !cidPattern.MatchString(ref) {
			return fmt.Sprintf("expected cid://sha256-<64 hex digits> (as `mcpbridge cid add FILE` prints), got %q", ref)
		}
	case strings.Contains(ref, "://"):
		return fmt.Sprintf("%q is neither a cid:// reference nor a file path", ref)
	case strings.ContainsRune(ref, 0):
		return "invalid path"
	}
	return ""
}

// Load returns the source of the module ref: from the content store for cid://, else the
// file (relative to deps.Dir).
func Load(ctx context.Context, deps backend.Deps, ref string) (string, error) {
	var data []byte
	if id, ok := strings.CutPrefix(ref, "cid://"); ok {
		if deps.Blobs == nil {
			return "", fmt.Errorf("module %s: there is no content store to read it from", ref)
		}
		b, err := deps.Blobs.Get(ctx, id)
		if err != nil {
			return "", fmt.Errorf("module %s: %w (add it with `mcpbridge cid add FILE`)", ref, err)
		}
		data = b
	} else {
		p := ref
		if !filepath.IsAbs(p) {
			p = filepath.Join(deps.Dir, p)
		}
		st, err := os.Stat(p)
		if err != nil {
			return "", fmt.Errorf("module %s: %w", ref, err)
		}
		if st.Size() > MaxModule {
			return "", fmt.Errorf("module %s: %d bytes, over the limit of %d", ref, st.Size(), MaxModule)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("module %s: %w", ref, err)
		}
		data = b
	}
	if len(data) > MaxModule {
		return "", fmt.Errorf("module %s: %d bytes, over the limit of %d", ref, len(data), MaxModule)
	}
	return string(data), nil
}

var (
	exportDefault = regexp.MustCompile(`(?m)^([ \t]*)export[ \t]+default\b`)
	exportNamed   = regexp.MustCompile(`(?m)^([ \t]*)export([ \t]+(?:async[ \t]+)?(?:function|const|let|var|class)\b)`)
)

// ErrNoDefault is the error of a module without `export default`.
var ErrNoDefault = errors.New("the module has no `export default function (serverName, context)`")

// Compile compiles the module src named ref: its `export default` is bound to a name and
// called with serverName and context. Other `export` keywords are dropped. Positions in
// errors are those of the module.
func Compile(ref, src string) (*expr.Program, error) {
	locs := exportDefault.FindAllStringIndex(src, -1)
	if len(locs) == 0 {
		return nil, fmt.Errorf("module %s: %w", ref, ErrNoDefault)
	}
	if len(locs) > 1 {
		return nil, fmt.Errorf("module %s: more than one `export default`", ref)
	}
	// "export default" and "const __dflt =" have the same length, so columns stay.
	body := exportDefault.ReplaceAllString(src, "${1}const __dflt =")
	body = exportNamed.ReplaceAllString(body, "${1}      $2")
	body += "\n;if (typeof __dflt !== 'function') throw new TypeError('the default export is not a function');\nreturn __dflt(serverName, context);"
	p, err := expr.Compile(ref, body)
	if err != nil {
		return nil, fmt.Errorf("module %s: %s", ref, describe(err))
	}
	return p, nil
}

// Run runs the compiled module for server with context and returns the list it returned.
func Run(ctx context.Context, ref string, p *expr.Program, server string, context map[string]any) ([]any, error) {
	v, err := p.Eval(ctx, map[string]any{"serverName": server, "context": context}, Limits)
	if err != nil {
		return nil, fmt.Errorf("module %s: %s", ref, describe(err))
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("module %s: the default export returned %s, not a list", ref, jsvalue.TypeName(v))
	}
	return list, nil
}

// describe words an expression error for a log line or a check problem.
func describe(err error) string {
	var e *expr.Error
	if !errors.As(err, &e) {
		return err.Error()
	}
	var b strings.Builder
	switch e.Kind {
	case expr.KindTimeout:
		b.WriteString("stopped: ")
	case expr.KindMemory:
		b.WriteString("stopped: ")
	case expr.KindSyntax:
		b.WriteString("does not compile: ")
	default:
		b.WriteString("threw ")
	}
	if e.Name != "" {
		b.WriteString(e.Name + ": ")
	}
	b.WriteString(e.Msg)
	if e.Line > 0 {
		fmt.Fprintf(&b, " (line %d, column %d)", e.Line, e.Column)
	}
	return b.String()
}

// An Entry is one element of a generated list, as a definition node (without its name).
type Entry struct {
	// Index is its position in the list.
	Index int
	// Name is its name (a tool's or prompt's name; a resource's key).
	Name string
	// Node is its definition, a mapping.
	Node *yaml.Node
}

// Entries splits a generated list into named definitions. nameKey is the key that names
// an entry ("name"); it is removed from the definition when drop is set. A bad element is
// reported (module, index) and left out.
func Entries(ref string, list []any, nameKey string, drop bool) ([]Entry, []string) {
	var out []Entry
	var bad []string
	for i, e := range list {
		data, err := json.Marshal(e)
		if err != nil {
			bad = append(bad, fmt.Sprintf("module %s: entry %d: %v", ref, i, err))
			continue
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			bad = append(bad, fmt.Sprintf("module %s: entry %d: expected an object, got %s", ref, i, jsvalue.TypeName(e)))
			continue
		}
		n := doc.Content[0]
		name := ""
		var kept []*yaml.Node
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == nameKey {
				name = n.Content[j+1].Value
				if n.Content[j+1].Kind != yaml.ScalarNode || n.Content[j+1].Tag != "!!str" {
					name = ""
				}
				if drop {
					continue
				}
			}
			kept = append(kept, n.Content[j], n.Content[j+1])
		}
		if name == "" {
			bad = append(bad, fmt.Sprintf("module %s: entry %d: missing %s (a non-empty string)", ref, i, nameKey))
			continue
		}
		n.Content = kept
		out = append(out, Entry{Index: i, Name: name, Node: n})
	}
	return out, bad
}

// Field returns the value node of key in mapping n, or nil.
func Field(n *yaml.Node, key string) *yaml.Node {
	for j := 0; n != nil && j+1 < len(n.Content); j += 2 {
		if n.Content[j].Value == key {
			return n.Content[j+1]
		}
	}
	return nil
}

// SetField sets key in mapping n to v.
func SetField(n *yaml.Node, key string, v *yaml.Node) {
	for j := 0; j+1 < len(n.Content); j += 2 {
		if n.Content[j].Value == key {
			n.Content[j+1] = v
			return
		}
	}
	n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

// Node returns v (a JSON-like value) as a YAML node.
func Node(v any) *yaml.Node {
	data, err := json.Marshal(v)
	if err != nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	return doc.Content[0]
}

// Definition returns server s's definition as written (secret references stay references),
// as JSON-like values: the definition a transform's context holds.
func Definition(s *config.Server) map[string]any {
	if s.Section.Anchor == nil {
		return map[string]any{}
	}
	var v any
	if err := s.Section.Anchor.Decode(&v); err != nil {
		return map[string]any{}
	}
	m, _ := config.Normalize(v).(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

// Build returns server s with entries added to its list ("tools", "resources" or
// "prompts"), each checked first on its own as the file's definitions are (config
// validation, roles included, and the kind's decoding): a bad entry, or one whose name is
// already taken, is reported with the module and its index and left out. base, when not
// nil, replaces s's definition node (a definition with other generated lists already in).
func Build(s *config.Server, base *yaml.Node, list, ref string, entries []Entry) (*config.Server, *yaml.Node, []string, error) {
	if base == nil {
		base = s.Section.Anchor
	}
	if base == nil || base.Kind != yaml.MappingNode {
		return nil, nil, nil, fmt.Errorf("server %s: its definition is not at hand", s.Name)
	}
	static := Field(base, list)
	taken := map[string]bool{}
	if static != nil {
		for j := 0; j+1 < len(static.Content); j += 2 {
			taken[static.Content[j].Value] = true
		}
	}
	with := func(extra []Entry) *yaml.Node {
		n := *base
		n.Content = slices.Clone(base.Content)
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		if static != nil {
			m.Content = slices.Clone(static.Content)
		}
		for _, e := range extra {
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e.Name}, e.Node)
		}
		SetField(&n, list, m)
		return &n
	}
	var good []Entry
	var bad []string
	for _, e := range entries {
		if taken[e.Name] {
			bad = append(bad, fmt.Sprintf("module %s: entry %d (%q): %s already has %q; the generated one is left out", ref, e.Index, e.Name, list, e.Name))
			continue
		}
		if _, err := parse(s.Name, with([]Entry{e})); err != nil {
			bad = append(bad, fmt.Sprintf("module %s: entry %d (%q): %s", ref, e.Index, e.Name, problemText(err)))
			continue
		}
		taken[e.Name] = true
		good = append(good, e)
	}
	n := with(good)
	out, err := parse(s.Name, n)
	if err != nil {
		return nil, nil, bad, fmt.Errorf("server %s with the generated %s: %s", s.Name, list, problemText(err))
	}
	out.Source = s.Source
	return out, n, bad, nil
}

func parse(name string, n *yaml.Node) (*config.Server, error) {
	data, err := yaml.Marshal(n)
	if err != nil {
		return nil, err
	}
	return config.ParseServer("generated", name, data, backend.Kinds())
}

// problemText words config problems without the positions of the generated text.
func problemText(err error) string {
	var ps config.Problems
	if !errors.As(err, &ps) {
		return err.Error()
	}
	var parts []string
	for _, p := range ps {
		if p.Warning {
			continue
		}
		if p.Path != "" {
			parts = append(parts, p.Path+": "+p.Msg)
		} else {
			parts = append(parts, p.Msg)
		}
	}
	return strings.Join(parts, "; ")
}
