package mql

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// predicate tests one document.
type predicate func(doc any) (bool, error)

// compileQuery compiles a query object (mingo Query).
func compileQuery(cond any) ([]predicate, error) {
	m, ok := cond.(*jsvalue.Object)
	if !ok {
		return nil, fmt.Errorf("query criteria must be an object: %s", jsonish(cond))
	}
	var preds []predicate
	for field, expr := range m.Range {
		switch field {
		case "$and", "$or", "$nor":
			p, err := logicalOp(field, expr)
			if err != nil {
				return nil, err
			}
			preds = append(preds, p)
		case "$expr":
			preds = append(preds, func(doc any) (bool, error) {
				v, err := computeValue(doc, expr, "", newOpts(doc))
				return jsvalue.Truthy(v), err
			})
		case "$where", "$jsonSchema", "$text":
			return nil, fmt.Errorf("query operator %s is not supported", field)
		default:
			if isOperator(field) {
				return nil, fmt.Errorf("unknown top level operator: %s", field)
			}
			ops, err := normalizeQuery(expr)
			if err != nil {
				return nil, err
			}
			for op, arg := range ops.Range {
				p, err := fieldOp(field, op, arg)
				if err != nil {
					return nil, err
				}
				preds = append(preds, p)
			}
		}
	}
	return preds, nil
}

