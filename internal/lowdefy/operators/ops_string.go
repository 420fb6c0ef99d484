package operators

import (
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// maxStringLength bounds strings built by repeat and pad (JavaScript's own
// limit is far larger; this protects the server).
const maxStringLength = 1_000_000

var emptyString = func(*call) any { return "" }

// prepString replaces a null or undefined first argument with the empty string.
func prepString(c *call, args []any) ([]any, error) { return prepDefault(c, args, emptyString) }

func prepRegex(regexIndex, flagsIndex int) func(c *call, args []any) ([]any, error) {
	return func(c *call, args []any) ([]any, error) {
		if jsvalue.Truthy(arg(args, regexIndex)) {
			for len(args) <= flagsIndex {
				args = append(args, jsvalue.Undefined)
			}
			args[regexIndex] = jsRegExp{pattern: args[regexIndex], flags: args[flagsIndex]}
		}
		return prepString(c, args)
	}
}

func namedString(names ...string) *method {
	return &method{namedArgs: append([]string{"on"}, names...), prep: prepString, validTypes: []string{"array", "object"}}
}

func singleString() *method {
	return &method{singleArg: true, prep: prepString, validTypes: []string{"string", "null"}}
}

var stringMeta = lazy.Value[map[string]*method]{New: func() map[string]*method {
	return map[string]*method{
		"charAt":      namedString("index"),
		"concat":      {prep: prepString, validTypes: []string{"array"}},
		"endsWith":    namedString("searchString", "length"),
		"includes":    namedString("searchString", "position"),
		"indexOf":     namedString("searchValue", "fromIndex"),
		"lastIndexOf": namedString("searchValue", "fromIndex"),
		"match":       {namedArgs: []string{"on", "regex", "regexFlags"}, prep: prepRegex(1, 2), validTypes: []string{"array", "object"}},
		"normalize":   namedString("form"),
		"padEnd":      namedString("targetLength", "padString"),
		"padStart":    namedString("targetLength", "padString"),
		"repeat":      namedString("count"),
		"replace":     {namedArgs: []string{"on", "regex", "newSubstr", "regexFlags"}, prep: prepRegex(1, 3), validTypes: []string{"array", "object"}},
		"search":      {namedArgs: []string{"on", "regex", "regexFlags"}, prep: prepRegex(1, 2), validTypes: []string{"array", "object"}},
		"slice":       namedString("start", "end"),
		"split":       namedString("separator"),
		"startsWith":  namedString("searchString", "position"),
		"substring":   namedString("start", "end"),
		"toLowerCase": singleString(),
		"toUpperCase": singleString(),
		"trim":        singleString(),
		"trimEnd":     singleString(),
		"trimStart":   singleString(),
		"length":      {property: true, prep: prepString, validTypes: []string{"string", "null"}},
	}
}}

func opString(c *call) (any, error) {
	return runInstance(c, stringMeta.Get(), "string", func(c *call, instance any, args []any) (any, error) {
		s := instance.(string)
		switch c.method {
		case "length":
			return float64(jsvalue.StringLength(s)), nil
		case "repeat":
			if n := jsvalue.ToNumber(arg(args, 0)); n*float64(jsvalue.StringLength(s)) > maxStringLength {
				return nil, fmt.Errorf("RangeError: Invalid string length")
			}
		case "padStart", "padEnd":
			if jsvalue.ToNumber(arg(args, 0)) > maxStringLength {
				return nil, fmt.Errorf("RangeError: Invalid string length")
			}
		}
		return callMethod(s, c.method, args)
	})
}
