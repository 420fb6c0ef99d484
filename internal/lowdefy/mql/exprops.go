package mql

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

func evalArg(obj, expr any, o *opts) (any, error) { return computeValue(obj, expr, "", o) }

func arith(name string, f func(a []any) (any, error)) exprOp {
	return func(obj, expr any, o *opts) (any, error) {
		a, err := args(obj, expr, o, name)
		if err != nil {
			return nil, err
		}
		return f(a)
	}
}

func unaryNum(f func(float64) float64) exprOp {
	return func(obj, expr any, o *opts) (any, error) {
		v, err := evalArg(obj, expr, o)
		if err != nil {
			return nil, err
		}
		if a, ok := v.([]any); ok && len(a) == 1 {
			v = a[0]
		}
		if jsvalue.IsNullish(v) {
			return nil, nil
		}
		return f(jsvalue.ToNumber(v)), nil
	}
}

func stringOp(f func(s string) string) exprOp {
	return func(obj, expr any, o *opts) (any, error) {
		v, err := evalArg(obj, expr, o)
		if err != nil {
			return nil, err
		}
		if isEmpty(v) {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("value.toUpperCase is not a function (%s is not a string)", jsonish(v))
		}
		return f(s), nil
	}
}

func cmpOp(name string, f func(a, b any) bool) exprOp {
	return arith(name, func(a []any) (any, error) { return f(argN(a, 0), argN(a, 1)), nil })
}

func utf16Sub(s string, start, count int) string {
	u := utf16.Encode([]rune(s))
	if start < 0 {
		start = 0
	}
	if start > len(u) {
		return ""
	}
	end := len(u)
	if count >= 0 && start+count < end {
		end = start + count
	}
	return string(utf16.Decode(u[start:end]))
}

func asTime(v any) (time.Time, bool) {
	t, ok := v.(time.Time)
	return t, ok
}

func dateOp(f func(t time.Time) float64) exprOp {
	return func(obj, expr any, o *opts) (any, error) {
		v, err := evalArg(obj, expr, o)
		if err != nil {
			return nil, err
		}
		if m, ok := v.(*jsvalue.Object); ok {
			v = m.Prop("date")
		}
		t, ok := asTime(v)
		if !ok {
			if s, isStr := v.(string); isStr {
				if pt, err := time.Parse(time.RFC3339Nano, s); err == nil {
					t, ok = pt, true
				}
			}
			if f, isNum := v.(float64); isNum {
				t, ok = time.UnixMilli(int64(f)), true
			}
		}
		if !ok {
			return nil, fmt.Errorf("cannot convert %s to a date", jsonish(v))
		}
		return f(t.UTC()), nil
	}
}

