package nunjucks

import (
	"math"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

func timeOf(v any) (time.Time, bool) {
	t, ok := v.(time.Time)
	return t, ok
}

// newFilters builds the built-in filters by name (see filters).
func newFilters() map[string]filterFunc {
	return map[string]filterFunc{
		"abs": func(_ *renderer, v any, _ []any) (any, error) { return math.Abs(jsvalue.ToNumber(v)), nil },
		"batch": func(_ *renderer, v any, args []any) (any, error) {
			arr, err := needArray(v)
			if err != nil {
				return nil, err
			}
			n := jsvalue.ToNumber(arg(args, 0))
			if !(n >= 1) {
				n = 1
			}
			line := int(math.Min(n, 1e9))
			var res []any
			var tmp []any
			for i, e := range arr {
				if i%line == 0 && len(tmp) > 0 {
					res = append(res, tmp)
					tmp = nil
				}
				tmp = append(tmp, e)
			}
			if len(tmp) > 0 {
				if fill := arg(args, 1); jsvalue.Truthy(fill) && line <= 1e6 {
					for i := len(tmp); i < line; i++ {
						tmp = append(tmp, fill)
					}
				}
				res = append(res, tmp)
			}
			if res == nil {
				res = []any{}
			}
			return res, nil
		},
		"capitalize": func(_ *renderer, v any, _ []any) (any, error) { return capitalize(v) },
		"center": func(_ *renderer, v any, args []any) (any, error) {
			s, err := needString(normalize(v, ""), "length")
			if err != nil {
				s = jsvalue.ToString(v)
			}
			w := int(jsvalue.ToNumber(arg(args, 0)))
			if !jsvalue.Truthy(arg(args, 0)) {
				w = 80
			}
			l := jsvalue.StringLength(s)
			if l >= w || w > 1e6 {
				return v, nil
			}
			sp := w - l
			pre := int(math.Max(0, math.Ceil(float64(sp)/2-float64(sp%2))))
			post := int(math.Ceil(float64(sp) / 2))
			return keepSafe(v, strings.Repeat(" ", pre)+s+strings.Repeat(" ", post)), nil
		},
		"default": defaultFilter,
		"d":       defaultFilter,
		"dictsort": func(_ *renderer, v any, args []any) (any, error) {
			obj, ok := v.(*jsvalue.Object)
			if !ok {
				return nil, errorf("val must be an object")
			}
			by := arg(args, 1)
			si := 0
			switch {
			case jsvalue.IsUndefined(by) || by == "key":
			case by == "value":
				si = 1
			default:
				return nil, errorf("You can only sort by either key or value")
			}
			var pairs []any
			for k, val := range obj.Range {
				pairs = append(pairs, []any{k, val})
			}
			cs := jsvalue.Truthy(arg(args, 0))
			return sortValues(pairs, false, cs, float64(si)), nil
		},
		"dump": func(_ *renderer, v any, args []any) (any, error) {
			indent := jsvalue.Indent(arg(args, 0))
			return jsonStringify(v, indent)
		},
		"escape": func(_ *renderer, v any, _ []any) (any, error) {
			if s, ok := v.(SafeString); ok {
				return s, nil
			}
			if jsvalue.IsNullish(v) {
				return SafeString(""), nil
			}
			return SafeString(escapeHTML(jsvalue.ToString(v))), nil
		},
		"e": func(r *renderer, v any, args []any) (any, error) { return filters()["escape"](r, v, args) },
		"forceescape": func(_ *renderer, v any, _ []any) (any, error) {
			if jsvalue.IsNullish(v) {
				return SafeString(""), nil
			}
			return SafeString(escapeHTML(jsvalue.ToString(v))), nil
		},
		"safe": func(_ *renderer, v any, _ []any) (any, error) {
			if s, ok := v.(SafeString); ok {
				return s, nil
			}
			if jsvalue.IsNullish(v) {
				return SafeString(""), nil
			}
			return SafeString(jsvalue.ToString(v)), nil
		},
		"first": func(_ *renderer, v any, _ []any) (any, error) {
			if jsvalue.IsNullish(v) {
				return nil, errorf("Cannot read properties of %s (reading '0')", jsvalue.ToString(v))
			}
			return memberLookup(v, 0.0), nil
		},
		"last": func(_ *renderer, v any, _ []any) (any, error) {
			if jsvalue.IsNullish(v) {
				return nil, errorf("Cannot read properties of %s (reading 'length')", jsvalue.ToString(v))
			}
			n, ok := jsLength(v)
			if !ok {
				return jsvalue.Undefined, nil
			}
			return memberLookup(v, float64(n-1)), nil
		},
		"float": func(_ *renderer, v any, args []any) (any, error) {
			f := jsParseFloat(v)
			if math.IsNaN(f) {
				return arg(args, 0), nil
			}
			return f, nil
		},
		"int": func(_ *renderer, v any, args []any) (any, error) {
			base := 10
			if b := arg(args, 1); !jsvalue.IsUndefined(b) {
				base = int(jsvalue.ToNumber(b))
			}
			f := jsvalue.ParseInt(jsvalue.ToString(v), base)
			if math.IsNaN(f) {
				return arg(args, 0), nil
			}
			return f, nil
		},
		"groupby": func(_ *renderer, v any, args []any) (any, error) {
			arr, err := needArray(v)
			if err != nil {
				return nil, err
			}
			res := &jsvalue.Object{}
			for _, item := range arr {
				k := jsvalue.ToString(attrPath(item, arg(args, 0)))
				prev, _ := res.Get(k)
				p, _ := prev.([]any)
				res.Set(k, append(p, item))
			}
			return res, nil
		},
		"indent": func(_ *renderer, v any, args []any) (any, error) {
			s, err := needString(normalize(v, ""), "split")
			if err != nil {
				return nil, err
			}
			if s == "" {
				return "", nil
			}
			w := int(math.Min(jsvalue.ToNumber(arg(args, 0)), 1e4))
			if !jsvalue.Truthy(arg(args, 0)) {
				w = 4
			}
			sp := strings.Repeat(" ", max(w, 0))
			lines := strings.Split(s, "\n")
			for i := range lines {
				if i > 0 || jsvalue.Truthy(arg(args, 1)) {
					lines[i] = sp + lines[i]
				}
			}
			return keepSafe(v, strings.Join(lines, "\n")), nil
		},
		"join": func(_ *renderer, v any, args []any) (any, error) {
			arr, ok := v.([]any)
			if !ok {
				return nil, errorf("arr.join is not a function")
			}
			del := ""
			if jsvalue.Truthy(arg(args, 0)) {
				del = jsvalue.ToString(arg(args, 0))
			}
			if attr := arg(args, 1); jsvalue.Truthy(attr) {
				mapped := make([]any, len(arr))
				for i, e := range arr {
					mapped[i] = attrOf(e, attr)
				}
				arr = mapped
			}
			return joinValues(arr, del), nil
		},
		"length": func(_ *renderer, v any, _ []any) (any, error) {
			v = normalize(v, "")
			if o, ok := v.(*jsvalue.Object); ok {
				return float64(o.Len()), nil
			}
			if n, ok := jsLength(v); ok {
				return float64(n), nil
			}
			return jsvalue.Undefined, nil
		},
		"list": func(_ *renderer, v any, _ []any) (any, error) {
			switch x := v.(type) {
			case SafeString: // an object with own properties val and length
				return []any{jsvalue.ObjectOf("key", "val", "value", string(x)), jsvalue.ObjectOf("key", "length", "value", float64(jsvalue.StringLength(string(x))))}, nil
			case string:
				return utf16Chars(x), nil
			case *jsvalue.Object:
				out := []any{}
				for k, val := range x.Range {
					out = append(out, jsvalue.ObjectOf("key", k, "value", val))
				}
				return out, nil
			case []any:
				return x, nil
			}
			return nil, errorf("type not iterable")
		},
		"lower": func(_ *renderer, v any, _ []any) (any, error) {
			s, err := needString(normalize(v, ""), "toLowerCase")
			if err != nil {
				return nil, err
			}
			return strings.ToLower(s), nil
		},
		"upper": func(_ *renderer, v any, _ []any) (any, error) {
			s, err := needString(normalize(v, ""), "toUpperCase")
			if err != nil {
				return nil, err
			}
			return jsUpper(s), nil
		},
		"nl2br": func(_ *renderer, v any, _ []any) (any, error) {
			if jsvalue.IsNullish(v) {
				return "", nil
			}
			s, err := needString(v, "replace")
			if err != nil {
				return nil, err
			}
			return keepSafe(v, strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "<br />\n")), nil
		},
		"random": func(_ *renderer, v any, _ []any) (any, error) {
			// deterministic: templates must render the same way every time
			return memberLookup(v, 0.0), nil
		},
		"reject": selectOrReject(false),
		"select": selectOrReject(true),
		"rejectattr": func(_ *renderer, v any, args []any) (any, error) {
			return filterAttr(v, arg(args, 0), false)
		},
		"selectattr": func(_ *renderer, v any, args []any) (any, error) {
			return filterAttr(v, arg(args, 0), true)
		},
		"replace": replaceFilter,
		"reverse": func(_ *renderer, v any, _ []any) (any, error) {
			if s, ok := v.(SafeString); ok {
				// nunjucks maps over the SafeString object: length items, all undefined
				return make([]any, jsvalue.StringLength(string(s))), nil
			}
			if s, ok := asString(v); ok {
				u := utf16Units(s)
				for i, j := 0, len(u)-1; i < j; i, j = i+1, j-1 {
					u[i], u[j] = u[j], u[i]
				}
				return keepSafe(v, fromUnits(u)), nil
			}
			arr, ok := v.([]any)
			if !ok {
				return []any{}, nil
			}
			out := make([]any, len(arr))
			for i, e := range arr {
				out[len(arr)-1-i] = e
			}
			return out, nil
		},
		"round": func(_ *renderer, v any, args []any) (any, error) {
			prec := jsvalue.ToNumber(arg(args, 0))
			if !jsvalue.Truthy(arg(args, 0)) {
				prec = 0
			}
			factor := jsPow(10, prec)
			x := jsvalue.ToNumber(v) * factor
			switch arg(args, 1) {
			case "ceil":
				x = math.Ceil(x)
			case "floor":
				x = math.Floor(x)
			default:
				x = jsRound(x)
			}
			return x / factor, nil
		},
		"slice": func(_ *renderer, v any, args []any) (any, error) {
			arr, err := needArray(v)
			if err != nil {
				return nil, err
			}
			slices := int(jsvalue.ToNumber(arg(args, 0)))
			if slices <= 0 || slices > 1e6 {
				return []any{}, nil
			}
			size := len(arr) / slices
			extra := len(arr) % slices
			res := []any{}
			offset := 0
			for i := 0; i < slices; i++ {
				start := offset + i*size
				if i < extra {
					offset++
				}
				end := min(offset+(i+1)*size, len(arr))
				cur := append([]any{}, arr[min(start, end):end]...)
				if fill := arg(args, 1); jsvalue.Truthy(fill) && i >= extra {
					cur = append(cur, fill)
				}
				res = append(res, cur)
			}
			return res, nil
		},
		"sort": func(_ *renderer, v any, args []any) (any, error) {
			arr, ok := v.([]any)
			if !ok {
				if s, isStr := asString(v); isStr {
					arr = utf16Chars(s)
				} else {
					return []any{}, nil
				}
			}
			return sortValues(arr, jsvalue.Truthy(arg(args, 0)), jsvalue.Truthy(arg(args, 1)), arg(args, 2)), nil
		},
		"string": func(_ *renderer, v any, _ []any) (any, error) {
			if jsvalue.IsNullish(v) {
				return nil, errorf("Cannot read properties of %s (reading 'toString')", jsvalue.ToString(v))
			}
			return keepSafe(v, jsvalue.ToString(v)), nil
		},
		"striptags": func(_ *renderer, v any, args []any) (any, error) {
			s, err := needString(normalize(v, ""), "replace")
			if err != nil {
				return nil, err
			}
			s = jsTrim(stripTagsRe.Get().ReplaceAllString(s, ""))
			if jsvalue.Truthy(arg(args, 0)) {
				s = lineEdgeSpRe.Get().ReplaceAllString(s, "")
				s = multiSpaceRe.Get().ReplaceAllString(s, " ")
				s = strings.ReplaceAll(s, "\r\n", "\n")
				s = manyNewlineRe.Get().ReplaceAllString(s, "\n\n")
			} else {
				s = spaceRunRe.Get().ReplaceAllString(s, " ")
			}
			return keepSafe(v, s), nil
		},
		"sum": func(_ *renderer, v any, args []any) (any, error) {
			arr, ok := v.([]any)
			if !ok {
				return nil, errorf("arr.reduce is not a function")
			}
			var acc any = 0.0
			for _, e := range arr {
				if attr := arg(args, 0); jsvalue.Truthy(attr) {
					e = attrOf(e, attr)
				}
				acc = jsvalue.Add(acc, e)
			}
			start := arg(args, 1)
			if jsvalue.IsUndefined(start) {
				start = 0.0
			}
			return jsvalue.Add(start, acc), nil
		},
		"title": func(_ *renderer, v any, _ []any) (any, error) {
			s, err := needString(normalize(v, ""), "split")
			if err != nil {
				return nil, err
			}
			words := strings.Split(s, " ")
			for i, w := range words {
				c, _ := capitalize(w)
				words[i] = c.(string)
			}
			return keepSafe(v, strings.Join(words, " ")), nil
		},
		"trim": func(_ *renderer, v any, _ []any) (any, error) {
			s, err := needString(v, "replace")
			if err != nil {
				return nil, err
			}
			return keepSafe(v, jsTrim(s)), nil
		},
		"truncate": func(_ *renderer, v any, args []any) (any, error) {
			length := int(math.Min(jsvalue.ToNumber(arg(args, 0)), 1e9))
			if !jsvalue.Truthy(arg(args, 0)) {
				length = 255
			}
			if arr, ok := normalize(v, "").([]any); ok && len(arr) <= length {
				return arr, nil
			}
			s, err := needString(normalize(v, ""), "substring")
			if err != nil {
				return nil, err
			}
			u := utf16Units(s)
			if len(u) <= length {
				return normalize(v, ""), nil
			}
			if length < 0 {
				length = 0
			}
			if jsvalue.Truthy(arg(args, 1)) {
				s = fromUnits(u[:length])
			} else {
				idx := -1
				for i := min(length, len(u)-1); i >= 0; i-- {
					if u[i] == ' ' {
						idx = i
						break
					}
				}
				if idx == -1 {
					idx = length
				}
				s = fromUnits(u[:idx])
			}
			if end := arg(args, 2); !jsvalue.IsNullish(end) {
				s += jsvalue.ToString(end)
			} else {
				s += "..."
			}
			return keepSafe(v, s), nil
		},
		"urlencode": func(_ *renderer, v any, _ []any) (any, error) {
			if s, ok := v.(string); ok {
				return encodeURIComponent(s), nil
			}
			var parts []string
			switch x := v.(type) {
			case []any:
				for _, e := range x {
					parts = append(parts, encodeURIComponent(jsvalue.ToString(memberLookup(e, 0.0)))+"="+encodeURIComponent(jsvalue.ToString(memberLookup(e, 1.0))))
				}
			case *jsvalue.Object:
				for k, val := range x.Range {
					parts = append(parts, encodeURIComponent(k)+"="+encodeURIComponent(jsvalue.ToString(val)))
				}
			}
			return strings.Join(parts, "&"), nil
		},
		"urlize": func(_ *renderer, v any, _ []any) (any, error) { return v, nil },
		"wordcount": func(_ *renderer, v any, _ []any) (any, error) {
			nv := normalize(v, "")
			if !jsvalue.Truthy(nv) {
				return nil, nil
			}
			s, err := needString(nv, "match")
			if err != nil {
				return nil, err
			}
			n := len(wordRe.Get().FindAllString(s, -1))
			if n == 0 {
				return nil, nil
			}
			return float64(n), nil
		},
		"date": dateFilter,
	}
}

