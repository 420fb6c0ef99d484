package operators

import (
	"math"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

func arrayParams(c *call, what string) ([]any, error) {
	a, ok := c.params.([]any)
	if !ok {
		return nil, c.errorf("%s takes an array type%s.", c.op, what)
	}
	return a, nil
}

func pairParams(c *call) ([]any, error) {
	a, ok := c.params.([]any)
	if !ok {
		return nil, c.errorf("%s takes an array type as input.", c.op)
	}
	if len(a) != 2 {
		return nil, c.errorf("%s takes an array of length 2 as input.", c.op)
	}
	return a, nil
}

func opAnd(c *call) (any, error) {
	a, err := arrayParams(c, "")
	if err != nil {
		return nil, err
	}
	for _, v := range a {
		if !jsvalue.Truthy(v) {
			return false, nil
		}
	}
	return true, nil
}

func opOr(c *call) (any, error) {
	a, err := arrayParams(c, "")
	if err != nil {
		return nil, err
	}
	for _, v := range a {
		if jsvalue.Truthy(v) {
			return true, nil
		}
	}
	return false, nil
}

func opNot(c *call) (any, error) { return !jsvalue.Truthy(c.params), nil }

func opEq(c *call) (any, error) {
	a, err := pairParams(c)
	if err != nil {
		return nil, err
	}
	return jsvalue.StrictEqual(a[0], a[1]), nil
}

func opNe(c *call) (any, error) {
	a, err := pairParams(c)
	if err != nil {
		return nil, err
	}
	return !jsvalue.StrictEqual(a[0], a[1]), nil
}

func comparison(op string) operatorFunc {
	return func(c *call) (any, error) {
		a, err := pairParams(c)
		if err != nil {
			return nil, err
		}
		return jsvalue.Relational(op, a[0], a[1]), nil
	}
}

func opIf(c *call) (any, error) {
	test, err := prop(c.params, "test")
	if err != nil {
		return nil, err
	}
	if test == true {
		return prop(c.params, "then")
	}
	if test == false {
		return prop(c.params, "else")
	}
	return nil, c.errorf("_if takes a boolean type for parameter test.")
}

func opIfNone(c *call) (any, error) {
	a, err := pairParams(c)
	if err != nil {
		return nil, err
	}
	if jsvalue.IsNullish(a[0]) {
		return a[1], nil
	}
	return a[0], nil
}

func opSwitch(c *call) (any, error) {
	branches, err := prop(c.params, "branches")
	if err != nil {
		return nil, err
	}
	list, ok := branches.([]any)
	if !ok {
		return nil, c.errorf("switch takes an array type as input for the branches.")
	}
	for _, b := range list {
		test, err := prop(b, "if")
		if err != nil {
			return nil, err
		}
		bt, ok := test.(bool)
		if !ok {
			return nil, c.errorf("switch takes a boolean type for parameter \"if\".")
		}
		if bt {
			return prop(b, "then")
		}
	}
	return prop(c.params, "default")
}

func opSum(c *call) (any, error) {
	a, err := arrayParams(c, " as input")
	if err != nil {
		return nil, err
	}
	sum := 0.0
	for _, v := range a {
		if isNumber(v) {
			sum += v.(float64)
		}
	}
	return sum, nil
}

func opProduct(c *call) (any, error) {
	a, err := arrayParams(c, " as input")
	if err != nil {
		return nil, err
	}
	p := 1.0
	for _, v := range a {
		if isNumber(v) {
			p *= v.(float64)
		}
	}
	return p, nil
}

func twoNumbers(c *call) (float64, float64, error) {
	a, err := pairParams(c)
	if err != nil {
		return 0, 0, err
	}
	if !isNumber(a[0]) || !isNumber(a[1]) {
		return 0, 0, c.errorf("%s takes an array of 2 numbers.", c.op)
	}
	return a[0].(float64), a[1].(float64), nil
}

func opSubtract(c *call) (any, error) {
	x, y, err := twoNumbers(c)
	if err != nil {
		return nil, err
	}
	return x - y, nil
}

func opDivide(c *call) (any, error) {
	x, y, err := twoNumbers(c)
	if err != nil {
		return nil, err
	}
	if y == 0 {
		return nil, c.errorf("_divide by zero not allowed.")
	}
	return x / y, nil
}

// stateGet is get(state, path) with an undefined default, as used by _type
// and _regex (the server parser has no state).
func (c *call) stateGet(path any) any {
	if c.st.p.server {
		return jsvalue.Undefined
	}
	var key string
	switch p := path.(type) {
	case string:
		key = p
	case float64:
		key = jsvalue.NumberToString(p)
	default:
		return jsvalue.Undefined
	}
	v, ok := getPath(c.ctx().State, key)
	if !ok {
		return jsvalue.Undefined
	}
	return v
}

func opType(c *call) (any, error) {
	typeName := c.params
	pm, isObj := c.params.(*jsvalue.Object)
	if isObj {
		typeName = field(pm, "type")
	}
	name, ok := typeName.(string)
	if !ok {
		return nil, c.errorf("_type.type must be a string.")
	}
	var on any
	if v, ok := pm.Get("on"); isObj && ok {
		on = v
	} else {
		var key any = c.location
		if isObj {
			if k, ok := pm.Get("key"); ok {
				key = k
			}
		}
		if jsvalue.IsNullish(key) {
			on = jsvalue.Undefined
		} else {
			on = c.stateGet(key)
		}
	}
	switch name {
	case "string":
		return isString(on), nil
	case "array":
		return isArray(on), nil
	case "date":
		// helpers type.isDate returns a falsy argument itself (`val && …`).
		if !jsvalue.Truthy(on) {
			return on, nil
		}
		return typeOf(on) == "date", nil
	case "object":
		return isObject(on), nil
	case "boolean":
		_, ok := on.(bool)
		return ok, nil
	case "number":
		return isNumber(on), nil
	case "integer":
		return isInt(on), nil
	case "null":
		return on == nil, nil
	case "undefined":
		return jsvalue.IsUndefined(on), nil
	case "none":
		return jsvalue.IsNullish(on), nil
	case "primitive":
		switch typeOf(on) {
		case "undefined", "null", "string", "number", "boolean", "date":
			return true, nil
		}
		return false, nil
	}
	return nil, c.errorf("\"%s\" is not a valid _type test.", name)
}

func opRegex(c *call) (any, error) {
	pattern := c.params
	pm, isObj := c.params.(*jsvalue.Object)
	if isObj {
		pattern = field(pm, "pattern")
	}
	if _, ok := pattern.(string); !ok {
		return nil, c.errorf("_regex.pattern must be a string.")
	}
	var on any
	if v := field(pm, "on"); isObj && !jsvalue.IsUndefined(v) {
		on = v
	} else {
		on = c.stateGet(c.location)
	}
	if k := field(pm, "key"); isObj && !jsvalue.IsUndefined(k) {
		ks, ok := k.(string)
		if !ok {
			return nil, c.errorf("_regex.key must be a string.")
		}
		on = c.stateGet(ks)
	}
	if jsvalue.IsNullish(on) {
		return false, nil
	}
	if _, ok := on.(string); !ok {
		return nil, c.errorf("_regex.on must be a string.")
	}
	flags := any("gm")
	if f := field(pm, "flags"); isObj && jsvalue.Truthy(f) {
		flags = f
	}
	res, err := callMethod(jsRegExp{pattern: pattern, flags: flags}, "test", []any{on})
	if err != nil {
		return nil, c.errorf("_regex failed to execute RegExp.test.")
	}
	return res, nil
}

func opRandom(c *call) (any, error) {
	var pm map[string]any
	switch p := c.params.(type) {
	case string:
		pm = map[string]any{"type": p}
	case *jsvalue.Object:
		pm = make(map[string]any, p.Len())
		for k, v := range p.Range {
			pm[k] = v
		}
	default:
		return nil, c.errorf("_random takes an string or object type.")
	}
	typ, _ := pm["type"].(string)
	if typ != "string" && typ != "integer" && typ != "float" {
		return nil, c.errorf("_random type can be either 'string', 'integer' or 'float'.")
	}
	num := func(key string, def func() float64) (float64, error) {
		v, ok := pm[key]
		if !ok || jsvalue.IsUndefined(v) {
			v = def()
			pm[key] = v
		}
		if !isNumber(v) {
			return 0, c.errorf("_random.%s takes an number type.", key)
		}
		return v.(float64), nil
	}
	rnd := c.st.p.rnd
	switch typ {
	case "float", "integer":
		min, err := num("min", func() float64 { return 0 })
		if err != nil {
			return nil, err
		}
		span := 1.0
		if typ == "integer" {
			span = 100
		}
		max, err := num("max", func() float64 { return min + span })
		if err != nil {
			return nil, err
		}
		if max < min {
			return nil, c.errorf("_random.min must be less than _random.max.")
		}
		v := rnd()*(math.Ceil(max)-math.Floor(min)) + math.Floor(min)
		if typ == "integer" {
			v = math.Floor(v)
		}
		return v, nil
	}
	length, err := num("length", func() float64 { return 8 })
	if err != nil {
		return nil, err
	}
	if length > 1e6 {
		return nil, c.errorf("_random.length is too large (at most 1000000).")
	}
	// generateRandomString: append Math.random().toString(36).substr(2, length)
	// until the result is longer than length (0 <= length < 1 never ends:
	// JavaScript overflows its stack).
	if length >= 0 && length < 1 {
		return nil, c.errorf("_random - RangeError: Maximum call stack size exceeded.")
	}
	take := int(math.Max(0, math.Trunc(length)))
	var b strings.Builder
	for tries := 0; ; tries++ {
		if tries > 1000+take {
			return nil, c.errorf("_random - RangeError: Maximum call stack size exceeded.")
		}
		digits := fractionToRadix36(rnd())
		if len(digits) > take {
			digits = digits[:take]
		}
		b.WriteString(digits)
		if float64(b.Len()) > length {
			return b.String()[:take], nil
		}
	}
}

func opLog(c *call) (any, error) {
	enc := serial.Encode(c.params, true)
	c.ctx().logger().Info("_log", "location", c.location, "value", enc)
	return c.params, nil
}

func opOperator(c *call) (any, error) {
	nameV, err := prop(c.params, "name")
	if err != nil {
		return nil, err
	}
	name, ok := nameV.(string)
	if !ok {
		return nil, c.errorf("_operator.name must be a valid operator name as string.")
	}
	if name == "_operator" {
		return nil, c.errorf("_operator.name cannot be set to _operator to infinite avoid loop reference.")
	}
	if strings.Contains(name, "experimental") {
		return nil, c.errorf("Experimental operators cannot be used with _operator.")
	}
	parts := strings.Split(name, ".")
	op := parts[0]
	fn, ok := c.st.p.ops[op]
	if !ok {
		return nil, c.errorf("_operator - Invalid operator name.")
	}
	params, _ := prop(c.params, "params")
	inner := *c
	inner.op = op
	inner.params = params
	inner.method, inner.hasMethod = "", false
	if len(parts) > 1 {
		inner.method, inner.hasMethod = parts[1], true
	}
	return fn(&inner)
}

func opFunction(c *call) (any, error) {
	// Lowdefy re-parses a JSON copy of the params on each call, which drops
	// functions and turns NaN into null.
	params, _ := deepCopy(c.params)
	opts := *c.st.opts
	opts.Location = c.location
	opts.OperatorPrefix = "_" + c.prefix
	p, ctx := c.st.p, c.st.goCtx // the function runs within the Parse that made it
	return jsvalue.Func(func(args ...any) (any, error) {
		o := opts
		o.Args = args
		if o.Args == nil {
			o.Args = []any{}
		}
		out, errs := p.ParseWith(ctx, params, o)
		if len(errs) > 0 {
			return nil, errs[0]
		}
		return out, nil
	}), nil
}

// fractionToRadix36 returns the digits after "0." of
// Number.prototype.toString(36) for x in [0, 1), with V8's shortest
// round-trip algorithm (DoubleToRadixCString).
func fractionToRadix36(x float64) string {
	const chars = "0123456789abcdefghijklmnopqrstuvwxyz"
	if x <= 0 || x >= 1 {
		return ""
	}
	delta := 0.5 * (math.Nextafter(x, math.Inf(1)) - x)
	delta = math.Max(math.Nextafter(0, 1), delta)
	var buf []byte
	fraction := x
	for fraction >= delta {
		fraction *= 36
		delta *= 36
		digit := int(fraction)
		buf = append(buf, chars[digit])
		fraction -= float64(digit)
		if fraction > 0.5 || (fraction == 0.5 && digit&1 == 1) {
			if fraction+delta > 1 {
				// Round up, propagating carries.
				for {
					if len(buf) == 0 {
						return ""
					}
					last := buf[len(buf)-1]
					buf = buf[:len(buf)-1]
					d := strings.IndexByte(chars, last)
					if d+1 < 36 {
						buf = append(buf, chars[d+1])
						break
					}
				}
				break
			}
		}
	}
	return string(buf)
}
