package expr

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/dop251/goja"
)

// arrayGuard describes the guard of one Array.prototype method.
type arrayGuard struct {
	name string
	// work, if set, is the number of iterations of a call on a receiver of length n
	// (default n).
	work func(e *env, n int64, args []goja.Value) int64
	// check, if set, throws when the result of a call would be too large.
	check func(e *env, n int64, args []goja.Value)
	// always uses the interruptible implementation: the work of the native does not
	// depend on the receiver's length alone (flat descends into nested arrays).
	always bool
}

// arrayGuards are the Array.prototype methods that loop over the receiver's length (or
// over their arguments') in one native call. join and toLocaleString are reimplemented in
// Go (join), the others switch to builtins.js past fastLen iterations.
var arrayGuards = []arrayGuard{
	{name: "concat", work: concatWork},
	{name: "copyWithin"}, {name: "every"}, {name: "filter"}, {name: "find"}, {name: "findIndex"},
	{name: "findLast"}, {name: "findLastIndex"}, {name: "forEach"}, {name: "includes"},
	{name: "indexOf"}, {name: "lastIndexOf"}, {name: "map"}, {name: "reduce"},
	{name: "reduceRight"}, {name: "reverse"}, {name: "shift"}, {name: "slice"}, {name: "some"},
	{name: "sort"}, {name: "splice"}, {name: "toReversed"}, {name: "toSorted"},
	{name: "toSpliced"}, {name: "unshift"}, {name: "with"},
	{name: "fill", check: checkFill},
	{name: "flat", always: true}, {name: "flatMap", always: true},
}

// concatWork is the number of elements concat visits: the receiver's and those of every
// spreadable argument.
func concatWork(e *env, n int64, args []goja.Value) int64 {
	total := n
	for _, a := range args {
		total++
		if o, ok := a.(*goja.Object); ok && e.isSpreadable(o) {
			total += lengthOf(o)
		}
		if total > 1<<53 {
			break
		}
	}
	return total
}

// isSpreadable is IsConcatSpreadable of ECMA-262.
func (e *env) isSpreadable(o *goja.Object) bool {
	if s := o.GetSymbol(goja.SymIsConcatSpreadable); s != nil && !goja.IsUndefined(s) {
		return s.ToBoolean()
	}
	return call(e.isArray, goja.Undefined(), o).ToBoolean()
}

// checkFill refuses fills of more elements than an array may hold: each one becomes a
// property, so a fill of a huge sparse array allocates them all.
func checkFill(e *env, n int64, args []goja.Value) {
	start, ok1 := relativeIndex(arg(args, 1), n, 0)
	end, ok2 := relativeIndex(arg(args, 2), n, n)
	if ok1 && ok2 && end-start > e.maxElems {
		panic(e.tooLarge("Array.prototype.fill", end-start, "elements", false))
	}
}

