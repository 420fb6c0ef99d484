package mql

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// stageFunc runs one pipeline stage.
type stageFunc func(docs []any, spec any, o *opts) ([]any, error)

// newStages builds the pipeline stages by name (see tables).
func newStages() map[string]stageFunc {
	return map[string]stageFunc{
		"$match":       stageMatch,
		"$project":     stageProject,
		"$addFields":   stageAddFields,
		"$set":         stageAddFields,
		"$unset":       stageUnset,
		"$group":       stageGroup,
		"$sort":        stageSort,
		"$limit":       stageLimit,
		"$skip":        stageSkip,
		"$unwind":      stageUnwind,
		"$count":       stageCount,
		"$replaceRoot": stageReplaceRoot,
		"$replaceWith": func(docs []any, spec any, o *opts) ([]any, error) {
			return stageReplaceRoot(docs, jsvalue.ObjectOf("newRoot", spec), o)
		},
		"$sortByCount": stageSortByCount,
		"$lookup":      stageLookup,
	}
}

// streaming stages run lazily in mingo: consecutive ones form one chain of
// map/filter/take/drop actions processed item by item (see runChain). Built on first use.
var streamKinds = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"$match": "filter", "$project": "map", "$addFields": "map", "$set": "map", "$unset": "map",
		"$replaceRoot": "map", "$replaceWith": "map", "$lookup": "map", "$limit": "take", "$skip": "drop",
	}
}}

// action is one lazy operation of a chain.
type action struct {
	kind  string
	count float64
	mapFn func(doc any) (any, error)
	test  func(doc any) (bool, error)
}

// runPipeline runs the stages in order.
func runPipeline(docs []any, pipeline []any, o *opts) ([]any, error) {
	var chain []*action
	flush := func() error {
		if len(chain) == 0 {
			return nil
		}
		var err error
		docs, err = runChain(docs, chain)
		chain = nil
		return err
	}
	for i, st := range pipeline {
		m, ok := st.(*jsvalue.Object)
		if !ok || m.Len() != 1 {
			return nil, fmt.Errorf("pipeline stage %d: a stage must be an object with exactly one operator, got %s", i, jsonish(st))
		}
		for name, spec := range m.Range {
			fn, ok := tables().stages[name]
			if !ok {
				return nil, fmt.Errorf("pipeline stage %d: invalid pipeline operator %s", i, name)
			}
			wrap := func(err error) error { return fmt.Errorf("pipeline stage %d (%s): %w", i, name, err) }
			if kind, streaming := streamKinds.Get()[name]; streaming {
				a, err := newAction(kind, name, spec, fn, o)
				if err != nil {
					return nil, wrap(err)
				}
				if a != nil {
					chain = append(chain, a)
				}
				continue
			}
			if err := flush(); err != nil {
				return nil, err
			}
			var err error
			if docs, err = fn(docs, spec, o); err != nil {
				return nil, wrap(err)
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return docs, nil
}

// newAction compiles a streaming stage; nil means a no-op (take/drop of 0).
func newAction(kind, name string, spec any, fn stageFunc, o *opts) (*action, error) {
	switch kind {
	case "take", "drop":
		n, ok := spec.(float64)
		if !ok {
			return nil, fmt.Errorf("%s needs a number, got %s", name, jsonish(spec))
		}
		if !(n > 0) {
			return nil, nil
		}
		return &action{kind: kind, count: n}, nil
	case "filter":
		q, err := compileQuery(spec)
		if err != nil {
			return nil, err
		}
		return &action{kind: kind, test: func(doc any) (bool, error) { return testAll(q, doc) }}, nil
	}
	// validate the specification once, on an empty input
	if _, err := fn([]any{}, spec, o); err != nil {
		return nil, err
	}
	return &action{kind: kind, mapFn: func(doc any) (any, error) {
		out, err := fn([]any{doc}, spec, o)
		if err != nil {
			return nil, err
		}
		return out[0], nil
	}}, nil
}

// runChain reproduces mingo's lazy iterator exactly, including its quirks:
// a take counts items that a later filter rejects, and a drop placed after a
// take swallows the take's end (so $limit followed by $skip does not limit).
func runChain(docs []any, chain []*action) ([]any, error) {
	acts := make([]*action, len(chain))
	for i, a := range chain {
		c := *a
		acts[i] = &c
	}
	out := []any{}
	done := false
outer:
	for _, doc := range docs {
		if done {
			break
		}
		o := doc
		innerDone := false
		for i := 0; i < len(acts); i++ {
			a := acts[i]
			switch a.kind {
			case "map":
				v, err := a.mapFn(o)
				if err != nil {
					return nil, err
				}
				o = v
			case "filter":
				ok, err := a.test(o)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue outer
				}
			case "take":
				a.count--
				if a.count == 0 {
					innerDone = true
				}
			case "drop":
				a.count--
				if a.count == 0 {
					acts = append(acts[:i:i], acts[i+1:]...)
				}
				continue outer
			}
		}
		done = innerDone
		out = append(out, o)
	}
	return out, nil
}

func stageMatch(docs []any, spec any, _ *opts) ([]any, error) {
	q, err := compileQuery(spec)
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, d := range docs {
		ok, err := testAll(q, d)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, d)
		}
	}
	return out, nil
}

