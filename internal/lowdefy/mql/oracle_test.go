package mql

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/tools/jslibs-oracle/oracletest"
)

func sampleDocs() []any {
	return []any{
		map[string]any{"_id": 1.0, "name": "apple", "qty": 5.0, "price": 1.5, "tags": []any{"fruit", "red"}, "type": "fruit", "dim": map[string]any{"w": 3.0, "h": 4.0}, "date": time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC)},
		map[string]any{"_id": 2.0, "name": "banana", "qty": 10.0, "price": 0.5, "tags": []any{"fruit", "yellow"}, "type": "fruit", "dim": map[string]any{"w": 1.0, "h": 7.0}},
		map[string]any{"_id": 3.0, "name": "carrot", "qty": 0.0, "price": 0.25, "tags": []any{"veg"}, "type": "veg", "items": []any{map[string]any{"k": "a", "v": 1.0}, map[string]any{"k": "b", "v": 2.0}}},
		map[string]any{"_id": 4.0, "name": "Date", "qty": 3.0, "price": nil, "tags": []any{}, "type": "fruit", "items": []any{map[string]any{"k": "c", "v": 5.0}}},
		map[string]any{"_id": 5.0, "name": "eggplant", "price": 2.0, "type": "veg", "nested": map[string]any{"arr": []any{[]any{1.0, 2.0}, []any{3.0}}}},
		map[string]any{"_id": 6.0, "name": "fig", "qty": "7", "price": 3.0, "type": nil, "tags": "single"},
	}
}

var docOne = map[string]any{
	"a": 5.0, "b": 2.0, "s": "Hello World", "arr": []any{1.0, 2.0, 3.0, 4.0}, "objs": []any{map[string]any{"x": 1.0}, map[string]any{"x": 2.0}, map[string]any{"y": 3.0}},
	"n": nil, "t": true, "f": false, "zero": 0.0, "empty": "", "nested": map[string]any{"deep": map[string]any{"v": "d"}}, "strs": []any{"b", "a", "c"},
	"when": time.Date(2023, 7, 4, 9, 5, 7, 123e6, time.UTC), "mixed": []any{1.0, "1", nil, true},
}

