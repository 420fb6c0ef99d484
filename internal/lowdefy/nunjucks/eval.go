package nunjucks

import (
	"errors"
	"math"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

const (
	maxMacroDepth = 200
	maxOutput     = 64 << 20
	maxRange      = 1 << 20
)

// frame is a variable scope, as in nunjucks' runtime Frame.
type frame struct {
	vars     map[string]any
	parent   *frame
	isolate  bool
	topLevel bool
}

func (f *frame) push(isolate bool) *frame {
	return &frame{vars: map[string]any{}, parent: f, isolate: isolate}
}

func (f *frame) lookup(name string) (any, bool) {
	// as in nunjucks, a variable holding undefined is invisible
	for fr := f; fr != nil; fr = fr.parent {
		if v, ok := fr.vars[name]; ok && !jsvalue.IsUndefined(v) {
			return v, true
		}
	}
	return nil, false
}

// set assigns name; with resolveUp it writes to the frame already holding it.
func (f *frame) set(name string, v any, resolveUp bool) {
	if resolveUp {
		if cur, ok := f.vars[name]; (!ok || jsvalue.IsUndefined(cur)) && !f.isolate {
			for fr := f.parent; fr != nil; fr = fr.parent {
				if old, ok := fr.vars[name]; ok && !jsvalue.IsUndefined(old) {
					fr.vars[name] = v
					return
				}
			}
		}
	}
	f.vars[name] = v
}

// renderer holds the state of one render.
type renderer struct {
	t      *Template
	ctx    map[string]any
	fromGo map[string]bool // names in ctx still holding the caller's Go values
	depth  int
}

// wrapErr attaches a position to a runtime error.
func (r *renderer) wrapErr(at pos, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return newError(r.t.name, at.line, at.col, "%s", err.Error())
}

func (r *renderer) lookupName(f *frame, name string) any {
	if v, ok := f.lookup(name); ok {
		return v
	}
	if v, ok := r.ctx[name]; ok {
		if r.fromGo[name] {
			v = jsvalue.FromGo(v)
			r.ctx[name] = v
			delete(r.fromGo, name)
		}
		return v
	}
	if g, ok := globals.Get()[name]; ok {
		return g
	}
	return jsvalue.Undefined
}

func (r *renderer) renderNodes(b *strings.Builder, f *frame, nodes []node) error {
	for _, n := range nodes {
		if err := r.renderNode(b, f, n); err != nil {
			return err
		}
		if b.Len() > maxOutput {
			return newError(r.t.name, n.position().line, n.position().col, "output larger than %d bytes", maxOutput)
		}
	}
	return nil
}

func (r *renderer) renderNode(b *strings.Builder, f *frame, n node) error {
	switch n := n.(type) {
	case *textNode:
		b.WriteString(n.s)
	case *outputNode:
		v, err := r.eval(f, n.x)
		if err != nil {
			return err
		}
		b.WriteString(r.suppress(v))
	case *ifNode:
		for i, c := range n.conds {
			v, err := r.eval(f, c)
			if err != nil {
				return err
			}
			if jsvalue.Truthy(v) {
				return r.renderNodes(b, f, n.bodies[i])
			}
		}
		return r.renderNodes(b, f, n.els)
	case *forNode:
		return r.renderFor(b, f, n)
	case *setNode:
		var v any
		if n.block {
			var sb strings.Builder
			if err := r.renderNodes(&sb, f, n.body); err != nil {
				return err
			}
			v = sb.String()
		} else {
			var err error
			if v, err = r.eval(f, n.val); err != nil {
				return err
			}
		}
		for _, name := range n.names {
			f.set(name, v, true)
			if f.topLevel {
				r.ctx[name] = v
				delete(r.fromGo, name)
			}
		}
	case *macroNode:
		m := r.makeMacro(n)
		if f.parent != nil || !f.topLevel {
			f.set(n.name, m, false)
		} else {
			f.set(n.name, m, false)
			r.ctx[n.name] = m
			delete(r.fromGo, n.name)
		}
	case *filterBlockNode:
		var sb strings.Builder
		if err := r.renderNodes(&sb, f, n.body); err != nil {
			return err
		}
		v, err := r.applyFilter(f, n.filter, sb.String())
		if err != nil {
			return err
		}
		b.WriteString(r.suppress(v))
	case *switchNode:
		v, err := r.eval(f, n.x)
		if err != nil {
			return err
		}
		matched := -1
		for i, c := range n.cases {
			cv, err := r.eval(f, c)
			if err != nil {
				return err
			}
			if strictEq(v, cv) {
				matched = i
				break
			}
		}
		if matched < 0 {
			return r.renderNodes(b, f, n.def)
		}
		// empty case bodies fall through to the next one
		for i := matched; i < len(n.bodies); i++ {
			if len(n.bodies[i]) > 0 {
				return r.renderNodes(b, f, n.bodies[i])
			}
		}
		return r.renderNodes(b, f, n.def)
	}
	return nil
}

// suppress converts a value for output: none → "", escaping unless safe.
func (r *renderer) suppress(v any) string {
	if jsvalue.IsNullish(v) {
		return ""
	}
	if s, ok := v.(SafeString); ok {
		return string(s)
	}
	if r.t.opts.autoescape() {
		return escapeHTML(jsvalue.ToString(v))
	}
	return jsvalue.ToString(v)
}

func (r *renderer) renderFor(b *strings.Builder, outer *frame, n *forNode) error {
	it, err := r.eval(outer, n.iter)
	if err != nil {
		return err
	}
	f := outer.push(false)
	iterations := 0
	setLoop := func(i, length int) {
		f.set("loop", jsvalue.ObjectOf(
			"index", float64(i+1), "index0", float64(i), "revindex", float64(length-i),
			"revindex0", float64(length-i-1), "first", i == 0, "last", i == length-1, "length", float64(length),
		), false)
	}
	if jsvalue.Truthy(it) {
		switch x := it.(type) {
		case []any:
			for i, item := range x {
				if len(n.names) == 1 {
					f.set(n.names[0], item, false)
				} else {
					for u, name := range n.names {
						f.set(name, memberLookup(item, float64(u)), false)
					}
				}
				setLoop(i, len(x))
				iterations++
				if err := r.renderNodes(b, f, n.body); err != nil {
					return err
				}
			}
		case *jsvalue.Object:
			if len(n.names) >= 2 {
				keys := x.Keys()
				for i, k := range keys {
					val, _ := x.Get(k)
					f.set(n.names[0], k, false)
					f.set(n.names[1], val, false)
					setLoop(i, len(keys))
					iterations++
					if err := r.renderNodes(b, f, n.body); err != nil {
						return err
					}
				}
			}
		case string, SafeString:
			s, _ := asString(x)
			chars := utf16Chars(s)
			for i, c := range chars {
				if len(n.names) == 1 {
					f.set(n.names[0], c, false)
				} else {
					for u, name := range n.names {
						f.set(name, memberLookup(c, float64(u)), false)
					}
				}
				setLoop(i, len(chars))
				iterations++
				if err := r.renderNodes(b, f, n.body); err != nil {
					return err
				}
			}
		}
	}
	if iterations == 0 && n.els != nil {
		return r.renderNodes(b, f, n.els)
	}
	return nil
}

// utf16Chars splits s into JavaScript "characters" (runes; astral runes stay whole).
func utf16Chars(s string) []any {
	out := make([]any, 0, len(s))
	for _, c := range s {
		out = append(out, string(c))
	}
	return out
}

func (r *renderer) makeMacro(n *macroNode) *macroFunc {
	return &macroFunc{name: n.name, call: func(r *renderer, args []any, kwargs map[string]any) (any, error) {
		if r.depth >= maxMacroDepth {
			return nil, errorf("macro %s: recursion deeper than %d", n.name, maxMacroDepth)
		}
		r.depth++
		defer func() { r.depth-- }()
		f := &frame{vars: map[string]any{}}
		for i, p := range n.params {
			switch {
			case i < len(args):
				f.vars[p] = args[i]
			case kwargs != nil && kwargs[p] != nil || hasKey(kwargs, p):
				f.vars[p] = kwargs[p]
			case n.defaults[i] != nil:
				v, err := r.eval(f, n.defaults[i])
				if err != nil {
					return nil, err
				}
				f.vars[p] = v
			default:
				f.vars[p] = jsvalue.Undefined
			}
		}
		var sb strings.Builder
		if err := r.renderNodes(&sb, f, n.body); err != nil {
			return nil, err
		}
		return SafeString(sb.String()), nil
	}}
}

func hasKey(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}

// memberLookup implements nunjucks' runtime.memberLookup (without methods).
func memberLookup(obj, key any) any {
	switch o := obj.(type) {
	case nil, jsvalue.UndefinedType:
		return jsvalue.Undefined
	case *jsvalue.Object:
		if v, ok := o.Get(jsvalue.ToString(key)); ok {
			return v
		}
		return jsvalue.Undefined
	case []any:
		if ks, ok := asString(key); ok {
			if ks == "length" {
				return float64(len(o))
			}
			if i, ok := jsvalue.ArrayIndex(ks); ok && int(i) < len(o) {
				return o[i]
			}
			return jsvalue.Undefined
		}
		k := jsvalue.ToNumber(key)
		if k >= 0 && k == math.Trunc(k) && int(k) < len(o) {
			return o[int(k)]
		}
		return jsvalue.Undefined
	case string, SafeString:
		s, _ := asString(o)
		if ks, ok := asString(key); ok {
			if ks == "length" {
				return float64(jsvalue.StringLength(s))
			}
			if i, ok := jsvalue.ArrayIndex(ks); ok {
				key = float64(i)
			} else {
				return jsvalue.Undefined
			}
		}
		k := jsvalue.ToNumber(key)
		if k >= 0 && k == math.Trunc(k) {
			u := utf16Units(s)
			if int(k) < len(u) {
				return string(rune(u[int(k)]))
			}
		}
		return jsvalue.Undefined
	}
	return jsvalue.Undefined
}
