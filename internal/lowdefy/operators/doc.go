// Package operators is Lowdefy's operator language in Go: the client parser
// (WebParser) and server parser (ServerParser) of @lowdefy/operators and every
// operator of @lowdefy/operators-js and the plugin operator packages
// (_nunjucks, _uuid, _yaml, _change_case, _moment, _diff, _mql), with the
// semantics of version 4.0.0-rc.11, plus _js on a sandboxed JavaScript
// engine.
//
// Evaluation is bottom-up like Lowdefy's JSON-reviver parser: children are
// evaluated before their parent, nothing short-circuits (both branches of an
// _if are evaluated), an object is an operator call only when it has exactly
// one key that names an operator of the parser's set (`_op` or `_op.method`),
// and other objects, including unknown operators, are plain data. When an
// operator fails its value becomes null and an *Error naming the operator and
// the location is collected; Parse never panics.
//
// Values are those of package jsvalue (nil, bool, float64, string, []any,
// *jsvalue.Object, time.Time, *jsvalue.Error, jsvalue.Func,
// jsvalue.Undefined). Objects keep JavaScript's key order — array-index keys
// first, then insertion order — so evaluation order, _object.keys,
// _json.stringify and every other output follow the order the config and
// the state were written in, as in Lowdefy. Local-time date methods use
// time.Local (the browser's time zone in Lowdefy).
//
// The package's tables — the operator sets (registry.go) and the method tables of the class
// operators (arrayMeta, mathFuncs, …) — are lazy.Values, built on first use: a process that
// never evaluates an operator never runs their code.
package operators
