package mongodb_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections/mongodb"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections/mongodb/mongotest"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// obj parses JSON (with Lowdefy's {"~d"} markers revived) into a Lowdefy value.
func obj(t testing.TB, s string) any {
	t.Helper()
	v, err := serial.Unmarshal([]byte(s))
	if err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

// js writes v the way Lowdefy sends it to the browser: dates as {"~d": ms}, keys in order.
func js(t testing.TB, v any) string {
	t.Helper()
	s, ok := serial.Stringify(v, "", false)
	if !ok {
		t.Fatalf("value has no JSON form: %#v", v)
	}
	return s
}

// env is a test's connection to its own database on the shared server.
type env struct {
	t     testing.TB
	typ   *connections.Type
	deps  *connections.Deps
	uri   string
	db    string
	logs  *bytes.Buffer
	write bool
}

func newEnv(t testing.TB) *env {
	t.Helper()
	logs := &bytes.Buffer{}
	e := &env{
		t:     t,
		typ:   mongodb.Type(),
		deps:  &connections.Deps{Pools: &connections.Pools{}, Logger: slog.New(slog.NewTextHandler(logs, nil))},
		uri:   mongotest.Shared(t).URI,
		db:    mongotest.DatabaseName(t),
		logs:  logs,
		write: true,
	}
	t.Cleanup(func() {
		if err := e.deps.Pools.Close(); err != nil {
			t.Errorf("close the pools: %v", err)
		}
	})
	return e
}

// conn returns connection properties for collection coll; extra JSON keys are merged in.
func (e *env) conn(coll string, extra string) *jsvalue.Object {
	o := jsvalue.ObjectOf("databaseUri", e.uri, "databaseName", e.db, "collection", coll)
	if e.write {
		o.Set("write", true)
	}
	if extra != "" {
		obj(e.t, extra).(*jsvalue.Object).Range(func(k string, v any) bool {
			o.Set(k, v)
			return true
		})
	}
	return o
}

// call runs a request the way the server does (@lowdefy/api callRequest): connection
// check, read/write rules, request check, then Run.
func (e *env) call(conn *jsvalue.Object, typ string, request any) (any, error) {
	e.t.Helper()
	_, rt, err := connections.Set{mongodb.Name: e.typ}.Lookup(mongodb.Name, typ)
	if err != nil {
		e.t.Fatal(err)
	}
	if rt.CheckRead && conn.Prop("read") == false {
		return nil, errors.New("server: read refused")
	}
	if rt.CheckWrite && conn.Prop("write") != true {
		return nil, errors.New("server: write refused")
	}
	if err := e.typ.Check(conn); err != nil {
		return nil, err
	}
	if err := rt.Check(request); err != nil {
		return nil, err
	}
	return rt.Run(context.Background(), &connections.Call{
		ConnectionID: "c", RequestID: "r", PageID: "p",
		Connection: conn, Request: request, Deps: e.deps,
	})
}

// must runs a request that must succeed and returns its result as Lowdefy JSON.
func (e *env) must(coll, typ, request string) string {
	e.t.Helper()
	res, err := e.call(e.conn(coll, ""), typ, obj(e.t, request))
	if err != nil {
		e.t.Fatalf("%s %s: %v", typ, request, err)
	}
	return js(e.t, res)
}

func eq(t testing.TB, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n got %s\nwant %s", what, got, want)
	}
}

