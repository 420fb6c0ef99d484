package nunjucks

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// method is a JavaScript built-in method callable from templates
// (e.g. {{ name.toUpperCase() }}, {{ "a,b".split(",") }}).
type method func(recv any, args []any) (any, error)

// lookupMethod finds a supported JavaScript method of recv's type.
func lookupMethod(recv any, name string) (method, bool) {
	switch recv.(type) {
	case string, SafeString:
		m, ok := stringMethods.Get()[name]
		return m, ok
	case []any:
		m, ok := arrayMethods.Get()[name]
		return m, ok
	case float64:
		m, ok := numberMethods.Get()[name]
		return m, ok
	}
	return nil, false
}

func recvString(v any) string { s, _ := asString(v); return s }

// jsSlice resolves JavaScript slice(start, end) bounds for a length.
func jsSlice(n int, args []any) (int, int) {
	clamp := func(v any, def int) int {
		if jsvalue.IsUndefined(v) {
			return def
		}
		f := jsvalue.ToNumber(v)
		if math.IsNaN(f) {
			f = 0
		}
		f = math.Trunc(f)
		if f < 0 {
			f += float64(n)
			if f < 0 {
				f = 0
			}
		}
		if f > float64(n) {
			f = float64(n)
		}
		return int(f)
	}
	s, e := clamp(arg(args, 0), 0), clamp(arg(args, 1), n)
	if e < s {
		e = s
	}
	return s, e
}

func fromUnits(u []uint16) string { return string(utf16.Decode(u)) }

// indexOfUTF16 returns the UTF-16 index of sub in s, or -1.
func indexOfUTF16(s, sub string) int {
	i := strings.Index(s, sub)
	if i < 0 {
		return -1
	}
	return jsvalue.StringLength(s[:i])
}

var stringMethods = lazy.Value[map[string]method]{New: func() map[string]method {
	return map[string]method{
		"toUpperCase": func(r any, _ []any) (any, error) { return jsUpper(recvString(r)), nil },
		"toLowerCase": func(r any, _ []any) (any, error) { return strings.ToLower(recvString(r)), nil },
		"trim":        func(r any, _ []any) (any, error) { return strings.TrimSpace(recvString(r)), nil },
		"trimStart":   func(r any, _ []any) (any, error) { return strings.TrimLeft(recvString(r), " \t\n\r\v\f"), nil },
		"trimEnd":     func(r any, _ []any) (any, error) { return strings.TrimRight(recvString(r), " \t\n\r\v\f"), nil },
		"toString":    func(r any, _ []any) (any, error) { return recvString(r), nil },
		"split": func(r any, args []any) (any, error) {
			s := recvString(r)
			sep := arg(args, 0)
			if jsvalue.IsUndefined(sep) {
				return []any{s}, nil
			}
			parts := strings.Split(s, jsvalue.ToString(sep))
			if jsvalue.ToString(sep) == "" {
				parts = nil
				for _, c := range s {
					parts = append(parts, string(c))
				}
			}
			out := make([]any, len(parts))
			for i, p := range parts {
				out[i] = p
			}
			return out, nil
		},
		"replace": func(r any, args []any) (any, error) {
			return strings.Replace(recvString(r), jsvalue.ToString(arg(args, 0)), jsvalue.ToString(arg(args, 1)), 1), nil
		},
		"replaceAll": func(r any, args []any) (any, error) {
			return strings.ReplaceAll(recvString(r), jsvalue.ToString(arg(args, 0)), jsvalue.ToString(arg(args, 1))), nil
		},
		"indexOf": func(r any, args []any) (any, error) {
			return float64(indexOfUTF16(recvString(r), jsvalue.ToString(arg(args, 0)))), nil
		},
		"includes": func(r any, args []any) (any, error) {
			return strings.Contains(recvString(r), jsvalue.ToString(arg(args, 0))), nil
		},
		"startsWith": func(r any, args []any) (any, error) {
			return strings.HasPrefix(recvString(r), jsvalue.ToString(arg(args, 0))), nil
		},
		"endsWith": func(r any, args []any) (any, error) {
			return strings.HasSuffix(recvString(r), jsvalue.ToString(arg(args, 0))), nil
		},
		"slice": func(r any, args []any) (any, error) {
			u := utf16Units(recvString(r))
			s, e := jsSlice(len(u), args)
			return fromUnits(u[s:e]), nil
		},
		"substring": func(r any, args []any) (any, error) {
			u := utf16Units(recvString(r))
			idx := func(v any, def int) int {
				if jsvalue.IsUndefined(v) {
					return def
				}
				f := jsvalue.ToNumber(v)
				if math.IsNaN(f) || f < 0 {
					return 0
				}
				if f > float64(len(u)) {
					return len(u)
				}
				return int(f)
			}
			s, e := idx(arg(args, 0), 0), idx(arg(args, 1), len(u))
			if s > e {
				s, e = e, s
			}
			return fromUnits(u[s:e]), nil
		},
		"charAt": func(r any, args []any) (any, error) {
			u := utf16Units(recvString(r))
			i := int(jsvalue.ToNumber(arg(args, 0)))
			if jsvalue.IsUndefined(arg(args, 0)) {
				i = 0
			}
			if i < 0 || i >= len(u) {
				return "", nil
			}
			return fromUnits(u[i : i+1]), nil
		},
		"concat": func(r any, args []any) (any, error) {
			s := recvString(r)
			for _, a := range args {
				s += jsvalue.ToString(a)
			}
			return s, nil
		},
		"repeat": func(r any, args []any) (any, error) {
			n := jsvalue.ToNumber(arg(args, 0))
			if n < 0 || n > 1e6 {
				return nil, errorf("invalid count value: %s", jsvalue.NumberToString(n))
			}
			return strings.Repeat(recvString(r), int(n)), nil
		},
		"padStart": func(r any, args []any) (any, error) { return pad(recvString(r), args, true), nil },
		"padEnd":   func(r any, args []any) (any, error) { return pad(recvString(r), args, false), nil },
	}
}}

