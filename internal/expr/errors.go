package expr

import (
	"fmt"
	"strings"
)

// ErrorKind classifies an [*Error].
type ErrorKind int

const (
	// KindSyntax: the source does not parse (reported by [Compile], [CompileFunction], or by
	// [Program.Eval] the first time a program is used with a new set of variable names).
	KindSyntax ErrorKind = iota + 1
	// KindRuntime: the program threw (a JavaScript throw, TypeError, ReferenceError, stack overflow...).
	KindRuntime
	// KindTimeout: the evaluation exceeded [Limits.Timeout] or the context deadline.
	KindTimeout
	// KindCanceled: the context was canceled during the evaluation.
	KindCanceled
	// KindMemory: the evaluation exceeded [Limits.MaxMemory].
	KindMemory
	// KindInput: a variable passed to [Program.Eval] is not a JSON-like value or not a valid name.
	KindInput
	// KindResult: the result cannot be converted to a JSON-like Go value (a function, a symbol, a cycle...).
	KindResult
)

// String returns the kind's lower-case name, e.g. "syntax".
func (k ErrorKind) String() string {
	switch k {
	case KindSyntax:
		return "syntax"
	case KindRuntime:
		return "runtime"
	case KindTimeout:
		return "timeout"
	case KindCanceled:
		return "canceled"
	case KindMemory:
		return "memory"
	case KindInput:
		return "input"
	case KindResult:
		return "result"
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// Error is the error type of every failure in this package. Line and Column are 1-based
// positions inside the source given to [Compile] (or the body given to [CompileFunction]);
// both are 0 when no position is known.
type Error struct {
	// Program is the name given to Compile.
	Program string
	// Kind says what went wrong.
	Kind ErrorKind
	// Name is the JavaScript error name ("SyntaxError", "TypeError", "Error", ...) or "" when
	// the thrown value was not an error object or the failure is not a JavaScript one.
	Name string
	// Msg is the message, without position.
	Msg string
	// Line and Column locate the failure in the source (1-based), 0 if unknown.
	Line, Column int
	// SourceLine is the text of source line Line ("" if unknown), for caret displays.
	SourceLine string
	// Err is the underlying cause, if any (e.g. context.DeadlineExceeded).
	Err error
}

// Error formats the error as `expr NAME:LINE:COL: Name: Msg`.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("expression")
	if e.Program != "" {
		fmt.Fprintf(&b, " %q", e.Program)
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, " at %d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	if e.Name != "" {
		b.WriteString(e.Name)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Caret returns the source line followed by a line with a caret under the column, or "" when
// the position is unknown. It is meant for multi-line displays (CLI, admin UI).
func (e *Error) Caret() string {
	if e.Line <= 0 || e.SourceLine == "" {
		return ""
	}
	col := max(e.Column, 1)
	pad := make([]rune, 0, col)
	for i, r := range []rune(e.SourceLine) {
		if i >= col-1 {
			break
		}
		if r == '\t' {
			pad = append(pad, '\t')
		} else {
			pad = append(pad, ' ')
		}
	}
	return e.SourceLine + "\n" + string(pad) + "^"
}

// position maps a position in the wrapped text (the source starts at line 2, column 1)
// back to the source, clamping positions in the wrapper to the nearest source position.
func (p *Program) position(line, col int) (int, int, string) {
	if line <= 0 {
		return 0, 0, ""
	}
	lines := p.lines()
	l := line - wrapLineOffset
	switch {
	case l < 1:
		l, col = 1, 1
	case l > len(lines):
		l = len(lines)
		col = len([]rune(lines[l-1])) + 1
	}
	return l, col, lines[l-1]
}

func (p *Program) lines() []string {
	return strings.Split(p.src, "\n")
}
