package app

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// maxRefDepth is Lowdefy's limit on nested references.
const maxRefDepth = 10000

// scope is the file being resolved: its path (as referenced), the vars of the `_ref`
// that brought it in, and the chain of references that led to it.
type scope struct {
	file  string
	vars  *node
	chain *refLink
}

// refLink is one step of a reference chain: a file and the vars it was loaded with. Links
// point at the link that referenced them, so a chain costs one link per level.
type refLink struct {
	file   string
	key    string // file + canonical vars, to tell a real cycle from a reuse with other vars
	parent *refLink
	depth  int
}

func chainString(chain *refLink, last string) string {
	var parts []string
	for l := chain; l != nil; l = l.parent {
		parts = append(parts, l.file)
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	if last != "" {
		parts = append(parts, last)
	}
	return strings.Join(parts, " → ")
}

// refError is a fatal reference problem.
type refError struct{ p Problem }

func (e *refError) Error() string { return e.p.String() }

func refErr(pos position, format string, args ...any) error {
	return &refError{problemAt(pos, "", format, args...)}
}

// asRefErr turns a parse error into a positioned reference error.
func asRefErr(err error, file string) error {
	var pe *parseError
	if errors.As(err, &pe) {
		return &refError{pe.problem()}
	}
	return refErr(position{file: file}, "%v", err)
}

// readFile reads a file relative to the app root, caching its bytes. A missing file (or a
// directory) returns nil bytes and no error, as Lowdefy's readFile does.
func (l *loader) readFile(rel string) ([]byte, error) {
	full := rel
	if !filepath.IsAbs(full) {
		full = filepath.Join(l.root, filepath.FromSlash(rel))
	}
	full = filepath.Clean(full)
	if b, ok := l.files[full]; ok {
		return b, nil
	}
	b, err := readFileAtMost(full, maxFileBytes)
	if errors.Is(err, errFileTooBig) {
		return nil, fmt.Errorf("%s is larger than %d MB, the most one file of an app may hold: split it into smaller files joined with _ref", rel, maxFileBytes>>20)
	}
	if err != nil {
		var pe *fs.PathError
		if errors.Is(err, fs.ErrNotExist) || (errors.As(err, &pe) && isDirErr(full)) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading %s: %w", rel, err)
	}
	if b == nil {
		b = []byte{}
	}
	l.files[full] = b
	return b, nil
}

// maxFileBytes bounds one file of an app: its YAML tree takes several times its size in
// memory, so a 50 MB lowdefy.yaml would take hundreds of megabytes before any other check.
const maxFileBytes = 16 << 20

var errFileTooBig = errors.New("file too big")

// readFileAtMost is os.ReadFile that reads at most max bytes, or fails with errFileTooBig.
func readFileAtMost(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, errFileTooBig
	}
	return b, nil
}