var aggCorpus = [][]any{
	{map[string]any{"$match": map[string]any{"type": "fruit"}}},
	{map[string]any{"$match": map[string]any{"qty": map[string]any{"$gt": 3.0}}}},
	{map[string]any{"$match": map[string]any{"tags": "fruit"}}},
	{map[string]any{"$match": map[string]any{"price": nil}}},
	{map[string]any{"$match": map[string]any{"items.k": "b"}}},
	{map[string]any{"$project": map[string]any{"name": 1.0, "qty": 1.0}}},
	{map[string]any{"$project": map[string]any{"name": 1.0, "_id": 0.0}}},
	{map[string]any{"$project": map[string]any{"tags": 0.0, "dim": 0.0, "items": 0.0, "date": 0.0, "nested": 0.0}}},
	{map[string]any{"$project": map[string]any{"total": map[string]any{"$multiply": []any{"$qty", "$price"}}, "upper": map[string]any{"$toUpper": "$name"}}}},
	{map[string]any{"$project": map[string]any{"dim.w": 1.0}}},
	{map[string]any{"$project": map[string]any{"items.k": 1.0, "name": 1.0}}},
	{map[string]any{"$project": map[string]any{"dim": map[string]any{"h": 1.0}}}},
	{map[string]any{"$project": map[string]any{"lit": "$name", "arr": []any{"$qty", "$missing", 1.0}, "c": map[string]any{"x": "$price"}}}},
	{map[string]any{"$addFields": map[string]any{"total": map[string]any{"$add": []any{"$qty", 1.0}}, "dim.area": map[string]any{"$multiply": []any{"$dim.w", "$dim.h"}}}}},
	{map[string]any{"$set": map[string]any{"name": "$$REMOVE", "flag": true}}},
	{map[string]any{"$unset": "tags"}, map[string]any{"$unset": []any{"dim", "date", "items", "nested"}}},
	{map[string]any{"$group": map[string]any{"_id": "$type", "count": map[string]any{"$sum": 1.0}, "qty": map[string]any{"$sum": "$qty"}, "avg": map[string]any{"$avg": "$price"}, "names": map[string]any{"$push": "$name"}}}},
	{map[string]any{"$group": map[string]any{"_id": nil, "min": map[string]any{"$min": "$price"}, "max": map[string]any{"$max": "$price"}, "first": map[string]any{"$first": "$name"}, "last": map[string]any{"$last": "$name"}}}},
	{map[string]any{"$group": map[string]any{"_id": "$type", "tags": map[string]any{"$addToSet": "$type"}, "n": map[string]any{"$count": map[string]any{}}}}},
	{map[string]any{"$group": map[string]any{"_id": map[string]any{"t": "$type"}, "minQty": map[string]any{"$min": "$qty"}, "maxName": map[string]any{"$max": "$name"}}}},
	{map[string]any{"$sort": map[string]any{"name": 1.0}}},
	{map[string]any{"$sort": map[string]any{"qty": -1.0}}},
	{map[string]any{"$sort": map[string]any{"price": 1.0}}},
	{map[string]any{"$sort": map[string]any{"type": 1.0}}, map[string]any{"$limit": 3.0}},
	{map[string]any{"$skip": 2.0}, map[string]any{"$limit": 2.0}},
	{map[string]any{"$unwind": "$tags"}},
	{map[string]any{"$unwind": map[string]any{"path": "$tags", "includeArrayIndex": "idx", "preserveNullAndEmptyArrays": true}}},
	{map[string]any{"$unwind": "$items"}, map[string]any{"$project": map[string]any{"name": 1.0, "k": "$items.k"}}},
	{map[string]any{"$count": "total"}},
	{map[string]any{"$match": map[string]any{"type": "veg"}}, map[string]any{"$count": "vegs"}},
	{map[string]any{"$replaceRoot": map[string]any{"newRoot": map[string]any{"n": "$name", "q": "$qty"}}}},
	{map[string]any{"$match": map[string]any{"dim": map[string]any{"$exists": true}}}, map[string]any{"$replaceRoot": map[string]any{"newRoot": "$dim"}}},
	{map[string]any{"$sortByCount": "$type"}},
	{map[string]any{"$lookup": map[string]any{"from": []any{map[string]any{"t": "fruit", "label": "Fruit"}, map[string]any{"t": "veg", "label": "Veg"}}, "localField": "type", "foreignField": "t", "as": "joined"}}, map[string]any{"$project": map[string]any{"joined.label": 1.0}}},
	{map[string]any{"$group": map[string]any{"_id": "$type", "total": map[string]any{"$sum": map[string]any{"$multiply": []any{"$qty", "$price"}}}}}, map[string]any{"$sort": map[string]any{"total": -1.0}}},
	{map[string]any{"$project": map[string]any{"d": map[string]any{"$dateToString": map[string]any{"date": "$date", "format": "%Y/%m/%d %H:%M"}}}}},
	{map[string]any{"$nosuchstage": map[string]any{}}},
	{map[string]any{"$group": map[string]any{"count": map[string]any{"$sum": 1.0}}}},
	{map[string]any{"$project": map[string]any{"a": 1.0, "b": 0.0}}},
	{map[string]any{"$unwind": "$nested.arr"}},
	{map[string]any{"$unwind": "$qty"}},
	{map[string]any{"$group": map[string]any{"_id": map[string]any{"t": "$type", "q": "$qty"}, "n": map[string]any{"$sum": 1.0}}}, map[string]any{"$sort": map[string]any{"n": -1.0}}},
	{map[string]any{"$group": map[string]any{"_id": "$tags", "n": map[string]any{"$sum": 1.0}}}},
	{map[string]any{"$sort": map[string]any{"tags": 1.0}}},
	{map[string]any{"$sort": map[string]any{"dim.h": -1.0}}},
	{map[string]any{"$sort": map[string]any{"items.v": 1.0}}},
	{map[string]any{"$match": map[string]any{"$expr": map[string]any{"$gt": []any{"$qty", "$price"}}}}},
	{map[string]any{"$match": map[string]any{"qty": map[string]any{"$type": "string"}}}},
	{map[string]any{"$match": map[string]any{"tags.1": "red"}}},
	{map[string]any{"$match": map[string]any{"tags": map[string]any{"$size": 0.0}}}},
	{map[string]any{"$match": map[string]any{"name": map[string]any{"$regex": "^[a-d]", "$options": "i"}}}},
	{map[string]any{"$match": map[string]any{"nested.arr": 3.0}}},
	{map[string]any{"$match": map[string]any{"nested.arr": []any{3.0}}}},
	{map[string]any{"$project": map[string]any{"nested.arr": 1.0, "items.v": 1.0}}},
	{map[string]any{"$project": map[string]any{"first": map[string]any{"$arrayElemAt": []any{"$tags", 0.0}}, "n": map[string]any{"$size": map[string]any{"$ifNull": []any{"$items", []any{}}}}}}},
	{map[string]any{"$addFields": map[string]any{"items.extra": 1.0}}},
	{map[string]any{"$addFields": map[string]any{"tagCount": map[string]any{"$cond": []any{map[string]any{"$isArray": []any{"$tags"}}, map[string]any{"$size": "$tags"}, 0.0}}}}},
	{map[string]any{"$project": map[string]any{"_id": 0.0}}},
	{map[string]any{"$project": map[string]any{"_id": 1.0}}},
	{map[string]any{"$project": map[string]any{"_id": "$name", "q": "$qty"}}},
	{map[string]any{"$group": map[string]any{"_id": "$type", "items": map[string]any{"$push": map[string]any{"n": "$name", "q": "$qty"}}}}},
	{map[string]any{"$group": map[string]any{"_id": nil, "avg": map[string]any{"$avg": "$qty"}, "sum": map[string]any{"$sum": "$qty"}, "s": map[string]any{"$addToSet": "$tags"}}}},
	{map[string]any{"$sortByCount": map[string]any{"$size": map[string]any{"$ifNull": []any{"$items", []any{}}}}}},
	{map[string]any{"$limit": 0.0}},
	{map[string]any{"$limit": 1.0}, map[string]any{"$skip": 1.0}},
	{map[string]any{"$limit": 2.0}, map[string]any{"$match": map[string]any{"type": "veg"}}},
	{map[string]any{"$skip": 1.0}, map[string]any{"$limit": 2.0}, map[string]any{"$project": map[string]any{"name": 1.0}}},
	{map[string]any{"$limit": 2.5}},
	{map[string]any{"$skip": 100.0}},
	{map[string]any{"$count": "$bad"}},
	{map[string]any{"$replaceRoot": map[string]any{"newRoot": "$name"}}},
	// Specs written out of alphabetical order: stages follow the order of their keys.
	{jsvalue.ObjectOf("$project", jsvalue.ObjectOf("type", 1.0, "name", 1.0, "_id", 0.0))},
	{jsvalue.ObjectOf("$project", jsvalue.ObjectOf("upper", jsvalue.ObjectOf("$toUpper", "$name"), "_id", 1.0, "dim", 1.0))},
	{jsvalue.ObjectOf("$sort", jsvalue.ObjectOf("type", 1.0, "name", -1.0)), jsvalue.ObjectOf("$project", jsvalue.ObjectOf("name", 1.0))},
	{jsvalue.ObjectOf("$group", jsvalue.ObjectOf("_id", "$type", "zmax", jsvalue.ObjectOf("$max", "$qty"), "count", jsvalue.ObjectOf("$sum", 1.0)))},
	{jsvalue.ObjectOf("$addFields", jsvalue.ObjectOf("z", 1.0, "a", jsvalue.ObjectOf("$concat", []any{"$name", "!"}))), jsvalue.ObjectOf("$limit", 2.0)},
	{jsvalue.ObjectOf("$replaceRoot", jsvalue.ObjectOf("newRoot", jsvalue.ObjectOf("z", "$name", "a", "$_id")))},
}

