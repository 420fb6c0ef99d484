package nunjucks

import (
	"strconv"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// expression parses a full expression (inline if and below).
func (p *parser) expression() (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	x, err := p.inlineIf()
	if err != nil {
		return nil, err
	}
	x = reassoc(x)
	if e := findErrExpr(x); e != nil {
		return nil, newError(p.name, e.line, e.col, "%s", e.msg)
	}
	return x, nil
}

func posOf(t token) pos { return pos{t.line, t.col} }

func (p *parser) inlineIf() (expr, error) {
	x, err := p.or()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); p.skipName("if") {
		cond, err := p.or()
		if err != nil {
			return nil, err
		}
		n := &condExpr{pos: posOf(t), cond: cond, then: x}
		if p.skipName("else") {
			if n.els, err = p.or(); err != nil {
				return nil, err
			}
		}
		return n, nil
	}
	return x, nil
}

func (p *parser) or() (expr, error) {
	x, err := p.and()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if !p.skipName("or") {
			return x, nil
		}
		y, err := p.and()
		if err != nil {
			return nil, err
		}
		x = &binExpr{posOf(t), "or", x, y}
	}
}

func (p *parser) and() (expr, error) {
	x, err := p.not()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if !p.skipName("and") {
			return x, nil
		}
		y, err := p.not()
		if err != nil {
			return nil, err
		}
		x = &binExpr{posOf(t), "and", x, y}
	}
}

func (p *parser) not() (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	t := p.peek()
	if p.skipName("not") {
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return &unaryExpr{posOf(t), "not", x}, nil
	}
	return p.in()
}

func (p *parser) in() (expr, error) {
	x, err := p.is()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if p.isName("not") && p.peekN(1).kind == tokName && p.peekN(1).val == "in" {
			p.i += 2
			y, err := p.is()
			if err != nil {
				return nil, err
			}
			x = &unaryExpr{posOf(t), "not", &binExpr{posOf(t), "in", x, y}}
			continue
		}
		if !p.skipName("in") {
			return x, nil
		}
		y, err := p.is()
		if err != nil {
			return nil, err
		}
		x = &binExpr{posOf(t), "in", x, y}
	}
}

func (p *parser) is() (expr, error) {
	x, err := p.compare()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	if !p.skipName("is") {
		return x, nil
	}
	negate := p.skipName("not")
	// nunjucks parses the test as a full comparison and then takes its
	// name: a symbol, a call's callee, a literal's value, else "undefined".
	test, err := p.compare()
	if err != nil {
		return nil, err
	}
	n := &isExpr{pos: posOf(t), x: x, test: "undefined"}
	switch v := test.(type) {
	case *nameExpr:
		n.test = v.name
	case *litExpr:
		n.test = jsvalue.ToString(v.val)
	case *callExpr:
		if name, ok := v.fn.(*nameExpr); ok {
			n.test = name.name
		}
		n.args = v.args
	case *filterExpr:
		n.test = v.name
	}
	if negate {
		return &unaryExpr{posOf(t), "not", n}, nil
	}
	return n, nil
}

var compareOps = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"==": true, "===": true, "!=": true, "!==": true, "<": true, ">": true, "<=": true, ">=": true}
}}

func (p *parser) compare() (expr, error) {
	x, err := p.binary(0)
	if err != nil {
		return nil, err
	}
	t := p.peek()
	var n *compareExpr
	for {
		nt := p.peek()
		if nt.kind != tokOp || !compareOps.Get()[nt.val] {
			break
		}
		p.i++
		y, err := p.binary(0)
		if err != nil {
			return nil, err
		}
		if n == nil {
			n = &compareExpr{pos: posOf(t), first: x}
		}
		n.ops = append(n.ops, nt.val)
		n.rest = append(n.rest, y)
	}
	if n == nil {
		return x, nil
	}
	return n, nil
}

// binaryLevels lists the arithmetic operators from loosest to tightest, as
// in nunjucks' parser (parseConcat … parsePow).
var binaryLevels = []string{"~", "+", "-", "*", "/", "//", "%", "**"}

func (p *parser) binary(level int) (expr, error) {
	if level == len(binaryLevels) {
		return p.unary(false)
	}
	x, err := p.binary(level + 1)
	if err != nil {
		return nil, err
	}
	op := binaryLevels[level]
	for {
		t := p.peek()
		if !p.skipOp(op) {
			return x, nil
		}
		y, err := p.binary(level + 1)
		if err != nil {
			return nil, err
		}
		x = &binExpr{posOf(t), op, x, y}
	}
}

func (p *parser) unary(noFilters bool) (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	t := p.peek()
	var x expr
	var err error
	switch {
	case p.skipOp("-"):
		var y expr
		if y, err = p.unary(true); err != nil {
			return nil, err
		}
		x = &unaryExpr{posOf(t), "-", y}
	case p.skipOp("+"):
		var y expr
		if y, err = p.unary(true); err != nil {
			return nil, err
		}
		x = &unaryExpr{posOf(t), "+", y}
	default:
		if x, err = p.primary(); err != nil {
			return nil, err
		}
	}
	if !noFilters {
		for p.isOp("|") {
			p.i++
			f, err := p.filterCall(x)
			if err != nil {
				return nil, err
			}
			x = f
		}
	}
	return x, nil
}

