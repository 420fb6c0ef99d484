package nunjucks

import (
	"math"
	"strings"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// The `is` tests of nunjucks' tests.js refer to functions that use them, so no package-level
// initialiser can build them; they are built on first use (tests), not by an init.
var (
	testsOnce  sync.Once
	testsTable map[string]func(v any, args []any) bool
)

// tests returns the `is` tests by name, building them on the first call.
func tests() map[string]func(v any, args []any) bool {
	testsOnce.Do(func() { testsTable = newTests() })
	return testsTable
}

func arg(args []any, i int) any {
	if i < len(args) {
		return args[i]
	}
	return jsvalue.Undefined
}

// newTests builds the `is` tests by name (see tests).
func newTests() map[string]func(v any, args []any) bool {
	cmp := func(op string) func(v any, args []any) bool {
		return func(v any, args []any) bool { return compareOp(op, v, arg(args, 0)) }
	}
	eq := func(v any, args []any) bool { return strictEq(v, arg(args, 0)) }
	return map[string]func(v any, args []any) bool{
		"callable":  func(v any, _ []any) bool { _, ok := v.(*macroFunc); return ok },
		"defined":   func(v any, _ []any) bool { return !jsvalue.IsUndefined(v) },
		"undefined": func(v any, _ []any) bool { return jsvalue.IsUndefined(v) },
		"divisibleby": func(v any, args []any) bool {
			return math.Mod(jsvalue.ToNumber(v), jsvalue.ToNumber(arg(args, 0))) == 0
		},
		"escaped": func(v any, _ []any) bool { _, ok := v.(SafeString); return ok },
		"equalto": eq, "eq": eq, "sameas": eq,
		"even":   func(v any, _ []any) bool { return math.Mod(jsvalue.ToNumber(v), 2) == 0 },
		"odd":    func(v any, _ []any) bool { return math.Mod(jsvalue.ToNumber(v), 2) == 1 },
		"falsy":  func(v any, _ []any) bool { return !jsvalue.Truthy(v) },
		"truthy": func(v any, _ []any) bool { return jsvalue.Truthy(v) },
		"ge":     cmp(">="), "gt": cmp(">"), "greaterthan": cmp(">"),
		"le": cmp("<="), "lt": cmp("<"), "lessthan": cmp("<"), "ne": cmp("!=="),
		"null":   func(v any, _ []any) bool { return v == nil },
		"number": func(v any, _ []any) bool { _, ok := v.(float64); return ok },
		"string": func(v any, _ []any) bool { _, ok := v.(string); return ok },
		"lower": func(v any, _ []any) bool {
			s, ok := asString(v)
			return ok && strings.ToLower(s) == s
		},
		"upper": func(v any, _ []any) bool {
			s, ok := asString(v)
			return ok && jsUpper(s) == s
		},
		"iterable": func(v any, _ []any) bool {
			switch v.(type) {
			case []any, string, SafeString:
				return true
			}
			return false
		},
		"mapping": func(v any, _ []any) bool {
			switch v.(type) {
			case *jsvalue.Object, time.Time, SafeString:
				return true
			}
			return false
		},
	}
}