func pad(s string, args []any, start bool) string {
	n := int(jsvalue.ToNumber(arg(args, 0)))
	fill := " "
	if !jsvalue.IsUndefined(arg(args, 1)) {
		fill = jsvalue.ToString(arg(args, 1))
	}
	l := jsvalue.StringLength(s)
	if n <= l || fill == "" || n > 1e6 {
		return s
	}
	var b strings.Builder
	for jsvalue.StringLength(b.String()) < n-l {
		b.WriteString(fill)
	}
	p := fromUnits(utf16Units(b.String())[:n-l])
	if start {
		return p + s
	}
	return s + p
}

var arrayMethods = lazy.Value[map[string]method]{New: func() map[string]method {
	return map[string]method{
		"join": func(r any, args []any) (any, error) {
			sep := ","
			if !jsvalue.IsUndefined(arg(args, 0)) {
				sep = jsvalue.ToString(arg(args, 0))
			}
			return joinValues(r.([]any), sep), nil
		},
		"indexOf": func(r any, args []any) (any, error) {
			for i, e := range r.([]any) {
				if strictEq(e, arg(args, 0)) {
					return float64(i), nil
				}
			}
			return float64(-1), nil
		},
		"includes": func(r any, args []any) (any, error) {
			for _, e := range r.([]any) {
				if strictEq(e, arg(args, 0)) {
					return true, nil
				}
			}
			return false, nil
		},
		"slice": func(r any, args []any) (any, error) {
			a := r.([]any)
			s, e := jsSlice(len(a), args)
			return append([]any{}, a[s:e]...), nil
		},
		"concat": func(r any, args []any) (any, error) {
			out := append([]any{}, r.([]any)...)
			for _, a := range args {
				if arr, ok := a.([]any); ok {
					out = append(out, arr...)
				} else {
					out = append(out, a)
				}
			}
			return out, nil
		},
		"toString": func(r any, _ []any) (any, error) { return jsvalue.ToString(r), nil },
	}
}}

var numberMethods = lazy.Value[map[string]method]{New: func() map[string]method {
	return map[string]method{
		"toFixed": func(r any, args []any) (any, error) {
			d := int(jsvalue.ToNumber(arg(args, 0)))
			if jsvalue.IsUndefined(arg(args, 0)) {
				d = 0
			}
			if d < 0 || d > 100 {
				return nil, errorf("toFixed() digits argument must be between 0 and 100")
			}
			return toFixed(r.(float64), d), nil
		},
		"toString": func(r any, _ []any) (any, error) { return jsvalue.NumberToString(r.(float64)), nil },
	}
}}

// toFixed implements Number.prototype.toFixed (round half away from zero on
// the exact binary value, as JavaScript does).
func toFixed(f float64, d int) string {
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) >= 1e21 {
		return jsvalue.NumberToString(f)
	}
	return strconv.FormatFloat(f, 'f', d, 64)
}

func joinValues(a []any, sep string) string {
	parts := make([]string, len(a))
	for i, e := range a {
		if !jsvalue.IsNullish(e) {
			parts[i] = jsvalue.ToString(e)
		}
	}
	return strings.Join(parts, sep)
}
