package nunjucks

import (
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// nunjucks compiles templates to JavaScript source without parenthesizing
// operators, so the effective precedence is JavaScript's, not the parser's:
// `not 1 == 2` runs as `!1 == 2` and `'a' ~ 1 + 2` as `"a" + "" + 1 + 2`.
// reassoc rebuilds an expression tree the way that JavaScript parses it.

// flatItem is an operand or an operator in the emitted JavaScript.
type flatItem struct {
	op      string // "" for operands
	prefix  bool
	operand expr
	at      pos
}

var jsPrec = lazy.Value[map[string]int]{New: func() map[string]int {
	return map[string]int{
		"*": 12, "/": 12, "%": 12, "+": 11, "-": 11,
		"<": 9, "<=": 9, ">": 9, ">=": 9, "==": 8, "!=": 8, "===": 8, "!==": 8,
		"and": 4, "or": 3,
	}
}}

// reassoc returns x restructured with JavaScript operator precedence.
func reassoc(x expr) expr {
	var items []flatItem
	flatten(x, &items)
	return parseItems(items)
}

// parseItems parses flattened tokens, rejecting what JavaScript rejects.
func parseItems(items []flatItem) expr {
	// `- -x` and `+ +x` are emitted as "--x"/"++x": a JavaScript syntax error.
	// A call operand (`--name` is `--lookup(...)`) fails only when evaluated
	// (a runtime ReferenceError); anything else fails to compile.
	for i := 1; i < len(items); i++ {
		a, b := items[i-1], items[i]
		if a.prefix && b.prefix && a.op == b.op && (a.op == "-" || a.op == "+") {
			e := &errExpr{pos: b.at, msg: "Invalid left-hand side expression in prefix operation"}
			if i+1 < len(items) && items[i+1].op == "" && isCallLike(items[i+1].operand) {
				e.runtime = true
				rest := append([]flatItem{{operand: e}}, items[i+2:]...)
				items = append(items[:i-1], rest...)
				i = 0
				continue
			}
			return e
		}
	}
	if len(items) == 1 && items[0].op == "" {
		return items[0].operand
	}
	i := 0
	return parseFlat(items, &i, 0)
}

// flatten appends the JavaScript token sequence of x.
func flatten(x expr, out *[]flatItem) {
	switch n := x.(type) {
	case *binExpr:
		switch n.op {
		case "~":
			flatten(n.l, out)
			*out = append(*out, flatItem{op: "+", at: n.pos}, flatItem{operand: &litExpr{n.pos, ""}}, flatItem{op: "+", at: n.pos})
			flatten(n.r, out)
			return
		case "+", "-", "*", "/", "%", "and", "or":
			flatten(n.l, out)
			*out = append(*out, flatItem{op: n.op, at: n.pos})
			flatten(n.r, out)
			return
		}
	case *compareExpr:
		flatten(n.first, out)
		for i, op := range n.ops {
			*out = append(*out, flatItem{op: op, at: n.pos})
			flatten(n.rest[i], out)
		}
		return
	case *unaryExpr:
		*out = append(*out, flatItem{op: n.op, prefix: true, at: n.pos})
		flatten(n.x, out)
		return
	}
	*out = append(*out, flatItem{operand: atomic(x)})
}

// atomic reassociates the delimited sub-expressions of a node that the
// compiler emits as a self-contained JavaScript expression.
func atomic(x expr) expr {
	switch n := x.(type) {
	case *binExpr: // in, //, **
		if n.op == "//" {
			// emitted as Math.floor(l / r): the division is re-parsed with
			// whatever operators l and r contain.
			var items []flatItem
			flatten(n.l, &items)
			items = append(items, flatItem{op: "/", at: n.pos})
			flatten(n.r, &items)
			inner := parseItems(items)
			if e, ok := inner.(*errExpr); ok {
				return e
			}
			return &unaryExpr{n.pos, "floor", inner}
		}
		return &binExpr{n.pos, n.op, reassoc(n.l), reassoc(n.r)}
	case *lookupExpr:
		return &lookupExpr{n.pos, reassoc(n.target), reassoc(n.key)}
	case *callExpr:
		c := &callExpr{pos: n.pos, fn: reassoc(n.fn), args: reassocList(n.args)}
		for _, kw := range n.kwargs {
			c.kwargs = append(c.kwargs, kwarg{kw.name, reassoc(kw.val)})
		}
		return c
	case *filterExpr:
		f := &filterExpr{pos: n.pos, name: n.name, target: reassoc(n.target), args: reassocList(n.args)}
		for _, kw := range n.kwargs {
			f.kwargs = append(f.kwargs, kwarg{kw.name, reassoc(kw.val)})
		}
		return f
	case *isExpr:
		return &isExpr{n.pos, reassoc(n.x), n.test, reassocList(n.args)}
	case *condExpr:
		c := &condExpr{pos: n.pos, cond: reassoc(n.cond), then: reassoc(n.then)}
		if n.els != nil {
			c.els = reassoc(n.els)
		}
		return c
	case *arrayExpr:
		return &arrayExpr{n.pos, reassocList(n.items)}
	case *dictExpr:
		return &dictExpr{n.pos, reassocList(n.keys), reassocList(n.vals)}
	case *groupExpr:
		return &groupExpr{n.pos, reassocList(n.items)}
	}
	return x
}

func reassocList(xs []expr) []expr {
	out := make([]expr, len(xs))
	for i, x := range xs {
		out[i] = reassoc(x)
	}
	return out
}

// parseFlat is precedence climbing over the flattened tokens.
func parseFlat(items []flatItem, i *int, minPrec int) expr {
	left := parseFlatUnary(items, i)
	for *i < len(items) {
		it := items[*i]
		prec, ok := jsPrec.Get()[it.op]
		if it.op == "" || it.prefix || !ok || prec < minPrec {
			break
		}
		*i++
		right := parseFlat(items, i, prec+1)
		switch it.op {
		case "<", "<=", ">", ">=", "==", "!=", "===", "!==":
			left = &compareExpr{pos: it.at, first: left, ops: []string{it.op}, rest: []expr{right}}
		default:
			left = &binExpr{it.at, it.op, left, right}
		}
	}
	return left
}

func parseFlatUnary(items []flatItem, i *int) expr {
	if *i >= len(items) {
		return &litExpr{val: jsvalue.Undefined}
	}
	it := items[*i]
	*i++
	if it.prefix {
		return &unaryExpr{it.at, it.op, parseFlatUnary(items, i)}
	}
	return it.operand
}

// errExpr is an expression that fails when evaluated (nunjucks would fail to
// compile the generated JavaScript).
type errExpr struct {
	pos
	msg     string
	runtime bool
}

// isCallLike reports whether x compiles to a JavaScript call expression.
func isCallLike(x expr) bool {
	switch n := x.(type) {
	case *nameExpr, *lookupExpr, *callExpr, *filterExpr, *isExpr:
		return true
	case *binExpr:
		return n.op == "in" || n.op == "//" || n.op == "**"
	case *groupExpr:
		return len(n.items) == 1 && isCallLike(n.items[0])
	}
	return false
}

// findErrExpr returns the first errExpr in x, if any.
func findErrExpr(x expr) *errExpr {
	var found *errExpr
	var walk func(e expr)
	walkAll := func(es []expr) {
		for _, e := range es {
			walk(e)
		}
	}
	walk = func(e expr) {
		if found != nil || e == nil {
			return
		}
		switch n := e.(type) {
		case *errExpr:
			if !n.runtime {
				found = n
			}
		case *binExpr:
			walk(n.l)
			walk(n.r)
		case *unaryExpr:
			walk(n.x)
		case *compareExpr:
			walk(n.first)
			walkAll(n.rest)
		case *lookupExpr:
			walk(n.target)
			walk(n.key)
		case *callExpr:
			walk(n.fn)
			walkAll(n.args)
			for _, kw := range n.kwargs {
				walk(kw.val)
			}
		case *filterExpr:
			walk(n.target)
			walkAll(n.args)
			for _, kw := range n.kwargs {
				walk(kw.val)
			}
		case *isExpr:
			walk(n.x)
			walkAll(n.args)
		case *condExpr:
			walk(n.cond)
			walk(n.then)
			walk(n.els)
		case *arrayExpr:
			walkAll(n.items)
		case *dictExpr:
			walkAll(n.keys)
			walkAll(n.vals)
		case *groupExpr:
			walkAll(n.items)
		}
	}
	walk(x)
	return found
}
