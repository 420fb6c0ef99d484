package expr

import (
	"errors"
	"fmt"
)

// Problem words an error of [Compile] as a configuration problem message, e.g.
// "invalid expression: SyntaxError: Unexpected token at 1:9 of the expression".
func Problem(err error) string {
	var ee *Error
	if errors.As(err, &ee) {
		return fmt.Sprintf("invalid expression: %s: %s at %d:%d of the expression", ee.Name, ee.Msg, ee.Line, ee.Column)
	}
	return "invalid expression: " + err.Error()
}
