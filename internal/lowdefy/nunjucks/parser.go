package nunjucks

import (
	"strconv"
)

// parser is a recursive-descent parser over lexer tokens.
type parser struct {
	name  string
	toks  []token
	i     int
	depth int
}

// maxNesting bounds expression and block nesting (deep recursion guard).
const maxNesting = 400

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxNesting {
		t := p.peek()
		return p.errAt(t, "template nested more than %d levels deep", maxNesting)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// parse builds the statement list of a template.
func parse(name, src string) ([]node, error) {
	toks, err := lex(name, src)
	if err != nil {
		return nil, err
	}
	p := &parser{name: name, toks: toks}
	nodes, end, err := p.nodes(nil)
	if err != nil {
		return nil, err
	}
	if end != "" {
		t := p.peek()
		return nil, p.errAt(t, "unexpected block %q", end)
	}
	return nodes, nil
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) peekN(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) errAt(t token, format string, args ...any) error {
	return newError(p.name, t.line, t.col, format, args...)
}

func describe(t token) string {
	if t.kind == tokEOF {
		return "end of file"
	}
	return strconv.Quote(t.val)
}

// isOp reports whether the next token is the operator op.
func (p *parser) isOp(op string) bool {
	t := p.peek()
	return t.kind == tokOp && t.val == op
}

// isName reports whether the next token is the bare name n.
func (p *parser) isName(n string) bool {
	t := p.peek()
	return t.kind == tokName && t.val == n
}

func (p *parser) skipOp(op string) bool {
	if p.isOp(op) {
		p.i++
		return true
	}
	return false
}

func (p *parser) skipName(n string) bool {
	if p.isName(n) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectOp(op, ctx string) error {
	if !p.skipOp(op) {
		t := p.peek()
		return p.errAt(t, "%s: expected %q, got %s", ctx, op, describe(t))
	}
	return nil
}

func (p *parser) expectName(ctx string) (token, error) {
	t := p.peek()
	if t.kind != tokName {
		return t, p.errAt(t, "%s: expected a name, got %s", ctx, describe(t))
	}
	p.i++
	return t, nil
}

func (p *parser) expectBlockEnd(tag string) error {
	t := p.peek()
	if t.kind != tokBlockEnd {
		return p.errAt(t, "expected block end in %s statement, got %s", tag, describe(t))
	}
	p.i++
	return nil
}

// nodes parses statements until one of the block tags in stop (or EOF) and
// returns the tag name that stopped it, leaving the parser after the tag name.
func (p *parser) nodes(stop map[string]bool) ([]node, string, error) {
	if err := p.enter(); err != nil {
		return nil, "", err
	}
	defer p.leave()
	var out []node
	for {
		t := p.peek()
		switch t.kind {
		case tokEOF:
			if stop != nil {
				return nil, "", p.errAt(t, "unexpected end of file: missing end tag")
			}
			return out, "", nil
		case tokData:
			p.i++
			out = append(out, &textNode{pos{t.line, t.col}, t.val})
		case tokVarStart:
			p.i++
			x, err := p.expression()
			if err != nil {
				return nil, "", err
			}
			e := p.peek()
			if e.kind != tokVarEnd {
				return nil, "", p.errAt(e, "expected variable end, got %s", describe(e))
			}
			p.i++
			out = append(out, &outputNode{pos{t.line, t.col}, x})
		case tokBlockStart:
			p.i++
			nt := p.peek()
			if nt.kind != tokName {
				return nil, "", p.errAt(nt, "tag name expected, got %s", describe(nt))
			}
			if stop[nt.val] {
				p.i++
				return out, nt.val, nil
			}
			p.i++
			n, err := p.statement(nt)
			if err != nil {
				return nil, "", err
			}
			if n != nil {
				out = append(out, n)
			}
		default:
			return nil, "", p.errAt(t, "unexpected token %s", describe(t))
		}
	}
}

// statement parses the block tag whose name token was just consumed.
func (p *parser) statement(tag token) (node, error) {
	at := pos{tag.line, tag.col}
	switch tag.val {
	case "if", "ifAsync":
		return p.ifStmt(at)
	case "for", "asyncEach", "asyncAll":
		return p.forStmt(at, tag.val)
	case "set":
		return p.setStmt(at)
	case "macro":
		return p.macroStmt(at)
	case "filter":
		return p.filterStmt(at)
	case "switch":
		return p.switchStmt(at)
	case "raw", "verbatim":
		// empty raw block: lexer already turned the body into data
		return nil, p.expectBlockEnd(tag.val)
	case "extends", "include", "import", "from", "block", "call", "extends_":
		return nil, p.errAt(tag, "the %q tag is not supported (no template loader)", tag.val)
	}
	return nil, p.errAt(tag, "unknown block tag: %s", tag.val)
}

func (p *parser) ifStmt(at pos) (node, error) {
	n := &ifNode{pos: at}
	for {
		cond, err := p.expression()
		if err != nil {
			return nil, err
		}
		if err := p.expectBlockEnd("if"); err != nil {
			return nil, err
		}
		body, end, err := p.nodes(map[string]bool{"elif": true, "elseif": true, "else": true, "endif": true})
		if err != nil {
			return nil, err
		}
		n.conds = append(n.conds, cond)
		n.bodies = append(n.bodies, body)
		switch end {
		case "elif", "elseif":
			continue
		case "else":
			if err := p.expectBlockEnd("if"); err != nil {
				return nil, err
			}
			els, _, err := p.nodes(map[string]bool{"endif": true})
			if err != nil {
				return nil, err
			}
			n.els = els
		}
		return n, p.expectBlockEnd("if")
	}
}

func (p *parser) forStmt(at pos, tag string) (node, error) {
	n := &forNode{pos: at}
	for {
		t, err := p.expectName("for")
		if err != nil {
			return nil, err
		}
		n.names = append(n.names, t.val)
		if !p.skipOp(",") {
			break
		}
	}
	if !p.skipName("in") {
		t := p.peek()
		return nil, p.errAt(t, "parseFor: expected \"in\" keyword for loop, got %s", describe(t))
	}
	iter, err := p.expression()
	if err != nil {
		return nil, err
	}
	n.iter = iter
	if err := p.expectBlockEnd("for"); err != nil {
		return nil, err
	}
	endTag := "end" + map[string]string{"for": "for", "asyncEach": "each", "asyncAll": "all"}[tag]
	body, end, err := p.nodes(map[string]bool{"else": true, endTag: true})
	if err != nil {
		return nil, err
	}
	n.body = body
	if end == "else" {
		if err := p.expectBlockEnd("for"); err != nil {
			return nil, err
		}
		els, _, err := p.nodes(map[string]bool{endTag: true})
		if err != nil {
			return nil, err
		}
		n.els = els
	}
	return n, p.expectBlockEnd("for")
}

func (p *parser) setStmt(at pos) (node, error) {
	n := &setNode{pos: at}
	for {
		t, err := p.expectName("set")
		if err != nil {
			return nil, err
		}
		n.names = append(n.names, t.val)
		if !p.skipOp(",") {
			break
		}
	}
	if p.skipOp("=") {
		v, err := p.expression()
		if err != nil {
			return nil, err
		}
		n.val = v
		return n, p.expectBlockEnd("set")
	}
	if err := p.expectBlockEnd("set"); err != nil {
		t := p.peek()
		return nil, p.errAt(t, "parseSet: expected = or block end in set tag")
	}
	body, _, err := p.nodes(map[string]bool{"endset": true})
	if err != nil {
		return nil, err
	}
	n.body, n.block = body, true
	return n, p.expectBlockEnd("set")
}

func (p *parser) macroStmt(at pos) (node, error) {
	t, err := p.expectName("macro")
	if err != nil {
		return nil, err
	}
	n := &macroNode{pos: at, name: t.val}
	if err := p.expectOp("(", "macro "+t.val); err != nil {
		return nil, err
	}
	for !p.skipOp(")") {
		pt, err := p.expectName("macro " + t.val + " arguments")
		if err != nil {
			return nil, err
		}
		var def expr
		if p.skipOp("=") {
			if def, err = p.expression(); err != nil {
				return nil, err
			}
		}
		n.params = append(n.params, pt.val)
		n.defaults = append(n.defaults, def)
		if !p.skipOp(",") && !p.isOp(")") {
			x := p.peek()
			return nil, p.errAt(x, "macro %s: expected \",\" or \")\", got %s", t.val, describe(x))
		}
	}
	if err := p.expectBlockEnd("macro"); err != nil {
		return nil, err
	}
	body, _, err := p.nodes(map[string]bool{"endmacro": true})
	if err != nil {
		return nil, err
	}
	n.body = body
	return n, p.expectBlockEnd("macro")
}

func (p *parser) filterStmt(at pos) (node, error) {
	f, err := p.filterCall(&litExpr{pos: at})
	if err != nil {
		return nil, err
	}
	if err := p.expectBlockEnd("filter"); err != nil {
		return nil, err
	}
	body, _, err := p.nodes(map[string]bool{"endfilter": true})
	if err != nil {
		return nil, err
	}
	return &filterBlockNode{pos: at, filter: f, body: body}, p.expectBlockEnd("filter")
}

func (p *parser) switchStmt(at pos) (node, error) {
	x, err := p.expression()
	if err != nil {
		return nil, err
	}
	n := &switchNode{pos: at, x: x}
	if err := p.expectBlockEnd("switch"); err != nil {
		return nil, err
	}
	// text before the first case is ignored, as in nunjucks
	_, end, err := p.nodes(map[string]bool{"case": true, "default": true, "endswitch": true})
	if err != nil {
		return nil, err
	}
	for end != "endswitch" {
		if end == "case" {
			c, err := p.expression()
			if err != nil {
				return nil, err
			}
			n.cases = append(n.cases, c)
		} else {
			n.hasDef = true
		}
		if err := p.expectBlockEnd(end); err != nil {
			return nil, err
		}
		var body []node
		prev := end
		body, end, err = p.nodes(map[string]bool{"case": true, "default": true, "endswitch": true})
		if err != nil {
			return nil, err
		}
		if prev == "case" {
			n.bodies = append(n.bodies, body)
		} else {
			n.def = body
		}
	}
	return n, p.expectBlockEnd("switch")
}