func pad(n float64, width int) string {
	s := strconv.Itoa(int(n))
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// newExprOps builds the expression operators by name (see tables).
func newExprOps() map[string]exprOp {
	exprOps := map[string]exprOp{
		"$literal": func(_, expr any, _ *opts) (any, error) { return expr, nil },
		"$add": arith("$add", func(a []any) (any, error) {
			var acc any = 0.0
			found := false
			for _, v := range a {
				if t, ok := asTime(v); ok {
					if found {
						return nil, fmt.Errorf("'$add' can only have one date value")
					}
					found = true
					v = float64(t.UnixMilli())
				}
				acc = jsvalue.Add(acc, v)
			}
			if found {
				if f, ok := acc.(float64); ok {
					return time.UnixMilli(int64(f)).UTC(), nil
				}
			}
			return acc, nil
		}),
		"$subtract": arith("$subtract", func(a []any) (any, error) { return jsvalue.ToNumber(argN(a, 0)) - jsvalue.ToNumber(argN(a, 1)), nil }),
		"$multiply": arith("$multiply", func(a []any) (any, error) {
			acc := 1.0
			for _, v := range a {
				acc *= jsvalue.ToNumber(v)
			}
			return acc, nil
		}),
		"$divide": arith("$divide", func(a []any) (any, error) { return jsvalue.ToNumber(argN(a, 0)) / jsvalue.ToNumber(argN(a, 1)), nil }),
		"$mod": arith("$mod", func(a []any) (any, error) {
			return math.Mod(jsvalue.ToNumber(argN(a, 0)), jsvalue.ToNumber(argN(a, 1))), nil
		}),
		"$abs":   unaryNum(math.Abs),
		"$ceil":  unaryNum(math.Ceil),
		"$floor": unaryNum(math.Floor),
		"$sqrt":  unaryNum(math.Sqrt),
		"$exp":   unaryNum(math.Exp),
		"$ln":    unaryNum(math.Log),
		"$log10": unaryNum(math.Log10),
		"$trunc": func(obj, expr any, o *opts) (any, error) {
			return roundOp(obj, expr, o, func(f float64) float64 { return math.Trunc(f) })
		},
		"$round": func(obj, expr any, o *opts) (any, error) {
			return roundOp(obj, expr, o, math.RoundToEven)
		},
		"$pow": arith("$pow", func(a []any) (any, error) {
			return math.Pow(jsvalue.ToNumber(argN(a, 0)), jsvalue.ToNumber(argN(a, 1))), nil
		}),
		"$concat": arith("$concat", func(a []any) (any, error) {
			var b strings.Builder
			for _, v := range a {
				if jsvalue.IsNullish(v) {
					return nil, nil
				}
				b.WriteString(jsvalue.ToString(v))
			}
			return b.String(), nil
		}),
		"$toUpper": stringOp(strings.ToUpper),
		"$toLower": stringOp(strings.ToLower),
		"$substr": arith("$substr", func(a []any) (any, error) {
			s, ok := argN(a, 0).(string)
			if !ok {
				return "", nil
			}
			idx, cnt := jsvalue.ToNumber(argN(a, 1)), jsvalue.ToNumber(argN(a, 2))
			if idx < 0 {
				return "", nil
			}
			if math.IsNaN(cnt) || cnt < 0 {
				if isMissing(argN(a, 2)) || cnt < 0 {
					return utf16Sub(s, int(idx), -1), nil
				}
				return "", nil
			}
			return utf16Sub(s, int(idx), int(cnt)), nil
		}),
		"$strLenCP": func(obj, expr any, o *opts) (any, error) {
			v, err := evalArg(obj, expr, o)
			if err != nil {
				return nil, err
			}
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("$strLenCP: expression must resolve to a string")
			}
			return float64(len([]rune(s))), nil
		},
		"$split": arith("$split", func(a []any) (any, error) {
			s, ok1 := argN(a, 0).(string)
			sep, ok2 := argN(a, 1).(string)
			if jsvalue.IsNullish(argN(a, 0)) {
				return nil, nil
			}
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("$split: expects string arguments")
			}
			out := []any{}
			for _, p := range strings.Split(s, sep) {
				out = append(out, p)
			}
			return out, nil
		}),
		"$trim":  trimOp(strings.Trim),
		"$ltrim": trimOp(strings.TrimLeft),
		"$rtrim": trimOp(strings.TrimRight),
		"$eq":    cmpOp("$eq", func(a, b any) bool { return queryEq(a, b, 0) }),
		"$ne":    cmpOp("$ne", func(a, b any) bool { return !queryEq(a, b, 0) }),
		"$gt":    cmpOp("$gt", func(a, b any) bool { return queryCmp("$gt", a, b) }),
		"$gte":   cmpOp("$gte", func(a, b any) bool { return queryCmp("$gte", a, b) }),
		"$lt":    cmpOp("$lt", func(a, b any) bool { return queryCmp("$lt", a, b) }),
		"$lte":   cmpOp("$lte", func(a, b any) bool { return queryCmp("$lte", a, b) }),
		"$and": func(obj, expr any, o *opts) (any, error) {
			v, err := evalArg(obj, expr, o)
			if err != nil {
				return nil, err
			}
			if !truthy(v) {
				return false, nil
			}
			arr, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("$and: value.every is not a function")
			}
			for _, e := range arr {
				if !truthy(e) {
					return false, nil
				}
			}
			return true, nil
		},
		"$or": func(obj, expr any, o *opts) (any, error) {
			v, err := evalArg(obj, expr, o)
			if err != nil {
				return nil, err
			}
			arr, ok := v.([]any)
			if !truthy(v) || !ok {
				if !truthy(v) {
					return false, nil
				}
				return nil, fmt.Errorf("$or: value.some is not a function")
			}
			for _, e := range arr {
				if truthy(e) {
					return true, nil
				}
			}
			return false, nil
		},
		"$not": func(obj, expr any, o *opts) (any, error) {
			a := ensureArray(expr)
			switch len(a) {
			case 0:
				return false, nil
			case 1:
				v, err := evalArg(obj, a[0], o)
				if err != nil {
					return nil, err
				}
				return !jsvalue.Truthy(v), nil
			}
			return nil, fmt.Errorf("Expression $not takes exactly 1 argument")
		},
		"$cond": func(obj, expr any, o *opts) (any, error) {
			var ifE, thenE, elseE any
			switch x := expr.(type) {
			case []any:
				if len(x) != 3 {
					return nil, fmt.Errorf("$cond: invalid arguments")
				}
				ifE, thenE, elseE = x[0], x[1], x[2]
			case *jsvalue.Object:
				ifE, thenE, elseE = orMissing(x, "if"), orMissing(x, "then"), orMissing(x, "else")
			default:
				return nil, fmt.Errorf("$cond: invalid arguments")
			}
			c, err := evalArg(obj, ifE, o)
			if err != nil {
				return nil, err
			}
			if truthy(c) {
				return evalArg(obj, thenE, o)
			}
			return evalArg(obj, elseE, o)
		},
		"$ifNull": arith("$ifNull", func(a []any) (any, error) {
			for _, v := range a {
				if !jsvalue.IsNullish(v) {
					return v, nil
				}
			}
			return missing, nil
		}),
		"$switch": func(obj, expr any, o *opts) (any, error) {
			m, ok := expr.(*jsvalue.Object)
			if !ok {
				return nil, fmt.Errorf("$switch: expects an object")
			}
			branches, _ := m.Prop("branches").([]any)
			for _, b := range branches {
				bm, _ := b.(*jsvalue.Object)
				c, err := evalArg(obj, orMissing(bm, "case"), o)
				if err != nil {
					return nil, err
				}
				if truthy(c) {
					return evalArg(obj, orMissing(bm, "then"), o)
				}
			}
			return evalArg(obj, orMissing(m, "default"), o)
		},
		"$in": arith("$in", func(a []any) (any, error) {
			arr, ok := argN(a, 1).([]any)
			if !ok {
				return nil, fmt.Errorf("$in second argument must be an array")
			}
			for _, e := range arr {
				if isEqual(argN(a, 0), e) {
					return true, nil
				}
			}
			return false, nil
		}),
		"$size": func(obj, expr any, o *opts) (any, error) {
			v, err := evalArg(obj, expr, o)
			if err != nil {
				return nil, err
			}
			if arr, ok := v.([]any); ok {
				return float64(len(arr)), nil
			}
			return missing, nil
		},
		"$isArray": func(obj, expr any, o *opts) (any, error) {
			// mingo evaluates expr[0]: the first element of an array, the
			// first character of a string, undefined otherwise.
			var first any = missing
			switch x := expr.(type) {
			case []any:
				if len(x) > 0 {
					first = x[0]
				}
			case string:
				if x != "" {
					first = x[:1]
				}
			}
			v, err := evalArg(obj, first, o)
			_, ok := v.([]any)
			return ok, err
		},
		"$arrayElemAt": func(obj, expr any, o *opts) (any, error) {
			v, err := evalArg(obj, expr, o)
			if err != nil {
				return nil, err
			}
			a, ok := v.([]any)
			if !ok || len(a) != 2 {
				return nil, fmt.Errorf("$arrayElemAt expression must resolve to array(2)")
			}
			if jsvalue.IsNullish(a[0]) || jsvalue.IsNullish(a[1]) {
				return nil, nil
			}
			arr, ok := a[0].([]any)
			idx := jsvalue.ToNumber(a[1])
			if _, isNum := a[1].(float64); !isNum {
				// JavaScript then indexes by the property name String(index)
				key := jsvalue.ToString(a[1])
				if !isDigits(key) || (len(key) > 1 && key[0] == '0') {
					return missing, nil
				}
			}
			if str, isStr := a[0].(string); isStr {
				// JavaScript indexes strings by UTF-16 unit
				for _, u := range utf16.Encode([]rune(str)) {
					arr = append(arr, string(utf16.Decode([]uint16{u})))
				}
				ok = true
			}
			if !ok {
				return missing, nil
			}
			n := float64(len(arr))
			if idx < 0 && -idx <= n {
				return arr[int(idx+n)], nil
			}
			if idx >= 0 && idx < n && idx == math.Trunc(idx) {
				return arr[int(idx)], nil
			}
			return missing, nil
		},
		"$first": firstLast(true),
		"$last":  firstLast(false),
		"$concatArrays": func(obj, expr any, o *opts) (any, error) {
			v, err := evalArg(obj, expr, o)
			if err != nil {
				return nil, err
			}
			a, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("$concatArrays must resolve to an array")
			}
			for _, e := range a {
				if jsvalue.IsNullish(e) {
					return nil, nil
				}
			}
			out := []any{}
			for _, e := range a {
				switch x := e.(type) {
				case []any:
					out = append(out, x...)
				case string:
					if x != "" {
						return nil, fmt.Errorf("$concatArrays: cannot append the string %q (CreateListFromArrayLike called on non-object)", x)
					}
				}
				// mingo silently skips numbers, booleans and objects
			}
			return out, nil
		},
		"$reverseArray": func(obj, expr any, o *opts) (any, error) {
			v, err := evalArg(obj, expr, o)
			if err != nil || jsvalue.IsNullish(v) {
				return nil, err
			}
			arr, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("$reverseArray expression must resolve to an array")
			}
			out := make([]any, len(arr))
			for i, e := range arr {
				out[len(arr)-1-i] = e
			}
			return out, nil
		},
		"$filter": func(obj, expr any, o *opts) (any, error) {
			m, ok := expr.(*jsvalue.Object)
			if !ok {
				return nil, fmt.Errorf("$filter expects an object")
			}
			in, err := evalArg(obj, orMissing(m, "input"), o)
			if err != nil {
				return nil, err
			}
			arr, ok := in.([]any)
			if !ok {
				return nil, fmt.Errorf("$filter 'input' expression must resolve to an array")
			}
			as := "this"
			if s, ok := m.Prop("as").(string); ok && s != "" {
				as = s
			}
			out := []any{}
			for _, e := range arr {
				c, err := computeValue(obj, orMissing(m, "cond"), "", o.withVars(map[string]any{as: e}))
				if err != nil {
					return nil, err
				}
				if truthy(c) {
					out = append(out, e)
				}
			}
			return out, nil
		},
		"$map": func(obj, expr any, o *opts) (any, error) {
			m, ok := expr.(*jsvalue.Object)
			if !ok {
				return nil, fmt.Errorf("$map expects an object")
			}
			in, err := evalArg(obj, orMissing(m, "input"), o)
			if err != nil {
				return nil, err
			}
			arr, ok := in.([]any)
			if !ok {
				return nil, fmt.Errorf("$map 'input' expression must resolve to an array")
			}
			as := "this"
			if s, ok := m.Prop("as").(string); ok && s != "" {
				as = s
			}
			out := make([]any, len(arr))
			for i, e := range arr {
				v, err := computeValue(obj, orMissing(m, "in"), "", o.withVars(map[string]any{as: e}))
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return out, nil
		},
		"$reduce": func(obj, expr any, o *opts) (any, error) {
			m, ok := expr.(*jsvalue.Object)
			if !ok {
				return nil, fmt.Errorf("$reduce expects an object")
			}
			in, err := evalArg(obj, orMissing(m, "input"), o)
			if err != nil {
				return nil, err
			}
			acc, err := evalArg(obj, orMissing(m, "initialValue"), o)
			if err != nil {
				return nil, err
			}
			if jsvalue.IsNullish(in) {
				return nil, nil
			}
			arr, ok := in.([]any)
			if !ok {
				return nil, fmt.Errorf("$reduce 'input' expression must resolve to an array")
			}
			for _, e := range arr {
				if acc, err = computeValue(e, orMissing(m, "in"), "", o.withVars(map[string]any{"value": acc})); err != nil {
					return nil, err
				}
			}
			return acc, nil
		},
		"$mergeObjects": func(obj, expr any, o *opts) (any, error) {
			v, err := evalArg(obj, expr, o)
			if err != nil {
				return nil, err
			}
			out := &jsvalue.Object{}
			for _, e := range ensureArray(v) {
				if m, ok := e.(*jsvalue.Object); ok {
					for k, x := range m.Range {
						out.Set(k, x)
					}
				}
			}
			return out, nil
		},
		"$toString": func(obj, expr any, o *opts) (any, error) {
			v, err := evalArg(obj, expr, o)
			if err != nil || jsvalue.IsNullish(v) {
				return nil, err
			}
			if t, ok := asTime(v); ok {
				return jsvalue.ISOString(t), nil
			}
			return jsvalue.ToString(v), nil
		},
		"$toInt":     toInteger("int", -2147483648, 2147483647),
		"$toLong":    toInteger("long", -9007199254740991, 9007199254740991),
		"$toDouble":  toDouble,
		"$toDecimal": toDouble,
		"$toBool": func(obj, expr any, o *opts) (any, error) {
			v, err := evalArg(obj, expr, o)
			if err != nil || jsvalue.IsNullish(v) {
				return nil, err
			}
			if s, ok := v.(string); ok {
				_ = s
				return true, nil
			}
			return truthy(v), nil
		},
		"$type": func(obj, expr any, o *opts) (any, error) {
			v, err := evalArg(obj, expr, o)
			if err != nil {
				return nil, err
			}
			switch x := v.(type) {
			case bool:
				return "bool", nil
			case float64:
				if strings.Contains(jsvalue.NumberToString(x), ".") {
					return "double", nil
				}
				if x >= -2147483648 && x <= 2147483647 {
					return "int", nil
				}
				return "long", nil
			}
			return jsvalue.TypeName(v), nil
		},
		"$dateToString": dateToString,
		"$year":         dateOp(func(t time.Time) float64 { return float64(t.Year()) }),
		"$month":        dateOp(func(t time.Time) float64 { return float64(t.Month()) }),
		"$dayOfMonth":   dateOp(func(t time.Time) float64 { return float64(t.Day()) }),
		"$hour":         dateOp(func(t time.Time) float64 { return float64(t.Hour()) }),
		"$minute":       dateOp(func(t time.Time) float64 { return float64(t.Minute()) }),
		"$second":       dateOp(func(t time.Time) float64 { return float64(t.Second()) }),
		"$millisecond":  dateOp(func(t time.Time) float64 { return float64(t.Nanosecond() / 1e6) }),
		"$dayOfWeek":    dateOp(func(t time.Time) float64 { return float64(t.Weekday()) + 1 }),
		"$dayOfYear":    dateOp(func(t time.Time) float64 { return float64(t.YearDay()) }),
		"$isoWeek":      dateOp(func(t time.Time) float64 { _, w := t.ISOWeek(); return float64(w) }),
		"$let": func(obj, expr any, o *opts) (any, error) {
			m, ok := expr.(*jsvalue.Object)
			if !ok {
				return nil, fmt.Errorf("$let expects an object")
			}
			vars, _ := m.Prop("vars").(*jsvalue.Object)
			bound := map[string]any{}
			for k, e := range vars.Range {
				v, err := evalArg(obj, e, o)
				if err != nil {
					return nil, err
				}
				bound[k] = v
			}
			return computeValue(obj, orMissing(m, "in"), "", o.withVars(bound))
		},
	}
	exprOps["$cmp"] = arith("$cmp", func(a []any) (any, error) {
		x, y := argN(a, 0), argN(a, 1)
		if jsRelational(y, x) {
			return 1.0, nil
		}
		if jsRelational(x, y) {
			return -1.0, nil
		}
		return 0.0, nil
	})
	return exprOps
}

