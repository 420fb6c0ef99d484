package jsvalue_test

import (
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

func Example() {
	v, _ := jsvalue.Decode([]byte(`{"b": 1, "a": 2, "10": 3, "2": 4}`))
	obj := v.(*jsvalue.Object)
	obj.Set("c", jsvalue.Undefined)
	fmt.Println(obj.Keys())
	s, _ := jsvalue.Stringify(obj, "")
	fmt.Println(s)
	c, ok := jsvalue.Compare("10", "9")
	fmt.Println(c < 0 && ok, jsvalue.LooseEqual("1", 1.0), jsvalue.Truthy(""))
	// Output:
	// [2 10 b a c]
	// {"2":4,"10":3,"b":1,"a":2}
	// true true false
}