func TestTypeMatchesPlugin(t *testing.T) {
	typ := mongodb.Type()
	if typ.Name != "MongoDBCollection" {
		t.Errorf("Name = %q", typ.Name)
	}
	// meta of every resolver in @lowdefy/connection-mongodb 4.0.0-rc.11.
	want := map[string][2]bool{
		"MongoDBAggregation": {true, false},
		"MongoDBDeleteMany":  {false, true},
		"MongoDBDeleteOne":   {false, true},
		"MongoDBFind":        {true, false},
		"MongoDBFindOne":     {true, false},
		"MongoDBInsertMany":  {false, true},
		"MongoDBInsertOne":   {false, true},
		"MongoDBUpdateMany":  {false, true},
		"MongoDBUpdateOne":   {false, true},
		"MongoDBBulkWrite":   {false, true}, // from the later plugin (npm 6.0.0)
	}
	if len(typ.Requests) != len(want) {
		t.Errorf("%d request types, want %d", len(typ.Requests), len(want))
	}
	for name, rw := range want {
		rt := typ.Requests[name]
		if rt == nil {
			t.Errorf("request type %s missing", name)
			continue
		}
		if rt.CheckRead != rw[0] || rt.CheckWrite != rw[1] || rt.Run == nil || rt.Check == nil {
			t.Errorf("%s: checkRead %v checkWrite %v (want %v %v), Run set %v, Check set %v",
				name, rt.CheckRead, rt.CheckWrite, rw[0], rw[1], rt.Run != nil, rt.Check != nil)
		}
	}
}

func TestConnectionCheck(t *testing.T) {
	typ := mongodb.Type()
	for _, tc := range []struct{ props, want string }{
		{`{"databaseUri": "mongodb://x", "collection": "c"}`, ""},
		{`{"databaseUri": "mongodb://x", "collection": "c", "databaseName": "d", "read": false, "write": true, "options": {}}`, ""},
		{`{"collection": "c"}`, `MongoDBCollection connection should have required property "databaseUri".`},
		{`{}`, `MongoDBCollection connection should have required property "databaseUri".; MongoDBCollection connection should have required property "collection".`},
		{`{"databaseUri": 1, "collection": "c"}`, `MongoDBCollection connection property "databaseUri" should be a string.`},
		{`{"databaseUri": "u", "collection": "c", "write": "yes"}`, `MongoDBCollection connection property "write" should be a boolean.`},
		{`{"databaseUri": "u", "collection": "c", "read": 0, "databaseName": 3}`, `MongoDBCollection connection property "databaseName" should be a string.; MongoDBCollection connection property "read" should be a boolean.`},
	} {
		err := typ.Check(obj(t, tc.props).(*jsvalue.Object))
		got := ""
		if err != nil {
			got = err.Error()
		}
		eq(t, tc.props, got, tc.want)
	}
}

func TestRequestChecks(t *testing.T) {
	typ := mongodb.Type()
	for _, tc := range []struct{ typ, props, want string }{
		{"MongoDBFind", `{"query": {}}`, ""},
		{"MongoDBFind", `{}`, `MongoDBFind request should have required property "query".`},
		{"MongoDBFind", `{"query": []}`, `MongoDBFind request property "query" should be an object.`},
		{"MongoDBFindOne", `{"query": {}, "options": 1}`, `MongoDBFindOne request property "options" should be an object.`},
		{"MongoDBAggregation", `{"pipeline": {}}`, `MongoDBAggregation request property "pipeline" should be an array.`},
		{"MongoDBInsertOne", `[]`, `MongoDBInsertOne request properties should be an object.`},
		{"MongoDBInsertOne", `{"doc": {"~d": 0}}`, ""}, // a date is an object to AJV
		{"MongoDBInsertMany", `{"docs": [{}, 1]}`, `MongoDBInsertMany request property "docs" should be an array of documents to insert.`},
		{"MongoDBUpdateOne", `{"filter": {}, "update": []}`, ""},
		{"MongoDBUpdateOne", `{}`, `MongoDBUpdateOne request should have required property "filter".; MongoDBUpdateOne request should have required property "update".`},
		{"MongoDBUpdateMany", `{"filter": {}, "update": "x"}`, `MongoDBUpdateMany request property "update" should be an object.`},
		{"MongoDBDeleteOne", `{"filter": null}`, `MongoDBDeleteOne request property "filter" should be an object.`},
		{"MongoDBDeleteMany", `{"filter": {}}`, ""},
	} {
		err := typ.Requests[tc.typ].Check(obj(t, tc.props))
		got := ""
		if err != nil {
			got = err.Error()
		}
		eq(t, tc.typ+" "+tc.props, got, tc.want)
	}
}