// filterCall parses `name(args)` after a `|` (or in a filter tag).
func (p *parser) filterCall(target expr) (*filterExpr, error) {
	t, err := p.expectName("filter")
	if err != nil {
		return nil, err
	}
	name := t.val
	for p.isOp(".") {
		p.i++
		nt, err := p.expectName("filter")
		if err != nil {
			return nil, err
		}
		name += "." + nt.val
	}
	f := &filterExpr{pos: posOf(t), name: name, target: target}
	if p.isOp("(") {
		p.i++
		if f.args, f.kwargs, err = p.callArgs(); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// callArgs parses call arguments after "(" up to and including ")".
func (p *parser) callArgs() ([]expr, []kwarg, error) {
	var args []expr
	var kwargs []kwarg
	for !p.skipOp(")") {
		t := p.peek()
		if t.kind == tokEOF {
			return nil, nil, p.errAt(t, "expected \")\" to close call arguments, got end of file")
		}
		if t.kind == tokName && p.peekN(1).kind == tokOp && p.peekN(1).val == "=" {
			p.i += 2
			v, err := p.expression()
			if err != nil {
				return nil, nil, err
			}
			kwargs = append(kwargs, kwarg{t.val, v})
		} else {
			v, err := p.expression()
			if err != nil {
				return nil, nil, err
			}
			args = append(args, v)
		}
		if !p.skipOp(",") && !p.isOp(")") {
			x := p.peek()
			return nil, nil, p.errAt(x, "expected \",\" or \")\" in arguments, got %s", describe(x))
		}
	}
	return args, kwargs, nil
}

func (p *parser) primary() (expr, error) {
	t := p.next()
	at := posOf(t)
	var x expr
	switch t.kind {
	case tokString:
		x = &litExpr{at, t.val}
	case tokInt, tokFloat:
		f, err := strconv.ParseFloat(t.val, 64)
		if err != nil {
			return nil, p.errAt(t, "invalid number %q", t.val)
		}
		x = &litExpr{at, f}
	case tokName:
		switch t.val {
		case "true":
			x = &litExpr{at, true}
		case "false":
			x = &litExpr{at, false}
		case "none", "null":
			x = &litExpr{at, nil}
		default:
			x = &nameExpr{at, t.val}
		}
	case tokOp:
		var err error
		switch t.val {
		case "(":
			if x, err = p.group(t); err != nil {
				return nil, err
			}
		case "[":
			if x, err = p.array(t); err != nil {
				return nil, err
			}
		case "{":
			if x, err = p.dict(t); err != nil {
				return nil, err
			}
		default:
			return nil, p.errAt(t, "unexpected token: %s", t.val)
		}
	default:
		return nil, p.errAt(t, "unexpected token: %s", describe(t))
	}
	return p.postfix(x)
}

func (p *parser) postfix(x expr) (expr, error) {
	for {
		t := p.peek()
		switch {
		case p.skipOp("("):
			args, kwargs, err := p.callArgs()
			if err != nil {
				return nil, err
			}
			x = &callExpr{posOf(t), x, args, kwargs}
		case p.skipOp("["):
			k, err := p.expression()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp("]", "expected ] after lookup"); err != nil {
				return nil, err
			}
			x = &lookupExpr{posOf(t), x, k}
		case p.skipOp("."):
			nt := p.next()
			var key any
			switch nt.kind {
			case tokName, tokString:
				key = nt.val
			case tokInt:
				f, _ := strconv.ParseFloat(nt.val, 64)
				key = f
			default:
				return nil, p.errAt(nt, "expected name as lookup value, got %s", describe(nt))
			}
			x = &lookupExpr{posOf(t), x, &litExpr{posOf(nt), key}}
		default:
			return x, nil
		}
	}
}

func (p *parser) group(open token) (expr, error) {
	g := &groupExpr{pos: posOf(open)}
	for !p.skipOp(")") {
		if len(g.items) > 0 {
			if err := p.expectOp(",", "parseAggregate: expected comma after expression"); err != nil {
				return nil, err
			}
			if p.skipOp(")") {
				break
			}
		}
		y, err := p.expression()
		if err != nil {
			return nil, err
		}
		g.items = append(g.items, y)
	}
	if len(g.items) == 0 {
		return nil, p.errAt(open, "parseAggregate: empty group \"()\"")
	}
	return g, nil
}

func (p *parser) array(open token) (expr, error) {
	arr := &arrayExpr{pos: posOf(open)}
	for !p.skipOp("]") {
		if len(arr.items) > 0 {
			if err := p.expectOp(",", "parseAggregate: expected comma after expression"); err != nil {
				return nil, err
			}
			if p.skipOp("]") {
				break
			}
		}
		y, err := p.expression()
		if err != nil {
			return nil, err
		}
		arr.items = append(arr.items, y)
	}
	return arr, nil
}

func (p *parser) dict(open token) (expr, error) {
	d := &dictExpr{pos: posOf(open)}
	for !p.skipOp("}") {
		if len(d.keys) > 0 {
			if err := p.expectOp(",", "parseAggregate: expected comma after expression"); err != nil {
				return nil, err
			}
			if p.skipOp("}") {
				break
			}
		}
		kt := p.peek()
		var k expr
		if kt.kind == tokName {
			p.i++
			k = &litExpr{posOf(kt), kt.val}
		} else {
			var err error
			if k, err = p.primary(); err != nil {
				return nil, err
			}
		}
		if err := p.expectOp(":", "parseAggregate: expected colon after dict key"); err != nil {
			return nil, err
		}
		v, err := p.expression()
		if err != nil {
			return nil, err
		}
		d.keys = append(d.keys, k)
		d.vals = append(d.vals, v)
	}
	return d, nil
}
