package expr

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want Error
	}{
		{"unexpected token", "args.a +* 2", Error{Kind: KindSyntax, Name: "SyntaxError", Msg: "Unexpected token *", Line: 1, Column: 9, SourceLine: "args.a +* 2"}},
		{"second line", "let x = 1;\nlet = = 2", Error{Kind: KindSyntax, Name: "SyntaxError", Line: 2, Column: 7, SourceLine: "let = = 2"}},
		{"unterminated at end", "args.a +", Error{Kind: KindSyntax, Name: "SyntaxError", Line: 1, Column: 9, SourceLine: "args.a +"}},
		{"escaping the wrapper", "1)}); let leak = (1", Error{Kind: KindSyntax, Name: "SyntaxError", Line: 1, Column: 2, SourceLine: "1)}); let leak = (1"}},
		{"closing the block", "1 }; {", Error{Kind: KindSyntax, Name: "SyntaxError"}},
		{"duplicate let", "let a = 1; let a = 2; a", Error{Kind: KindSyntax, Name: "SyntaxError", Line: 1, Column: 16, SourceLine: "let a = 1; let a = 2; a"}},
		{"empty", "  \n ", Error{Kind: KindSyntax, Msg: "empty expression: write a JavaScript expression such as args.title"}},
		{"with is not strict", "with (args) { a }", Error{Kind: KindSyntax, Name: "SyntaxError", Line: 1, Column: 1, SourceLine: "with (args) { a }"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile("m", tt.src)
			if err == nil {
				t.Fatal("Compile succeeded, want a syntax error")
			}
			got := *asError(t, err)
			tt.want.Program = "m"
			opts := cmp.Options{cmpopts.IgnoreFields(Error{}, "Err")}
			if tt.want.Msg == "" {
				opts = append(opts, cmpopts.IgnoreFields(Error{}, "Msg"))
			}
			if tt.want.Line == 0 {
				opts = append(opts, cmpopts.IgnoreFields(Error{}, "Line", "Column", "SourceLine"))
			}
			if diff := cmp.Diff(tt.want, got, opts); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s\n(%v)", diff, err)
			}
		})
	}
}

func TestRuntimeErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want Error
	}{
		{"property of undefined", "args.missing.x", Error{Kind: KindRuntime, Name: "TypeError", Msg: "Cannot read property 'x' of undefined", Line: 1, Column: 14}},
		{"throw on line 2", "const a = 1;\n  throw new RangeError('bad ' + a)", Error{Kind: KindRuntime, Name: "RangeError", Msg: "bad 1", Line: 2, Column: 9}},
		{"throw a string", `throw "boom"`, Error{Kind: KindRuntime, Msg: "uncaught boom", Line: 1, Column: 1}},
		{"undeclared assignment", "y = 1", Error{Kind: KindRuntime, Name: "ReferenceError", Msg: "y is not defined", Line: 1, Column: 1}},
		{"unknown variable", "nope + 1", Error{Kind: KindRuntime, Name: "ReferenceError", Msg: "nope is not defined", Line: 1, Column: 1}},
		{"not a function", "args.x()", Error{Kind: KindRuntime, Name: "TypeError", Line: 1, Column: 7}},
		{"runaway recursion", "function f(n) { return f(n + 1) }\nf(0)", Error{Kind: KindRuntime, Name: "RangeError", Msg: "Maximum call stack size exceeded", Line: 1}},
		{"eval is removed", "eval('1')", Error{Kind: KindRuntime, Name: "ReferenceError", Msg: "eval is not defined", Line: 1, Column: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustCompile(t, tt.src)
			_, err := p.Eval(context.Background(), map[string]any{"args": map[string]any{"x": 1}}, testLimits)
			if err == nil {
				t.Fatal("Eval succeeded, want an error")
			}
			got := *asError(t, err)
			tt.want.Program = "test"
			opts := cmp.Options{cmpopts.IgnoreFields(Error{}, "Err", "SourceLine")}
			if tt.want.Msg == "" {
				opts = append(opts, cmpopts.IgnoreFields(Error{}, "Msg"))
			}
			if tt.want.Column == 0 {
				opts = append(opts, cmpopts.IgnoreFields(Error{}, "Column"))
			}
			if diff := cmp.Diff(tt.want, got, opts); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s\n(%v)", diff, err)
			}
		})
	}
}

func TestErrorStrings(t *testing.T) {
	_, err := Compile("mapping.title", "args.a +* 2")
	if err == nil {
		t.Fatal("want error")
	}
	e := asError(t, err)
	if got, want := e.Error(), `expression "mapping.title" at 1:9: SyntaxError: Unexpected token *`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got, want := e.Caret(), "args.a +* 2\n        ^"; got != want {
		t.Errorf("Caret() = %q, want %q", got, want)
	}
	if got := (&Error{Kind: KindTimeout, Msg: "exceeded the time limit of 1s"}).Error(); got != "expression: exceeded the time limit of 1s" {
		t.Errorf("unnamed Error() = %q", got)
	}
	for k := KindSyntax; k <= KindResult; k++ {
		if s := k.String(); s == "" || s[0] == 'E' {
			t.Errorf("kind %d has no name: %q", k, s)
		}
	}
}
