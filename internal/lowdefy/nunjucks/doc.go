// Package nunjucks is a Go re-implementation of the nunjucks 3.2.4 template
// language as Lowdefy uses it: `.njk` config files and the `_nunjucks`
// operator, both rendered by @lowdefy/nunjucks, which is a default
// nunjucks.Environment (autoescape ON) plus a moment-based `date` filter.
//
// API: Render(src, vars), Compile(name, src) / CompileOptions(name, src,
// Options) and (*Template).Render(vars); RenderValue mirrors
// @lowdefy/nunjucks' nunjucksString (a primitive context becomes {{ value }});
// Valid mirrors validNunjucksString. Templates are immutable and safe for
// concurrent use. Errors are *Error values with template name, line and column.
//
// Supported:
//   - Output `{{ expr }}`: dotted (a.b) and indexed (a[0], a["k"]) lookups,
//     literals (numbers, strings, true/false, none/null, arrays, dicts, tuples),
//     arithmetic (+, -, *, /, //, %, **), comparison (==, ===, !=, !==, <, <=,
//     >, >=), and/or/not, in/not in, `is` tests, `~` concatenation, inline
//     if (`a if c else b`), calls of macros, of the globals range(), cycler()
//     and joiner(), and of common JavaScript string/array/number methods
//     (toUpperCase, split, replace, indexOf, slice, join, concat, toFixed, …).
//   - Operator precedence is the one nunjucks really has: it compiles to
//     JavaScript without parentheses, so `not 1 == 2` is `(!1) == 2` and
//     `'a' ~ 1 + 2` is "a12". Arithmetic, comparison, truthiness and string
//     conversion follow JavaScript (undefined ~ "x" is "undefinedx").
//   - Filters: abs batch capitalize center date default/d dictsort dump
//     escape/e first float forceescape groupby indent int join last length list
//     lower nl2br random (deterministic: first element) reject rejectattr replace
//     reverse round safe select selectattr slice sort string striptags sum title
//     trim truncate upper urlencode urlize (identity) wordcount, and Lowdefy's
//     moment-based date: value|date(format) formats with moment
//     tokens (package moment), value|date("toISOString"|"valueOf"|"unix"|
//     "year"|…) calls that moment method, none gives "", objects "Invalid date".
//   - Tests: callable defined undefined divisibleby escaped equalto/eq/sameas
//     even odd falsy truthy ge gt greaterthan le lt lessthan ne null number
//     string lower upper iterable mapping.
//   - Tags: if/elif/elseif/else, for (one name, `k, v` over objects and arrays
//     of pairs, else, loop.index/index0/revindex/revindex0/first/last/length),
//     set (several names, block set), raw/verbatim, macro (defaults, keyword
//     arguments, recursion up to 200 deep), filter blocks, switch/case/default.
//   - Comments `{# #}` and whitespace control `{%-` `-%}` `{{-` `-}}` `{#-` `-#}`.
//   - Undefined and null render as "" (nunjucks' default); autoescape is on by
//     default as in Lowdefy (use `safe`, SafeString values, or
//     Options{Autoescape: &false}).
//
// Differences and limits: extends/block/include/import/call are rejected (no
// loader); async tags, custom extensions and regex literals are not provided.
// Objects keep JavaScript's key order (*jsvalue.Object): `for k, v in obj`,
// dictsort, list, urlencode and dump visit keys as JavaScript would. Go maps
// in the render variables are converted with jsvalue.FromGo, which orders
// their keys (array indices, then sorted). Dict literals and groupby results
// are *jsvalue.Object. Values are immutable: mutating JavaScript methods
// (push, …) are not provided. Output is capped at 64 MiB, range() at 2^20
// elements, nesting at 400 levels.
//
// Values are those of package jsvalue (nil, jsvalue.Undefined, bool,
// float64, string, []any, *jsvalue.Object, time.Time) plus SafeString; the
// render variables may also hold Go maps and integers.
package nunjucks