// jsRelational is JavaScript's a < b.
func jsRelational(a, b any) bool {
	prim := func(v any) any {
		switch v.(type) {
		case []any, *jsvalue.Object:
			return jsvalue.ToString(v)
		}
		return v
	}
	pa, pb := prim(a), prim(b)
	sa, ok1 := pa.(string)
	sb, ok2 := pb.(string)
	if ok1 && ok2 {
		return jsvalue.CompareStrings(sa, sb) < 0
	}
	return jsvalue.ToNumber(pa) < jsvalue.ToNumber(pb)
}

// orMissing reads m[k]: undefined when absent (or when m is nil).
func orMissing(m *jsvalue.Object, k string) any { return m.Prop(k) }

func roundOp(obj, expr any, o *opts, f func(float64) float64) (any, error) {
	a, err := args(obj, ensureArrayExpr(expr), o, "$round")
	if err != nil {
		return nil, err
	}
	v := argN(a, 0)
	if jsvalue.IsNullish(v) {
		return nil, nil
	}
	places := 0.0
	if p := argN(a, 1); !isMissing(p) {
		places = jsvalue.ToNumber(p)
	}
	scale := math.Pow(10, places)
	return f(jsvalue.ToNumber(v)*scale) / scale, nil
}

func ensureArrayExpr(expr any) any {
	if _, ok := expr.([]any); ok {
		return expr
	}
	return []any{expr}
}

