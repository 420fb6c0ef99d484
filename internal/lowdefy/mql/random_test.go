package mql

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpbridge/mcpbridge/tools/jslibs-oracle/oracletest"
)

var randAtoms = []any{"$a", "$b", "$s", "$arr", "$objs", "$n", "$t", "$f", "$zero", "$empty", "$nested.deep.v", "$strs", "$mixed", "$missing",
	"$objs.x", "$arr.0", 1.0, 0.0, -2.5, "x", "", true, false, nil, []any{1.0, "a"}, map[string]any{"k": 1.0}}

// genMQLExpr builds a random aggregation expression.
func genMQLExpr(r *rand.Rand, depth int) any {
	if depth <= 0 || r.IntN(3) == 0 {
		return randAtoms[r.IntN(len(randAtoms))]
	}
	two := func() []any { return []any{genMQLExpr(r, depth-1), genMQLExpr(r, depth-1)} }
	switch r.IntN(14) {
	case 0:
		ops := []string{"$add", "$multiply", "$concat", "$and", "$or", "$ifNull", "$max", "$min", "$sum", "$avg"}
		return map[string]any{ops[r.IntN(len(ops))]: append(two(), genMQLExpr(r, depth-1))}
	case 1, 2:
		ops := []string{"$subtract", "$divide", "$mod", "$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$cmp", "$in", "$arrayElemAt"}
		return map[string]any{ops[r.IntN(len(ops))]: two()}
	case 3:
		ops := []string{"$toUpper", "$toLower", "$size", "$not", "$toString", "$abs", "$first", "$last", "$isArray", "$literal", "$type", "$sum", "$max"}
		return map[string]any{ops[r.IntN(len(ops))]: genMQLExpr(r, depth-1)}
	case 4:
		return map[string]any{"$cond": []any{genMQLExpr(r, depth-1), genMQLExpr(r, depth-1), genMQLExpr(r, depth-1)}}
	case 5:
		return map[string]any{"$filter": map[string]any{"input": []any{"$arr", "$objs", "$strs", "$mixed"}[r.IntN(4)], "cond": map[string]any{[]string{"$eq", "$gt", "$ne"}[r.IntN(3)]: []any{"$$this", genMQLExpr(r, depth-1)}}}}
	case 6:
		return map[string]any{"$map": map[string]any{"input": []any{"$arr", "$objs", "$strs", "$mixed"}[r.IntN(4)], "as": "v", "in": []any{"$$v", map[string]any{"$add": []any{"$$v", 1.0}}, map[string]any{"$concat": []any{"$$v", "!"}}, map[string]any{"$type": "$$v"}}[r.IntN(4)]}}
	case 7:
		return map[string]any{"$substr": []any{genMQLExpr(r, depth-1), float64(r.IntN(4) - 1), float64(r.IntN(5) - 1)}}
	case 8:
		return map[string]any{"$reduce": map[string]any{"input": []any{"$arr", "$strs", "$mixed"}[r.IntN(3)], "initialValue": genMQLExpr(r, 0), "in": map[string]any{[]string{"$add", "$concat", "$max"}[r.IntN(3)]: []any{"$$value", "$$this"}}}}
	case 9:
		return map[string]any{"k": genMQLExpr(r, depth-1), "l": genMQLExpr(r, depth-1)}
	case 10:
		return []any{genMQLExpr(r, depth-1), genMQLExpr(r, depth-1)}
	case 11:
		return map[string]any{"$switch": map[string]any{"branches": []any{map[string]any{"case": genMQLExpr(r, depth-1), "then": genMQLExpr(r, depth-1)}}, "default": genMQLExpr(r, depth-1)}}
	case 12:
		return map[string]any{"$toInt": genMQLExpr(r, depth-1)}
	default:
		return map[string]any{"$concatArrays": two()}
	}
}

// genQuery builds a random query.
func genQuery(r *rand.Rand, depth int) map[string]any {
	fields := []string{"a", "b", "s", "arr", "objs", "objs.x", "n", "missing", "strs", "mixed", "nested.deep.v", "t", "arr.1", "empty"}
	vals := []any{1.0, 2.0, 5.0, "a", "b", "Hello World", nil, true, false, []any{1.0, 2.0}, map[string]any{"x": 1.0}, "1", 0.0}
	if depth > 0 && r.IntN(4) == 0 {
		op := []string{"$and", "$or", "$nor"}[r.IntN(3)]
		return map[string]any{op: []any{genQuery(r, depth-1), genQuery(r, depth-1)}}
	}
	f := fields[r.IntN(len(fields))]
	v := vals[r.IntN(len(vals))]
	switch r.IntN(9) {
	case 0:
		return map[string]any{f: v}
	case 1, 2:
		op := []string{"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"}[r.IntN(6)]
		return map[string]any{f: map[string]any{op: v}}
	case 3:
		op := []string{"$in", "$nin", "$all"}[r.IntN(3)]
		return map[string]any{f: map[string]any{op: []any{v, vals[r.IntN(len(vals))]}}}
	case 4:
		return map[string]any{f: map[string]any{"$exists": r.IntN(2) == 0}}
	case 5:
		return map[string]any{f: map[string]any{"$size": float64(r.IntN(4))}}
	case 6:
		return map[string]any{f: map[string]any{"$type": []string{"number", "string", "array", "object", "null", "bool", "int"}[r.IntN(7)]}}
	case 7:
		return map[string]any{f: map[string]any{"$elemMatch": map[string]any{[]string{"$gt", "$eq", "x"}[r.IntN(3)]: v}}}
	default:
		return map[string]any{f: map[string]any{"$not": map[string]any{"$eq": v}}}
	}
}

