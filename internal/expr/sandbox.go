package expr

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// maxCallStack bounds JavaScript recursion; deeper calls fail with a RangeError instead of
// growing the Go stack until the process dies.
const maxCallStack = 2048

// maxCachedFuncs bounds the per-runtime cache of instantiated program functions.
const maxCachedFuncs = 512

// removedGlobals are the globals taken out of the sandbox: eval (code from strings), and the
// binary buffers whose constructors allocate their whole size in one uninterruptible call.
var removedGlobals = []string{
	"eval", "ArrayBuffer", "SharedArrayBuffer", "DataView", "Int8Array", "Uint8Array",
	"Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array",
	"Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array", "WebAssembly",
}

// hardenJS makes the built-ins immutable: a few prototype properties that scripts commonly
// shadow by assignment (err.name = ..., obj.toString = ...) become accessors that define an own
// property on the receiver, then every object reachable from the global object and the hidden
// intrinsics (generator, async and iterator prototypes) is frozen, the global object last.
// Together with strict mode this means no evaluation can leave state for the next one.
const hardenJS = `(function () {
  "use strict";
  const hasOwn = Object.prototype.hasOwnProperty;
  const defineProperty = Object.defineProperty;
  function enableOverride(obj, key) {
    const d = Object.getOwnPropertyDescriptor(obj, key);
    if (!d || !("value" in d)) return;
    const value = d.value;
    defineProperty(obj, key, {
      get: function () { return value; },
      set: function (v) {
        if (this === obj) throw new TypeError("Cannot assign to read only property '" + String(key) + "' of a built-in object");
        if (hasOwn.call(this, key)) { this[key] = v; return; }
        defineProperty(this, key, { value: v, writable: true, enumerable: true, configurable: true });
      },
      enumerable: d.enumerable,
      configurable: false,
    });
  }
  for (const k of ["constructor", "toString", "valueOf", "toLocaleString"]) enableOverride(Object.prototype, k);
  for (const E of [Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError]) {
    for (const k of ["constructor", "name", "message", "toString"]) enableOverride(E.prototype, k);
  }
  for (const k of ["constructor", "toString"]) enableOverride(Function.prototype, k);

  const roots = [
    globalThis,
    Object.getPrototypeOf(function* () {}),
    Object.getPrototypeOf((function* () {})()),
    Object.getPrototypeOf(async function () {}),
    Object.getPrototypeOf([][Symbol.iterator]()),
    Object.getPrototypeOf(new Map()[Symbol.iterator]()),
    Object.getPrototypeOf(new Set()[Symbol.iterator]()),
    Object.getPrototypeOf(""[Symbol.iterator]()),
    Object.getPrototypeOf(/x/[Symbol.matchAll]("x")),
    Object.getPrototypeOf(function () { return arguments; }()),
  ];
  const seen = new Set();
  const todo = roots.slice();
  const order = [];
  while (todo.length > 0) {
    const o = todo.pop();
    if (o === null || (typeof o !== "object" && typeof o !== "function") || seen.has(o)) continue;
    seen.add(o);
    order.push(o);
    todo.push(Object.getPrototypeOf(o));
    const keys = Reflect.ownKeys(o);
    for (let i = 0; i < keys.length; i++) {
      const d = Reflect.getOwnPropertyDescriptor(o, keys[i]);
      if (d === undefined) continue;
      if ("value" in d) todo.push(d.value); else { todo.push(d.get); todo.push(d.set); }
    }
  }
  for (let i = 0; i < order.length; i++) if (order[i] !== globalThis) Object.freeze(order[i]);
  Object.freeze(globalThis);
})()`

// hardenProgram is hardenJS compiled, once for all runtimes, on first use.
var hardenProgram = lazy.Value[*goja.Program]{New: func() *goja.Program {
	LimitRegexpMatches()
	return goja.MustCompile("harden.js", hardenJS, true)
}}

