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
// Array, *jsvalue.Object → Object (in its order), map[string]any and other string-keyed
// maps → Object (keys inserted in sorted order). A [Func] becomes a callable function taking and returning JSON-like values. No
// other Go value can enter the sandbox.
//
// Results are copied out as JSON-like Go values: undefined and null → nil; booleans and
// strings as is; numbers → int64 when integral and within ±2^53, else float64; NaN and
// ±Infinity → nil (as JSON.stringify does); Date → time.Time in UTC (an invalid Date → nil);
// Array → []any (holes → nil); a settled Promise → its value; other objects → *jsvalue.Object
// of their own enumerable string-keyed properties in JavaScript's property order (toJSON is
// not called). Functions, symbols,
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
//   - Time: [Limits.Timeout] (default 1s) and the context's deadline or cancelation
//     interrupt the running JavaScript; the error is [KindTimeout] ("exceeded the time
//     limit of 1s") or [KindCanceled], positioned where the code was stopped. The time
//     limit starts when the evaluation starts running (see re-runs below). It stops
//     regular expression matches too: patterns with backreferences or lookaround (and
//     matches that start past the beginning of a string) run on a backtracking engine,
//     regexp2, inside one native call, and each such match gets only the time left to the
//     evaluation (the earlier of the limit and the context's deadline): one that runs out
//     ends the evaluation with the time limit, within a few milliseconds, however it was
//     called (exec, test, match, matchAll, replace, search, split; try/catch cannot catch
//     it). A match that needs more than regexp2's backtracking stack (100,000 entries) is a
//     RangeError ("regular expression too complex"), not a silent "no match".
//   - Memory: [Limits.MaxMemory] (default 32 MiB) bounds the growth of the live heap. Go
//     has no per-goroutine heap accounting, so a watchdog goroutine samples process-wide
//     heap figures from runtime/metrics every 2ms while evaluations run. When the heap has
//     grown enough that an evaluation's live data may have passed its limit, the watchdog
//     forces a garbage collection, so programs that merely produce garbage are not stopped.
//     If the live heap grew by more than the limit, the evaluation is failed with
//     [KindMemory] only when the growth is certainly its own: it ran with no other
//     evaluation beside it (and the growth exceeds the limit even over the heap at its
//     start). Otherwise it is interrupted and re-run alone: evaluations hold a shared lock
//     while they run, a re-run holds it exclusively, after a collection, within the
//     original deadline, so an evaluation is not failed for the memory of another. A re-run
//     calls the program's [Func] variables again. While a re-run holds the lock, other
//     evaluations wait for it (at most its remaining time) before they start. Allocations by
//     goroutines other than evaluations still count against the evaluations running, and
//     up to one sampling interval of allocation can happen before the watchdog reacts.
//   - Sizes: native built-ins run without returning to the VM, where the interrupt is
//     checked, so the ones that could run long or build a large result are guarded, and so
//     are the operators that build strings. A string may hold at most MaxMemory/4
//     characters (8 Mi by default) when a built-in, the + operator (and +=) or a template
//     literal builds it; an array or argument list a built-in builds at most MaxMemory/64
//     elements (512 Ki by default); the keys of a string (one per character) are listed
//     for strings of at most MaxMemory/512 characters (64 Ki by default: Object.keys,
//     values, entries, assign, getOwnPropertyNames, getOwnPropertyDescriptors,
//     Reflect.ownKeys, freeze, object spread, for-in). A larger result is a RangeError,
//     "expression result too large: ... would produce N characters, over the memory limit
//     ...", thrown before the work when the size is known (+ and template literals,
//     repeat, padStart, padEnd, concat, join with its separators, encodeURI,
//     encodeURIComponent, escape, Function.prototype.apply, Reflect.apply and
//     Reflect.construct, Array.from, Array.prototype.fill, toReversed, toSorted, toSpliced
//     and with, split, replace and replaceAll with a string pattern, the keys of a string)
//     and as soon as a running count passes the limit otherwise (join, toString,
//     toLocaleString, JSON.stringify, replace with a pattern or function, match,
//     String.raw, normalize, the case mappings). The program may catch it (nothing was
//     built), as V8's "Invalid string length"; if it does not, the evaluation fails with
//     [KindMemory]. So a loop doubling a string ends at the doubling that would pass the
//     limit, on any machine. Array methods that loop over a length (indexOf, includes,
//     map, forEach, reduce, sort, slice, splice, reverse, flat, concat and the others) call
//     the native only for lengths up to 65536; past that, and for global regular
//     expressions, normalize and String.raw on long strings, they run implementations
//     whose loops can be interrupted, so `new Array(2**32 - 1).indexOf(1)` ends with the
//     time limit. Spread and the other iterator-driven built-ins check for interrupts at
//     every step.
//   - Recursion: at most 2048 nested JavaScript calls; deeper recursion is a RangeError
//     ("Maximum call stack size exceeded"), not a crash.
//
// Interruption takes effect between JavaScript instructions, in the guarded built-ins and
// in regular expression matches. Still outside the limits' reach: a [Func] that blocks; a
// match on the backtracking engine stops at the time limit but not sooner when the context
// is canceled or the memory limit is passed; and native calls that are linear in a string
// (localeCompare, a case mapping, JSON.parse, the conversion of a long string) run to
// their end, in time linear in a string of at most the size limit (or of an input
// variable). These bounds rest on a patched goja (see
// third_party/goja/MCPBRIDGE-PATCH.md). A runtime that was interrupted is discarded, not
// reused.
//
// # Errors
//
// Every error is an [*Error] with a [ErrorKind], the JavaScript error name and message, and
// the 1-based line and column inside the source given to Compile (for runtime errors, the
// position of the innermost frame in the program). [Error.Caret] renders the line with a
// caret under the column.
package expr