var exprCorpus = []any{
	map[string]any{"$add": []any{"$a", "$b", 1.0}}, map[string]any{"$subtract": []any{"$a", "$b"}}, map[string]any{"$multiply": []any{"$a", "$b", 2.0}},
	map[string]any{"$divide": []any{"$a", "$b"}}, map[string]any{"$divide": []any{"$a", 0.0}}, map[string]any{"$mod": []any{"$a", "$b"}},
	map[string]any{"$add": []any{"$a", "x"}}, map[string]any{"$add": []any{"$a", "$n"}}, map[string]any{"$add": []any{"$a", "$missing"}},
	map[string]any{"$add": []any{"$when", 1000.0}}, map[string]any{"$subtract": []any{"$when", 1000.0}},
	map[string]any{"$concat": []any{"$s", "!", "?"}}, map[string]any{"$concat": []any{"$s", "$n"}}, map[string]any{"$concat": []any{"a", "$missing"}},
	map[string]any{"$toUpper": "$s"}, map[string]any{"$toLower": "$s"}, map[string]any{"$toUpper": "$n"}, map[string]any{"$toLower": "$missing"},
	map[string]any{"$substr": []any{"$s", 0.0, 5.0}}, map[string]any{"$substr": []any{"$s", 6.0, -1.0}}, map[string]any{"$substr": []any{"$s", -1.0, 2.0}},
	map[string]any{"$eq": []any{"$a", 5.0}}, map[string]any{"$eq": []any{"$arr", 2.0}}, map[string]any{"$eq": []any{"$n", "$missing"}}, map[string]any{"$ne": []any{"$a", 5.0}},
	map[string]any{"$gt": []any{"$a", "$b"}}, map[string]any{"$gt": []any{"$s", 1.0}}, map[string]any{"$lt": []any{"$b", "$a"}}, map[string]any{"$gte": []any{"$a", 5.0}}, map[string]any{"$lte": []any{"$arr", 1.0}},
	map[string]any{"$cmp": []any{"$a", "$b"}}, map[string]any{"$cmp": []any{"$s", 1.0}},
	map[string]any{"$and": []any{"$t", "$a"}}, map[string]any{"$and": []any{"$t", "$zero"}}, map[string]any{"$and": []any{"$t", "$empty"}}, map[string]any{"$or": []any{"$f", "$n"}}, map[string]any{"$or": []any{"$f", "$a"}},
	map[string]any{"$not": []any{"$t"}}, map[string]any{"$not": "$zero"}, map[string]any{"$not": []any{"$empty"}},
	map[string]any{"$cond": []any{"$t", "yes", "no"}}, map[string]any{"$cond": map[string]any{"if": map[string]any{"$gt": []any{"$a", 10.0}}, "then": "big", "else": "small"}},
	map[string]any{"$ifNull": []any{"$n", "$missing", "fallback"}}, map[string]any{"$ifNull": []any{"$a", "fallback"}},
	map[string]any{"$in": []any{2.0, "$arr"}}, map[string]any{"$in": []any{"z", "$strs"}}, map[string]any{"$size": "$arr"}, map[string]any{"$size": "$s"},
	map[string]any{"$arrayElemAt": []any{"$arr", 0.0}}, map[string]any{"$arrayElemAt": []any{"$arr", -1.0}}, map[string]any{"$arrayElemAt": []any{"$arr", 10.0}},
	map[string]any{"$filter": map[string]any{"input": "$arr", "cond": map[string]any{"$gt": []any{"$$this", 2.0}}}},
	map[string]any{"$filter": map[string]any{"input": "$objs", "as": "o", "cond": map[string]any{"$eq": []any{"$$o.x", 2.0}}}},
	map[string]any{"$map": map[string]any{"input": "$arr", "in": map[string]any{"$multiply": []any{"$$this", "$a"}}}},
	map[string]any{"$map": map[string]any{"input": "$objs", "as": "o", "in": "$$o.x"}},
	map[string]any{"$reduce": map[string]any{"input": "$arr", "initialValue": 0.0, "in": map[string]any{"$add": []any{"$$value", "$$this"}}}},
	map[string]any{"$reduce": map[string]any{"input": "$strs", "initialValue": "", "in": map[string]any{"$concat": []any{"$$value", "$$this"}}}},
	map[string]any{"$sum": "$arr"}, map[string]any{"$sum": []any{"$a", "$b", "x"}}, map[string]any{"$avg": "$arr"}, map[string]any{"$avg": []any{}},
	map[string]any{"$max": "$arr"}, map[string]any{"$min": "$strs"}, map[string]any{"$max": "$mixed"}, map[string]any{"$min": "$mixed"}, map[string]any{"$sum": 5.0},
	map[string]any{"$dateToString": map[string]any{"date": "$when"}}, map[string]any{"$dateToString": map[string]any{"date": "$when", "format": "%d.%m.%Y %H:%M:%S.%L"}},
	map[string]any{"$dateToString": map[string]any{"date": "$missing", "onNull": "none"}},
	map[string]any{"$toString": "$a"}, map[string]any{"$toString": "$t"}, map[string]any{"$toString": "$when"}, map[string]any{"$toString": "$n"}, map[string]any{"$toString": 1.5},
	map[string]any{"$toInt": "12"}, map[string]any{"$toInt": 3.9}, map[string]any{"$toInt": "3.5"}, map[string]any{"$toInt": "$t"}, map[string]any{"$toInt": "abc"},
	map[string]any{"$literal": "$a"}, map[string]any{"$literal": map[string]any{"$add": 1.0}},
	"$nested.deep.v", "$objs.x", "$$ROOT.a", "$$CURRENT.s", "$missing", "$arr.1", "literal", 42.0, true, 1.0, 0.0, nil,
	map[string]any{"x": "$a", "y": map[string]any{"$add": []any{"$a", 1.0}}}, []any{"$a", "$b", "c"},
	map[string]any{"$year": "$when"}, map[string]any{"$month": "$when"}, map[string]any{"$dayOfMonth": "$when"}, map[string]any{"$hour": "$when"},
	map[string]any{"$nosuchop": 1.0}, map[string]any{"$add": 1.0, "x": 2.0}, "$$undefinedvar", map[string]any{"$first": "$arr"}, map[string]any{"$last": "$arr"},
	map[string]any{"$concatArrays": []any{"$arr", []any{9.0}}}, map[string]any{"$isArray": "$arr"}, map[string]any{"$abs": -3.0}, map[string]any{"$round": []any{2.567, 1.0}},
	map[string]any{"$add": []any{}}, map[string]any{"$add": "$a"}, map[string]any{"$concat": []any{}}, map[string]any{"$concat": []any{"$a", "x"}},
	map[string]any{"$multiply": []any{"$s", 2.0}}, map[string]any{"$subtract": []any{"$when", "$when"}}, map[string]any{"$divide": []any{"$n", 2.0}},
	map[string]any{"$eq": []any{"$objs", map[string]any{"x": 1.0}}}, map[string]any{"$eq": []any{"$nested", map[string]any{"deep": map[string]any{"v": "d"}}}},
	map[string]any{"$eq": []any{"$missing", nil}}, map[string]any{"$gt": []any{"$missing", nil}}, map[string]any{"$gte": []any{"$n", nil}},
	map[string]any{"$lt": []any{"$when", "$when"}}, map[string]any{"$in": []any{"$missing", []any{nil}}}, map[string]any{"$in": []any{map[string]any{"x": 1.0}, "$objs"}},
	map[string]any{"$filter": map[string]any{"input": "$mixed", "cond": "$$this"}}, map[string]any{"$map": map[string]any{"input": "$mixed", "in": map[string]any{"$type": "$$this"}}},
	map[string]any{"$map": map[string]any{"input": "$arr", "in": map[string]any{"$add": []any{"$$this", "$a"}}}}, map[string]any{"$map": map[string]any{"input": "$missing", "in": 1.0}},
	map[string]any{"$reduce": map[string]any{"input": "$objs", "initialValue": map[string]any{}, "in": map[string]any{"$mergeObjects": []any{"$$value", "$$this"}}}},
	map[string]any{"$substr": []any{"héllo wörld", 1.0, 4.0}}, map[string]any{"$toUpper": 5.0}, map[string]any{"$toString": "$arr"}, map[string]any{"$toString": "$nested"},
	map[string]any{"$toInt": "$n"}, map[string]any{"$toInt": 3e10}, map[string]any{"$toInt": "$when"}, map[string]any{"$size": "$missing"},
	map[string]any{"$arrayElemAt": []any{"$arr", 1.5}}, map[string]any{"$arrayElemAt": []any{"$n", 0.0}}, map[string]any{"$arrayElemAt": []any{"$arr", -5.0}},
	map[string]any{"$cond": []any{"$empty", "yes", "no"}}, map[string]any{"$cond": []any{"$zero", "yes", "no"}}, map[string]any{"$cond": []any{"$arr", "yes", "no"}},
	map[string]any{"$and": []any{}}, map[string]any{"$or": []any{}}, map[string]any{"$and": []any{"$missing"}}, map[string]any{"$not": []any{[]any{}}},
	map[string]any{"$sum": []any{}}, map[string]any{"$sum": "$objs.x"}, map[string]any{"$max": []any{"$a", "$b", "$s"}}, map[string]any{"$min": []any{"$a", "$n"}},
	map[string]any{"$avg": []any{"$a", "$b", "$missing"}}, map[string]any{"$max": []any{}}, map[string]any{"$first": []any{}}, map[string]any{"$last": "$missing"},
	map[string]any{"$ifNull": []any{"$missing", "$n"}}, map[string]any{"$concat": []any{"$s", " ", map[string]any{"$toString": "$a"}}},
	map[string]any{"$let": map[string]any{"vars": map[string]any{"x": 2.0}, "in": map[string]any{"$multiply": []any{"$$x", "$a"}}}},
	map[string]any{"$dateToString": map[string]any{"date": "$when", "format": "%Y-%m-%d", "timezone": "+02:00"}}, map[string]any{"$dateToString": map[string]any{"date": "$s"}},
	map[string]any{"$mod": []any{-7.0, 3.0}}, map[string]any{"$abs": "$missing"}, map[string]any{"$round": []any{2.5, 0.0}}, map[string]any{"$round": []any{-2.5, 0.0}}, map[string]any{"$trunc": []any{-2.7, 0.0}},
	"$$this.a", "$objs.1.x", "$arr.length", "$s.length", "$nested.deep", map[string]any{"a": "$missing"}, []any{"$missing"},
	false, "", map[string]any{}, []any{},
	map[string]any{"$switch": map[string]any{"branches": []any{map[string]any{"case": "$f", "then": 1.0}, map[string]any{"case": "$t", "then": 2.0}}, "default": 3.0}},
}