// guardArrays wraps the Array built-ins that loop over a length in one native call.
func (e *env) guardArrays(slow *goja.Object) error {
	rt := e.rt
	ctor := rt.Get("Array").ToObject(rt)
	proto := ctor.Get("prototype").ToObject(rt)
	var ok bool
	if e.isArray, ok = goja.AssertFunction(ctor.Get("isArray")); !ok {
		return fmt.Errorf("Array.isArray is not a function")
	}
	e.defaultCompare = rt.ToValue(func(c goja.FunctionCall) goja.Value {
		e.checkStop()
		return rt.ToValue(e.toStr(c.Argument(0)).CompareTo(e.toStr(c.Argument(1))))
	})

	for _, g := range arrayGuards {
		impl, err := slowFunc(slow, "array", g.name)
		if err != nil {
			return err
		}
		var orig goja.Callable
		orig, err = e.method(proto, g.name, func(c goja.FunctionCall) goja.Value {
			e.checkStop()
			o := c.This.ToObject(rt)
			n := lengthOf(o)
			if g.check != nil {
				g.check(e, n, c.Arguments)
			}
			work := n
			if g.work != nil {
				work = g.work(e, n, c.Arguments)
			}
			if g.always || work > e.fastLen() {
				return call(impl, o, c.Arguments...)
			}
			if g.name == "sort" && goja.IsUndefined(arg(c.Arguments, 0)) {
				// The native default order compares without returning to the VM for
				// n log n steps; our comparator checks for interrupts.
				return call(orig, o, e.defaultCompare)
			}
			return call(orig, o, c.Arguments...)
		})
		if err != nil {
			return err
		}
	}

	if _, err := e.method(proto, "join", func(c goja.FunctionCall) goja.Value {
		e.checkStop()
		o := c.This.ToObject(rt)
		sep := e.toStr(rt.ToValue(","))
		if s := c.Argument(0); !goja.IsUndefined(s) {
			sep = e.toStr(s)
		}
		return e.join(o, sep, "Array.prototype.join")
	}); err != nil {
		return err
	}
	if _, err := e.method(proto, "toLocaleString", func(c goja.FunctionCall) goja.Value {
		e.checkStop()
		return e.joinWith(c.This.ToObject(rt), e.toStr(rt.ToValue(",")), "Array.prototype.toLocaleString", e.toLocaleString)
	}); err != nil {
		return err
	}

	from, err := slowFunc(slow, "array", "from")
	if err != nil {
		return err
	}
	var origFrom goja.Callable
	origFrom, err = e.method(ctor, "from", func(c goja.FunctionCall) goja.Value {
		e.checkStop()
		items := c.Argument(0)
		if goja.IsUndefined(items) || goja.IsNull(items) {
			return call(origFrom, c.This, c.Arguments...)
		}
		o := items.ToObject(rt)
		if m := o.GetSymbol(goja.SymIterator); m != nil && !goja.IsUndefined(m) && !goja.IsNull(m) {
			// Iterables go through Symbol.iterator, whose steps are guarded.
			return call(origFrom, c.This, c.Arguments...)
		}
		n := lengthOf(o)
		if n > e.maxElems {
			panic(e.tooLarge("Array.from", n, "elements", false))
		}
		if n <= e.fastLen() {
			return call(origFrom, c.This, c.Arguments...)
		}
		mapfn := c.Argument(1)
		if _, ok := goja.AssertFunction(mapfn); !ok && !goja.IsUndefined(mapfn) {
			panic(rt.NewTypeError("Array.from: %s is not a function", mapfn.String()))
		}
		_, isCtor := goja.AssertConstructor(c.This)
		return call(from, goja.Undefined(), c.This, rt.ToValue(isCtor), o, mapfn, c.Argument(2))
	})
	return err
}

// join is Array.prototype.join of o with sep.
func (e *env) join(o *goja.Object, sep goja.String, what string) goja.Value {
	return e.joinWith(o, sep, what, e.toStr)
}

// toLocaleString is the element conversion of Array.prototype.toLocaleString.
func (e *env) toLocaleString(v goja.Value) goja.String {
	f, ok := goja.AssertFunction(v.ToObject(e.rt).Get("toLocaleString"))
	if !ok {
		panic(e.rt.NewTypeError("toLocaleString of an array element is not a function"))
	}
	return e.toStr(call(f, v))
}

// joinWith joins the elements of o converted by conv (null and undefined are empty), with
// sep between them. It refuses results over the size limit (up front when the separators
// alone exceed it), checks for interrupts while it loops over o's length, and, like the
// native, gives "" for an array that is being joined already (a cycle).
func (e *env) joinWith(o *goja.Object, sep goja.String, what string, conv func(goja.Value) goja.String) goja.Value {
	empty := e.toStr(e.rt.ToValue(""))
	for _, j := range e.joining {
		if j.SameAs(o) {
			return empty
		}
	}
	e.joining = append(e.joining, o)
	defer func() { e.joining = e.joining[:len(e.joining)-1] }()
	n := lengthOf(o)
	if n == 0 {
		return empty
	}
	sepLen := int64(sep.Length())
	if float64(n-1)*float64(sepLen) > float64(e.maxChars) {
		panic(e.tooLarge(what, (n-1)*sepLen, "characters", false))
	}
	var b goja.StringBuilder
	size := int64(0)
	for k := range n {
		if k&1023 == 0 {
			e.checkStop()
		}
		if k > 0 {
			size += sepLen
			b.WriteString(sep)
		}
		v := o.Get(strconv.FormatInt(k, 10))
		if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
			continue
		}
		s := conv(v)
		if size += int64(s.Length()); size > e.maxChars {
			panic(e.tooLarge(what, size, "characters", true))
		}
		b.WriteString(s)
	}
	return b.String()
}

