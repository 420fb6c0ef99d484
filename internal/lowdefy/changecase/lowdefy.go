package changecase

import (
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// Convert is Lowdefy's `_change_case.<method> {on, options}`: a string is
// converted; in an array each string element is converted; in an object each
// string value is converted (options.convertValues, default true) and keys
// too when options.convertKeys is true, keeping the key order. Other values
// pass through unchanged. Values are those of package jsvalue (Go maps are
// accepted and converted with jsvalue.FromGo).
func Convert(method string, on any, options any) (any, error) {
	on, options = jsvalue.FromGo(on), jsvalue.FromGo(options)
	fn, ok := Funcs.Get()[method]
	if !ok {
		return nil, fmt.Errorf("_change_case.%s: unknown method (use one of camelCase capitalCase constantCase dotCase headerCase noCase paramCase pascalCase pathCase sentenceCase snakeCase)", method)
	}
	opts, err := OptionsFromValue(options)
	if err != nil {
		return nil, fmt.Errorf("_change_case.%s: %w", method, err)
	}
	om, _ := options.(*jsvalue.Object)
	switch x := on.(type) {
	case string:
		return fn(x, opts), nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			if s, ok := e.(string); ok {
				out[i] = fn(s, opts)
			} else {
				out[i] = e
			}
		}
		return out, nil
	case *jsvalue.Object:
		convertKeys := om.Prop("convertKeys") == true
		convertValues := true
		if v := om.Prop("convertValues"); !jsvalue.IsNullish(v) {
			convertValues = jsvalue.Truthy(v)
		}
		out := jsvalue.NewObject(x.Len())
		for k, v := range x.Range {
			if convertKeys {
				k = fn(k, opts)
			}
			if s, ok := v.(string); ok && convertValues {
				out.Set(k, fn(s, opts))
			} else {
				out.Set(k, v)
			}
		}
		return out, nil
	}
	return on, nil
}