// env is one pooled goja runtime with its per-runtime state. An env is used by one
// evaluation at a time.
type env struct {
	rt    *goja.Runtime
	date  goja.Value                      // the Date constructor, for time.Time inputs
	funcs map[*goja.Program]goja.Callable // instantiated wrapper functions

	// Size limits of the built-ins for the current evaluation (see builtins.go).
	maxMemory int64
	maxChars  int64 // longest string a built-in may build
	maxElems  int64 // longest array or argument list a built-in may build

	maxStringKeys int64 // longest string whose index keys may be enumerated

	// stop is set when the current evaluation is interrupted; guarded built-ins check it.
	stop atomic.Bool

	// deadline ends the current evaluation (the earlier of its time limit and its
	// context's deadline); ctxDeadline says it is the context's. The regexp2 matches of
	// the evaluation are bounded by it (see regexp.go).
	deadline    time.Time
	ctxDeadline bool

	// stopStack is the call stack of a native call that threw to stop the evaluation (a
	// regexp2 match out of time): the VM unwinds it before it turns the pending interrupt
	// into its error, which then has no position.
	stopStack []goja.StackFrame

	// sizeError marks the RangeErrors of the size limits, so that one the program does not
	// catch is reported as the memory limit (see tooLarge).
	sizeError         *goja.Symbol
	concatTooLong     func(length int64) goja.Value // concatTooLongError, made once
	stringKeysTooMany func(length int64) goja.Value // stringKeysError, made once

	nativeCase     map[string]goja.Callable // the native toUpperCase and toLowerCase
	isArray        goja.Callable            // Array.isArray
	defaultCompare goja.Value               // the default sort order, interruptible
	joining        []*goja.Object           // arrays being joined, to break cycles

	// Interruption state of the current evaluation.
	mu    sync.Mutex
	done  bool
	cause *Error
	timer *time.Timer

	// Watchdog bookkeeping, guarded by the watchdog's mutex.
	limit     int64
	sampled   bool   // the fields below were set by the watchdog's first sample
	startHeap uint64 // heap objects at the first sample
	baseLive  uint64 // live heap known at the first sample (from the last collection)
	nextCheck uint64 // heap objects past which the next check forces a collection
	exclusive bool   // the evaluation is a re-run holding the gate's write lock
	shared    bool   // another evaluation was active at some time during this one
}

// envPool is the free list of idle runtimes. It is a bounded free list rather than a
// sync.Pool because a runtime is expensive to build (the hardening walk) and sync.Pool drops
// its contents at every other garbage collection. It is made on first use.
var envPool = lazy.Value[chan *env]{New: func() chan *env { return make(chan *env, max(8, 4*runtime.GOMAXPROCS(0))) }}

// getEnv returns a pooled runtime or a new one.
func getEnv() (*env, error) {
	select {
	case e := <-envPool.Get():
		return e, nil
	default:
		return newEnv()
	}
}

// putEnv returns a runtime that finished cleanly to the pool (or drops it when the pool is
// full).
func putEnv(e *env) {
	e.rt.ClearInterrupt()
	select {
	case envPool.Get() <- e:
	default:
	}
}

func newEnv() (*env, error) {
	LimitRegexpMatches()
	rt := goja.New()
	rt.SetMaxCallStackSize(maxCallStack)
	e := &env{rt: rt, funcs: make(map[*goja.Program]goja.Callable)}
	global := rt.GlobalObject()
	for _, n := range removedGlobals {
		if err := global.Delete(n); err != nil {
			return nil, fmt.Errorf("preparing sandbox: removing %s: %w", n, err)
		}
	}
	if err := e.blockCodeGeneration(); err != nil {
		return nil, fmt.Errorf("preparing sandbox: %w", err)
	}
	if err := e.guardBuiltins(); err != nil {
		return nil, fmt.Errorf("preparing sandbox: guarding built-ins: %w", err)
	}
	e.sizeError = goja.NewSymbol("mcpbridge.sizeLimit")
	e.concatTooLong, e.stringKeysTooMany = e.concatTooLongError, e.stringKeysError
	e.limitRegexpMatches()
	e.date = rt.Get("Date")
	if _, err := rt.RunProgram(hardenProgram.Get()); err != nil {
		return nil, fmt.Errorf("preparing sandbox: freezing built-ins: %w", err)
	}
	e.timer = time.AfterFunc(time.Hour, e.onTimeout)
	e.timer.Stop()
	return e, nil
}