// TestRoundTrip inserts a document with every kind of value a Lowdefy request carries and
// reads it back: field order, {_oid}, dates (time.Time and {"~d"}), numbers, nesting.
func TestRoundTrip(t *testing.T) {
	e := newEnv(t)
	ref := "65a1b2c3d4e5f6a7b8c9d0e1"
	when := time.Date(2024, 3, 5, 10, 20, 30, 456e6, time.UTC)
	doc := obj(t, `{"zeta": 1, "alpha": "a", "ref": {"_oid": "`+ref+`"},
		"refs": [{"_oid": "`+ref+`"}, 2.5, null, "s"],
		"marker": {"~d": 1700000000000}, "nested": {"b": true, "a": [{"y": 1, "x": 2}]},
		"big": 3000000000, "neg": -7, "frac": 0.1, "nan": null, "empty": {}}`).(*jsvalue.Object)
	doc.Set("when", when)
	doc.Set("undef", jsvalue.Undefined)
	doc.Set("list", []any{when, jsvalue.Undefined})
	res, err := e.call(e.conn("docs", ""), "MongoDBInsertOne", jsvalue.ObjectOf("doc", doc))
	if err != nil {
		t.Fatal(err)
	}
	r := res.(*jsvalue.Object)
	if r.Keys()[0] != "acknowledged" || r.Prop("acknowledged") != true || len(r.Keys()) != 2 {
		t.Fatalf("InsertOne = %s, want {acknowledged: true, insertedId}", js(t, r))
	}
	id, ok := r.Prop("insertedId").(*jsvalue.Object)
	hex, _ := id.Prop("_oid").(string)
	if !ok || len(hex) != 24 || id.Len() != 1 {
		t.Fatalf("insertedId = %s, want {_oid: hex}", js(t, r.Prop("insertedId")))
	}

	got := e.must("docs", "MongoDBFindOne", `{"query": {"_id": {"_oid": "`+hex+`"}}}`)
	want := `{"_id":{"_oid":"` + hex + `"},"zeta":1,"alpha":"a","ref":{"_oid":"` + ref + `"},` +
		`"refs":[{"_oid":"` + ref + `"},2.5,null,"s"],"marker":{"~d":1700000000000},` +
		`"nested":{"b":true,"a":[{"y":1,"x":2}]},"big":3000000000,"neg":-7,"frac":0.1,"nan":null,"empty":{},` +
		`"when":{"~d":1709634030456},"list":[{"~d":1709634030456},null]}`
	eq(t, "FindOne", got, want)

	// The value types: dates are dates, not markers; ids are {_oid} objects.
	res, err = e.call(e.conn("docs", ""), "MongoDBFindOne", obj(t, `{"query": {"when": {"~d": 1709634030456}}}`))
	if err != nil {
		t.Fatal(err)
	}
	found, ok := res.(*jsvalue.Object)
	if !ok {
		t.Fatalf("FindOne by date found %s", js(t, res))
	}
	if w, ok := found.Prop("when").(time.Time); !ok || !w.Equal(when) {
		t.Errorf("when = %#v, want the date %v", found.Prop("when"), when)
	}

	// The stored BSON types follow the Node driver: integers in int32 range are int32.
	eq(t, "$type", e.must("docs", "MongoDBAggregation", `{"pipeline": [
		{"$project": {"_id": 0, "zeta": {"$type": "$zeta"}, "big": {"$type": "$big"}, "frac": {"$type": "$frac"},
		 "ref": {"$type": "$ref"}, "when": {"$type": "$when"}, "marker": {"$type": "$marker"}}}]}`),
		`[{"zeta":"int","big":"double","frac":"double","ref":"objectId","when":"date","marker":"date"}]`)

	// No document: null.
	eq(t, "FindOne none", e.must("docs", "MongoDBFindOne", `{"query": {"zeta": 99}}`), "null")
}