func trimOp(f func(string, string) string) exprOp {
	return func(obj, expr any, o *opts) (any, error) {
		m, ok := expr.(*jsvalue.Object)
		if !ok {
			return nil, fmt.Errorf("trim operators expect an object {input, chars}")
		}
		in, err := evalArg(obj, orMissing(m, "input"), o)
		if err != nil || jsvalue.IsNullish(in) {
			return nil, err
		}
		s, ok := in.(string)
		if !ok {
			return nil, fmt.Errorf("trim: input must be a string")
		}
		chars := " \t\n\r\v\f\u00a0\u2028\u2029\ufeff\x00"
		if c, ok := m.Get("chars"); ok {
			cv, err := evalArg(obj, c, o)
			if err != nil {
				return nil, err
			}
			if cs, ok := cv.(string); ok {
				chars = cs
			}
		}
		return f(s, chars), nil
	}
}

func firstLast(first bool) exprOp {
	return func(obj, expr any, o *opts) (any, error) {
		if coll, ok := obj.([]any); ok {
			return accumFirstLast(first)(coll, expr, o)
		}
		v, err := evalArg(obj, expr, o)
		if err != nil || jsvalue.IsNullish(v) {
			return nil, err
		}
		arr, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("Must resolve to an array/null or missing")
		}
		if len(arr) == 0 {
			return missing, nil
		}
		// mingo evaluates "$$this" on the element, so an enclosing
		// $filter/$map binding of "this" wins, as it does there.
		d := arr[len(arr)-1]
		if first {
			d = arr[0]
		}
		return computeValue(d, "$$this", "", o)
	}
}