func isZeroOrFalse(v any) bool { return v == false || v == 0.0 }
func isOneOrTrue(v any) bool   { return v == true || v == 1.0 }

func stageProject(docs []any, spec any, o *opts) ([]any, error) {
	m, ok := spec.(*jsvalue.Object)
	if !ok {
		return nil, fmt.Errorf("$project specification must be an object")
	}
	if m.Len() == 0 {
		return docs, nil
	}
	if err := validateProjection(m); err != nil {
		return nil, err
	}
	keys := m.Keys()
	idOnlyExcluded := false
	if id, ok := m.Get("_id"); ok {
		if isZeroOrFalse(id) {
			var rest []string
			for _, k := range keys {
				if k != "_id" {
					rest = append(rest, k)
				}
			}
			keys = rest
			idOnlyExcluded = len(keys) == 0
		}
	} else {
		keys = append(keys, "_id")
	}
	out := make([]any, len(docs))
	for i, d := range docs {
		v, err := projectObject(d, m, o.withRoot(d), keys, idOnlyExcluded)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func validateProjection(m *jsvalue.Object) error {
	excl, incl := false, false
	for k, v := range m.Range {
		if k == "_id" {
			continue
		}
		if isZeroOrFalse(v) {
			excl = true
		} else if isOneOrTrue(v) {
			incl = true
		}
	}
	if excl && incl {
		return fmt.Errorf("Projection cannot have a mix of inclusion and exclusion.")
	}
	return nil
}

func projectObject(obj any, spec *jsvalue.Object, o *opts, keys []string, idOnlyExcluded bool) (any, error) {
	newObj := &jsvalue.Object{}
	foundExclusion := false
	var dropKeys []string
	if idOnlyExcluded {
		dropKeys = append(dropKeys, "_id")
	}
	for _, key := range keys {
		sub := orMissing(spec, key)
		if key != "_id" && isZeroOrFalse(sub) {
			foundExclusion = true
		}
		var value any = missing
		var err error
		switch x := sub.(type) {
		case string:
			if value, err = computeValue(obj, x, key, o); err != nil {
				return nil, err
			}
		case []any:
			arr := make([]any, len(x))
			for i, e := range x {
				r, err := computeValue(obj, e, "", o)
				if err != nil {
					return nil, err
				}
				if jsvalue.IsNullish(r) {
					r = nil
				}
				arr[i] = r
			}
			value = arr
		case *jsvalue.Object:
			op := ""
			if x.Len() == 1 {
				op, _ = x.At(0)
			}
			switch {
			case key == "_id" && x.Len() == 0:
				value = getValue(obj, key)
			case isOperator(op):
				if value, err = computeValue(obj, x.Prop(op), op, o); err != nil {
					return nil, err
				}
			case hasKey(obj, key):
				if err := validateProjection(x); err != nil {
					return nil, err
				}
				subKeys := x.Keys()
				target := getValue(obj, key)
				if arr, ok := target.([]any); ok {
					res := make([]any, len(arr))
					for i, e := range arr {
						if res[i], err = projectObject(e, x, o, subKeys, false); err != nil {
							return nil, err
						}
					}
					value = res
				} else {
					if _, isObj := target.(*jsvalue.Object); !isObj {
						target = obj
					}
					if value, err = projectObject(target, x, o, subKeys, false); err != nil {
						return nil, err
					}
				}
			default:
				if value, err = computeValue(obj, x, "", o); err != nil {
					return nil, err
				}
			}
		default:
			if key == "_id" && isEmpty(sub) {
				value = getValue(obj, key)
			} else if !isOneOrTrue(sub) {
				dropKeys = append(dropKeys, key)
				continue
			}
		}
		if graph := resolveGraph(obj, key); !isMissing(graph) {
			mergeInto(newObj, jsvalue.DeepCopy(graph))
		}
		if !isZeroOrFalse(sub) && !isOneOrTrue(sub) {
			if isMissing(value) {
				removeValue(newObj, key, true)
			} else {
				setValue(newObj, key, value)
			}
		}
	}
	filterMissing(newObj)
	if foundExclusion || idOnlyExcluded {
		merged := &jsvalue.Object{}
		if om, ok := obj.(*jsvalue.Object); ok {
			for k, v := range om.Range {
				merged.Set(k, jsvalue.DeepCopy(v))
			}
		}
		for k, v := range newObj.Range {
			merged.Set(k, v)
		}
		for _, k := range dropKeys {
			removeValue(merged, k, true)
		}
		return merged, nil
	}
	return newObj, nil
}

func hasKey(obj any, key string) bool {
	m, ok := obj.(*jsvalue.Object)
	return ok && m.Has(key)
}

func stageAddFields(docs []any, spec any, o *opts) ([]any, error) {
	m, ok := spec.(*jsvalue.Object)
	if !ok {
		return nil, fmt.Errorf("$addFields specification must be an object")
	}
	if m.Len() == 0 {
		return docs, nil
	}
	out := make([]any, len(docs))
	for i, d := range docs {
		src, _ := d.(*jsvalue.Object)
		nd := jsvalue.NewObject(src.Len() + m.Len())
		for k, v := range src.Range {
			nd.Set(k, jsvalue.DeepCopy(v))
		}
		for field, spec := range m.Range {
			v, err := computeValue(d, spec, "", o.withRoot(d))
			if err != nil {
				return nil, err
			}
			if isMissing(v) {
				removeValue(nd, field, false)
			} else {
				setValue(nd, field, v)
			}
		}
		out[i] = nd
	}
	return out, nil
}

func stageUnset(docs []any, spec any, o *opts) ([]any, error) {
	p := &jsvalue.Object{}
	for _, k := range ensureArray(spec) {
		s, ok := k.(string)
		if !ok {
			return nil, fmt.Errorf("$unset needs field names, got %s", jsonish(k))
		}
		p.Set(s, 0.0)
	}
	return stageProject(docs, p, o)
}

// groupKeys groups docs by key like mingo's groupBy: first-seen order,
// missing and null keys together under null.
func groupKeys(docs []any, keyFn func(d any) (any, error)) ([]any, map[string][]any, error) {
	var order []any
	groups := map[string][]any{}
	for _, d := range docs {
		k, err := keyFn(d)
		if err != nil {
			return nil, nil, err
		}
		if jsvalue.IsNullish(k) {
			k = nil
		}
		h := stringify(k)
		if _, ok := groups[h]; !ok {
			order = append(order, k)
		}
		groups[h] = append(groups[h], d)
	}
	return order, groups, nil
}

func stageGroup(docs []any, spec any, o *opts) ([]any, error) {
	m, ok := spec.(*jsvalue.Object)
	if !ok {
		return nil, fmt.Errorf("$group specification must be an object")
	}
	idExpr, ok := m.Get("_id")
	if !ok {
		return nil, fmt.Errorf("a group specification must include an _id")
	}
	order, groups, err := groupKeys(docs, func(d any) (any, error) { return computeValue(d, idExpr, "", o.withRoot(d)) })
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(order))
	for _, id := range order {
		res := jsvalue.ObjectOf("_id", id)
		part := groups[stringify(id)]
		for k, spec := range m.Range {
			if k == "_id" {
				continue
			}
			v, err := computeValue(part, spec, k, o.withRoot(nil))
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", k, err)
			}
			res.Set(k, v)
		}
		out = append(out, res)
	}
	return out, nil
}

