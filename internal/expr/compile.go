package expr

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
)

// mode is how the source is wrapped into a function.
type mode int

const (
	modeExpression mode = iota // a single expression: its value is the result
	modeStatements             // statements: `return` or the final expression statement gives the result
	modeFunction               // a function body with fixed parameters: `return` gives the result
)

// wrapLineOffset is the number of wrapper lines before the first source line.
const wrapLineOffset = 1

// Program is a compiled expression or function body. It is immutable and safe for
// concurrent use by many goroutines.
type Program struct {
	name   string
	src    string
	mode   mode
	params []string // modeFunction: the fixed parameter names

	// fixed is the compiled program of modeFunction.
	fixed *compiled
	// last is the most recently used compilation (fast path for the usual single var set).
	last atomic.Pointer[compiled]
	// byNames caches compilations by their sorted, comma-joined variable names.
	byNames sync.Map
}

// compiled is the source wrapped as `(function(names...){...})`, compiled for one set of
// parameter names.
type compiled struct {
	names []string
	prog  *goja.Program
}

// Name returns the name given to Compile.
func (p *Program) Name() string { return p.name }

// Source returns the source given to Compile (the body for CompileFunction).
func (p *Program) Source() string { return p.src }

// Compile parses and compiles src, an expression (`args.title.toUpperCase()`) or a sequence
// of statements whose result is given by `return` or by the final expression statement
// (`const t = args.title; t.trim()`). name identifies the program in errors. Syntax errors
// are [*Error] values of kind [KindSyntax] with the line and column inside src.
//
// The variables passed to [Program.Eval] become bindings visible to the program; the program
// is recompiled (once, then cached) for each distinct set of variable names it is used with.
func Compile(name, src string) (*Program, error) {
	if strings.TrimSpace(src) == "" {
		return nil, &Error{Program: name, Kind: KindSyntax, Msg: "empty expression: write a JavaScript expression such as args.title"}
	}
	p := &Program{name: name, src: src, mode: modeExpression}
	c, errExpr := p.build(nil)
	if errExpr != nil {
		p.mode = modeStatements
		var err error
		c, err = p.build(nil)
		if err != nil {
			return nil, err
		}
	}
	p.byNames.Store("", c)
	return p, nil
}

// CompileFunction compiles body as the body of a function taking params, in the style of
// Lowdefy's `_js` operator: `return a + b`. [Program.Eval] passes vars[param] as each
// parameter (undefined when absent); a variable that is not a parameter is an error.
func CompileFunction(name string, params []string, body string) (*Program, error) {
	for _, n := range params {
		if err := checkIdentifier(n); err != nil {
			return nil, &Error{Program: name, Kind: KindSyntax, Msg: fmt.Sprintf("parameter %q: %v", n, err)}
		}
	}
	if i := firstDuplicate(params); i >= 0 {
		return nil, &Error{Program: name, Kind: KindSyntax, Msg: fmt.Sprintf("parameter %q is listed twice", params[i])}
	}
	p := &Program{name: name, src: body, mode: modeFunction, params: slices.Clone(params)}
	c, err := p.build(p.params)
	if err != nil {
		return nil, err
	}
	p.fixed = c
	return p, nil
}

func firstDuplicate(names []string) int {
	seen := make(map[string]bool, len(names))
	for i, n := range names {
		if seen[n] {
			return i
		}
		seen[n] = true
	}
	return -1
}

// forNames returns the compilation for a set of variable names (Compile programs only).
// names must be sorted.
func (p *Program) forNames(names []string) (*compiled, error) {
	key := strings.Join(names, ",")
	if c, ok := p.byNames.Load(key); ok {
		return c.(*compiled), nil
	}
	for _, n := range names {
		if err := checkIdentifier(n); err != nil {
			return nil, &Error{Program: p.name, Kind: KindInput, Msg: fmt.Sprintf("variable %q: %v", n, err)}
		}
	}
	c, err := p.build(names)
	if err != nil {
		return nil, err
	}
	actual, _ := p.byNames.LoadOrStore(key, c)
	return actual.(*compiled), nil
}