func toInteger(name string, lo, hi float64) exprOp {
	return func(obj, expr any, o *opts) (any, error) {
		v, err := evalArg(obj, expr, o)
		if err != nil || jsvalue.IsNullish(v) {
			return nil, err
		}
		switch x := v.(type) {
		case time.Time:
			return float64(x.UnixMilli()), nil
		case bool:
			if x {
				return 1.0, nil
			}
			return 0.0, nil
		}
		n := jsvalue.ToNumber(v)
		if !math.IsNaN(n) && n >= lo && n <= hi {
			if s, ok := v.(string); !ok || !strings.Contains(jsvalue.NumberToString(n), ".") {
				_ = s
				return math.Trunc(n), nil
			}
		}
		return nil, fmt.Errorf("cannot convert '%s' to %s", jsvalue.ToString(v), name)
	}
}

func toDouble(obj, expr any, o *opts) (any, error) {
	v, err := evalArg(obj, expr, o)
	if err != nil || jsvalue.IsNullish(v) {
		return nil, err
	}
	switch x := v.(type) {
	case time.Time:
		return float64(x.UnixMilli()), nil
	case bool:
		if x {
			return 1.0, nil
		}
		return 0.0, nil
	}
	n := jsvalue.ToNumber(v)
	if math.IsNaN(n) {
		return nil, fmt.Errorf("cannot convert '%s' to double", jsvalue.ToString(v))
	}
	return n, nil
}

