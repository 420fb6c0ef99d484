package mql

import (
	"math"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

func accumPush(coll []any, expr any, o *opts) ([]any, error) {
	if jsvalue.IsNullish(expr) {
		return coll, nil
	}
	out := make([]any, len(coll))
	for i, d := range coll {
		v, err := computeValue(d, expr, "", o.withRoot(d))
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func numbersOf(vals []any) []float64 {
	var out []float64
	for _, v := range vals {
		if f, ok := v.(float64); ok && !math.IsNaN(f) {
			out = append(out, f)
		}
	}
	return out
}

func accumFirstLast(first bool) accumOp {
	return func(coll []any, expr any, o *opts) (any, error) {
		if len(coll) == 0 {
			return missing, nil
		}
		d := coll[len(coll)-1]
		if first {
			d = coll[0]
		}
		if jsvalue.IsNullish(expr) {
			return d, nil
		}
		return computeValue(d, expr, "", o.withRoot(d))
	}
}

// newAccumOps builds the accumulator operators by name (see tables).
func newAccumOps() map[string]accumOp {
	accumOps := map[string]accumOp{
		"$push": func(coll []any, expr any, o *opts) (any, error) {
			v, err := accumPush(coll, expr, o)
			if err != nil {
				return nil, err
			}
			return append([]any{}, v...), nil
		},
		"$sum": func(coll []any, expr any, o *opts) (any, error) {
			if n, ok := expr.(float64); ok {
				return float64(len(coll)) * n, nil
			}
			vals, err := accumPush(coll, expr, o)
			if err != nil {
				return nil, err
			}
			s := 0.0
			for _, f := range numbersOf(vals) {
				s += f
			}
			return s, nil
		},
		"$avg": func(coll []any, expr any, o *opts) (any, error) {
			vals, err := accumPush(coll, expr, o)
			if err != nil {
				return nil, err
			}
			nums := numbersOf(vals)
			s := 0.0
			for _, f := range nums {
				s += f
			}
			return s / float64(max(len(nums), 1)), nil
		},
		"$min": minMax(true),
		"$max": minMax(false),
		"$addToSet": func(coll []any, expr any, o *opts) (any, error) {
			vals, err := accumPush(coll, expr, o)
			if err != nil {
				return nil, err
			}
			seen := map[string]bool{}
			out := []any{}
			for _, v := range vals {
				k := stringify(v)
				if !seen[k] {
					seen[k] = true
					out = append(out, v)
				}
			}
			return out, nil
		},
		"$count": func(coll []any, _ any, _ *opts) (any, error) { return float64(len(coll)), nil },
		"$mergeObjects": func(coll []any, expr any, o *opts) (any, error) {
			vals, err := accumPush(coll, expr, o)
			if err != nil {
				return nil, err
			}
			out := &jsvalue.Object{}
			for _, v := range vals {
				if m, ok := v.(*jsvalue.Object); ok {
					for k, x := range m.Range {
						out.Set(k, x)
					}
				}
			}
			return out, nil
		},
	}
	// $first/$last are expression operators that act as accumulators on arrays.
	accumOps["$first"] = accumFirstLast(true)
	accumOps["$last"] = accumFirstLast(false)
	return accumOps
}

func minMax(isMin bool) accumOp {
	return func(coll []any, expr any, o *opts) (any, error) {
		vals, err := accumPush(coll, expr, o)
		if err != nil {
			return nil, err
		}
		var best any = math.Inf(1)
		if !isMin {
			best = math.Inf(-1)
		}
		for _, v := range vals {
			if f, ok := v.(float64); ok && math.IsNaN(f) {
				continue
			}
			c := compare(v, best)
			if (isMin && c <= 0) || (!isMin && c >= 0) {
				best = v
			}
		}
		if f, ok := best.(float64); ok && math.IsInf(f, 0) {
			return missing, nil
		}
		return best, nil
	}
}
