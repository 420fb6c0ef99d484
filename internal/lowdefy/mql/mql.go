package mql

import (
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// Aggregate runs an aggregation pipeline over docs, as mingo's
// Aggregator(pipeline).run(docs). Inputs are not modified.
func Aggregate(docs []any, pipeline []any) (out []any, err error) {
	defer recoverErr(&err, "aggregate")
	d := normalize(docs)
	in, _ := d.([]any)
	if in == nil {
		in = []any{}
	}
	p, _ := normalize(pipeline).([]any)
	res, err := runPipeline(in, p, newOpts(nil))
	if err != nil {
		return nil, fmt.Errorf("mql aggregate: %w", err)
	}
	return export(res).([]any), nil
}

// Expr evaluates an aggregation expression against doc, as Lowdefy's
// `_mql.expr` does: through a {$project: {value: expr}} stage, so the
// literals 0/1/true/false select or drop the field "value" of doc.
func Expr(doc any, expr any) (v any, err error) {
	defer recoverErr(&err, "expr")
	if jsvalue.IsNullish(doc) {
		doc = &jsvalue.Object{}
	}
	d := normalize(doc)
	res, err := runPipeline([]any{d}, []any{jsvalue.ObjectOf("$project", jsvalue.ObjectOf("value", normalize(expr)))}, newOpts(nil))
	if err != nil {
		return nil, fmt.Errorf("mql expr: %w", err)
	}
	if len(res) == 0 {
		return nil, nil
	}
	m, _ := res[0].(*jsvalue.Object)
	return export(orMissing(m, "value")), nil
}

// Test reports whether doc matches query, as mingo's Query(query).test(doc).
func Test(doc any, query any) (ok bool, err error) {
	defer recoverErr(&err, "test")
	if jsvalue.IsNullish(doc) {
		doc = &jsvalue.Object{}
	}
	q, err := compileQuery(normalize(query))
	if err != nil {
		return false, fmt.Errorf("mql test: %w", err)
	}
	ok, err = testAll(q, normalize(doc))
	if err != nil {
		return false, fmt.Errorf("mql test: %w", err)
	}
	return ok, nil
}

func recoverErr(err *error, what string) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("mql %s: internal error: %v", what, p)
	}
}
