package operators

import (
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/changecase"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/mql"
)

// _change_case (internal/lowdefy/changecase)

var changeCaseMethods = []string{"camelCase", "capitalCase", "constantCase", "dotCase", "headerCase", "noCase",
	"paramCase", "pascalCase", "pathCase", "sentenceCase", "snakeCase"}

var changeCaseMeta = lazy.Value[map[string]*method]{New: func() map[string]*method {
	meta := map[string]*method{}
	for _, name := range changeCaseMethods {
		meta[name] = &method{namedArgs: []string{"on", "options"}, validTypes: arrObj,
			prep: func(c *call, args []any) ([]any, error) {
				opts := arg(args, 1)
				if !jsvalue.IsNullish(opts) && !isObject(opts) {
					return nil, c.errorf("options must be an object.")
				}
				return args, nil
			}}
	}
	return meta
}}

var changeCaseFuncs = lazy.Value[map[string]classFunc]{New: func() map[string]classFunc {
	fns := map[string]classFunc{}
	for _, name := range changeCaseMethods {
		fns[name] = func(c *call, args []any) (any, error) {
			return changecase.Convert(name, jsonLike(arg(args, 0)), jsonLike(arg(args, 1)))
		}
	}
	return fns
}}

func opChangeCase(c *call) (any, error) {
	return runClass(c, changeCaseMeta.Get(), changeCaseFuncs.Get(), "")
}

// _mql (internal/lowdefy/mql)

var mqlMeta = lazy.Value[map[string]*method]{New: func() map[string]*method {
	return map[string]*method{
		"aggregate": named(arrObj, "on", "pipeline"),
		"expr":      named(arrObj, "on", "expr"),
		"test":      named(arrObj, "on", "test"),
	}
}}

var mqlFuncs = lazy.Value[map[string]classFunc]{New: func() map[string]classFunc {
	return map[string]classFunc{
		"aggregate": func(c *call, args []any) (any, error) {
			data := arg(args, 0)
			if data == nil {
				data = []any{}
			}
			docs, ok := data.([]any)
			if !ok {
				return nil, fmt.Errorf("Data must be of type array.")
			}
			pipeline, ok := arg(args, 1).([]any)
			if !ok {
				return nil, fmt.Errorf("Pipeline must be of type array.")
			}
			return mql.Aggregate(docs, pipeline)
		},
		"expr": func(c *call, args []any) (any, error) {
			data := arg(args, 0)
			if data == nil {
				data = &jsvalue.Object{}
			}
			if !isObject(data) {
				return nil, fmt.Errorf("Data must be of type object.")
			}
			v, err := mql.Expr(data, jsonLike(arg(args, 1)))
			if err != nil {
				return nil, err
			}
			if jsvalue.IsUndefined(v) {
				return nil, nil
			}
			return v, nil
		},
		"test": func(c *call, args []any) (any, error) {
			data := arg(args, 0)
			if data == nil {
				data = &jsvalue.Object{}
			}
			if !isObject(data) {
				return nil, fmt.Errorf("Data must be of type object.")
			}
			q := arg(args, 1)
			if !isObject(q) {
				return nil, fmt.Errorf("Query test must be of type object.")
			}
			return mql.Test(data, q)
		},
	}
}}

func opMQL(c *call) (any, error) { return runClass(c, mqlMeta.Get(), mqlFuncs.Get(), "") }
