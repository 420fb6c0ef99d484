package jsvalue

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestObjectOrder(t *testing.T) {
	tests := []struct {
		name string
		ops  []string // keys set in this order; "del:k" deletes k
		want []string
	}{
		{"insertion order", []string{"b", "a", "c"}, []string{"b", "a", "c"}},
		{"indices first ascending", []string{"b", "a", "10", "2"}, []string{"2", "10", "b", "a"}},
		{"index bounds", []string{"4294967295", "4294967294", "0", "x"}, []string{"0", "4294967294", "4294967295", "x"}},
		{"not indices", []string{"01", "-1", "1.5", "1e3", " 1", "1"}, []string{"1", "01", "-1", "1.5", "1e3", " 1"}},
		{"set again keeps position", []string{"a", "b", "a"}, []string{"a", "b"}},
		{"delete then set moves to end", []string{"a", "b", "del:a", "a"}, []string{"b", "a"}},
		{"delete index", []string{"3", "1", "2", "del:2", "z"}, []string{"1", "3", "z"}},
		{"delete missing", []string{"a", "del:b"}, []string{"a"}},
		{"empty key", []string{"", "a"}, []string{"", "a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := &Object{}
			for i, op := range tc.ops {
				if k, ok := strings.CutPrefix(op, "del:"); ok {
					o.Delete(k)
					continue
				}
				o.Set(op, float64(i))
			}
			if diff := cmp.Diff(tc.want, o.Keys()); diff != "" {
				t.Errorf("Keys (-want +got):\n%s", diff)
			}
			if o.Len() != len(tc.want) {
				t.Errorf("Len = %d, want %d", o.Len(), len(tc.want))
			}
		})
	}
}

func TestObjectGetSetDelete(t *testing.T) {
	o := ObjectOf("a", 1.0, "b", nil, "c", Undefined)
	if v, ok := o.Get("a"); !ok || v != 1.0 {
		t.Errorf("Get(a) = %v, %v", v, ok)
	}
	if v, ok := o.Get("b"); !ok || v != nil {
		t.Errorf("Get(b) = %v, %v; want nil, true", v, ok)
	}
	if v, ok := o.Get("zz"); ok || v != nil {
		t.Errorf("Get(zz) = %v, %v; want nil, false", v, ok)
	}
	if !IsUndefined(o.Prop("zz")) || o.Prop("b") != nil || !IsUndefined(o.Prop("c")) {
		t.Errorf("Prop: zz=%v b=%v c=%v", o.Prop("zz"), o.Prop("b"), o.Prop("c"))
	}
	if !o.Has("c") || o.Has("zz") {
		t.Error("Has")
	}
	o.Set("a", "x")
	if v, _ := o.Get("a"); v != "x" {
		t.Errorf("after Set, a = %v", v)
	}
	if !o.Delete("a") || o.Delete("a") || o.Has("a") {
		t.Error("Delete")
	}
	if got := fmt.Sprint(o.Values()); got != "[<nil> undefined]" {
		t.Errorf("Values = %s", got)
	}
	k, v := o.At(1)
	if k != "c" || !IsUndefined(v) {
		t.Errorf("At(1) = %q, %v", k, v)
	}
}

func TestNilObjectReads(t *testing.T) {
	var o *Object
	if o.Len() != 0 || o.Has("a") || o.Keys() != nil || o.Values() != nil {
		t.Error("nil object is not empty")
	}
	if _, ok := o.Get("a"); ok {
		t.Error("Get on nil")
	}
	if !IsUndefined(o.Prop("a")) {
		t.Error("Prop on nil")
	}
	for range o.Range {
		t.Error("Range on nil yielded")
	}
	if c := o.Clone(); c == nil || c.Len() != 0 {
		t.Error("Clone of nil")
	}
	var zero Object
	zero.Set("a", 1.0)
	if zero.Len() != 1 {
		t.Error("zero Object is not usable")
	}
}

func TestObjectRange(t *testing.T) {
	o := ObjectOf("b", 1.0, "a", 2.0, "7", 3.0)
	var got []string
	for k, v := range o.Range {
		got = append(got, k+"="+ToString(v))
	}
	if diff := cmp.Diff([]string{"7=3", "b=1", "a=2"}, got); diff != "" {
		t.Errorf("Range (-want +got):\n%s", diff)
	}
	n := 0
	o.Range(func(string, any) bool { n++; return false })
	if n != 1 {
		t.Errorf("Range did not stop: %d calls", n)
	}
	// Changing values during Range is allowed.
	for k := range o.Range {
		o.Set(k, "x")
	}
	if o.String() != `{"7":"x","b":"x","a":"x"}` {
		t.Errorf("after Range set: %s", o)
	}
}

