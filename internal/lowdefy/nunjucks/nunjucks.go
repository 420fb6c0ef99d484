package nunjucks

import (
	"fmt"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// Options configure a template.
type Options struct {
	// Autoescape, when non-nil, overrides the default (true, as in Lowdefy's
	// nunjucks environment): output of {{ }} is HTML-escaped unless safe.
	Autoescape *bool
}

func (o Options) autoescape() bool { return o.Autoescape == nil || *o.Autoescape }

// Template is a compiled template. It is immutable and safe for concurrent use.
type Template struct {
	name  string
	nodes []node
	opts  Options
}

// Compile parses src; name is used in error messages.
func Compile(name, src string) (*Template, error) {
	return CompileOptions(name, src, Options{})
}

// CompileOptions parses src with options.
func CompileOptions(name, src string, opts Options) (t *Template, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("nunjucks: compiling %s: internal error: %v", name, p)
		}
	}()
	nodes, err := parse(name, src)
	if err != nil {
		return nil, err
	}
	return &Template{name: name, nodes: nodes, opts: opts}, nil
}

// Name returns the name the template was compiled with.
func (t *Template) Name() string { return t.name }

// Render renders the template with vars as its context. vars is not
// modified. Its values are template values (see package doc); Go maps and
// integers are converted with jsvalue.FromGo when the template first reads
// them.
func (t *Template) Render(vars map[string]any) (out string, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = "", fmt.Errorf("nunjucks: rendering %s: internal error: %v", t.name, p)
		}
	}()
	ctx := make(map[string]any, len(vars))
	var fromGo map[string]bool
	for k, v := range vars {
		ctx[k] = v
		switch v.(type) {
		case nil, bool, string, float64, SafeString, jsvalue.UndefinedType:
		default:
			if fromGo == nil {
				fromGo = map[string]bool{}
			}
			fromGo[k] = true
		}
	}
	r := &renderer{t: t, ctx: ctx, fromGo: fromGo}
	var b strings.Builder
	root := &frame{vars: map[string]any{}, topLevel: true}
	if err := r.renderNodes(&b, root, t.nodes); err != nil {
		return "", err
	}
	return b.String(), nil
}

// Render compiles and renders src in one step (default options).
func Render(src string, vars map[string]any) (string, error) {
	t, err := Compile("", src)
	if err != nil {
		return "", err
	}
	return t.Render(vars)
}

// RenderValue renders src the way @lowdefy/nunjucks' nunjucksString does:
// a primitive context value v (string, number, bool, nil) is exposed as
// {{ value }}; an object is used as the context itself; other values give an
// empty context.
func RenderValue(src string, v any) (string, error) {
	t, err := Compile("", src)
	if err != nil {
		return "", err
	}
	return t.RenderValue(v)
}

// RenderValue renders t with a context built as in the package-level RenderValue.
func (t *Template) RenderValue(v any) (string, error) {
	switch x := jsvalue.FromGo(v).(type) {
	case *jsvalue.Object:
		ctx := make(map[string]any, x.Len())
		for k, val := range x.Range {
			ctx[k] = val
		}
		return t.Render(ctx)
	case []any:
		ctx := map[string]any{}
		for i, e := range x {
			ctx[fmt.Sprint(i)] = e
		}
		return t.Render(ctx)
	}
	return t.Render(map[string]any{"value": v})
}

// Valid reports whether src compiles and renders with an empty context, as
// @lowdefy/nunjucks' validNunjucksString does.
func Valid(src string) error {
	_, err := Render(src, map[string]any{})
	return err
}

// escapeHTML escapes like nunjucks' lib.escape.
func escapeHTML(s string) string {
	if !strings.ContainsAny(s, "&\"'<>\\") {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		switch c {
		case '&':
			b.WriteString("&amp;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&#39;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\\':
			b.WriteString("&#92;")
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}
