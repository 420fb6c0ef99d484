package expr_test

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/expr"
)

func Example() {
	p, err := expr.Compile("mapping.title", `args.title.trim().toUpperCase()`)
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := p.Eval(context.Background(), map[string]any{"args": map[string]any{"title": " hello "}}, expr.Limits{Timeout: time.Second})
	fmt.Printf("%q %v\n", v, err)

	_, err = expr.Compile("mapping.bad", "args.a +* 2")
	fmt.Println(err)
	fmt.Println(err.(*expr.Error).Caret())
	// Output:
	// "HELLO" <nil>
	// expression "mapping.bad" at 1:9: SyntaxError: Unexpected token *
	// args.a +* 2
	//         ^
}

func ExampleCompileFunction() {
	p, err := expr.CompileFunction("_js", []string{"state"}, `return state.items.filter(i => i.done).length`)
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := p.Eval(context.Background(), map[string]any{
		"state": map[string]any{"items": []any{map[string]any{"done": true}, map[string]any{"done": false}}},
	}, expr.Limits{Timeout: time.Second})
	fmt.Println(v, err)
	// Output: 1 <nil>
}
