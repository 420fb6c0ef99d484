package operators

import "github.com/mcpbridge/mcpbridge/internal/lazy"

// prepArrayArg replaces a null or undefined first argument with an empty array.
func prepArrayArg(c *call, args []any) ([]any, error) {
	return prepDefault(c, args, func(*call) any { return []any{} })
}

func namedArray(names ...string) *method {
	return &method{namedArgs: append([]string{"on"}, names...), prep: prepArrayArg, validTypes: []string{"array", "object"}}
}

var arrayMeta = lazy.Value[map[string]*method]{New: func() map[string]*method {
	return map[string]*method{
		"concat":      {prep: prepArrayArg, validTypes: []string{"array"}},
		"copyWithin":  namedArray("target", "start", "end"),
		"every":       namedArray("callback"),
		"fill":        namedArray("value", "start", "end"),
		"filter":      namedArray("callback"),
		"find":        namedArray("callback"),
		"findIndex":   namedArray("callback"),
		"flat":        namedArray("depth"),
		"includes":    namedArray("value"),
		"indexOf":     namedArray("value"),
		"join":        namedArray("separator"),
		"lastIndexOf": namedArray("value"),
		"map":         namedArray("callback"),
		"reduce":      namedArray("callback", "initialValue"),
		"reduceRight": namedArray("callback", "initialValue"),
		"reverse":     {prep: prepArrayArg, validTypes: []string{"array", "null"}, singleArg: true},
		"slice":       namedArray("start", "end"),
		"some":        namedArray("callback"),
		"sort":        {namedArgs: []string{"on"}, prep: prepArrayArg, validTypes: []string{"array"}},
		"splice":      {namedArgs: []string{"on", "start", "deleteCount"}, spreadArgs: "insert", returnInstance: true, prep: prepArrayArg, validTypes: []string{"array", "object"}},
		"length":      {property: true, prep: prepArrayArg, validTypes: []string{"array", "null"}},
	}
}}

func opArray(c *call) (any, error) {
	return runInstance(c, arrayMeta.Get(), "array", func(c *call, instance any, args []any) (any, error) {
		a := instance.([]any)
		switch c.method {
		case "length":
			return float64(len(a)), nil
		case "splice":
			return callMethodInstance(a, "splice", args)
		}
		if res, ok, err := nativeArray(c.method, a, args); ok {
			return res, err
		}
		return callMethod(a, c.method, args)
	})
}
