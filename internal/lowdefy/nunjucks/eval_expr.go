package nunjucks

import (
	"math"
	"unicode/utf16"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

func utf16Units(s string) []uint16 { return utf16.Encode([]rune(s)) }

// eval evaluates an expression in frame f.
func (r *renderer) eval(f *frame, x expr) (any, error) {
	switch x := x.(type) {
	case *litExpr:
		return x.val, nil
	case *nameExpr:
		return r.lookupName(f, x.name), nil
	case *lookupExpr:
		t, err := r.eval(f, x.target)
		if err != nil {
			return nil, err
		}
		k, err := r.eval(f, x.key)
		if err != nil {
			return nil, err
		}
		return memberLookup(t, k), nil
	case *errExpr:
		return nil, newError(r.t.name, x.line, x.col, "%s", x.msg)
	case *groupExpr:
		var v any = jsvalue.Undefined
		for _, it := range x.items {
			var err error
			if v, err = r.eval(f, it); err != nil {
				return nil, err
			}
		}
		return v, nil
	case *arrayExpr:
		out := make([]any, len(x.items))
		for i, it := range x.items {
			v, err := r.eval(f, it)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *dictExpr:
		out := &jsvalue.Object{}
		for i := range x.keys {
			k, err := r.eval(f, x.keys[i])
			if err != nil {
				return nil, err
			}
			v, err := r.eval(f, x.vals[i])
			if err != nil {
				return nil, err
			}
			out.Set(jsvalue.ToString(k), v)
		}
		return out, nil
	case *unaryExpr:
		v, err := r.eval(f, x.x)
		if err != nil {
			return nil, err
		}
		switch x.op {
		case "not":
			return !jsvalue.Truthy(v), nil
		case "-":
			return -jsvalue.ToNumber(v), nil
		case "floor":
			return math.Floor(jsvalue.ToNumber(v)), nil
		default:
			return jsvalue.ToNumber(v), nil
		}
	case *binExpr:
		return r.evalBin(f, x)
	case *compareExpr:
		v, err := r.eval(f, x.first)
		if err != nil {
			return nil, err
		}
		for i, op := range x.ops {
			w, err := r.eval(f, x.rest[i])
			if err != nil {
				return nil, err
			}
			v = compareOp(op, v, w)
		}
		return v, nil
	case *isExpr:
		v, err := r.eval(f, x.x)
		if err != nil {
			return nil, err
		}
		args, err := r.evalList(f, x.args)
		if err != nil {
			return nil, err
		}
		if x.test == "iterable" && jsvalue.IsNullish(v) {
			return nil, r.wrapErr(x.pos, errorf("Cannot read properties of %s (reading 'Symbol(Symbol.iterator)')", jsvalue.ToString(v)))
		}
		test, ok := tests()[x.test]
		if !ok {
			return nil, r.wrapErr(x.pos, errorf("test not found: %s", x.test))
		}
		return test(v, args), nil
	case *condExpr:
		c, err := r.eval(f, x.cond)
		if err != nil {
			return nil, err
		}
		if jsvalue.Truthy(c) {
			return r.eval(f, x.then)
		}
		if x.els == nil {
			return "", nil
		}
		return r.eval(f, x.els)
	case *filterExpr:
		v, err := r.eval(f, x.target)
		if err != nil {
			return nil, err
		}
		return r.applyFilter(f, x, v)
	case *callExpr:
		return r.evalCall(f, x)
	}
	return nil, errorf("unknown expression %T", x)
}

func (r *renderer) evalList(f *frame, xs []expr) ([]any, error) {
	out := make([]any, len(xs))
	for i, x := range xs {
		v, err := r.eval(f, x)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func compareOp(op string, a, b any) bool {
	switch op {
	case "==":
		return looseEq(a, b)
	case "!=":
		return !looseEq(a, b)
	case "===":
		return strictEq(a, b)
	case "!==":
		return !strictEq(a, b)
	}
	return jsvalue.Relational(op, a, b)
}

func (r *renderer) evalBin(f *frame, x *binExpr) (any, error) {
	a, err := r.eval(f, x.l)
	if err != nil {
		return nil, err
	}
	switch x.op {
	case "and":
		if !jsvalue.Truthy(a) {
			return a, nil
		}
		return r.eval(f, x.r)
	case "or":
		if jsvalue.Truthy(a) {
			return a, nil
		}
		return r.eval(f, x.r)
	}
	b, err := r.eval(f, x.r)
	if err != nil {
		return nil, err
	}
	switch x.op {
	case "~":
		return jsvalue.Add(jsvalue.Add(a, ""), b), nil
	case "+":
		return jsvalue.Add(a, b), nil
	case "-":
		return jsvalue.ToNumber(a) - jsvalue.ToNumber(b), nil
	case "*":
		return jsvalue.ToNumber(a) * jsvalue.ToNumber(b), nil
	case "/":
		return jsvalue.ToNumber(a) / jsvalue.ToNumber(b), nil
	case "//":
		return math.Floor(jsvalue.ToNumber(a) / jsvalue.ToNumber(b)), nil
	case "%":
		return math.Mod(jsvalue.ToNumber(a), jsvalue.ToNumber(b)), nil
	case "**":
		return jsPow(jsvalue.ToNumber(a), jsvalue.ToNumber(b)), nil
	case "in":
		ok, err := inOperator(a, b)
		if err != nil {
			return nil, r.wrapErr(x.pos, err)
		}
		return ok, nil
	}
	return nil, r.wrapErr(x.pos, errorf("unknown operator %s", x.op))
}

// jsPow is Math.pow (NaN for 1**±Infinity, unlike Go).
func jsPow(a, b float64) float64 {
	if math.IsNaN(b) || math.IsInf(b, 0) && math.Abs(a) == 1 {
		return math.NaN()
	}
	return math.Pow(a, b)
}

// inOperator implements nunjucks' runtime.inOperator.
func inOperator(key, val any) (bool, error) {
	switch v := val.(type) {
	case []any:
		for _, e := range v {
			if strictEq(e, key) {
				return true, nil
			}
		}
		return false, nil
	case SafeString:
		// a SafeString is an object: `in` looks for its properties
		switch jsvalue.ToString(key) {
		case "val", "length", "toString", "valueOf":
			return true, nil
		}
		return false, nil
	case string:
		s := v
		k, ok := asString(key)
		if !ok {
			k = jsvalue.ToString(key)
		}
		return indexOfUTF16(s, k) >= 0, nil
	case *jsvalue.Object:
		return v.Has(jsvalue.ToString(key)), nil
	}
	return false, errorf("Cannot use \"in\" operator to search for \"%s\" in unexpected types.", jsvalue.ToString(key))
}

func (r *renderer) evalCall(f *frame, x *callExpr) (any, error) {
	args, err := r.evalList(f, x.args)
	if err != nil {
		return nil, err
	}
	var kwargs map[string]any
	if len(x.kwargs) > 0 {
		kwargs = map[string]any{}
		for _, kw := range x.kwargs {
			v, err := r.eval(f, kw.val)
			if err != nil {
				return nil, err
			}
			kwargs[kw.name] = v
		}
	}
	// method calls on strings, arrays and numbers
	if lk, ok := x.fn.(*lookupExpr); ok {
		t, err := r.eval(f, lk.target)
		if err != nil {
			return nil, err
		}
		k, err := r.eval(f, lk.key)
		if err != nil {
			return nil, err
		}
		if name, ok := asString(k); ok {
			if m, ok := lookupMethod(t, name); ok {
				v, err := m(t, args)
				if err != nil {
					return nil, r.wrapErr(x.pos, errorf("%s: %s", name, err.Error()))
				}
				return v, nil
			}
		}
		return r.callValue(x, memberLookup(t, k), args, kwargs)
	}
	fn, err := r.eval(f, x.fn)
	if err != nil {
		return nil, err
	}
	return r.callValue(x, fn, args, kwargs)
}

func (r *renderer) callValue(x *callExpr, fn any, args []any, kwargs map[string]any) (any, error) {
	m, ok := fn.(*macroFunc)
	if !ok {
		name := exprName(x.fn)
		if !jsvalue.Truthy(fn) {
			return nil, r.wrapErr(x.pos, errorf("Unable to call `%s`, which is undefined or falsey", name))
		}
		return nil, r.wrapErr(x.pos, errorf("Unable to call `%s`, which is not a function", name))
	}
	v, err := m.call(r, args, kwargs)
	if err != nil {
		return nil, r.wrapErr(x.pos, err)
	}
	return v, nil
}

// exprName renders a callee expression for error messages.
func exprName(x expr) string {
	switch x := x.(type) {
	case *nameExpr:
		return x.name
	case *lookupExpr:
		if k, ok := x.key.(*litExpr); ok {
			return exprName(x.target) + "[\"" + jsvalue.ToString(k.val) + "\"]"
		}
		return exprName(x.target) + "[...]"
	}
	return "the expression"
}

// globals are the default nunjucks global functions. The table is built on first use.
var globals = lazy.Value[map[string]any]{New: func() map[string]any {
	g := map[string]any{
		"range": &macroFunc{name: "range", call: func(_ *renderer, args []any, _ map[string]any) (any, error) {
			var start, stop, step float64 = 0, 0, 1
			switch {
			case len(args) == 0:
				return []any{}, nil
			case len(args) == 1 || jsvalue.IsUndefined(args[1]):
				stop = jsvalue.ToNumber(args[0])
			default:
				start, stop = jsvalue.ToNumber(args[0]), jsvalue.ToNumber(args[1])
				if len(args) > 2 && jsvalue.Truthy(args[2]) {
					step = jsvalue.ToNumber(args[2])
				}
			}
			if math.IsNaN(start) || math.IsNaN(stop) || math.IsNaN(step) || step == 0 {
				return []any{}, nil
			}
			if n := (stop - start) / step; n > maxRange {
				return nil, errorf("range(%s, %s, %s) has more than %d elements", jsvalue.NumberToString(start), jsvalue.NumberToString(stop), jsvalue.NumberToString(step), maxRange)
			}
			out := []any{}
			if step > 0 {
				for i := start; i < stop; i += step {
					out = append(out, i)
				}
			} else {
				for i := start; i > stop; i += step {
					out = append(out, i)
				}
			}
			return out, nil
		}},
	}
	addGenerators(g)
	return g
}}
