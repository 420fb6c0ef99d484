package app

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// BuildOperatorFunc evaluates one `_build.*` operator: op is the operator name with its
// underscore (`_env`, `_string`), method the part after the first dot of the operator
// (`concat` in `_build.string.concat`, or ""), params the operator's (already evaluated)
// JSON-like params, env the environment `_build.env` reads. It returns
// ErrUnsupportedOperator for operators it does not implement.
type BuildOperatorFunc func(op, method string, params any, env map[string]string) (any, error)

// ErrUnsupportedOperator is returned by a BuildOperatorFunc for operators it cannot evaluate.
var ErrUnsupportedOperator = errors.New("operator not supported by the Go loader")

// buildOperatorNames is Lowdefy's build operator set (operators-js operatorsBuild.js).
// Objects keyed `_build.<name>` for other names are left untouched, as Lowdefy does.
// The table is built on first use.
var buildOperatorNames = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"_and": true, "_args": true, "_array": true, "_base64": true, "_date": true, "_divide": true,
		"_env": true, "_eq": true, "_function": true, "_get": true, "_gt": true, "_gte": true,
		"_hash": true, "_if_none": true, "_if": true, "_intl": true, "_json": true, "_log": true,
		"_lt": true, "_lte": true, "_math": true, "_ne": true, "_not": true, "_number": true,
		"_object": true, "_operator": true, "_or": true, "_product": true, "_random": true,
		"_regex": true, "_string": true, "_subtract": true, "_sum": true, "_switch": true,
		"_type": true, "_uri": true,
	}
}}

const buildPrefix = "_build."

// evalBuild evaluates `_build.*` operators in n bottom-up (skipping content that came from
// nested references, which was evaluated already). Operator errors become warnings and
// the value null, as in Lowdefy; operators the evaluator does not implement are problems.
func (l *loader) evalBuild(n *node, location string) *node {
	if n == nil || n.sealed {
		return n
	}
	switch n.kind {
	case kindList:
		for i, it := range n.items {
			n.items[i] = l.evalBuild(it, location)
		}
	case kindMap:
		for i := range n.fields {
			n.fields[i].val = l.evalBuild(n.fields[i].val, location)
		}
		if len(n.fields) != 1 || !strings.HasPrefix(n.fields[0].key, buildPrefix) {
			return n
		}
		name := "_" + n.fields[0].key[len(buildPrefix):]
		parts := strings.Split(name, ".")
		op, method := parts[0], ""
		if len(parts) > 1 {
			method = parts[1]
		}
		if !buildOperatorNames.Get()[op] {
			return n
		}
		eval := l.opts.BuildOperators
		if eval == nil {
			eval = evalBuildOperator
		}
		res, err := safeEval(eval, op, method, n.fields[0].val.toPlain(nil), l.env())
		if err != nil {
			if errors.Is(err, ErrUnsupportedOperator) {
				l.problems = append(l.problems, problemAt(n.pos, "", "%s: %v", n.fields[0].key, err))
			} else {
				l.warnings = append(l.warnings, problemAt(n.pos, "", "%s: %v", n.fields[0].key, err))
			}
			return newNull(n.pos)
		}
		return fromPlain(res, n.pos)
	}
	return n
}

func safeEval(f BuildOperatorFunc, op, method string, params any, env map[string]string) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("operator %s panicked: %v", op, r)
		}
	}()
	return f(op, method, params, env)
}

func (l *loader) env() map[string]string {
	if l.opts.Env != nil {
		return l.opts.Env
	}
	if l.osEnv == nil {
		l.osEnv = map[string]string{}
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			l.osEnv[k] = v
		}
	}
	return l.osEnv
}