func stageSort(docs []any, spec any, _ *opts) ([]any, error) {
	m, ok := spec.(*jsvalue.Object)
	if !ok || m.Len() == 0 {
		return docs, nil
	}
	keys := m.Keys()
	coll := docs
	for i := len(keys) - 1; i >= 0; i-- {
		key := keys[i]
		order, groups, _ := groupKeys(coll, func(d any) (any, error) { return resolve(d, key, false), nil })
		sorted := append([]any{}, order...)
		sort.SliceStable(sorted, func(a, b int) bool { return compare(sorted[a], sorted[b]) < 0 })
		if dir, ok := m.Prop(key).(float64); ok && dir == -1 {
			for a, b := 0, len(sorted)-1; a < b; a, b = a+1, b-1 {
				sorted[a], sorted[b] = sorted[b], sorted[a]
			}
		}
		next := make([]any, 0, len(coll))
		for _, k := range sorted {
			next = append(next, groups[stringify(k)]...)
		}
		coll = next
	}
	return coll, nil
}

func intArg(spec any, name string) (int, error) {
	f, ok := spec.(float64)
	if !ok || math.IsNaN(f) {
		return 0, fmt.Errorf("%s needs a number, got %s", name, jsonish(spec))
	}
	return int(math.Max(0, math.Min(f, 1e12))), nil
}