var testCorpus = []any{
	map[string]any{"a": 5.0}, map[string]any{"a": "5"}, map[string]any{"a": map[string]any{"$eq": 5.0}}, map[string]any{"a": map[string]any{"$ne": 5.0}},
	map[string]any{"a": map[string]any{"$gt": 4.0, "$lt": 6.0}}, map[string]any{"a": map[string]any{"$gte": "4"}}, map[string]any{"s": map[string]any{"$gt": "A"}},
	map[string]any{"a": map[string]any{"$in": []any{1.0, 5.0}}}, map[string]any{"a": map[string]any{"$nin": []any{1.0, 5.0}}}, map[string]any{"missing": map[string]any{"$in": []any{nil}}},
	map[string]any{"arr": 3.0}, map[string]any{"arr": []any{1.0, 2.0, 3.0, 4.0}}, map[string]any{"arr": map[string]any{"$gt": 3.0}}, map[string]any{"arr": map[string]any{"$size": 4.0}},
	map[string]any{"arr": map[string]any{"$all": []any{1.0, 3.0}}}, map[string]any{"arr": map[string]any{"$all": []any{1.0, 9.0}}},
	map[string]any{"objs": map[string]any{"$elemMatch": map[string]any{"x": map[string]any{"$gt": 1.0}}}}, map[string]any{"arr": map[string]any{"$elemMatch": map[string]any{"$gt": 3.0, "$lt": 5.0}}},
	map[string]any{"objs.x": 2.0}, map[string]any{"objs.y": map[string]any{"$exists": true}}, map[string]any{"objs.z": map[string]any{"$exists": true}}, map[string]any{"objs.1.x": 2.0},
	map[string]any{"n": nil}, map[string]any{"missing": nil}, map[string]any{"missing": map[string]any{"$exists": false}}, map[string]any{"n": map[string]any{"$exists": true}},
	map[string]any{"s": map[string]any{"$regex": "^hello", "$options": "i"}}, map[string]any{"s": map[string]any{"$regex": "world$"}}, map[string]any{"strs": map[string]any{"$regex": "^c"}},
	map[string]any{"$and": []any{map[string]any{"a": 5.0}, map[string]any{"b": 2.0}}}, map[string]any{"$or": []any{map[string]any{"a": 1.0}, map[string]any{"b": 2.0}}}, map[string]any{"$nor": []any{map[string]any{"a": 1.0}, map[string]any{"b": 3.0}}},
	map[string]any{"a": map[string]any{"$not": map[string]any{"$gt": 3.0}}}, map[string]any{"a": map[string]any{"$type": "number"}}, map[string]any{"s": map[string]any{"$type": []any{"int", "string"}}}, map[string]any{"n": map[string]any{"$type": "null"}},
	map[string]any{"a": map[string]any{"$type": "int"}}, map[string]any{"when": map[string]any{"$type": "date"}}, map[string]any{"a": map[string]any{"$mod": []any{2.0, 1.0}}},
	map[string]any{"nested.deep.v": "d"}, map[string]any{"nested": map[string]any{"deep": map[string]any{"v": "d"}}}, map[string]any{"nested.deep": map[string]any{"v": "x"}},
	map[string]any{"$expr": map[string]any{"$gt": []any{"$a", "$b"}}}, map[string]any{"t": true, "f": false}, map[string]any{"zero": 0.0, "empty": ""},
	map[string]any{"mixed": "1"}, map[string]any{"mixed": nil}, map[string]any{"$bogus": 1.0}, map[string]any{"a": map[string]any{"$bogus": 1.0}}, map[string]any{"a": map[string]any{"$in": 5.0}},
	map[string]any{"arr": map[string]any{"$elemMatch": map[string]any{"$eq": 2.0}}}, map[string]any{"objs": map[string]any{"$elemMatch": map[string]any{"x": 1.0, "y": 3.0}}},
	map[string]any{"objs": map[string]any{"$elemMatch": map[string]any{"$or": []any{map[string]any{"x": 2.0}, map[string]any{"y": 3.0}}}}},
	map[string]any{"objs": map[string]any{"$all": []any{map[string]any{"$elemMatch": map[string]any{"x": 1.0}}, map[string]any{"$elemMatch": map[string]any{"y": 3.0}}}}},
	map[string]any{"objs.x": map[string]any{"$in": []any{2.0, 9.0}}}, map[string]any{"objs.x": map[string]any{"$nin": []any{2.0}}}, map[string]any{"objs.x": map[string]any{"$ne": 3.0}},
	map[string]any{"objs.x": map[string]any{"$size": 2.0}}, map[string]any{"objs": map[string]any{"$size": 3.0}}, map[string]any{"objs.x": []any{1.0, 2.0}},
	map[string]any{"arr": map[string]any{"$in": []any{4.0}}}, map[string]any{"arr": map[string]any{"$nin": []any{7.0}}}, map[string]any{"arr": map[string]any{"$ne": 2.0}},
	map[string]any{"s": map[string]any{"$not": map[string]any{"$regex": "^x"}}}, map[string]any{"s": map[string]any{"$in": []any{"Hello World"}}},
	map[string]any{"mixed": map[string]any{"$gt": "0"}}, map[string]any{"mixed": map[string]any{"$lt": 2.0}}, map[string]any{"mixed": map[string]any{"$type": "bool"}},
	map[string]any{"n": map[string]any{"$ne": nil}}, map[string]any{"missing": map[string]any{"$ne": nil}}, map[string]any{"missing": map[string]any{"$nin": []any{nil}}},
	map[string]any{"$and": []any{}}, map[string]any{"$or": 1.0}, map[string]any{"a": map[string]any{"$exists": 1.0}}, map[string]any{"a": map[string]any{"$exists": "yes"}},
	map[string]any{"$expr": map[string]any{"$eq": []any{"$s", "Hello World"}}}, map[string]any{"$expr": "$zero"}, map[string]any{"$expr": "$empty"},
	map[string]any{}, map[string]any{"a": map[string]any{}}, map[string]any{"nested": map[string]any{"deep": map[string]any{"v": "d", "w": nil}}},
	map[string]any{"strs.0": "b"}, map[string]any{"arr.10": map[string]any{"$exists": false}}, map[string]any{"when": time.Date(2023, 7, 4, 9, 5, 7, 123e6, time.UTC)},
	map[string]any{"when": map[string]any{"$gt": time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)}}, map[string]any{"strs": map[string]any{"$all": []any{"a"}}, "arr.0": 1.0},
}

