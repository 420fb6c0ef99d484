// Package mql evaluates the MongoDB query language over in-memory JSON-like
// values, matching mingo 6.4.6 (used by Lowdefy's `_mql` operator,
// @lowdefy/operators-mql@4.0.0-rc.11), including mingo's own quirks (e.g.
// $eq in expressions matches array elements, $avg of nothing is 0, $min/$max
// follow mingo's type order, $limit: 0 does not limit, and consecutive
// $match/$project/$addFields/$limit/$skip stages run as mingo's lazy chain, so
// $limit followed by $skip or by a $match does not limit as MongoDB would).
//
// Entry points:
//   - Aggregate(docs, pipeline) — mingo Aggregator(pipeline).run(docs).
//   - Expr(doc, expr) — Lowdefy's _mql.expr: evaluated through
//     {$project: {value: expr}}, so 0/1/true/false select the field "value".
//   - Test(doc, query) — mingo Query(query).test(doc).
//
// Pipeline stages: $match $project $addFields/$set $unset $group $sort $limit
// $skip $unwind $count $replaceRoot $replaceWith $sortByCount $lookup (from
// must be an inline array).
//
// Expression operators: $add $subtract $multiply $divide $mod $abs $ceil
// $floor $round $trunc $sqrt $pow $exp $ln $log10 $concat $toUpper $toLower
// $substr $strLenCP $split $trim $ltrim $rtrim $eq $ne $gt $gte $lt $lte $cmp
// $and $or $not $cond $ifNull $switch $in $size $isArray $arrayElemAt $first
// $last $concatArrays $reverseArray $filter $map $reduce $mergeObjects
// $toString $toInt $toLong $toDouble $toDecimal $toBool $type $dateToString
// $year $month $dayOfMonth $hour $minute $second $millisecond $dayOfWeek
// $dayOfYear $isoWeek $let $literal, the accumulators $sum $avg $min $max
// $push $addToSet $first $last $count $mergeObjects (in $group and over
// arrays), field paths "$a.b" (descending into arrays), $$ROOT $$CURRENT
// $$REMOVE $$NOW, $$this/$$value and $let/$filter/$map variables.
//
// Query operators: $eq $ne $gt $gte $lt $lte $in $nin $exists $type $regex
// (+$options i m s) $mod $all $elemMatch $size $not $and $or $nor $expr, with
// dotted paths into arrays.
//
// Not supported: $where, $jsonSchema, $text, $function/$accumulator (no JS),
// collation, $facet/$bucket/$setWindowFields/$out/$merge and the set, trig and
// most date-arithmetic operators. Regular expressions use Go's RE2 syntax (no
// lookaround or backreferences); an unsupported pattern is an error.
//
// Key order: objects are *jsvalue.Object and keep JavaScript's order, so a
// $sort with several keys applies them in the order written, and projected,
// grouped and merged documents list their keys as mingo builds them.
//
// Values are those of package jsvalue: nil, bool, float64, string, []any,
// *jsvalue.Object, time.Time; Go maps and integers in the inputs are
// converted with jsvalue.FromGo (which sorts a map's keys). Inputs are never
// modified; undefined results become nil (top level, array elements) or
// absent keys (objects).
package mql