func TestFindOptions(t *testing.T) {
	e := newEnv(t)
	eq(t, "InsertMany", e.must("items", "MongoDBInsertMany", `{"docs": [
		{"_id": 1, "name": "c", "n": 3, "tag": "x"},
		{"_id": 2, "name": "a", "n": 1, "tag": "y"},
		{"_id": 3, "name": "b", "n": 2, "tag": "x"},
		{"_id": 4, "name": "d", "n": 4, "tag": "y"}]}`), `{"acknowledged":true,"insertedCount":4}`)

	eq(t, "Find all", e.must("items", "MongoDBFind", `{"query": {}, "options": {"sort": {"name": 1}, "projection": {"name": 1}}}`),
		`[{"_id":2,"name":"a"},{"_id":3,"name":"b"},{"_id":1,"name":"c"},{"_id":4,"name":"d"}]`)
	eq(t, "Find limit skip desc", e.must("items", "MongoDBFind",
		`{"query": {"n": {"$gte": 1}}, "options": {"sort": [["n", "desc"]], "skip": 1, "limit": 2, "projection": {"_id": 0, "n": 1}}}`),
		`[{"n":3},{"n":2}]`)
	eq(t, "Find none", e.must("items", "MongoDBFind", `{"query": {"tag": "z"}, "options": {"maxTimeMS": 5000}}`), `[]`)
	eq(t, "FindOne sort", e.must("items", "MongoDBFindOne",
		`{"query": {"tag": "x"}, "options": {"sort": {"n": -1}, "projection": {"_id": 0, "name": 1}}}`), `{"name":"c"}`)

	// A wrong option value is an error naming it; an unknown option is logged and ignored.
	_, err := e.call(e.conn("items", ""), "MongoDBFind", obj(t, `{"query": {}, "options": {"limit": "2"}}`))
	if err == nil || !strings.Contains(err.Error(), `"options.limit" should be`) {
		t.Errorf("limit \"2\": err = %v, want it to name options.limit", err)
	}
	eq(t, "unknown option", e.must("items", "MongoDBFind", `{"query": {"_id": 1}, "options": {"frobnicate": true, "projection": {"n": 1}}}`),
		`[{"_id":1,"n":3}]`)
	if !strings.Contains(e.logs.String(), "option=frobnicate") {
		t.Errorf("no warning about the unknown option in the log:\n%s", e.logs)
	}
}

func TestAggregation(t *testing.T) {
	e := newEnv(t)
	e.must("sales", "MongoDBInsertMany", `{"docs": [{"k": "a", "v": 1}, {"k": "b", "v": 2}, {"k": "a", "v": 3}]}`)
	eq(t, "group", e.must("sales", "MongoDBAggregation", `{"pipeline": [
		{"$group": {"_id": "$k", "total": {"$sum": "$v"}}},
		{"$sort": {"_id": 1}}], "options": {"allowDiskUse": true}}`),
		`[{"_id":"a","total":4},{"_id":"b","total":2}]`)

	// $out and $merge need write: true on the connection, even though it is a read.
	e.write = false
	for _, stage := range []string{`{"$out": "copy"}`, `{"$merge": {"into": "copy"}}`} {
		_, err := e.call(e.conn("sales", ""), "MongoDBAggregation", obj(t, `{"pipeline": [{"$match": {}}, `+stage+`]}`))
		want := `Connection does not allow writes and aggregation pipeline contains a "$merge" or "$out" stage.`
		if err == nil || err.Error() != want {
			t.Errorf("%s without write: err = %v, want %q", stage, err, want)
		}
	}
	// A null $out is no $out (the plugin tests `!= null`).
	if _, err := e.call(e.conn("sales", ""), "MongoDBAggregation", obj(t, `{"pipeline": [{"$match": {}, "$out": null}]}`)); err != nil &&
		strings.Contains(err.Error(), "does not allow writes") {
		t.Errorf("$out: null refused: %v", err)
	}
	// With write: true the stage goes to the server. FerretDB 1.24 does not implement
	// $out, so its refusal shows the request got past the connection's check.
	e.write = true
	_, err := e.call(e.conn("sales", ""), "MongoDBAggregation", obj(t, `{"pipeline": [{"$match": {"k": "b"}}, {"$out": "copy"}]}`))
	if err == nil || !strings.Contains(err.Error(), "NotImplemented") {
		t.Errorf("$out with write: err = %v, want FerretDB's NotImplemented", err)
	}
}