func testAll(preds []predicate, doc any) (bool, error) {
	for _, p := range preds {
		ok, err := p(doc)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// regexValue is a compiled $regex operand.
type regexValue struct{ re *regexp.Regexp }

// normalizeQuery is mingo's normalize for a field's condition.
func normalizeQuery(expr any) (*jsvalue.Object, error) {
	m, ok := expr.(*jsvalue.Object)
	if !ok {
		return jsvalue.ObjectOf("$eq", expr), nil
	}
	hasOp := false
	for k := range m.Range {
		if isOperator(k) {
			hasOp = true
		}
	}
	if !hasOp {
		return jsvalue.ObjectOf("$eq", expr), nil
	}
	if pat, ok := m.Get("$regex"); ok {
		opts, _ := m.Prop("$options").(string)
		re, err := compileRegex(pat, opts)
		if err != nil {
			return nil, err
		}
		out := jsvalue.NewObject(m.Len())
		for k, v := range m.Range {
			if k != "$options" {
				out.Set(k, v)
			}
		}
		out.Set("$regex", re)
		return out, nil
	}
	return m, nil
}

// compileRegex turns a JavaScript pattern and flags into a Go regexp.
func compileRegex(pat any, flags string) (*regexValue, error) {
	if r, ok := pat.(*regexValue); ok {
		return r, nil
	}
	s, ok := pat.(string)
	if !ok {
		s = jsvalue.ToString(pat)
	}
	prefix := ""
	for _, f := range flags {
		switch f {
		case 'i', 'm', 's':
			if !strings.ContainsRune(prefix, f) {
				prefix += string(f)
			}
		case 'g', 'u', 'y':
		default:
			return nil, fmt.Errorf("invalid regular expression flags %q", flags)
		}
	}
	if prefix != "" {
		s = "(?" + prefix + ")" + s
	}
	if re, ok := regexCache.Load(s); ok {
		return re.(*regexValue), nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q (only RE2 syntax is supported): %w", pat, err)
	}
	rv := &regexValue{re}
	if regexCacheSize.Add(1) > 1024 {
		regexCache.Clear()
		regexCacheSize.Store(0)
	}
	regexCache.Store(s, rv)
	return rv, nil
}

// regexCache keeps compiled patterns (bounded: cleared past 1024 entries).
var (
	regexCache     sync.Map
	regexCacheSize atomic.Int64
)

func logicalOp(op string, rhs any) (predicate, error) {
	arr, ok := rhs.([]any)
	if !ok {
		return nil, fmt.Errorf("invalid expression: %s expects value to be an array", op)
	}
	var qs [][]predicate
	for _, e := range arr {
		q, err := compileQuery(e)
		if err != nil {
			return nil, err
		}
		qs = append(qs, q)
	}
	return func(doc any) (bool, error) {
		switch op {
		case "$and":
			for _, q := range qs {
				ok, err := testAll(q, doc)
				if err != nil || !ok {
					return false, err
				}
			}
			return true, nil
		default:
			any := false
			for _, q := range qs {
				ok, err := testAll(q, doc)
				if err != nil {
					return false, err
				}
				if ok {
					any = true
					break
				}
			}
			if op == "$nor" {
				return !any, nil
			}
			return any, nil
		}
	}, nil
}

// fieldOp compiles one query operator on a field.
func fieldOp(field, op string, val any) (predicate, error) {
	depth := max(1, len(strings.Split(field, "."))-1)
	lhs := func(doc any) any { return resolve(doc, field, true) }
	simple := func(f func(a any) bool) predicate {
		return func(doc any) (bool, error) { return f(lhs(doc)), nil }
	}
	switch op {
	case "$eq":
		return simple(func(a any) bool { return queryEq(a, val, depth) }), nil
	case "$ne":
		return simple(func(a any) bool { return !queryEq(a, val, depth) }), nil
	case "$gt", "$gte", "$lt", "$lte":
		return simple(func(a any) bool { return queryCmp(op, a, val) }), nil
	case "$in", "$nin":
		arr, ok := val.([]any)
		if !ok {
			return nil, fmt.Errorf("%s needs an array, got %s", op, jsonish(val))
		}
		return simple(func(a any) bool { return queryIn(a, arr) == (op == "$in") }), nil
	case "$exists":
		return simple(func(a any) bool {
			return ((val == false || val == 0.0) && isMissing(a)) || ((val == true || val == 1.0) && !isMissing(a))
		}), nil
	case "$regex":
		re, err := compileRegex(val, "")
		if err != nil {
			return nil, err
		}
		return simple(func(a any) bool {
			match := func(x any) bool { s, ok := x.(string); return ok && re.re.MatchString(s) }
			l := ensureArray(a)
			for _, x := range l {
				if match(x) {
					return true
				}
			}
			for _, x := range flatten(l, 1) {
				if match(x) {
					return true
				}
			}
			return false
		}), nil
	case "$mod":
		arr, _ := val.([]any)
		return simple(func(a any) bool {
			if len(arr) != 2 {
				return false
			}
			for _, x := range ensureArray(a) {
				if math.Mod(jsvalue.ToNumber(x), jsvalue.ToNumber(arr[0])) == jsvalue.ToNumber(arr[1]) {
					return true
				}
			}
			return false
		}), nil
	case "$size":
		return simple(func(a any) bool {
			arr, ok := a.([]any)
			n, isNum := val.(float64)
			return ok && isNum && float64(len(arr)) == n
		}), nil
	case "$type":
		return simple(func(a any) bool {
			if types, ok := val.([]any); ok {
				for _, t := range types {
					if matchType(a, t) {
						return true
					}
				}
				return false
			}
			return matchType(a, val)
		}), nil
	case "$all":
		return func(doc any) (bool, error) { return queryAll(lhs(doc), val) }, nil
	case "$elemMatch":
		return func(doc any) (bool, error) { return elemMatch(lhs(doc), val) }, nil
	case "$not":
		norm, err := normalizeQuery(val)
		if err != nil {
			return nil, err
		}
		q, err := compileQuery(jsvalue.ObjectOf(field, norm))
		if err != nil {
			return nil, err
		}
		return func(doc any) (bool, error) {
			ok, err := testAll(q, doc)
			return !ok, err
		}, nil
	case "$options":
		return nil, fmt.Errorf("$options needs $regex")
	}
	return nil, fmt.Errorf("unknown operator %s", op)
}

// queryEq is mingo's $eq predicate.
func queryEq(a, b any, depth int) bool {
	if isEqual(a, b) || (jsvalue.IsNullish(a) && jsvalue.IsNullish(b)) {
		return true
	}
	if arr, ok := a.([]any); ok {
		for _, x := range arr {
			if isEqual(b, x) {
				return true
			}
		}
		for _, x := range flatten(arr, depth) {
			if isEqual(b, x) {
				return true
			}
		}
	}
	return false
}

func queryCmp(op string, a, b any) bool {
	for _, x := range ensureArray(a) {
		if jsvalue.TypeName(x) != jsvalue.TypeName(b) {
			continue
		}
		c := compare(x, b)
		switch op {
		case "$gt":
			if c > 0 {
				return true
			}
		case "$gte":
			if c >= 0 {
				return true
			}
		case "$lt":
			if c < 0 {
				return true
			}
		case "$lte":
			if c <= 0 {
				return true
			}
		}
	}
	return false
}

func queryIn(a any, b []any) bool {
	if jsvalue.IsNullish(a) {
		for _, v := range b {
			if v == nil {
				return true
			}
		}
		return false
	}
	for _, x := range ensureArray(a) {
		for _, y := range b {
			if isEqual(x, y) {
				return true
			}
		}
	}
	return false
}

func queryAll(values, queries any) (bool, error) {
	vs, ok1 := values.([]any)
	qs, ok2 := queries.([]any)
	if !ok1 || !ok2 || len(vs) == 0 || len(qs) == 0 {
		return false, nil
	}
	for _, q := range qs {
		if m, ok := q.(*jsvalue.Object); ok {
			if em, ok := m.Get("$elemMatch"); ok {
				r, err := elemMatch(vs, em)
				if err != nil || !r {
					return false, err
				}
				continue
			}
		}
		found := false
		for _, v := range vs {
			if isEqual(q, v) {
				found = true
				break
			}
		}
		if !found {
			return false, nil
		}
	}
	return true, nil
}

func elemMatch(a, crit any) (bool, error) {
	arr, ok := a.([]any)
	if !ok || len(arr) == 0 {
		return false, nil
	}
	cm, ok := crit.(*jsvalue.Object)
	if !ok {
		return false, fmt.Errorf("$elemMatch needs an object, got %s", jsonish(crit))
	}
	wrap := true
	for k := range cm.Range {
		if !isOperator(k) || k == "$and" || k == "$or" || k == "$nor" {
			wrap = false
		}
	}
	criteria := any(cm)
	if wrap {
		criteria = jsvalue.ObjectOf("temp", cm)
	}
	q, err := compileQuery(criteria)
	if err != nil {
		return false, err
	}
	for _, e := range arr {
		doc := e
		if wrap {
			doc = jsvalue.ObjectOf("temp", e)
		}
		ok, err := testAll(q, doc)
		if err != nil {
			return false, err
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}

func isIntLike(a any, lo, hi float64) bool {
	f, ok := a.(float64)
	return ok && f >= lo && f <= hi && f == math.Trunc(f) && !strings.Contains(jsvalue.NumberToString(f), ".")
}

func matchType(a, t any) bool {
	key := jsvalue.ToString(t)
	switch key {
	case "array", "4":
		_, ok := a.([]any)
		return ok
	case "bool", "boolean", "8":
		_, ok := a.(bool)
		return ok
	case "date", "9":
		return jsvalue.TypeName(a) == "date"
	case "decimal", "double", "number", "1", "19":
		f, ok := a.(float64)
		return ok && !math.IsNaN(f)
	case "int", "16":
		return isIntLike(a, -2147483648, 2147483647)
	case "long", "18":
		return isIntLike(a, -9007199254740991, 9007199254740991)
	case "null", "10":
		return a == nil
	case "object", "3":
		_, ok := a.(*jsvalue.Object)
		return ok
	case "string", "2":
		_, ok := a.(string)
		return ok
	case "undefined", "6":
		return jsvalue.IsNullish(a)
	}
	return false
}
