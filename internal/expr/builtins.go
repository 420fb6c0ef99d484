package expr

import (
	_ "embed"
	"fmt"
	"math"
	"strconv"

	"github.com/dop251/goja"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// Built-ins that run long or build large results in one native call are guarded here.
// Runtime.Interrupt only takes effect between VM instructions, and the memory watchdog can
// only interrupt, so a native call that loops over a huge (often sparse) array, or builds a
// huge string, would run to its end whatever the limits. The guards:
//
//   - refuse up front, with a RangeError, results that would be larger than the size limits
//     derived from Limits.MaxMemory (maxChars characters for strings, maxElems elements for
//     arrays and argument lists), or stop at the limit with a running budget when the size
//     is only known along the way (join, JSON.stringify, replace);
//   - call the native only when its loop is short (at most fastLen iterations); past that
//     they run interruptible implementations, in Go with stop checks or in JavaScript
//     (builtins.js), whose loops the VM interrupts as usual;
//   - check env.stop in every call, so a native that calls them repeatedly (an iterator
//     driven by spread, a comparator, a replacer) stops soon after an interrupt.

// nativeMax is the most iterations an uninterruptible native loop may run: past it the
// guards switch to interruptible implementations. A native loop of this size takes a few
// milliseconds.
const nativeMax = 1 << 16

// builtinsJS holds the interruptible implementations; see the comment at its top.
//
//go:embed builtins.js
var builtinsJS string

// builtinsProgram is builtins.js compiled. It is compiled on first use, not at start-up: a
// gateway that never evaluates an expression never loads the JavaScript compiler's code.
var builtinsProgram = lazy.Value[*goja.Program]{New: func() *goja.Program {
	LimitRegexpMatches()
	return goja.MustCompile("builtins.js", builtinsJS, true)
}}

// setSizeLimits derives the size limits of an evaluation from its memory limit. A string
// of n characters takes n or 2n bytes and building it may need a second copy, so strings
// get a quarter of the limit; an array element or argument takes 16 bytes, or 32 for a
// piece of a string, doubled while the array grows.
//
// The string limit holds for the + operator (and +=) and template literals too, which the
// carried goja checks before it builds their result (goja.Runtime.SetMaxStringLength): a
// loop doubling a string stops at the limit whatever the speed of the machine, rather than
// when the memory watchdog next samples the heap, a doubling or two later.
func (e *env) setSizeLimits(maxMemory int64) {
	e.maxMemory = maxMemory
	e.maxChars = max(maxMemory/4, 1024)
	e.maxElems = max(maxMemory/64, 1024)
	e.rt.SetMaxStringLength(e.maxChars, e.concatTooLong)
	e.maxStringKeys = max(e.maxElems/8, 1024)
	e.rt.SetMaxStringKeys(e.maxStringKeys, e.stringKeysTooMany)
}

// concatTooLongError is the error of a string concatenation over the limit; newEnv makes
// env.concatTooLong of it once.
func (e *env) concatTooLongError(n int64) goja.Value {
	return e.tooLarge("the + operator or a template literal", n, "characters", false)
}

// stringKeysError is the error of enumerating the keys of a String object of n
// characters, over maxStringKeys: a string is cheap, but a key for each of its characters
// takes a hundred bytes or more (as an object's property, in Object.assign or a spread) and
// one native call makes them all. newEnv makes env.stringKeysTooMany of it once.
func (e *env) stringKeysError(n int64) goja.Value {
	return e.tooLarge("listing the keys of a string (Object.keys, Object.assign, spread, for-in...)", n, "keys", false)
}

// fastLen is the largest length (of an array or an argument list) a guard hands to the
// native implementation.
func (e *env) fastLen() int64 { return min(nativeMax, e.maxElems) }

// fastChars is the longest string a guard hands to a native that searches it for every
// match of a pattern: scanning a character costs far less than visiting an element, but
// the native keeps every match (about 50 bytes each) until it is done.
func (e *env) fastChars() int64 { return min(4*nativeMax, e.maxChars/32) }

// checkStop throws if the evaluation was interrupted, so a native built-in that calls back
// into a guard ends now rather than at the end of its loop. What it throws never reaches
// the program: the VM turns the pending interrupt into an uncatchable error before running
// any handler.
func (e *env) checkStop() {
	if e.stop.Load() {
		if e.stopStack == nil {
			e.stopStack = e.rt.CaptureCallStack(0, nil) // the position of the error
		}
		panic(e.rt.NewTypeError("evaluation interrupted"))
	}
}

// tooLarge returns the RangeError for a built-in (or an operator) whose result would hold n
// units ("characters", "elements", "arguments", "matches") against the limit for that unit.
// more says n is a running count that passed the limit, not the final size.
//
// The program may catch the error (as it may catch V8's "Invalid string length"): nothing
// was built. One it does not catch ends the evaluation as the memory limit ([KindMemory]):
// the error carries the env's sizeError symbol, which [Program.Eval] looks for.
func (e *env) tooLarge(what string, n int64, unit string, more bool) *goja.Object {
	limit, per := e.maxElems, "per built-in call"
	switch unit {
	case "characters":
		limit, per = e.maxChars, "in one string"
	case "keys":
		limit, per = e.maxStringKeys, "of one string"
	}
	qualifier := ""
	if more {
		qualifier = "more than "
		n = limit
	}
	err := e.rangeError(fmt.Sprintf(
		"expression result too large: %s would produce %s%d %s, over the memory limit (%s allows at most %d %s %s); build a smaller result or raise the memory limit",
		what, qualifier, n, unit, formatBytes(e.maxMemory), limit, unit, per))
	// Not enumerable, writable or configurable. An error that cannot take it (never the
	// case for a fresh RangeError) is still thrown, reported as a runtime error.
	_ = err.DefineDataPropertySymbol(e.sizeError, e.rt.ToValue(true), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	return err
}

// isSizeError reports whether v is an error thrown by tooLarge in this runtime.
func (e *env) isSizeError(v goja.Value) bool {
	o, ok := v.(*goja.Object)
	if !ok {
		return false
	}
	m := o.GetSymbol(e.sizeError)
	return m != nil && m.ToBoolean()
}

// call calls f and rethrows its exception, if any, into the running JavaScript.
func call(f goja.Callable, this goja.Value, args ...goja.Value) goja.Value {
	v, err := f(this, args...)
	if err != nil {
		panic(err)
	}
	return v
}

// method replaces the method key (a string or *goja.Symbol) of obj with fn, keeping the
// original's name and length, and returns the original.
func (e *env) method(obj *goja.Object, key any, fn func(goja.FunctionCall) goja.Value) (goja.Callable, error) {
	var cur goja.Value
	var label string
	switch k := key.(type) {
	case string:
		cur, label = obj.Get(k), k
	case *goja.Symbol:
		cur, label = obj.GetSymbol(k), k.String()
	}
	orig, ok := goja.AssertFunction(cur)
	if !ok {
		return nil, fmt.Errorf("%s is not a function", label)
	}
	f := e.rt.ToValue(fn).ToObject(e.rt)
	origObj := cur.ToObject(e.rt)
	for _, p := range []string{"name", "length"} {
		if err := f.DefineDataProperty(p, origObj.Get(p), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			return nil, fmt.Errorf("wrapping %s: %w", label, err)
		}
	}
	var err error
	switch k := key.(type) {
	case string:
		err = obj.DefineDataProperty(k, f, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	case *goja.Symbol:
		err = obj.DefineDataPropertySymbol(k, f, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	if err != nil {
		return nil, fmt.Errorf("wrapping %s: %w", label, err)
	}
	return orig, nil
}

// guardBuiltins installs every guard; it runs once per runtime, before hardening.
func (e *env) guardBuiltins() error {
	slow, err := e.instantiateSlowPaths()
	if err != nil {
		return err
	}
	for _, guard := range []func(*goja.Object) error{e.guardStrings, e.guardText, e.guardRegExps, e.guardArrays, e.guardCalls, e.guardIterators, e.guardJSON} {
		if err := guard(slow); err != nil {
			return err
		}
	}
	return nil
}

// instantiateSlowPaths runs builtins.js with the Go helpers it needs.
func (e *env) instantiateSlowPaths() (*goja.Object, error) {
	rt := e.rt
	factory, err := rt.RunProgram(builtinsProgram.Get())
	if err != nil {
		return nil, fmt.Errorf("loading builtins.js: %w", err)
	}
	fn, ok := goja.AssertFunction(factory)
	if !ok {
		return nil, fmt.Errorf("loading builtins.js: not a function")
	}
	h := rt.NewObject()
	helpers := map[string]func(goja.FunctionCall) goja.Value{
		"tooLarge": func(c goja.FunctionCall) goja.Value {
			return e.tooLarge(c.Argument(0).String(), c.Argument(1).ToInteger(), c.Argument(2).String(), false)
		},
		"maxElems": func(goja.FunctionCall) goja.Value { return rt.ToValue(e.maxElems) },
		"maxChars": func(goja.FunctionCall) goja.Value { return rt.ToValue(e.maxChars) },
		"concat": func(c goja.FunctionCall) goja.Value {
			return e.join(c.Argument(0).ToObject(rt), e.toStr(rt.ToValue("")), "String.prototype.replace")
		},
		"sort": func(c goja.FunctionCall) goja.Value {
			return e.sortItems(c.Argument(0).ToObject(rt), c.Argument(1))
		},
		"substitute": func(c goja.FunctionCall) goja.Value {
			var caps []goja.Value
			if o, ok := c.Argument(3).(*goja.Object); ok {
				for i := range lengthOf(o) {
					caps = append(caps, o.Get(strconv.FormatInt(i, 10)))
				}
			}
			groups, _ := c.Argument(4).(*goja.Object)
			return e.substitute(e.toStr(c.Argument(0)), e.toStr(c.Argument(1)), int(c.Argument(2).ToInteger()), caps, groups, e.toStr(c.Argument(5)))
		},
	}
	for name, f := range helpers {
		if err := h.Set(name, f); err != nil {
			return nil, fmt.Errorf("loading builtins.js: %w", err)
		}
	}
	v, err := fn(goja.Undefined(), h)
	if err != nil {
		return nil, fmt.Errorf("loading builtins.js: %w", err)
	}
	return v.ToObject(rt), nil
}

// slowFunc returns the function group.name of the slow paths.
func slowFunc(slow *goja.Object, group, name string) (goja.Callable, error) {
	g, ok := slow.Get(group).(*goja.Object)
	if !ok {
		return nil, fmt.Errorf("builtins.js: no %s group", group)
	}
	f, ok := goja.AssertFunction(g.Get(name))
	if !ok {
		return nil, fmt.Errorf("builtins.js: no function %s.%s", group, name)
	}
	return f, nil
}

// lengthOf is ToLength(o.length).
func lengthOf(o *goja.Object) int64 {
	return toLength(o.Get("length"))
}

// toLength is ToLength of ECMA-262: an integer in [0, 2^53-1].
func toLength(v goja.Value) int64 {
	if v == nil {
		return 0
	}
	f := v.ToFloat()
	switch {
	case math.IsNaN(f) || f <= 0:
		return 0
	case f >= 1<<53-1:
		return 1<<53 - 1
	}
	return int64(f)
}

// toStr is ToString of ECMA-262, as a goja.String (which keeps UTF-16 contents intact).
func (e *env) toStr(v goja.Value) goja.String {
	for {
		switch x := v.(type) {
		case goja.String:
			return x
		case *goja.Object:
			v = x.ToString() // the primitive from toString or valueOf, converted next
		case *goja.Symbol:
			panic(e.rt.NewTypeError("Cannot convert a Symbol value to a string"))
		default:
			return e.rt.ToValue(v.String()).(goja.String) // numbers, booleans, null, undefined, BigInts
		}
	}
}

// requireObjectCoercible throws the TypeError of a String.prototype method called on null
// or undefined.
func (e *env) requireObjectCoercible(this goja.Value, what string) {
	if this == nil || goja.IsUndefined(this) || goja.IsNull(this) {
		panic(e.rt.NewTypeError("%s called on null or undefined", what))
	}
}

// primitiveInt returns ToIntegerOrInfinity(v) when v is undefined or a primitive number
// (no user code can run), with ok false otherwise.
func primitiveInt(v goja.Value) (n float64, ok bool) {
	if v == nil || goja.IsUndefined(v) {
		return 0, true
	}
	if _, isObj := v.(*goja.Object); isObj || !goja.IsNumber(v) {
		return 0, false
	}
	f := v.ToFloat()
	if math.IsNaN(f) {
		return 0, true
	}
	return math.Trunc(f), true
}

// relativeIndex resolves a relative index argument (as slice and fill do) against n, with
// dflt for undefined; ok is false when the argument is not a primitive number.
func relativeIndex(v goja.Value, n int64, dflt int64) (int64, bool) {
	if v == nil || goja.IsUndefined(v) {
		return dflt, true
	}
	r, ok := primitiveInt(v)
	if !ok {
		return 0, false
	}
	if r < 0 {
		return int64(max(float64(n)+r, 0)), true
	}
	return int64(min(r, float64(n))), true
}