func TestWrites(t *testing.T) {
	e := newEnv(t)
	e.must("w", "MongoDBInsertMany", `{"docs": [{"_id": "a", "n": 1, "g": 1}, {"_id": "b", "n": 2, "g": 1}, {"_id": "c", "n": 3, "g": 2}]}`)

	eq(t, "UpdateOne", e.must("w", "MongoDBUpdateOne", `{"filter": {"_id": "a"}, "update": {"$set": {"n": 10}}}`),
		`{"acknowledged":true,"modifiedCount":1,"upsertedId":null,"upsertedCount":0,"matchedCount":1}`)
	eq(t, "UpdateOne no change", e.must("w", "MongoDBUpdateOne", `{"filter": {"_id": "a"}, "update": {"$set": {"n": 10}}}`),
		`{"acknowledged":true,"modifiedCount":0,"upsertedId":null,"upsertedCount":0,"matchedCount":1}`)
	got := e.must("w", "MongoDBUpdateOne", `{"filter": {"name": "new"}, "update": {"$set": {"n": 5}}, "options": {"upsert": true}}`)
	if !strings.HasPrefix(got, `{"acknowledged":true,"modifiedCount":0,"upsertedId":{"_oid":"`) ||
		!strings.HasSuffix(got, `"},"upsertedCount":1,"matchedCount":0}`) {
		t.Errorf("UpdateOne upsert = %s, want an {_oid} upsertedId", got)
	}
	eq(t, "UpdateOne upsert with _id", e.must("w", "MongoDBUpdateOne", `{"filter": {"_id": "z"}, "update": {"$set": {"n": 0}}, "options": {"upsert": true}}`),
		`{"acknowledged":true,"modifiedCount":0,"upsertedId":"z","upsertedCount":1,"matchedCount":0}`)

	// UpdateMany returns what the plugin picks from the driver's result: no acknowledged.
	eq(t, "UpdateMany", e.must("w", "MongoDBUpdateMany", `{"filter": {"g": 1}, "update": {"$inc": {"n": 1}}}`),
		`{"modifiedCount":2,"upsertedId":null,"upsertedCount":0,"matchedCount":2}`)
	eq(t, "after updates", e.must("w", "MongoDBFind", `{"query": {"g": 1}, "options": {"sort": {"_id": 1}}}`),
		`[{"_id":"a","n":11,"g":1},{"_id":"b","n":3,"g":1}]`)

	eq(t, "DeleteOne", e.must("w", "MongoDBDeleteOne", `{"filter": {"g": 1}}`), `{"acknowledged":true,"deletedCount":1}`)
	eq(t, "DeleteOne none", e.must("w", "MongoDBDeleteOne", `{"filter": {"g": 9}}`), `{"acknowledged":true,"deletedCount":0}`)
	eq(t, "DeleteMany", e.must("w", "MongoDBDeleteMany", `{"filter": {}}`), `{"acknowledged":true,"deletedCount":4}`)
	eq(t, "empty", e.must("w", "MongoDBFind", `{"query": {}}`), `[]`)

	// A duplicate key is the driver's error, naming the collection.
	e.must("w", "MongoDBInsertOne", `{"doc": {"_id": 1}}`)
	_, err := e.call(e.conn("w", ""), "MongoDBInsertOne", obj(t, `{"doc": {"_id": 1}}`))
	if err == nil || !strings.Contains(err.Error(), `MongoDBInsertOne on collection "w"`) || !strings.Contains(err.Error(), "duplicate key") {
		t.Errorf("duplicate insert: err = %v", err)
	}
}