// build wraps the source into a function expression with the given parameters, parses it,
// checks that the source stayed inside the function, and compiles it in strict mode.
func (p *Program) build(names []string) (*compiled, error) {
	var prefix, suffix string
	params := strings.Join(names, ",")
	switch p.mode {
	case modeExpression:
		prefix, suffix = `(function(`+params+`){"use strict";return (`+"\n", "\n)})"
	case modeStatements:
		prefix, suffix = `(function(`+params+`){"use strict";{`+"\n", "\n}})"
	case modeFunction:
		prefix, suffix = `(function(`+params+`){"use strict";`+"\n", "\n})"
	}
	text := prefix + p.src + suffix
	tree, err := parser.ParseFile(nil, p.name, text, 0, parser.WithDisableSourceMaps)
	if err != nil {
		return nil, p.syntaxError(err)
	}
	fn, ok := wrapperFunction(tree, len(text))
	if !ok {
		return nil, &Error{Program: p.name, Kind: KindSyntax, Name: "SyntaxError", Msg: "unbalanced brackets: the source closes more brackets than it opens"}
	}
	switch p.mode {
	case modeExpression:
		if len(fn.Body.List) != 2 {
			return nil, &Error{Program: p.name, Kind: KindSyntax, Name: "SyntaxError", Msg: "not a single expression"}
		}
	case modeStatements:
		if len(fn.Body.List) != 2 {
			return nil, &Error{Program: p.name, Kind: KindSyntax, Name: "SyntaxError", Msg: "unbalanced braces: the source closes more braces than it opens"}
		}
		block, ok := fn.Body.List[1].(*ast.BlockStatement)
		if !ok {
			return nil, &Error{Program: p.name, Kind: KindSyntax, Name: "SyntaxError", Msg: "unbalanced braces: the source closes more braces than it opens"}
		}
		returnLast(block.List)
	}
	LimitRegexpMatches() // before goja compiles the program's regular expression literals
	prog, err := goja.CompileAST(tree, true)
	if err != nil {
		return nil, p.syntaxError(err)
	}
	return &compiled{names: names, prog: prog}, nil
}

// wrapperFunction returns the function literal that must span the whole text but its outer
// parentheses; anything else means the source escaped the wrapper.
func wrapperFunction(tree *ast.Program, textLen int) (*ast.FunctionLiteral, bool) {
	if len(tree.Body) != 1 {
		return nil, false
	}
	st, ok := tree.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return nil, false
	}
	fn, ok := st.Expression.(*ast.FunctionLiteral)
	if !ok || fn.Body == nil {
		return nil, false
	}
	// Idx is 1-based: offset o is Idx o+1. The literal starts at offset 1 and its closing
	// brace is the second-last byte.
	if int(fn.Idx0()) != 2 || int(fn.Body.RightBrace) != textLen-1 {
		return nil, false
	}
	return fn, true
}

// returnLast turns the final expression statement of list (looking into blocks, if/else and
// try) into a return statement, so statements yield their completion value.
func returnLast(list []ast.Statement) {
	i := len(list) - 1
	for i >= 0 {
		if _, empty := list[i].(*ast.EmptyStatement); !empty {
			break
		}
		i--
	}
	if i < 0 {
		return
	}
	list[i] = rewriteTail(list[i])
}

func rewriteTail(s ast.Statement) ast.Statement {
	switch s := s.(type) {
	case *ast.ExpressionStatement:
		return &ast.ReturnStatement{Return: s.Idx0(), Argument: s.Expression}
	case *ast.BlockStatement:
		returnLast(s.List)
	case *ast.IfStatement:
		s.Consequent = rewriteTail(s.Consequent)
		if s.Alternate != nil {
			s.Alternate = rewriteTail(s.Alternate)
		}
	case *ast.TryStatement:
		if s.Finally == nil {
			returnLast(s.Body.List)
			if s.Catch != nil {
				returnLast(s.Catch.Body.List)
			}
		}
	}
	return s
}

// syntaxError converts a parser or compiler error into a positioned *Error.
func (p *Program) syntaxError(err error) *Error {
	e := &Error{Program: p.name, Kind: KindSyntax, Name: "SyntaxError", Msg: err.Error()}
	var list parser.ErrorList
	var perr *parser.Error
	var cse *goja.CompilerSyntaxError
	var cre *goja.CompilerReferenceError
	switch {
	case errors.As(err, &list) && len(list) > 0:
		e.Msg = list[0].Message
		e.Line, e.Column, e.SourceLine = p.position(list[0].Position.Line, list[0].Position.Column)
	case errors.As(err, &perr):
		e.Msg = perr.Message
		e.Line, e.Column, e.SourceLine = p.position(perr.Position.Line, perr.Position.Column)
	case errors.As(err, &cse):
		e.Msg = cse.Message
		if cse.File != nil {
			pos := cse.File.Position(cse.Offset)
			e.Line, e.Column, e.SourceLine = p.position(pos.Line, pos.Column)
		}
	case errors.As(err, &cre):
		e.Name = "ReferenceError"
		e.Msg = cre.Message
		if cre.File != nil {
			pos := cre.File.Position(cre.Offset)
			e.Line, e.Column, e.SourceLine = p.position(pos.Line, pos.Column)
		}
	}
	return e
}
