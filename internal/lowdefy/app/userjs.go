package app

import (
	"context"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/expr"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// userJSLimits bound one run of a ref resolver or transformer. Build-time code gets more
// room than the runtime's expressions, but it still cannot hang or exhaust the loader.
var userJSLimits = expr.Limits{Timeout: 2 * time.Second, MaxMemory: 64 << 20}

var (
	reImport        = lazy.Regexp{Expr: `(?m)^\s*import[\s{*'"]`}
	reExportDefault = lazy.Regexp{Expr: `(?m)^(\s*)export\s+default\s+`}
	reExportNamed   = lazy.Regexp{Expr: `(?m)^(\s*)export\s+(const|let|var|function|async|class)\b`}
	reRequire       = lazy.Regexp{Expr: `\brequire\s*\(`}
)

// runUserJS runs the default export of a user JavaScript module (a `_ref` resolver or
// transformer) in the sandboxed expression engine, calling it with params (in order)
// bound from args (objects keep their key order; the result's objects come back as Go maps,
// keys sorted). Modules that import or require other modules cannot run there: they are
// reported as unsupported, naming the file.
func (l *loader) runUserJS(rel string, at position, role string, params []string, args map[string]any) (any, error) {
	content, err := l.readFile(rel)
	if err != nil {
		return nil, refErr(at, "%s %q: %v", role, rel, err)
	}
	if content == nil {
		return nil, refErr(at, "%s %q does not exist", role, rel)
	}
	src := string(content)
	if reImport.Get().MatchString(src) || reRequire.Get().MatchString(src) {
		return nil, refErr(at, "%s %q imports other modules, which the Go loader's JavaScript sandbox does not support (no file or network access); inline what it needs or resolve the reference into a file", role, rel)
	}
	if !reExportDefault.Get().MatchString(src) {
		return nil, refErr(at, "%s %q has no `export default` function", role, rel)
	}
	src = reExportDefault.Get().ReplaceAllString(src, "${1}const __lowdefyDefault = ")
	src = reExportNamed.Get().ReplaceAllString(src, "${1}${2}")
	src += "\n;__lowdefyDefault(" + strings.Join(params, ", ") + ");\n"
	prog, err := expr.Compile(rel, src)
	if err != nil {
		return nil, refErr(at, "%s %q: %v", role, rel, err)
	}
	res, err := prog.Eval(context.Background(), args, userJSLimits)
	if err != nil {
		return nil, refErr(at, "calling %s %q: %v", role, rel, err)
	}
	return res, nil
}

// transform runs a `_ref` transformer on the resolved content of a reference.
func (l *loader) transform(rel string, at position, input, vars *node) (*node, error) {
	res, err := l.runUserJS(rel, at, "transformer", []string{"input", "vars"},
		map[string]any{"input": input.toPlain(nil), "vars": vars.toPlain(nil)})
	if err != nil {
		return nil, err
	}
	return fromPlain(res, at), nil
}

// resolveWith runs a `_ref` resolver in place of reading the file at path. A string result
// is parsed by path's extension, as Lowdefy does; other results are used as they are.
func (l *loader) resolveWith(resolver, path string, at position, vars *node) (*node, error) {
	res, err := l.runUserJS(resolver, at, "resolver", []string{"path", "vars", "context"},
		map[string]any{"path": path, "vars": vars.toPlain(nil), "context": map[string]any{}})
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, refErr(at, "resolver %q returned nothing for %q", resolver, path)
	}
	if s, ok := res.(string); ok {
		return l.parseContent([]byte(s), path, vars, at)
	}
	return fromPlain(res, at), nil
}

// jsFileRef returns the string value of a resolver/transformer field, or an error.
func jsFileRef(n *node, field string) (string, error) {
	if n == nil || !n.truthy() {
		return "", nil
	}
	if n.kind != kindString {
		return "", refErr(n.pos, "_ref %s must be a file path; received %s", field, compactJSON(n))
	}
	return n.str, nil
}