// guardCalls wraps the built-ins that turn an array-like into an argument list in one
// native loop: Function.prototype.apply, Reflect.apply and Reflect.construct. Lists longer
// than maxElems are refused; long ones are copied here, with interrupt checks, into a
// dense array the native takes as it is.
func (e *env) guardCalls(*goja.Object) error {
	rt := e.rt
	fnProto := rt.Get("Function").ToObject(rt).Get("prototype").ToObject(rt)
	reflect := rt.Get("Reflect").ToObject(rt)
	for _, g := range []struct {
		obj        *goja.Object
		name, what string
		index      int
	}{
		{fnProto, "apply", "Function.prototype.apply", 1},
		{reflect, "apply", "Reflect.apply", 2},
		{reflect, "construct", "Reflect.construct", 1},
	} {
		var orig goja.Callable
		var err error
		orig, err = e.method(g.obj, g.name, func(c goja.FunctionCall) goja.Value {
			e.checkStop()
			args := c.Arguments
			if list, ok := arg(args, g.index).(*goja.Object); ok {
				n := lengthOf(list)
				if n > e.maxElems {
					panic(e.tooLarge(g.what, n, "arguments", false))
				}
				if n > e.fastLen() {
					vals := make([]any, n)
					for k := range n {
						if k&1023 == 0 {
							e.checkStop()
						}
						vals[k] = list.Get(strconv.FormatInt(k, 10))
					}
					args = slices.Clone(args)
					args[g.index] = rt.NewArray(vals...)
				}
			}
			return call(orig, c.This, args...)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// guardIterators wraps the next methods of array and string iterators, which spread
// (`[...a]`, `f(...a)`), Array.from, and the Map, Set and Promise built-ins call in a native
// loop: each step checks for interrupts.
func (e *env) guardIterators(*goja.Object) error {
	for _, src := range []string{"Object.getPrototypeOf([][Symbol.iterator]())", `Object.getPrototypeOf(""[Symbol.iterator]())`} {
		v, err := e.rt.RunString(src)
		if err != nil {
			return fmt.Errorf("finding %s: %w", src, err)
		}
		var orig goja.Callable
		orig, err = e.method(v.ToObject(e.rt), "next", func(c goja.FunctionCall) goja.Value {
			e.checkStop()
			return call(orig, c.This)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// sortItems returns a new array of the elements of items (a dense array) in the order of
// Array.prototype.sort with comparefn (undefined for the default order): a stable sort,
// undefined last. Converting each element to a string once for the default order, it is
// faster than the native, and it checks for interrupts as it compares.
func (e *env) sortItems(items *goja.Object, comparefn goja.Value) goja.Value {
	type item struct {
		v   goja.Value
		key goja.String
	}
	n := lengthOf(items)
	vals := make([]item, 0, n)
	undefined := 0
	for k := range n {
		if k&1023 == 0 {
			e.checkStop()
		}
		v := items.Get(strconv.FormatInt(k, 10))
		if v == nil || goja.IsUndefined(v) {
			undefined++
			continue
		}
		vals = append(vals, item{v: v})
	}
	compares := 0
	var cmp func(a, b item) int
	if fn, ok := goja.AssertFunction(comparefn); ok {
		cmp = func(a, b item) int {
			if compares++; compares&1023 == 0 {
				e.checkStop()
			}
			f := call(fn, goja.Undefined(), a.v, b.v).ToFloat()
			switch {
			case f < 0:
				return -1
			case f > 0:
				return 1
			}
			return 0 // including NaN
		}
	} else {
		for i := range vals {
			if i&1023 == 0 {
				e.checkStop()
			}
			vals[i].key = e.toStr(vals[i].v)
		}
		cmp = func(a, b item) int {
			if compares++; compares&1023 == 0 {
				e.checkStop()
			}
			return a.key.CompareTo(b.key)
		}
	}
	slices.SortStableFunc(vals, cmp)
	out := make([]any, 0, n)
	for _, it := range vals {
		out = append(out, it.v)
	}
	for range undefined {
		out = append(out, goja.Undefined())
	}
	return e.rt.NewArray(out...)
}