// comparable turns values into a form where Go and oracle outputs compare:
// NaN/Inf become strings, oracle undefined is dropped from objects.
func comparable(v any) any {
	switch x := v.(type) {
	case oracletest.Undefined:
		return nil
	case float64:
		switch {
		case math.IsNaN(x):
			return "number:NaN"
		case math.IsInf(x, 1):
			return "number:Infinity"
		case math.IsInf(x, -1):
			return "number:-Infinity"
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = comparable(e)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if _, u := e.(oracletest.Undefined); u {
				continue
			}
			out[k] = comparable(e)
		}
		return out
	case *jsvalue.Object:
		out := map[string]any{}
		for k, e := range x.Range {
			out[k] = comparable(e)
		}
		return out
	}
	return v
}

// orderedText writes v as JSON with objects in their key order (after the
// normalisation of comparable for everything else), to compare key order.
func orderedText(v any) string {
	s, _ := jsvalue.Stringify(orderedComparable(v), "")
	return s
}

func orderedComparable(v any) any {
	switch x := v.(type) {
	case oracletest.Undefined:
		return nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = orderedComparable(e)
		}
		return out
	case *jsvalue.Object:
		out := jsvalue.NewObject(x.Len())
		for k, e := range x.Range {
			if _, u := e.(oracletest.Undefined); u {
				continue
			}
			out.Set(k, orderedComparable(e))
		}
		return out
	case time.Time:
		return jsvalue.ISOString(x)
	}
	return comparable(v)
}