// codeGenConstructors are the constructors that compile a string into a function, each named
// by a script that evaluates to its prototype object (whose "constructor" property it is).
var codeGenConstructors = []struct{ name, proto string }{
	{"Function", "Function.prototype"},
	{"GeneratorFunction", "Object.getPrototypeOf(function* () {})"},
	{"AsyncFunction", "Object.getPrototypeOf(async function () {})"},
	// goja does not support async generators (a syntax error), so there is no
	// AsyncGeneratorFunction to replace.
}

// blockCodeGeneration replaces the constructors that compile code from strings (Function,
// and the GeneratorFunction and AsyncFunction constructors reached through the prototypes
// of function objects) with functions that throw a TypeError, both as the global Function
// and as the "constructor" property of their prototypes. The replacements keep the
// prototype, name and length of the originals, so instanceof and reflection still work.
func (e *env) blockCodeGeneration() error {
	rt := e.rt
	for _, c := range codeGenConstructors {
		v, err := rt.RunString(c.proto)
		if err != nil {
			return fmt.Errorf("finding %s: %w", c.name, err)
		}
		proto := v.ToObject(rt)
		name := c.name
		blocked := rt.ToValue(func(goja.ConstructorCall) *goja.Object {
			panic(rt.NewTypeError("%s constructor: code generation from strings is not allowed in expressions; write a function expression or an arrow function instead", name))
		}).ToObject(rt)
		for _, p := range []struct {
			key          string
			value        goja.Value
			configurable goja.Flag
		}{{"name", rt.ToValue(name), goja.FLAG_TRUE}, {"length", rt.ToValue(1), goja.FLAG_TRUE}, {"prototype", proto, goja.FLAG_FALSE}} {
			// DefineDataProperty's flags are writable, configurable, enumerable.
			if err := blocked.DefineDataProperty(p.key, p.value, goja.FLAG_FALSE, p.configurable, goja.FLAG_FALSE); err != nil {
				return fmt.Errorf("blocking %s: defining %s: %w", name, p.key, err)
			}
		}
		if err := proto.DefineDataProperty("constructor", blocked, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			return fmt.Errorf("blocking %s: replacing %s.constructor: %w", name, c.proto, err)
		}
		if name == "Function" {
			if err := rt.GlobalObject().DefineDataProperty("Function", blocked, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
				return fmt.Errorf("blocking Function: replacing the global: %w", err)
			}
		}
	}
	return nil
}

func (e *env) rangeError(msg string) *goja.Object {
	obj, err := e.rt.New(e.rt.Get("RangeError"), e.rt.ToValue(msg))
	if err != nil {
		return e.rt.NewTypeError(msg)
	}
	return obj
}

// function returns the wrapper function of c instantiated in this runtime.
func (e *env) function(c *compiled) (goja.Callable, error) {
	if fn, ok := e.funcs[c.prog]; ok {
		return fn, nil
	}
	v, err := e.rt.RunProgram(c.prog)
	if err != nil {
		return nil, fmt.Errorf("instantiating program: %w", err)
	}
	fn, ok := goja.AssertFunction(v)
	if !ok {
		return nil, fmt.Errorf("instantiating program: wrapper is %s, not a function", v)
	}
	if len(e.funcs) >= maxCachedFuncs {
		clear(e.funcs)
	}
	e.funcs[c.prog] = fn
	return fn, nil
}
