package operators

import (
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

func propMeta() *method { return &method{property: true} }
func single() *method   { return &method{singleArg: true} }
func singleNum() *method {
	return &method{singleArg: true, validTypes: []string{"number"}}
}
func named(types []string, names ...string) *method {
	return &method{namedArgs: names, validTypes: types}
}

var arrObj = []string{"array", "object"}

var numberMeta = lazy.Value[map[string]*method]{New: func() map[string]*method {
	return map[string]*method{
		"EPSILON": propMeta(), "MAX_SAFE_INTEGER": propMeta(), "MAX_VALUE": propMeta(), "MIN_SAFE_INTEGER": propMeta(),
		"MIN_VALUE": propMeta(), "NaN": propMeta(), "NEGATIVE_INFINITY": propMeta(), "POSITIVE_INFINITY": propMeta(),
		"isFinite": single(), "isInteger": single(), "isNaN": single(), "isSafeInteger": single(),
		"parseFloat":     {singleArg: true, validTypes: []string{"string"}},
		"parseInt":       named(arrObj, "on", "radix"),
		"toExponential":  named(arrObj, "on", "fractionDigits"),
		"toFixed":        named(arrObj, "on", "digits"),
		"toLocaleString": named(arrObj, "on", "locales"),
		"toPrecision":    named(arrObj, "on", "precision"),
		"toString":       named(arrObj, "on", "radix"),
	}
}}

func staticFuncs(global string, meta map[string]*method) map[string]classFunc {
	fns := make(map[string]classFunc, len(meta))
	for name, m := range meta {
		if m.property {
			fns[name] = func(c *call, _ []any) (any, error) { return staticProperty(global, name) }
		} else {
			fns[name] = func(c *call, args []any) (any, error) { return callStatic(global, name, args) }
		}
	}
	return fns
}

var numberFuncs = lazy.Value[map[string]classFunc]{New: func() map[string]classFunc {
	return staticFuncs("Number", numberMeta.Get())
}}

func opNumber(c *call) (any, error) {
	switch c.method {
	case "toExponential", "toFixed", "toLocaleString", "toPrecision", "toString":
		return runInstance(c, numberMeta.Get(), "number", func(c *call, instance any, args []any) (any, error) {
			if c.method == "toLocaleString" {
				return formatNumber(instance.(float64), nil, arg(args, 0))
			}
			return callMethod(instance, c.method, args)
		})
	}
	return runClass(c, numberMeta.Get(), numberFuncs.Get(), "")
}

var mathMeta = lazy.Value[map[string]*method]{New: func() map[string]*method {
	return map[string]*method{
		"abs": singleNum(), "acos": singleNum(), "acosh": singleNum(), "asin": singleNum(), "asinh": singleNum(),
		"atan": singleNum(), "atan2": named([]string{"object", "array"}, "x", "y"), "atanh": singleNum(),
		"cbrt": singleNum(), "ceil": singleNum(), "clz32": singleNum(), "cos": singleNum(), "cosh": singleNum(),
		"exp": singleNum(), "expm1": singleNum(), "floor": singleNum(), "fround": singleNum(),
		"hypot": {spreadArgs: "true", validTypes: []string{"array"}},
		"imul":  named([]string{"object", "array"}, "a", "b"),
		"log":   singleNum(), "log10": singleNum(), "log1p": singleNum(), "log2": singleNum(),
		"max":    {spreadArgs: "true", validTypes: []string{"array"}},
		"min":    {spreadArgs: "true", validTypes: []string{"array"}},
		"pow":    named([]string{"object", "array"}, "base", "exponent"),
		"random": {noArgs: true},
		"round":  singleNum(), "sign": singleNum(), "sin": singleNum(), "sinh": singleNum(), "sqrt": singleNum(),
		"tan": singleNum(), "tanh": singleNum(), "trunc": singleNum(),
		"E": propMeta(), "LN10": propMeta(), "LN2": propMeta(), "LOG10E": propMeta(), "LOG2E": propMeta(), "PI": propMeta(),
		"SQRT1_2": propMeta(), "SQRT2": propMeta(),
	}
}}

var mathFuncs = lazy.Value[map[string]classFunc]{New: func() map[string]classFunc {
	fns := staticFuncs("Math", mathMeta.Get())
	fns["random"] = func(c *call, _ []any) (any, error) { return c.st.p.rnd(), nil }
	// V8 computes these with fdlibm; Go's math package differs in the last bit.
	for name, f := range map[string]func(float64) float64{"atan": fdAtan, "acos": fdAcos, "cbrt": fdCbrt, "tan": fdTan} {
		fns[name] = func(c *call, args []any) (any, error) {
			if x, ok := arg(args, 0).(float64); ok {
				return f(x), nil
			}
			return callStatic("Math", name, args)
		}
	}
	return fns
}}

func opMath(c *call) (any, error) { return runClass(c, mathMeta.Get(), mathFuncs.Get(), "") }

// Dates.

func prepNow(c *call) any { return c.ctx().now() }

// prepDate replaces a null or undefined first argument with the current time.
func prepDate(c *call, args []any) ([]any, error) { return prepDefault(c, args, prepNow) }

func dateGetter() *method {
	return &method{singleArg: true, prep: prepDate, validTypes: []string{"date", "null"}}
}

var dateMeta = lazy.Value[map[string]*method]{New: func() map[string]*method {
	m := map[string]*method{
		"now":                {noArgs: true},
		"parse":              {singleArg: true, prep: prepDate, validTypes: []string{"string", "null"}},
		"UTC":                named(arrObj, "year", "month", "day", "hours", "minutes", "seconds"),
		"__default":          {singleArg: true, validTypes: []string{"number", "string"}},
		"setDate":            named(arrObj, "on", "dayOfMonth"),
		"setFullYear":        named(arrObj, "on", "year"),
		"setHours":           named(arrObj, "on", "hours"),
		"setMilliseconds":    named(arrObj, "on", "milliseconds"),
		"setMinutes":         named(arrObj, "on", "minutes"),
		"setMonth":           named(arrObj, "on", "month"),
		"setSeconds":         named(arrObj, "on", "seconds"),
		"setTime":            named(arrObj, "on", "time"),
		"setUTCDate":         named(arrObj, "on", "dayOfMonth"),
		"setUTCFullYear":     named(arrObj, "on", "year"),
		"setUTCHours":        named(arrObj, "on", "hours"),
		"setUTCMilliseconds": named(arrObj, "on", "milliseconds"),
		"setUTCMinutes":      named(arrObj, "on", "minutes"),
		"setUTCMonth":        named(arrObj, "on", "month"),
		"setUTCSeconds":      named(arrObj, "on", "seconds"),
	}
	for _, g := range []string{"getDate", "getDay", "getFullYear", "getHours", "getMilliseconds", "getMinutes",
		"getMonth", "getSeconds", "getTime", "getTimezoneOffset", "getUTCDate", "getUTCDay", "getUTCFullYear",
		"getUTCHours", "getUTCMilliseconds", "getUTCMinutes", "getUTCMonth", "getUTCSeconds", "toDateString",
		"toISOString", "toJSON", "toString", "toTimeString", "toUTCString", "valueOf"} {
		m[g] = dateGetter()
	}
	return m
}}

var dateFuncs = lazy.Value[map[string]classFunc]{New: func() map[string]classFunc {
	return map[string]classFunc{
		"__default": func(c *call, args []any) (any, error) {
			d, err := newJSDate(arg(args, 0))
			if err != nil {
				return nil, err
			}
			if _, ok := d.(time.Time); !ok {
				return nil, errorString(jsvalue.ToString(arg(args, 0)) + " could not resolve as a valid javascript date.")
			}
			return d, nil
		},
		"now":   func(c *call, _ []any) (any, error) { return c.ctx().now(), nil },
		"parse": func(c *call, args []any) (any, error) { return callStatic("Date", "parse", args) },
		"UTC":   func(c *call, args []any) (any, error) { return callStatic("Date", "UTC", args) },
	}
}}

func opDate(c *call) (any, error) {
	if !c.hasMethod || c.method == "now" || c.method == "parse" || c.method == "UTC" {
		return runClass(c, dateMeta.Get(), dateFuncs.Get(), "__default")
	}
	if _, ok := dateFuncs.Get()[c.method]; ok {
		return runInstance(c, map[string]*method{}, "date", nil)
	}
	return runInstance(c, dateMeta.Get(), "date", func(c *call, instance any, args []any) (any, error) {
		t := instance.(time.Time)
		switch c.method {
		case "toString":
			return jsvalue.DateToString(t), nil
		case "toTimeString":
			return jsvalue.DateToTimeString(t), nil
		case "toDateString":
			return jsvalue.DateToDateString(t), nil
		case "toISOString", "toJSON":
			return jsvalue.ISOString(t), nil
		case "getTime", "valueOf":
			return jsvalue.Millis(t), nil
		}
		return callMethod(t, c.method, args)
	})
}

type errorString string

func (e errorString) Error() string { return string(e) }