// dateToString implements $dateToString for UTC and fixed-offset timezones.
func dateToString(obj, expr any, o *opts) (any, error) {
	v, err := evalArg(obj, expr, o)
	if err != nil {
		return nil, err
	}
	m, ok := v.(*jsvalue.Object)
	if !ok {
		return nil, fmt.Errorf("$dateToString expects an object")
	}
	if jsvalue.IsNullish(orMissing(m, "date")) {
		if on, ok := m.Get("onNull"); ok && !jsvalue.IsNullish(on) {
			return on, nil
		}
		return nil, nil
	}
	t, ok := asTime(m.Prop("date"))
	if !ok {
		return nil, fmt.Errorf("$dateToString: date must be a date, got %s", jsonish(m.Prop("date")))
	}
	format := "%Y-%m-%dT%H:%M:%S.%LZ"
	if f, ok := m.Prop("format").(string); ok && f != "" {
		format = f
	}
	offset := 0
	if tz, ok := m.Prop("timezone").(string); ok && tz != "" && tz != "UTC" && tz != "GMT" {
		loc, err := parseTZ(tz)
		if err != nil {
			return nil, err
		}
		_, offset = t.In(loc).Zone()
	}
	t = t.UTC().Add(time.Duration(offset) * time.Second)
	offMin := offset / 60
	r := strings.NewReplacer(
		"%%", "%", "%Y", pad(float64(t.Year()), 4), "%G", pad(float64(t.Year()), 4), "%m", pad(float64(t.Month()), 2),
		"%d", pad(float64(t.Day()), 2), "%H", pad(float64(t.Hour()), 2), "%M", pad(float64(t.Minute()), 2),
		"%S", pad(float64(t.Second()), 2), "%L", pad(float64(t.Nanosecond()/1e6), 3),
		"%u", pad(float64((int(t.Weekday())+6)%7+1), 1), "%U", pad(float64((t.YearDay()+6-int(t.Weekday()))/7), 2),
		"%V", func() string { _, w := t.ISOWeek(); return pad(float64(w), 2) }(),
		"%z", fmt.Sprintf("%+03d%02d", offMin/60, abs(offMin%60)), "%Z", strconv.Itoa(offMin),
	)
	return r.Replace(format), nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func parseTZ(tz string) (*time.Location, error) {
	if tz[0] == '+' || tz[0] == '-' {
		s := strings.ReplaceAll(tz[1:], ":", "")
		if len(s) == 2 {
			s += "00"
		}
		if len(s) != 4 {
			return nil, fmt.Errorf("invalid timezone %q", tz)
		}
		h, _ := strconv.Atoi(s[:2])
		mi, _ := strconv.Atoi(s[2:])
		off := h*3600 + mi*60
		if tz[0] == '-' {
			off = -off
		}
		return time.FixedZone(tz, off), nil
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, fmt.Errorf("invalid timezone %q: %w", tz, err)
	}
	return loc, nil
}