// EvalBuildOperator is the loader's own subset of Lowdefy's build operators: `_env`,
// `_if`, `_if_none`, `_eq`, `_ne`, `_not`, `_and`, `_or`, `_gt`, `_gte`, `_lt`, `_lte`,
// `_sum`, `_product`, `_subtract`, `_divide`, `_get`, `_type`, `_string.concat`,
// `_json.parse`/`_json.stringify`. Other operators return ErrUnsupportedOperator.
func EvalBuildOperator(op, method string, params any, env map[string]string) (any, error) {
	switch op {
	case "_env":
		return getFrom(params, envObject(env), "_env")
	case "_get":
		m, ok := params.(*jsvalue.Object)
		if !ok {
			return nil, fmt.Errorf("_get takes an object {from, key, default}; received %s", jsonText(params))
		}
		return getFrom(jsvalue.ObjectOf("key", get(m, "key"), "default", get(m, "default")), get(m, "from"), "_get")
	case "_if":
		m, ok := params.(*jsvalue.Object)
		if !ok {
			return nil, fmt.Errorf("_if takes an object {test, then, else}; received %s", jsonText(params))
		}
		t, ok := get(m, "test").(bool)
		if !ok {
			return nil, fmt.Errorf("_if test must be a boolean; received %s", jsonText(get(m, "test")))
		}
		if t {
			return get(m, "then"), nil
		}
		return get(m, "else"), nil
	case "_if_none":
		l, ok := params.([]any)
		if !ok || len(l) != 2 {
			return nil, fmt.Errorf("_if_none takes an array of two values; received %s", jsonText(params))
		}
		if l[0] == nil {
			return l[1], nil
		}
		return l[0], nil
	case "_not":
		return !jsvalue.Truthy(params), nil
	case "_and", "_or":
		l, ok := params.([]any)
		if !ok {
			return nil, fmt.Errorf("%s takes an array; received %s", op, jsonText(params))
		}
		acc := op == "_and"
		for _, v := range l {
			if op == "_and" {
				acc = acc && jsvalue.Truthy(v)
			} else {
				acc = acc || jsvalue.Truthy(v)
			}
		}
		return acc, nil
	case "_eq", "_ne":
		l, ok := params.([]any)
		if !ok || len(l) != 2 {
			return nil, fmt.Errorf("%s takes an array of two values; received %s", op, jsonText(params))
		}
		eq := jsvalue.StrictEqual(l[0], l[1])
		if op == "_ne" {
			return !eq, nil
		}
		return eq, nil
	case "_gt", "_gte", "_lt", "_lte":
		l, ok := params.([]any)
		if !ok || len(l) != 2 {
			return nil, fmt.Errorf("%s takes an array of two values; received %s", op, jsonText(params))
		}
		return compare(op, l[0], l[1])
	case "_sum", "_product":
		l, ok := params.([]any)
		if !ok {
			return nil, fmt.Errorf("%s takes an array of numbers; received %s", op, jsonText(params))
		}
		acc := 0.0
		if op == "_product" {
			acc = 1
		}
		for _, v := range l {
			f, ok := v.(float64)
			if !ok {
				continue // Lowdefy skips non-numbers
			}
			if op == "_sum" {
				acc += f
			} else {
				acc *= f
			}
		}
		return acc, nil
	case "_subtract", "_divide":
		l, ok := params.([]any)
		if !ok || len(l) != 2 {
			return nil, fmt.Errorf("%s takes an array of two numbers; received %s", op, jsonText(params))
		}
		a, ok1 := l[0].(float64)
		b, ok2 := l[1].(float64)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%s takes an array of two numbers; received %s", op, jsonText(params))
		}
		if op == "_subtract" {
			return a - b, nil
		}
		if b == 0 {
			return nil, errors.New("_divide by zero is not allowed")
		}
		return a / b, nil
	case "_type":
		return jsvalue.TypeName(params), nil
	case "_string":
		if method == "concat" {
			l, ok := params.([]any)
			if !ok {
				return nil, fmt.Errorf("_string.concat takes an array; received %s", jsonText(params))
			}
			// Lowdefy calls String.prototype.concat on the first item (null → ""), so a
			// non-string first item is an error; the others are converted with String().
			var b strings.Builder
			for i, v := range l {
				if i == 0 {
					if _, ok := v.(string); !ok && v != nil {
						return nil, fmt.Errorf("_string.concat: the first item must be a string; received %s", jsonText(v))
					}
				}
				if i == 0 && v == nil {
					continue
				}
				b.WriteString(jsvalue.ToString(v))
			}
			return b.String(), nil
		}
	case "_json":
		switch method {
		case "stringify":
			return jsonText(params), nil
		case "parse":
			s, ok := params.(string)
			if !ok {
				return nil, fmt.Errorf("_json.parse takes a string; received %s", jsonText(params))
			}
			v, err := jsvalue.Decode([]byte(s))
			if err != nil {
				return nil, fmt.Errorf("_json.parse: %w", err)
			}
			return v, nil
		}
	}
	if method != "" {
		return nil, fmt.Errorf("%s.%s: %w", op, method, ErrUnsupportedOperator)
	}
	return nil, fmt.Errorf("%s: %w", op, ErrUnsupportedOperator)
}

// envObject is the environment as an object, keys sorted (a Go map has no order).
func envObject(env map[string]string) *jsvalue.Object {
	m := jsvalue.NewObject(len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		m.Set(k, env[k])
	}
	return m
}

// getFrom implements Lowdefy's getFromObject params forms: a key string, `true` for
// everything, or `{key, default}`.
func getFrom(params any, object any, op string) (any, error) {
	if params == true {
		return object, nil
	}
	switch p := params.(type) {
	case string:
		params = jsvalue.ObjectOf("key", p)
	case float64:
		params = jsvalue.ObjectOf("key", jsvalue.NumberToString(p))
	}
	m, ok := params.(*jsvalue.Object)
	if !ok {
		return nil, fmt.Errorf("%s params must be a string, integer, boolean or object; received %s", op, jsonText(params))
	}
	if all, _ := get(m, "all").(bool); all {
		return object, nil
	}
	var key string
	switch k := get(m, "key").(type) {
	case nil:
		return get(m, "default"), nil
	case string:
		key = k
	case float64:
		key = jsvalue.NumberToString(k)
	default:
		return nil, fmt.Errorf("%s.key must be a string or integer; received %s", op, jsonText(get(m, "key")))
	}
	if v := lookupPath(fromPlain(object, position{}), key); v != nil {
		return v.toPlain(nil), nil
	}
	return get(m, "default"), nil
}

func compare(op string, a, b any) (any, error) {
	var c int
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		if !ok {
			return false, nil
		}
		if math.IsNaN(x) || math.IsNaN(y) {
			return false, nil
		}
		c = cmpFloat(x, y)
	case string:
		y, ok := b.(string)
		if !ok {
			return false, nil
		}
		c = jsvalue.CompareStrings(x, y)
	default:
		return nil, fmt.Errorf("%s compares numbers or strings; received %s", op, jsonText([]any{a, b}))
	}
	switch op {
	case "_gt":
		return c > 0, nil
	case "_gte":
		return c >= 0, nil
	case "_lt":
		return c < 0, nil
	}
	return c <= 0, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// jsonText renders v as compact JSON for messages.
func jsonText(v any) string {
	s, ok := jsvalue.Stringify(v, "")
	if !ok {
		return "undefined"
	}
	return s
}