func TestBulkWrite(t *testing.T) {
	e := newEnv(t)
	e.must("b", "MongoDBInsertOne", `{"doc": {"_id": "old", "n": 1}}`)
	got := e.must("b", "MongoDBBulkWrite", `{"operations": [
		{"insertOne": {"document": {"name": "x", "n": 2}}},
		{"insertOne": {"document": {"_id": 7, "n": 3}}},
		{"updateOne": {"filter": {"_id": "old"}, "update": {"$set": {"n": 10}}}},
		{"updateMany": {"filter": {"n": {"$gte": 2}}, "update": {"$inc": {"n": 100}}}},
		{"replaceOne": {"filter": {"_id": "new"}, "replacement": {"n": 0}, "upsert": true}},
		{"deleteOne": {"filter": {"_id": 7}}}
	], "options": {"ordered": true}}`)
	// The generated id of the first insert is in insertedIds; check the rest exactly.
	r := obj(t, got).(*jsvalue.Object)
	genID, _ := r.Prop("insertedIds").(*jsvalue.Object).Prop("0").(*jsvalue.Object)
	if genID == nil || len(js(t, genID.Prop("_oid"))) != 26 {
		t.Fatalf("insertedIds[0] is not an {_oid}: %s", got)
	}
	eq(t, "BulkWrite", got, `{"insertedCount":2,"matchedCount":4,"modifiedCount":4,"deletedCount":1,"upsertedCount":1,`+
		`"upsertedIds":{"4":"new"},"insertedIds":{"0":`+js(t, genID)+`,"1":7}}`)
	eq(t, "after BulkWrite", e.must("b", "MongoDBFind", `{"query": {}, "options": {"sort": {"n": 1}}}`),
		`[{"_id":"new","n":0},{"_id":`+js(t, genID)+`,"name":"x","n":102},{"_id":"old","n":110}]`)

	for _, tc := range []struct{ ops, want string }{
		{`[{"insertOne": {}}]`, `insertOne operation should have required property "document".`},
		{`[{"updateOne": {"filter": {}}}]`, `updateOne operation should have required property "update".`},
		{`[{"deleteMany": {"filter": 1}}]`, `deleteMany operation property "filter" should be an object.`},
		{`[{"insertOne": {"document": {}}, "deleteOne": {"filter": {}}}]`, `MongoDBBulkWrite operation should be a write operation`},
		{`[{"drop": {}}]`, `MongoDBBulkWrite operation should be a write operation`},
		{`[]`, `"operations" is empty`},
		{`[1]`, `MongoDBBulkWrite request property "operations" should be an array of write operation objects.`},
	} {
		_, err := e.call(e.conn("b", ""), "MongoDBBulkWrite", obj(t, `{"operations": `+tc.ops+`}`))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("operations %s: err = %v, want %q", tc.ops, err, tc.want)
		}
	}
}

