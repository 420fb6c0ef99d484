package nunjucks

import "fmt"

// Error is a template parse or render error with its position.
type Error struct {
	// Template is the name given to Compile ("" for Render).
	Template string
	// Line and Col are 1-based positions of the offending token or node.
	Line, Col int
	// Msg says what went wrong.
	Msg string
}

// Error implements error.
func (e *Error) Error() string {
	name := e.Template
	if name == "" {
		name = "(template)"
	}
	return fmt.Sprintf("nunjucks: %s [Line %d, Column %d]: %s", name, e.Line, e.Col, e.Msg)
}

func newError(name string, line, col int, format string, args ...any) *Error {
	return &Error{Template: name, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// rtError is a runtime failure not yet tied to a position.
type rtError struct{ msg string }

// Error implements error.
func (e *rtError) Error() string { return e.msg }

func errorf(format string, args ...any) error { return &rtError{fmt.Sprintf(format, args...)} }
