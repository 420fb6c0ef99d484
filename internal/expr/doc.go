// Package expr evaluates sandboxed JavaScript expressions: HTTP tool field mappings
// (`args.title.toUpperCase()`), response shaping (`response.body.note`), the `{expression:}`
// argv element of command tools, and Lowdefy's `_js` operator. It runs on
// github.com/dop251/goja (ECMAScript 5.1 plus most of ES2015+: let/const, arrow functions,
// classes, template literals, destructuring, spread, Map/Set, Promise, async functions,
// generators, optional chaining).
//
//	p, err := expr.Compile("tools.create.title", `args.title.trim().toUpperCase()`)
//	// at load time: err is an *expr.Error with Line and Column inside the source
//	v, err := p.Eval(ctx, map[string]any{"args": map[string]any{"title": " hi "}}, expr.Limits{})
//	// v == "HI"
//
// # Programs
//
// [Compile] accepts either one expression (an object literal `{a: 1}` is an object, not a
// block) or statements. For statements the result is the value of `return`, or else of the
// final expression statement (looking into trailing blocks, if/else and try/catch); a
// program ending with a declaration returns undefined. [CompileFunction] compiles a function
// body with named parameters in the style of Lowdefy `_js`; only `return` gives its result.
//
// All code runs in strict mode inside a function, so `let`, `const`, `var`, functions and
// classes are local to one evaluation, and assigning an undeclared name is a ReferenceError.
//
// Programs are immutable and safe for concurrent use. Compile parses and compiles once; the
// variables given to Eval are bound as function parameters, so a program is compiled once
// more (then cached) for each distinct set of variable names it is evaluated with.
//
// # Values
//
// Variables are copied in as plain JavaScript values: nil → null, bool, Go integers and
// floats and json.Number → number, string, time.Time → Date, []any and other slices →
// Array, map[string]any and other string-keyed maps → Object (keys inserted in sorted
// order). A [Func] becomes a callable function taking and returning JSON-like values. No
// other Go value can enter the sandbox.
//
// Results are copied out as JSON-like Go values: undefined and null → nil; booleans and
// strings as is; numbers → int64 when integral and within ±2^53, else float64; NaN and
// ±Infinity → nil (as JSON.stringify does); Date → time.Time in UTC (an invalid Date → nil);
// Array → []any (holes → nil); a settled Promise → its value; other objects → map[string]any
// of their own enumerable string-keyed properties (toJSON is not called). Functions, symbols,
// BigInts, cycles, pending or rejected promises and nesting deeper than 512 levels are
// errors of kind [KindResult].
//
// # Sandbox
//
// There is no I/O and no host object: no require, console, process, timers, fetch or eval,
// and no ArrayBuffer, DataView or typed arrays (their constructors allocate their whole size
// in one call that cannot be interrupted). Code cannot be generated from strings: Function,
// and the GeneratorFunction and AsyncFunction constructors reached through
// `(function () {}).constructor` and the prototypes of generator and async functions, throw
// a TypeError ("code generation from strings is not allowed"); functions, `instanceof
// Function` and Function.prototype methods work as usual.
//
// Evaluations run on pooled runtimes (a new goja runtime costs far more than a typical
// evaluation; see the benchmarks). Nothing can carry over from one evaluation to the next:
// every built-in object, prototype and constructor reachable from the global object (and the
// hidden generator, async and iterator prototypes) is frozen and the global object itself is
// frozen, so `globalThis.x = 1`, `Object.prototype.x = 1` or `Array.prototype.push = f`
// throw TypeError. To keep common code working, assigning `toString`, `valueOf`,
// `constructor` on ordinary objects, and `name`/`message` on errors, defines an own property
// instead of failing on the frozen prototype; other assignments that would shadow a frozen
// built-in property by assignment (the "override mistake") throw TypeError — use
// Object.defineProperty or a class field instead.
//
// # Limits
//
// Each evaluation is bounded by [Limits]:
//
//   - Time: [Limits.Timeout] (default 100ms) and the context's deadline or cancelation
//     interrupt the running JavaScript; the error is [KindTimeout] ("exceeded the time
//     limit of 100ms") or [KindCanceled], positioned where the code was stopped.
//   - Memory: [Limits.MaxMemory] (default 32 MiB). Go has no per-goroutine heap accounting,
//     so a watchdog goroutine samples process-wide heap figures from runtime/metrics every
//     2ms while evaluations run. When the heap has grown by more than an evaluation's limit
//     since the watchdog first saw it, the watchdog forces a garbage collection and interrupts
//     the evaluation only if the live heap still grew by more than the limit, so programs
//     that merely produce garbage are not stopped. The error is [KindMemory]. This is a
//     safety net against runaway scripts, not exact accounting: growth caused by other
//     goroutines in the same interval is counted too, and up to one sampling interval of
//     allocation can happen before it reacts. Built-ins that build a whole string in one
//     native call (repeat, padStart, padEnd) throw a RangeError up front when the result
//     would exceed the limit.
//   - Recursion: at most 2048 nested JavaScript calls; deeper recursion is a RangeError
//     ("Maximum call stack size exceeded"), not a crash.
//
// Interruption takes effect between JavaScript instructions: a single long native built-in
// call (for example sorting a huge array, or a [Func] that blocks) finishes before the
// evaluation stops. A runtime that was interrupted is discarded, not reused.
//
// # Errors
//
// Every error is an [*Error] with a [ErrorKind], the JavaScript error name and message, and
// the 1-based line and column inside the source given to Compile (for runtime errors, the
// position of the innermost frame in the program). [Error.Caret] renders the line with a
// caret under the column.
package expr