// TestReadWriteRules checks that Run itself refuses what the connection does not allow,
// with Lowdefy's messages, even when a caller skips the server's checks.
func TestReadWriteRules(t *testing.T) {
	e := newEnv(t)
	run := func(conn *jsvalue.Object, typ, request string) error {
		_, err := e.typ.Requests[typ].Run(context.Background(), &connections.Call{
			ConnectionID: "brands", Connection: conn, Request: obj(t, request), Deps: e.deps})
		return err
	}
	e.write = false
	for typ, request := range map[string]string{
		"MongoDBInsertOne":  `{"doc": {"a": 1}}`,
		"MongoDBInsertMany": `{"docs": [{"a": 1}]}`,
		"MongoDBUpdateOne":  `{"filter": {}, "update": {"$set": {"a": 2}}}`,
		"MongoDBUpdateMany": `{"filter": {}, "update": {"$set": {"a": 2}}}`,
		"MongoDBDeleteOne":  `{"filter": {}}`,
		"MongoDBDeleteMany": `{"filter": {}}`,
		"MongoDBBulkWrite":  `{"operations": [{"insertOne": {"document": {"a": 1}}}]}`,
	} {
		for _, conn := range []*jsvalue.Object{e.conn("rw", ""), e.conn("rw", `{"write": false}`), e.conn("rw", `{"write": "true"}`)} {
			err := run(conn, typ, request)
			if err == nil || err.Error() != `Connection "brands" does not allow writes.` &&
				err.Error() != `MongoDBCollection connection property "write" should be a boolean.` {
				t.Errorf("%s with %s: err = %v, want a refusal", typ, js(t, conn), err)
			}
		}
	}
	eq(t, "nothing written", e.must("rw", "MongoDBFind", `{"query": {}}`), `[]`)
	for _, typ := range []string{"MongoDBFind", "MongoDBFindOne", "MongoDBAggregation"} {
		request := `{"query": {}}`
		if typ == "MongoDBAggregation" {
			request = `{"pipeline": []}`
		}
		err := run(e.conn("rw", `{"read": false}`), typ, request)
		if err == nil || err.Error() != `Connection "brands" does not allow reads.` {
			t.Errorf("%s with read: false: err = %v", typ, err)
		}
		if err := run(e.conn("rw", `{"read": true}`), typ, request); err != nil {
			t.Errorf("%s with read: true: %v", typ, err)
		}
	}
}

func TestBadObjectID(t *testing.T) {
	e := newEnv(t)
	for _, oid := range []string{`"xyz"`, `"65a1b2c3d4e5f6a7b8c9d0eZ"`, `5`} {
		_, err := e.call(e.conn("c", ""), "MongoDBFind", obj(t, `{"query": {"_id": {"_oid": `+oid+`}}}`))
		if err == nil || !strings.Contains(err.Error(), "query._id") || !strings.Contains(err.Error(), "24 hexadecimal") {
			t.Errorf("_oid %s: err = %v, want one naming query._id", oid, err)
		}
	}
	// A falsy _oid is no ObjectId: the object is a plain object, as in the plugin.
	eq(t, "empty _oid", e.must("c", "MongoDBFind", `{"query": {"_id": {"_oid": ""}}}`), `[]`)
}

func TestErrorsHidePassword(t *testing.T) {
	e := newEnv(t)
	const pw = "s3cr3t%2Fpw"
	for _, uri := range []string{
		"mongodb://alice:" + pw + "@127.0.0.1:1/?serverSelectionTimeoutMS=200&connectTimeoutMS=200",
		"mongodb://alice:" + pw + "@127.0.0.1:notaport/",
		"mongodb://alice:" + pw + "@127.0.0.1:1/?w=bogus&journal=maybe",
	} {
		conn := jsvalue.ObjectOf("databaseUri", uri, "collection", "c")
		_, err := e.call(conn, "MongoDBFind", obj(t, `{"query": {}}`))
		if err == nil {
			t.Errorf("%s: no error", uri)
			continue
		}
		if strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), pw) {
			t.Errorf("the error shows the password: %v", err)
		}
		t.Logf("%v", err)
	}
	// The password given in options.auth is hidden too.
	conn := jsvalue.ObjectOf("databaseUri", "mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=200", "collection", "c",
		"options", obj(t, `{"auth": {"username": "bob", "password": "hunter2"}}`))
	_, err := e.call(conn, "MongoDBFind", obj(t, `{"query": {}}`))
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("options.auth: err = %v", err)
	}
}