func stageLimit(docs []any, spec any, _ *opts) ([]any, error) {
	n, err := intArg(spec, "$limit")
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return docs, nil // mingo's take(0) does not limit
	}
	return docs[:min(n, len(docs))], nil
}

func stageSkip(docs []any, spec any, _ *opts) ([]any, error) {
	n, err := intArg(spec, "$skip")
	if err != nil {
		return nil, err
	}
	return docs[min(n, len(docs)):], nil
}

func stageUnwind(docs []any, spec any, _ *opts) ([]any, error) {
	var path string
	includeIndex := ""
	preserve := false
	switch x := spec.(type) {
	case string:
		path = x
	case *jsvalue.Object:
		path, _ = x.Prop("path").(string)
		includeIndex, _ = x.Prop("includeArrayIndex").(string)
		preserve = x.Prop("preserveNullAndEmptyArrays") == true
	}
	if !strings.HasPrefix(path, "$") {
		return nil, fmt.Errorf("$unwind path must be a string starting with $, got %s", jsonish(spec))
	}
	field := path[1:]
	out := []any{}
	format := func(d *jsvalue.Object, i any) *jsvalue.Object {
		if includeIndex != "" {
			d.Set(includeIndex, i)
		}
		return d
	}
	for _, d := range docs {
		dm, _ := d.(*jsvalue.Object)
		value := resolve(d, field, false)
		if arr, ok := value.([]any); ok {
			if len(arr) == 0 && preserve {
				nd := jsvalue.DeepCopy(dm).(*jsvalue.Object)
				removeValue(nd, field, false)
				out = append(out, format(nd, nil))
				continue
			}
			for i, item := range arr {
				nd := jsvalue.DeepCopy(dm).(*jsvalue.Object)
				setValue(nd, field, item)
				out = append(out, format(nd, float64(i)))
			}
			continue
		}
		if !isEmpty(value) || preserve {
			nd := jsvalue.DeepCopy(dm).(*jsvalue.Object)
			out = append(out, format(nd, nil))
		}
	}
	return out, nil
}

func stageCount(docs []any, spec any, _ *opts) ([]any, error) {
	s, ok := spec.(string)
	if !ok || strings.TrimSpace(s) == "" || strings.Contains(s, ".") || strings.TrimSpace(s)[0] == '$' {
		return nil, fmt.Errorf("Invalid expression value for $count")
	}
	return []any{jsvalue.ObjectOf(s, float64(len(docs)))}, nil
}

func stageReplaceRoot(docs []any, spec any, o *opts) ([]any, error) {
	m, ok := spec.(*jsvalue.Object)
	if !ok {
		return nil, fmt.Errorf("$replaceRoot needs {newRoot: <expression>}")
	}
	out := make([]any, len(docs))
	for i, d := range docs {
		v, err := computeValue(d, orMissing(m, "newRoot"), "", o.withRoot(d))
		if err != nil {
			return nil, err
		}
		if _, ok := v.(*jsvalue.Object); !ok {
			return nil, fmt.Errorf("$replaceRoot expression must return an object")
		}
		out[i] = jsvalue.DeepCopy(v)
	}
	return out, nil
}

func stageSortByCount(docs []any, spec any, o *opts) ([]any, error) {
	g, err := stageGroup(docs, jsvalue.ObjectOf("_id", spec, "count", jsvalue.ObjectOf("$sum", 1.0)), o)
	if err != nil {
		return nil, err
	}
	return stageSort(g, jsvalue.ObjectOf("count", -1.0), o)
}

func stageLookup(docs []any, spec any, _ *opts) ([]any, error) {
	m, ok := spec.(*jsvalue.Object)
	if !ok {
		return nil, fmt.Errorf("$lookup needs an object")
	}
	from, ok := m.Prop("from").([]any)
	if !ok {
		return nil, fmt.Errorf("'from' field must resolve to an array (named collections are not available)")
	}
	local, _ := m.Prop("localField").(string)
	foreign, _ := m.Prop("foreignField").(string)
	as, _ := m.Prop("as").(string)
	index := map[string][]any{}
	for _, f := range from {
		k := resolve(f, foreign, false)
		if jsvalue.IsNullish(k) {
			continue
		}
		h := stringify(k)
		index[h] = append(index[h], f)
	}
	out := make([]any, len(docs))
	for i, d := range docs {
		nd := &jsvalue.Object{}
		if dm, ok := d.(*jsvalue.Object); ok {
			nd = dm.Clone()
		}
		k := resolve(d, local, false)
		matches := []any{}
		if !jsvalue.IsNullish(k) {
			matches = append(matches, index[stringify(k)]...)
		}
		nd.Set(as, jsvalue.DeepCopy(matches))
		out[i] = nd
	}
	return out, nil
}