func TestObjectCloneEqual(t *testing.T) {
	o := ObjectOf("b", 1.0, "a", []any{1.0, ObjectOf("x", nil)})
	c := o.Clone()
	if !o.Equal(c) || !c.Equal(o) {
		t.Fatal("clone not equal")
	}
	c.Set("z", true)
	if o.Has("z") || o.Equal(c) {
		t.Error("clone shares keys with the original")
	}
	if ObjectOf("a", 1.0, "b", 2.0).Equal(ObjectOf("b", 2.0, "a", 1.0)) {
		t.Error("Equal ignores key order")
	}
	if !ObjectOf("n", nan()).Equal(ObjectOf("n", nan())) {
		t.Error("NaN values are not Equal")
	}
	// go-cmp uses the Equal method.
	if diff := cmp.Diff(any(ObjectOf("a", 1.0)), any(ObjectOf("a", 1.0))); diff != "" {
		t.Errorf("cmp.Diff of equal objects: %s", diff)
	}
}

// TestObjectAgainstModel applies random operations to an Object and to a
// simple model (a slice in insertion order, sorted on read), crossing the
// hash index threshold both ways.
func TestObjectAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	keys := []string{"a", "b", "c", "0", "1", "2", "10", "4294967294", "4294967295", "01", "x1", "y", "z", "3", "99", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10"}
	for round := range 200 {
		o := &Object{}
		var model []string
		vals := map[string]int{}
		for step := range 60 {
			k := keys[r.IntN(len(keys))]
			if r.IntN(4) == 0 {
				o.Delete(k)
				if i := slices.Index(model, k); i >= 0 {
					model = slices.Delete(model, i, i+1)
				}
				delete(vals, k)
				continue
			}
			o.Set(k, float64(step))
			if !slices.Contains(model, k) {
				model = append(model, k)
			}
			vals[k] = step
		}
		want := jsOrder(model)
		if diff := cmp.Diff(want, o.Keys()); diff != "" {
			t.Fatalf("round %d: keys (-want +got):\n%s", round, diff)
		}
		for _, k := range keys {
			v, ok := o.Get(k)
			wv, wok := vals[k]
			if ok != wok || (ok && v != float64(wv)) {
				t.Fatalf("round %d: Get(%q) = %v, %v; want %v, %v", round, k, v, ok, wv, wok)
			}
		}
	}
}

// jsOrder sorts keys in insertion order into JavaScript property order.
func jsOrder(insertion []string) []string {
	var idx, rest []string
	for _, k := range insertion {
		if IsArrayIndex(k) {
			idx = append(idx, k)
		} else {
			rest = append(rest, k)
		}
	}
	slices.SortFunc(idx, func(a, b string) int {
		x, _ := strconv.ParseUint(a, 10, 64)
		y, _ := strconv.ParseUint(b, 10, 64)
		return int(x) - int(y)
	})
	return append(idx, rest...)
}

func TestIsArrayIndex(t *testing.T) {
	tests := map[string]bool{
		"0": true, "1": true, "10": true, "4294967294": true, "999999999": true, "1000000000": true,
		"4294967295": false, "9999999999": false, "42949672940": false, "": false, "01": false, "00": false,
		"-1": false, "+1": false, "1.0": false, " 1": false, "1e3": false, "a": false, "٣": false,
	}
	for in, want := range tests {
		if got := IsArrayIndex(in); got != want {
			t.Errorf("IsArrayIndex(%q) = %v, want %v", in, got, want)
		}
		n, ok := ArrayIndex(in)
		if ok != want {
			t.Errorf("ArrayIndex(%q) ok = %v", in, ok)
		}
		if ok && strconv.FormatUint(uint64(n), 10) != in {
			t.Errorf("ArrayIndex(%q) = %d", in, n)
		}
	}
}

func TestObjectOfPanics(t *testing.T) {
	for _, args := range [][]any{{"a"}, {1, 2}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("ObjectOf(%v) did not panic", args)
				}
			}()
			ObjectOf(args...)
		}()
	}
}

func TestDeepCopy(t *testing.T) {
	inner := NewObject(1)
	inner.Set("n", 1.0)
	list := []any{inner, "s", Undefined}
	src := NewObject(2)
	src.Set("b", list)
	src.Set("a", (*Object)(nil))

	got := DeepCopy(src).(*Object)
	if !DeepEqual(got, src) {
		t.Fatalf("copy %v differs from %v", got, src)
	}
	if keys := got.Keys(); !slices.Equal(keys, []string{"b", "a"}) {
		t.Errorf("keys %v, want the source's order [b a]", keys)
	}
	if o, _ := got.Get("a"); o.(*Object) != nil {
		t.Errorf("nil object copied as %v, want nil", o)
	}
	// Changing the copy at every depth leaves the source alone.
	gl, _ := got.Get("b")
	gl.([]any)[0].(*Object).Set("n", 2.0)
	gl.([]any)[1] = "changed"
	got.Set("c", true)
	if n, _ := inner.Get("n"); n != 1.0 || list[1] != "s" || src.Len() != 2 {
		t.Errorf("source changed through the copy: %v", src)
	}
	if DeepCopy(3.0) != 3.0 || DeepCopy(nil) != nil || !IsUndefined(DeepCopy(Undefined)) {
		t.Error("leaves are not returned as they are")
	}
}