func defaultFilter(_ *renderer, v any, args []any) (any, error) {
	if jsvalue.Truthy(arg(args, 1)) {
		if jsvalue.Truthy(v) {
			return v, nil
		}
		return arg(args, 0), nil
	}
	if !jsvalue.IsUndefined(v) {
		return v, nil
	}
	return arg(args, 0), nil
}

func selectOrReject(want bool) filterFunc {
	return func(_ *renderer, v any, args []any) (any, error) {
		name := "truthy"
		if t := arg(args, 0); !jsvalue.IsUndefined(t) {
			name = jsvalue.ToString(t)
		}
		test, ok := tests()[name]
		if !ok {
			return nil, errorf("test not found: %s", name)
		}
		arr, err := needArray(v)
		if err != nil {
			return []any{}, nil
		}
		out := []any{}
		for _, e := range arr {
			if test(e, []any{arg(args, 1)}) == want {
				out = append(out, e)
			}
		}
		return out, nil
	}
}

func filterAttr(v, attr any, want bool) (any, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, errorf("arr.filter is not a function")
	}
	out := []any{}
	for _, e := range arr {
		if jsvalue.IsNullish(e) {
			return nil, errorf("Cannot read properties of %s (reading '%s')", jsvalue.ToString(e), jsvalue.ToString(attr))
		}
		if jsvalue.Truthy(attrOf(e, attr)) == want {
			out = append(out, e)
		}
	}
	return out, nil
}

func replaceFilter(_ *renderer, v any, args []any) (any, error) {
	old, repl := arg(args, 0), arg(args, 1)
	maxCount := -1.0
	if mc := arg(args, 2); !jsvalue.IsUndefined(mc) {
		maxCount = jsvalue.ToNumber(mc)
	}
	var oldS string
	switch o := old.(type) {
	case float64:
		oldS = jsvalue.NumberToString(o)
	case string:
		oldS = o
	default:
		return v, nil
	}
	var s string
	switch x := v.(type) {
	case float64:
		s = jsvalue.NumberToString(x)
	case string:
		s = x
	case SafeString:
		s = string(x)
	default:
		return v, nil
	}
	r := jsvalue.ToString(repl)
	if oldS == "" {
		chars := utf16Chars(s)
		parts := make([]string, len(chars))
		for i, c := range chars {
			parts[i] = c.(string)
		}
		return keepSafe(v, r+strings.Join(parts, r)+r), nil
	}
	if maxCount == 0 || !strings.Contains(s, oldS) {
		return s, nil
	}
	n := -1
	if maxCount > 0 {
		n = int(math.Min(maxCount, 1e9))
	}
	return keepSafe(v, strings.Replace(s, oldS, r, n)), nil
}