func isDirErr(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// fileExtension and fileSubExtension split the whole path on dots, as
// @lowdefy/node-utils does.
func fileExtension(p string) string {
	parts := strings.Split(p, ".")
	if len(parts) == 1 {
		return ""
	}
	return parts[len(parts)-1]
}

func fileSubExtension(p string) string {
	parts := strings.Split(p, ".")
	if len(parts) < 3 {
		return ""
	}
	return parts[len(parts)-2]
}

// parseContent parses a referenced file by its extension: `.njk` is rendered with vars
// first and then parsed by its inner extension; `.yaml`/`.yml` are YAML, `.json` is
// JSON5, anything else is kept as a string.
func (l *loader) parseContent(content []byte, rel string, vars *node, at position) (*node, error) {
	ext := fileExtension(rel)
	if ext == "njk" {
		ctx := map[string]any{}
		if obj, ok := vars.toPlain(nil).(*jsvalue.Object); ok {
			for k, v := range obj.Range {
				ctx[k] = v
			}
		}
		if l.opts.Nunjucks == nil {
			return nil, refErr(at, "cannot render %q: no nunjucks renderer is available", rel)
		}
		out, err := l.opts.Nunjucks(string(content), ctx)
		if err != nil {
			return nil, refErr(at, "rendering nunjucks template %q: %v", rel, err)
		}
		content = []byte(out)
		ext = fileSubExtension(rel)
	}
	switch ext {
	case "yaml", "yml":
		n, err := parseYAML(content, rel)
		if err != nil {
			return nil, asRefErr(err, rel)
		}
		return n, nil
	case "json":
		n, err := parseJSON5(content, rel)
		if err != nil {
			return nil, asRefErr(err, rel)
		}
		return n, nil
	}
	return newString(string(content), position{file: rel, line: 1, col: 1}), nil
}

// resolve walks n bottom-up, replacing `_ref` objects by the referenced content and
// `_var` objects by the vars of the current scope.
func (l *loader) resolve(n *node, sc *scope) (*node, error) {
	if n == nil {
		return nil, nil
	}
	switch n.kind {
	case kindList:
		for i, it := range n.items {
			r, err := l.resolve(it, sc)
			if err != nil {
				return nil, err
			}
			n.items[i] = r
		}
	case kindMap:
		if n.has("_ref") {
			return l.ref(n, sc)
		}
		for i := range n.fields {
			r, err := l.resolve(n.fields[i].val, sc)
			if err != nil {
				return nil, err
			}
			n.fields[i].val = r
		}
		if v := n.get("_var"); v.truthy() {
			return l.variable(n, v, sc)
		}
	}
	return n, nil
}

// variable returns the value of a `_var` object in scope sc.
func (l *loader) variable(n, arg *node, sc *scope) (*node, error) {
	var key string
	def := newNull(n.pos)
	switch arg.kind {
	case kindString:
		key = arg.str
	case kindMap:
		k := arg.get("key")
		if k == nil || k.kind != kindString {
			return nil, refErr(n.pos, `"_var" takes a string or an object with a string "key"; received %s`, compactJSON(n))
		}
		key = k.str
		if d := arg.get("default"); !d.isNone() {
			def = d
		}
	default:
		return nil, refErr(n.pos, `"_var" takes a string or an object with a string "key"; received %s`, compactJSON(n))
	}
	if v := lookupPath(sc.vars, key); v != nil {
		return v.clone(), nil
	}
	return def.clone(), nil
}

// ref loads the file a `_ref` object points at, resolves it in its own scope, evaluates its
// `_build.*` operators and picks `key`.
func (l *loader) ref(n *node, sc *scope) (*node, error) {
	def, err := l.resolve(n.get("_ref"), sc)
	if err != nil {
		return nil, err
	}
	var pathNode, keyNode, varsNode *node
	var resolver, transformer string
	switch {
	case def != nil && def.kind == kindString:
		pathNode = def
	case def != nil && def.kind == kindMap:
		if p := def.get("path"); p.truthy() {
			pathNode = p
		}
		keyNode = def.get("key")
		varsNode = def.get("vars")
		if resolver, err = jsFileRef(def.get("resolver"), "resolver"); err != nil {
			return nil, err
		}
		if transformer, err = jsFileRef(def.get("transformer"), "transformer"); err != nil {
			return nil, err
		}
	}
	if pathNode == nil || pathNode.kind != kindString {
		return nil, refErr(n.pos, "invalid _ref definition %s in file %s: give a file path or an object with a \"path\"", compactJSON(n), sc.file)
	}
	rel := pathNode.str
	if varsNode == nil {
		varsNode = newMap(n.pos)
	}
	link := &refLink{file: rel, key: rel + "\x00" + compactJSON(varsNode), parent: sc.chain, depth: sc.chain.depth + 1}
	for c := sc.chain; c != nil; c = c.parent {
		if c.key == link.key {
			return nil, refErr(n.pos, "reference cycle: %s", chainString(sc.chain, rel))
		}
	}
	if link.depth > maxRefDepth {
		return nil, refErr(n.pos, "maximum depth of references exceeded: %s", chainString(sc.chain, rel))
	}
	var parsed *node
	if resolver != "" && rel != "lowdefy.yaml" && rel != "lowdefy.yml" {
		parsed, err = l.resolveWith(resolver, rel, n.pos, varsNode)
		if err != nil {
			return nil, err
		}
	} else {
		content, err := l.readFile(rel)
		if err != nil {
			return nil, refErr(n.pos, "%v", err)
		}
		if content == nil {
			return nil, refErr(n.pos, "tried to reference file %q from %q, but the file does not exist", rel, sc.file)
		}
		parsed, err = l.parseContent(content, rel, varsNode, n.pos)
		if err != nil {
			return nil, err
		}
	}
	child, err := l.resolve(parsed, &scope{file: rel, vars: varsNode, chain: link})
	if err != nil {
		return nil, err
	}
	if transformer != "" {
		child, err = l.transform(transformer, n.pos, child, varsNode)
		if err != nil {
			return nil, err
		}
	}
	child = l.evalBuild(child, rel)
	if keyNode != nil && !keyNode.isNone() {
		var key string
		switch keyNode.kind {
		case kindString:
			key = keyNode.str
		case kindNumber:
			if keyNode.num != 0 {
				key = jsvalue.NumberToString(keyNode.num)
			}
		default:
			return nil, refErr(keyNode.pos, "_ref key must be a string; received %s", compactJSON(keyNode))
		}
		if key != "" {
			picked := lookupPath(child, key)
			if picked == nil {
				picked = newNull(n.pos)
			}
			child = picked
		}
	}
	child.seal()
	return child, nil
}

// compactJSON renders a node as one-line JSON for messages.
func compactJSON(n *node) string { return jsonText(n.toPlain(nil)) }