// TestPools checks that requests share one client per connection string and options, and
// that a nil Pools works (a client per request).
func TestPools(t *testing.T) {
	e := newEnv(t)
	for range 3 {
		e.must("p", "MongoDBInsertOne", `{"doc": {"a": 1}}`)
	}
	withOpts := e.conn("p", `{"options": {"appName": "x", "maxPoolSize": 5}}`)
	if _, err := e.call(withOpts, "MongoDBFind", obj(t, `{"query": {}}`)); err != nil {
		t.Fatal(err)
	}
	for _, conn := range []*jsvalue.Object{e.conn("p", ""), e.conn("other", ""), withOpts} {
		_, err := e.deps.Pools.Get(mongodb.PoolKey(conn), func() (io.Closer, error) {
			return nil, errors.New("no pooled client")
		})
		if err != nil {
			t.Errorf("%s: %v", js(t, conn), err)
		}
	}
	// Concurrent requests share the pooled client.
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			_, err := e.call(e.conn("p", ""), "MongoDBInsertOne", obj(t, `{"doc": {"a": 2}}`))
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	e.deps.Pools = nil
	eq(t, "without pools", e.must("p", "MongoDBAggregation", `{"pipeline": [{"$count": "n"}]}`), `[{"n":11}]`)
}

// A write that matched nothing is noted on the call (issue 22 point 7): an update with
// matchedCount 0 and a delete with deletedCount 0; a write that matched is not.
func TestNothingWrittenIsNoted(t *testing.T) {
	e := newEnv(t)
	e.write = true
	e.must("notes", "MongoDBInsertOne", `{"doc": {"_id": "a", "body": "first"}}`)
	run := func(typ, request string) []string {
		t.Helper()
		_, rt, err := connections.Set{mongodb.Name: e.typ}.Lookup(mongodb.Name, typ)
		if err != nil {
			t.Fatal(err)
		}
		var notes []string
		_, err = rt.Run(context.Background(), &connections.Call{
			ConnectionID: "c", RequestID: "r", PageID: "p",
			Connection: e.conn("notes", ""), Request: obj(t, request), Deps: e.deps,
			Note: func(m string) { notes = append(notes, m) },
		})
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		return notes
	}
	for _, c := range []struct {
		typ, request, want string
	}{
		{"MongoDBUpdateOne", `{"filter": {"_id": "nope"}, "update": {"$set": {"body": "x"}}}`, "r MongoDBUpdateOne matched no document (matchedCount 0): nothing was changed"},
		{"MongoDBUpdateMany", `{"filter": {"_id": "nope"}, "update": {"$set": {"body": "x"}}}`, "r MongoDBUpdateMany matched no document (matchedCount 0): nothing was changed"},
		{"MongoDBDeleteOne", `{"filter": {"_id": "nope"}}`, "r MongoDBDeleteOne deleted nothing (deletedCount 0): no document matched the filter"},
		{"MongoDBDeleteMany", `{"filter": {"_id": "nope"}}`, "r MongoDBDeleteMany deleted nothing (deletedCount 0): no document matched the filter"},
		{"MongoDBUpdateOne", `{"filter": {"_id": "a"}, "update": {"$set": {"body": "y"}}}`, ""},
		{"MongoDBUpdateOne", `{"filter": {"_id": "a"}, "update": {"$set": {"body": "y"}}}`, ""}, // matched, not modified
		{"MongoDBUpdateOne", `{"filter": {"_id": "b"}, "update": {"$set": {"body": "z"}}, "options": {"upsert": true}}`, ""},
		{"MongoDBDeleteOne", `{"filter": {"_id": "a"}}`, ""},
	} {
		got := strings.Join(run(c.typ, c.request), "; ")
		if got != c.want {
			t.Errorf("%s %s: notes %q, want %q", c.typ, c.request, got, c.want)
		}
	}
}