func TestDifferentialRandomMQL(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 17))
	var exprs []any
	var queries []any
	for range 400 {
		exprs = append(exprs, genMQLExpr(r, 3))
		queries = append(queries, genQuery(r, 2))
	}
	var cases []oracletest.Case
	for _, e := range exprs {
		cases = append(cases, oracletest.Case{Lib: "mql", Op: "expr", Args: []any{docOne, e}})
	}
	for _, q := range queries {
		cases = append(cases, oracletest.Case{Lib: "mql", Op: "test", Args: []any{docOne, q}})
	}
	res := oracletest.Run(t, cases)
	agreed, failures := 0, 0
	for i, c := range cases {
		var got any
		var err error
		if c.Op == "expr" {
			got, err = Expr(docOne, c.Args[1])
		} else {
			got, err = Test(docOne, c.Args[1])
		}
		want := res[i]
		ok := (!want.OK && err != nil) || (want.OK && err == nil && cmp.Equal(comparable(want.Value), comparable(got)))
		if ok {
			agreed++
			continue
		}
		failures++
		if failures <= 20 {
			t.Errorf("%s %s:\n go    %v (err %v)\n mingo %v (err %s)", c.Op, jsonish(c.Args[1]), got, err, want.Value, want.Error)
		}
	}
	oracletest.Report(t, "mql random expressions and queries", agreed, len(cases))
}

// genStage builds a random pipeline stage over sampleDocs' fields.
func genStage(r *rand.Rand) any {
	fields := []string{"name", "qty", "price", "type", "tags", "dim.w", "items.v", "_id", "missing"}
	f := fields[r.IntN(len(fields))]
	switch r.IntN(10) {
	case 0:
		q := genQuery(r, 1)
		// use sample-doc fields
		return map[string]any{"$match": map[string]any{f: q[firstKey(q)]}}
	case 1:
		return map[string]any{"$project": map[string]any{f: []any{1.0, 0.0, "$qty", map[string]any{"$toUpper": "$name"}}[r.IntN(4)], "name": 1.0}}
	case 2:
		return map[string]any{"$addFields": map[string]any{"x": genMQLExpr(r, 2), f + "2": "$" + f}}
	case 3:
		acc := []string{"$sum", "$avg", "$min", "$max", "$push", "$addToSet", "$first", "$last"}[r.IntN(8)]
		return map[string]any{"$group": map[string]any{"_id": "$" + f, "v": map[string]any{acc: "$" + fields[r.IntN(len(fields))]}, "n": map[string]any{"$sum": 1.0}}}
	case 4:
		return map[string]any{"$sort": map[string]any{f: []float64{1, -1}[r.IntN(2)]}}
	case 5:
		return map[string]any{"$limit": float64(r.IntN(4) + 1)}
	case 6:
		return map[string]any{"$skip": float64(r.IntN(3))}
	case 7:
		return map[string]any{"$unwind": map[string]any{"path": "$" + []string{"tags", "items", "qty"}[r.IntN(3)], "preserveNullAndEmptyArrays": r.IntN(2) == 0}}
	case 8:
		return map[string]any{"$sortByCount": "$" + f}
	default:
		return map[string]any{"$unset": f}
	}
}

func firstKey(m map[string]any) string {
	for k := range m {
		return k
	}
	return ""
}

func TestDifferentialRandomPipelines(t *testing.T) {
	var pipelines [][]any
	for _, seed := range []uint64{9, 5, 23} {
		r := rand.New(rand.NewPCG(seed, seed+1))
		for range 150 {
			n := r.IntN(3) + 1
			var p []any
			for range n {
				p = append(p, genStage(r))
			}
			pipelines = append(pipelines, p)
		}
	}
	cases := make([]oracletest.Case, len(pipelines))
	for i, p := range pipelines {
		cases[i] = oracletest.Case{Lib: "mql", Op: "aggregate", Args: []any{sampleDocs(), p}}
	}
	res := oracletest.Run(t, cases)
	agreed, failures := 0, 0
	for i, p := range pipelines {
		got, err := Aggregate(sampleDocs(), p)
		want := res[i]
		if (!want.OK && err != nil) || (want.OK && err == nil && cmp.Equal(comparable(want.Value), comparable(got))) {
			agreed++
			continue
		}
		failures++
		if failures <= 10 {
			t.Errorf("%s:\n go    %v (err %v)\n mingo %v (err %s)\n%s", jsonish(p), got, err, want.Value, want.Error, cmp.Diff(comparable(want.Value), comparable(got)))
		}
	}
	oracletest.Report(t, "mql random pipelines", agreed, len(pipelines))
}
