package operators

import (
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

var prepObject = prepDefault(func(*call) any { return map[string]any{} })

var objectClassMeta = map[string]*method{
	"assign": {spreadArgs: "true", validTypes: []string{"array"}, prep: prepObject},
	"defineProperty": {namedArgs: []string{"on", "key", "descriptor"}, validTypes: arrObj,
		prep: func(c *call, args []any) ([]any, error) {
			for len(args) < 3 {
				args = append(args, serial.Undefined)
			}
			desc, ok := args[2].(map[string]any)
			if !ok || !truthy(args[2]) {
				desc = map[string]any{}
			} else {
				cp := make(map[string]any, len(desc)+2)
				for k, v := range desc {
					cp[k] = v
				}
				desc = cp
			}
			if serial.IsNone(field(desc, "enumerable")) {
				desc["enumerable"] = true
			}
			if serial.IsNone(field(desc, "configurable")) {
				desc["configurable"] = true
			}
			args[2] = desc
			return prepObject(c, args)
		}},
	"entries":     {singleArg: true, validTypes: []string{"object", "null"}, prep: prepObject},
	"fromEntries": {singleArg: true, validTypes: []string{"array", "null"}, prep: prepArrayArg},
	"keys":        {singleArg: true, validTypes: []string{"object", "null"}, prep: prepObject},
	"values":      {singleArg: true, validTypes: []string{"object", "null"}, prep: prepObject},
}

var objectInstanceMeta = map[string]*method{
	"hasOwnProperty": {namedArgs: []string{"on", "prop"}, validTypes: arrObj, prep: prepObject},
}

var objectFuncs = staticFuncs("Object", objectClassMeta)

func opObject(c *call) (any, error) {
	if c.method == "hasOwnProperty" {
		return runInstance(c, objectInstanceMeta, "object", func(c *call, instance any, args []any) (any, error) {
			_, ok := instance.(map[string]any)[toJSString(arg(args, 0))]
			return ok, nil
		})
	}
	return runClass(c, objectClassMeta, objectFuncs, "")
}
