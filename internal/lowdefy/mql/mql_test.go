package mql

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

func TestAggregate(t *testing.T) {
	docs := []any{
		map[string]any{"k": "a", "v": 1},
		map[string]any{"k": "b", "v": int64(2)},
		map[string]any{"k": "a", "v": 3.5},
	}
	tests := []struct {
		name     string
		pipeline []any
		want     []any
	}{
		{"group sum with int inputs", []any{
			map[string]any{"$group": map[string]any{"_id": "$k", "s": map[string]any{"$sum": "$v"}}},
			map[string]any{"$sort": map[string]any{"_id": 1}},
		}, []any{jsvalue.ObjectOf("_id", "a", "s", 4.5), jsvalue.ObjectOf("_id", "b", "s", 2.0)}},
		{"group keeps _id then the spec order", []any{
			map[string]any{"$group": jsvalue.ObjectOf("_id", "$k", "z", jsvalue.ObjectOf("$sum", 1.0), "a", jsvalue.ObjectOf("$max", "$v"))},
		}, []any{jsvalue.ObjectOf("_id", "a", "z", 2.0, "a", 3.5), jsvalue.ObjectOf("_id", "b", "z", 1.0, "a", 2.0)}},
		{"project keeps the spec order", []any{
			map[string]any{"$project": jsvalue.ObjectOf("v", 1.0, "k", 1.0, "_id", 0.0)},
			map[string]any{"$limit": 1.0},
		}, []any{jsvalue.ObjectOf("v", 1.0, "k", "a")}},
		{"ordered multi-key sort", []any{
			map[string]any{"$sort": jsvalue.ObjectOf("k", -1, "v", 1)},
			map[string]any{"$project": map[string]any{"_id": 0, "v": 1}},
		}, []any{jsvalue.ObjectOf("v", 2.0), jsvalue.ObjectOf("v", 1.0), jsvalue.ObjectOf("v", 3.5)}},
		{"match then count", []any{
			map[string]any{"$match": map[string]any{"v": map[string]any{"$gte": 2}}},
			map[string]any{"$count": "n"},
		}, []any{jsvalue.ObjectOf("n", 2.0)}},
		{"empty pipeline copies", []any{}, []any{
			jsvalue.ObjectOf("k", "a", "v", 1.0), jsvalue.ObjectOf("k", "b", "v", 2.0), jsvalue.ObjectOf("k", "a", "v", 3.5),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Aggregate(docs, tc.pipeline)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// inputs are not modified
	if _, err := Aggregate(docs, []any{map[string]any{"$set": map[string]any{"k": "z"}}}); err != nil {
		t.Fatal(err)
	}
	if docs[0].(map[string]any)["k"] != "a" {
		t.Error("Aggregate modified its input")
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		run  func() error
		msg  string
	}{
		{"unknown stage", func() error { _, err := Aggregate(nil, []any{map[string]any{"$bogus": 1}}); return err }, "invalid pipeline operator $bogus"},
		{"two-key stage", func() error {
			_, err := Aggregate(nil, []any{map[string]any{"$match": map[string]any{}, "$limit": 1}})
			return err
		}, "exactly one operator"},
		{"group without _id", func() error {
			_, err := Aggregate([]any{map[string]any{}}, []any{map[string]any{"$group": map[string]any{}}})
			return err
		}, "must include an _id"},
		{"unknown expression", func() error { _, err := Expr(map[string]any{}, map[string]any{"$nope": 1}); return err }, "operator '$nope' is not registered"},
		{"undefined variable", func() error { _, err := Expr(map[string]any{}, "$$nope"); return err }, "Use of undefined variable: nope"},
		{"unknown query operator", func() error {
			_, err := Test(map[string]any{}, map[string]any{"a": map[string]any{"$nope": 1}})
			return err
		}, "unknown operator $nope"},
		{"bad regex", func() error {
			_, err := Test(map[string]any{"a": "x"}, map[string]any{"a": map[string]any{"$regex": "(?<=a)b"}})
			return err
		}, "invalid regular expression"},
		{"query not an object", func() error { _, err := Test(map[string]any{}, []any{1}); return err }, "query criteria must be an object"},
	}
	for _, tc := range tests {
		err := tc.run()
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: got %v, want error containing %q", tc.name, err, tc.msg)
		}
	}
}

func TestExprAndTest(t *testing.T) {
	doc := map[string]any{"a": 2, "items": []any{map[string]any{"p": 3}, map[string]any{"p": 4}}}
	got, err := Expr(doc, map[string]any{"$sum": "$items.p"})
	if err != nil || got != 7.0 {
		t.Errorf("Expr $sum over path: got %v, %v", got, err)
	}
	got, err = Expr(nil, map[string]any{"$concat": []any{"a", "b"}})
	if err != nil || got != "ab" {
		t.Errorf("Expr on nil doc: got %v, %v", got, err)
	}
	ok, err := Test(doc, map[string]any{"items.p": map[string]any{"$gt": 3}})
	if err != nil || !ok {
		t.Errorf("Test items.p > 3: got %v, %v", ok, err)
	}
	ok, err = Test(doc, map[string]any{"items": map[string]any{"$size": 3}})
	if err != nil || ok {
		t.Errorf("Test $size 3: got %v, %v", ok, err)
	}
}

func FuzzQuery(f *testing.F) {
	f.Add(`{"a":{"$gt":1}}`, `{"a":[1,2,{"b":3}]}`)
	f.Add(`{"$or":[{"a.b":{"$elemMatch":{"$in":[1]}}},{"c":{"$regex":"x","$options":"i"}}]}`, `{"a":{"b":[1]},"c":"X"}`)
	f.Add(`{"a":{"$not":{"$size":1}},"b":{"$all":[1,{"$elemMatch":{"$gt":0}}]}}`, `{"b":[1,2]}`)
	f.Fuzz(func(t *testing.T, query, doc string) {
		q, err1 := decodeJSON(query)
		d, err2 := decodeJSON(doc)
		if err1 != nil || err2 != nil {
			return
		}
		if _, err := Test(d, q); err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("panic in Test(%s, %s): %v", doc, query, err)
		}
		if _, err := Expr(d, q); err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("panic in Expr(%s, %s): %v", doc, query, err)
		}
		if _, err := Aggregate([]any{d, d}, []any{map[string]any{"$match": q}, map[string]any{"$project": q}, map[string]any{"$group": map[string]any{"_id": q}}}); err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("panic in Aggregate(%s): %v", query, err)
		}
	})
}

func BenchmarkAggregate(b *testing.B) {
	docs := make([]any, 200)
	for i := range docs {
		docs[i] = map[string]any{"k": []string{"a", "b", "c"}[i%3], "v": float64(i), "tags": []any{"x", "y"}}
	}
	pipeline := []any{
		map[string]any{"$match": map[string]any{"v": map[string]any{"$gte": 10}}},
		map[string]any{"$group": map[string]any{"_id": "$k", "s": map[string]any{"$sum": "$v"}, "n": map[string]any{"$sum": 1}}},
		map[string]any{"$sort": map[string]any{"s": -1}},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Aggregate(docs, pipeline); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTest(b *testing.B) {
	q := map[string]any{"a.b": map[string]any{"$in": []any{1, 2, 3}}, "c": map[string]any{"$regex": "^x"}}
	doc := map[string]any{"a": []any{map[string]any{"b": 3}}, "c": "xyz"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Test(doc, q); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDeepExpressionIsAnError(t *testing.T) {
	var e any = 1.0
	for range 2000 {
		e = map[string]any{"$abs": e}
	}
	if _, err := Expr(map[string]any{}, e); err == nil || !strings.Contains(err.Error(), "nested") {
		t.Errorf("deep expression: got %v", err)
	}
}
