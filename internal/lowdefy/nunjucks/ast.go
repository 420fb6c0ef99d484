package nunjucks

// pos is a 1-based source position.
type pos struct{ line, col int }

// expr is an expression node.
type expr interface{ position() pos }

// node is a statement node.
type node interface{ position() pos }

func (p pos) position() pos { return p }

type (
	litExpr struct {
		pos
		val any
	}
	nameExpr struct {
		pos
		name string
	}
	lookupExpr struct {
		pos
		target, key expr
	}
	callExpr struct {
		pos
		fn     expr
		args   []expr
		kwargs []kwarg
	}
	filterExpr struct {
		pos
		name   string
		target expr
		args   []expr
		kwargs []kwarg
	}
	unaryExpr struct {
		pos
		op string
		x  expr
	}
	binExpr struct {
		pos
		op   string
		l, r expr
	}
	compareExpr struct {
		pos
		first expr
		ops   []string
		rest  []expr
	}
	isExpr struct {
		pos
		x    expr
		test string
		args []expr
	}
	condExpr struct {
		pos
		cond, then, els expr
	}
	arrayExpr struct {
		pos
		items []expr
	}
	dictExpr struct {
		pos
		keys, vals []expr
	}
	// groupExpr is a parenthesized expression; with several items it is
	// JavaScript's comma operator (the last value).
	groupExpr struct {
		pos
		items []expr
	}
	kwarg struct {
		name string
		val  expr
	}
)

type (
	textNode struct {
		pos
		s string
	}
	outputNode struct {
		pos
		x expr
	}
	ifNode struct {
		pos
		conds  []expr
		bodies [][]node
		els    []node
	}
	forNode struct {
		pos
		names []string
		iter  expr
		body  []node
		els   []node
	}
	setNode struct {
		pos
		names []string
		val   expr
		body  []node
		block bool
	}
	macroNode struct {
		pos
		name     string
		params   []string
		defaults []expr
		body     []node
	}
	filterBlockNode struct {
		pos
		filter *filterExpr
		body   []node
	}
	switchNode struct {
		pos
		x      expr
		cases  []expr
		bodies [][]node
		def    []node
		hasDef bool
	}
)
