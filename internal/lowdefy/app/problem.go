package app

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong with (or worth knowing about) an app: where it is and what
// to fix. File is relative to the app directory; Line and Col are 1-based (0 when
// unknown); Path is the field path in the resolved config, such as
// `pages[0].areas.content.blocks[1].type`.
type Problem struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// String formats the problem as `FILE:LINE:COL: PATH: MESSAGE`, leaving out what is unknown.
func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d", p.Line)
			if p.Col > 0 {
				fmt.Fprintf(&b, ":%d", p.Col)
			}
		}
		b.WriteString(": ")
	}
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

func problemAt(pos position, path, format string, args ...any) Problem {
	return Problem{File: pos.file, Line: pos.line, Col: pos.col, Path: path, Message: fmt.Sprintf(format, args...)}
}

// Error is the error Load returns when an app cannot be loaded; it lists every problem
// found. Use errors.As to get at the list.
type Error struct {
	Dir      string
	Problems []Problem
}

// Error implements error: one problem per line.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "loading Lowdefy app %s: ", e.Dir)
	if len(e.Problems) == 1 {
		b.WriteString(e.Problems[0].String())
		return b.String()
	}
	fmt.Fprintf(&b, "%d problems:", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

// parseError is a syntax error in a config file, at a position.
type parseError struct {
	pos position
	msg string
}

func (e *parseError) Error() string { return e.pos.String() + ": " + e.msg }

func (e *parseError) problem() Problem { return problemAt(e.pos, "", "%s", e.msg) }