type diffCase struct {
	name string
	run  func() (any, error)
	c    oracletest.Case
}

func TestDifferentialAgainstMingo(t *testing.T) {
	var cases []diffCase
	for _, p := range aggCorpus {
		p := p
		cases = append(cases, diffCase{"aggregate " + jsonish(p), func() (any, error) { return Aggregate(sampleDocs(), p) },
			oracletest.Case{Lib: "mql", Op: "aggregate", Args: []any{sampleDocs(), p}}})
	}
	for _, e := range exprCorpus {
		e := e
		cases = append(cases, diffCase{"expr " + jsonish(e), func() (any, error) { return Expr(docOne, e) },
			oracletest.Case{Lib: "mql", Op: "expr", Args: []any{docOne, e}}})
	}
	for _, q := range testCorpus {
		q := q
		cases = append(cases, diffCase{"test " + jsonish(q), func() (any, error) { return Test(docOne, q) },
			oracletest.Case{Lib: "mql", Op: "test", Args: []any{docOne, q}}})
	}
	oc := make([]oracletest.Case, len(cases))
	for i, c := range cases {
		oc[i] = c.c
	}
	res := oracletest.Run(t, oc)
	agreed := 0
	for i, c := range cases {
		got, err := c.run()
		want := res[i]
		switch {
		case !want.OK && err != nil:
			agreed++
		case want.OK && err == nil:
			if diff := cmp.Diff(comparable(want.Value), comparable(got)); diff != "" {
				if !knownMQLDifferences[c.name] {
					t.Errorf("%s: mismatch (-mingo +go):\n%s", c.name, diff)
				}
				continue
			}
			// The same values: now the key order of every object.
			if w, g := orderedText(oracletest.DecodeOrdered(want.Raw)), orderedText(got); w != g {
				if !knownMQLDifferences[c.name] {
					t.Errorf("%s: key order differs:\nmingo %s\ngo    %s", c.name, w, g)
				}
				continue
			}
			agreed++
		default:
			if !knownMQLDifferences[c.name] {
				t.Errorf("%s: mingo ok=%v (%v %s), go err=%v got %v", c.name, want.OK, want.Value, want.Error, err, got)
			}
		}
	}
	oracletest.Report(t, "mql", agreed, len(cases))
}

// knownMQLDifferences are corpus cases where the port deliberately differs.
var knownMQLDifferences = map[string]bool{}
