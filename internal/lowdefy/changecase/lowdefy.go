package changecase

import "fmt"

// Convert is Lowdefy's `_change_case.<method> {on, options}`: a string is
// converted; in an array each string element is converted; in an object each
// string value is converted (options.convertValues, default true) and keys
// too when options.convertKeys is true. Other values pass through unchanged.
func Convert(method string, on any, options any) (any, error) {
	fn, ok := Funcs[method]
	if !ok {
		return nil, fmt.Errorf("_change_case.%s: unknown method (use one of camelCase capitalCase constantCase dotCase headerCase noCase paramCase pascalCase pathCase sentenceCase snakeCase)", method)
	}
	opts, err := OptionsFromValue(options)
	if err != nil {
		return nil, fmt.Errorf("_change_case.%s: %w", method, err)
	}
	om, _ := options.(map[string]any)
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
	case map[string]any:
		convertKeys := om["convertKeys"] == true
		convertValues := true
		if v, ok := om["convertValues"]; ok && v != nil {
			convertValues = truthy(v)
		}
		out := make(map[string]any, len(x))
		for k, v := range x {
			if convertKeys {
				k = fn(k, opts)
			}
			if s, ok := v.(string); ok && convertValues {
				out[k] = fn(s, opts)
			} else {
				out[k] = v
			}
		}
		return out, nil
	}
	return on, nil
}

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && x == x
	case int:
		return x != 0
	case string:
		return x != ""
	}
	return true
}
