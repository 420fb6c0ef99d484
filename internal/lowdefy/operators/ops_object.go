package operators

import (
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// prepObject replaces a null or undefined first argument with an empty object.
func prepObject(c *call, args []any) ([]any, error) {
	return prepDefault(c, args, func(*call) any { return &jsvalue.Object{} })
}

var objectClassMeta = lazy.Value[map[string]*method]{New: func() map[string]*method {
	return map[string]*method{
		"assign": {spreadArgs: "true", validTypes: []string{"array"}, prep: prepObject},
		"defineProperty": {namedArgs: []string{"on", "key", "descriptor"}, validTypes: arrObj,
			prep: func(c *call, args []any) ([]any, error) {
				for len(args) < 3 {
					args = append(args, jsvalue.Undefined)
				}
				desc, ok := args[2].(*jsvalue.Object)
				if !ok || !jsvalue.Truthy(args[2]) {
					desc = &jsvalue.Object{}
				} else {
					desc = desc.Clone()
				}
				if jsvalue.IsNullish(field(desc, "enumerable")) {
					desc.Set("enumerable", true)
				}
				if jsvalue.IsNullish(field(desc, "configurable")) {
					desc.Set("configurable", true)
				}
				args[2] = desc
				return prepObject(c, args)
			}},
		"entries":     {singleArg: true, validTypes: []string{"object", "null"}, prep: prepObject},
		"fromEntries": {singleArg: true, validTypes: []string{"array", "null"}, prep: prepArrayArg},
		"keys":        {singleArg: true, validTypes: []string{"object", "null"}, prep: prepObject},
		"values":      {singleArg: true, validTypes: []string{"object", "null"}, prep: prepObject},
	}
}}

var objectInstanceMeta = lazy.Value[map[string]*method]{New: func() map[string]*method {
	return map[string]*method{
		"hasOwnProperty": {namedArgs: []string{"on", "prop"}, validTypes: arrObj, prep: prepObject},
	}
}}

var objectFuncs = lazy.Value[map[string]classFunc]{New: func() map[string]classFunc {
	return staticFuncs("Object", objectClassMeta.Get())
}}

func opObject(c *call) (any, error) {
	if c.method == "hasOwnProperty" {
		return runInstance(c, objectInstanceMeta.Get(), "object", func(c *call, instance any, args []any) (any, error) {
			return instance.(*jsvalue.Object).Has(jsvalue.ToString(arg(args, 0))), nil
		})
	}
	return runClass(c, objectClassMeta.Get(), objectFuncs.Get(), "")
}
