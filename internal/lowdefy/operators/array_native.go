package operators

import (
	"math"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// Native implementations of the most used Array.prototype methods. They
// follow ECMAScript for dense arrays of plain values and _function callbacks
// (callbacks get item, index and the array); anything unusual (holes,
// non-function callbacks, extra arguments) goes to the engine instead
// (ok=false).

func hasHoles(a []any) bool {
	for _, v := range a {
		if jsvalue.IsUndefined(v) {
			return true
		}
	}
	return false
}

func nativeArray(method string, a []any, args []any) (any, bool, error) {
	if hasHoles(a) {
		return nil, false, nil
	}
	callback := func() (jsvalue.Func, bool) {
		if len(args) != 1 {
			return nil, false
		}
		f, ok := args[0].(jsvalue.Func)
		return f, ok
	}
	switch method {
	case "map", "filter", "find", "findIndex", "some", "every":
		f, ok := callback()
		if !ok {
			return nil, false, nil
		}
		var mapped []any
		var filtered []any
		if method == "map" {
			mapped = make([]any, len(a))
		}
		if method == "filter" {
			filtered = []any{}
		}
		for i, item := range a {
			res, err := f(item, float64(i), a)
			if err != nil {
				return nil, true, err
			}
			switch method {
			case "map":
				mapped[i] = res
			case "filter":
				if jsvalue.Truthy(res) {
					filtered = append(filtered, item)
				}
			case "find":
				if jsvalue.Truthy(res) {
					return item, true, nil
				}
			case "findIndex":
				if jsvalue.Truthy(res) {
					return float64(i), true, nil
				}
			case "some":
				if jsvalue.Truthy(res) {
					return true, true, nil
				}
			case "every":
				if !jsvalue.Truthy(res) {
					return false, true, nil
				}
			}
		}
		switch method {
		case "map":
			return mapped, true, nil
		case "filter":
			return filtered, true, nil
		case "find":
			return jsvalue.Undefined, true, nil
		case "findIndex":
			return -1.0, true, nil
		case "some":
			return false, true, nil
		}
		return true, true, nil
	case "reduce":
		if len(args) < 1 || len(args) > 2 {
			return nil, false, nil
		}
		f, ok := args[0].(jsvalue.Func)
		if !ok {
			return nil, false, nil
		}
		start := 0
		var acc any
		if len(args) == 2 {
			acc = args[1]
		} else {
			if len(a) == 0 {
				return nil, false, nil // TypeError from the engine
			}
			acc, start = a[0], 1
		}
		for i := start; i < len(a); i++ {
			res, err := f(acc, a[i], float64(i), a)
			if err != nil {
				return nil, true, err
			}
			acc = res
		}
		return acc, true, nil
	case "includes", "indexOf", "lastIndexOf":
		if len(args) != 1 {
			return nil, false, nil
		}
		if method == "lastIndexOf" {
			for i := len(a) - 1; i >= 0; i-- {
				if jsvalue.StrictEqual(a[i], args[0]) {
					return float64(i), true, nil
				}
			}
			return -1.0, true, nil
		}
		for i, item := range a {
			eq := jsvalue.StrictEqual(item, args[0])
			if method == "includes" && !eq {
				x, xok := item.(float64)
				y, yok := args[0].(float64)
				eq = xok && yok && math.IsNaN(x) && math.IsNaN(y)
			}
			if eq {
				if method == "includes" {
					return true, true, nil
				}
				return float64(i), true, nil
			}
		}
		if method == "includes" {
			return false, true, nil
		}
		return -1.0, true, nil
	case "join":
		sep := ","
		switch len(args) {
		case 0:
		case 1:
			if s, ok := args[0].(string); ok {
				sep = s
			} else if !jsvalue.IsUndefined(args[0]) {
				return nil, false, nil
			}
		default:
			return nil, false, nil
		}
		parts := make([]string, len(a))
		for i, item := range a {
			if !jsvalue.IsNullish(item) {
				parts[i] = jsvalue.ToString(item)
			}
		}
		return strings.Join(parts, sep), true, nil
	case "slice":
		n := float64(len(a))
		start, end := 0.0, n
		if len(args) > 2 {
			return nil, false, nil
		}
		for i, v := range args {
			if jsvalue.IsUndefined(v) {
				continue
			}
			f, ok := v.(float64)
			if !ok || math.IsNaN(f) {
				return nil, false, nil
			}
			f = math.Trunc(f)
			if f < 0 {
				f = math.Max(0, n+f)
			} else {
				f = math.Min(f, n)
			}
			if i == 0 {
				start = f
			} else {
				end = f
			}
		}
		out := []any{}
		if end > start {
			out = append(out, a[int(start):int(end)]...)
		}
		return out, true, nil
	case "reverse":
		out := make([]any, len(a))
		for i, item := range a {
			out[len(a)-1-i] = item
		}
		return out, true, nil
	case "concat":
		out := append([]any(nil), a...)
		for _, v := range args {
			if arr, ok := v.([]any); ok {
				if hasHoles(arr) {
					return nil, false, nil
				}
				out = append(out, arr...)
			} else {
				out = append(out, v)
			}
		}
		if out == nil {
			out = []any{}
		}
		return out, true, nil
	}
	return nil, false, nil
}
