// Package mongodb is Lowdefy's MongoDBCollection connection type
// (@lowdefy/connection-mongodb 4.0.0-rc.11) on the official Go driver.
//
// A MongoDBCollection connection names a collection: `databaseUri` (required), an
// optional `databaseName` (default: the database of the connection string, else "test"),
// `collection` (required), `read` (default true), `write` (default false; writes need
// `write: true`) and `options` for the client. Its request types are MongoDBFind,
// MongoDBFindOne and MongoDBAggregation (reads; an aggregation with a $out or $merge stage
// also needs `write: true`), and MongoDBInsertOne, MongoDBInsertMany, MongoDBUpdateOne,
// MongoDBUpdateMany, MongoDBDeleteOne and MongoDBDeleteMany (writes), and MongoDBBulkWrite
// from the later plugin (a write).
//
// Values follow the plugin: in requests an object {_oid: hex} is an ObjectId and a
// {"~d": …} marker a date; in results ObjectIds become {_oid: hex}, dates are dates
// (time.Time, which the server serializes as Lowdefy does) and documents keep the field
// order MongoDB returns. Results have the shapes the plugin returns from the Node driver:
// Find and Aggregation an array of documents, FindOne a document or null, InsertOne
// {acknowledged, insertedId}, InsertMany {acknowledged, insertedCount}, UpdateOne
// {acknowledged, modifiedCount, upsertedId, upsertedCount, matchedCount}, UpdateMany the
// same without acknowledged (as in the plugin), DeleteOne and DeleteMany {acknowledged,
// deletedCount}; MongoDBBulkWrite the Node driver's BulkWriteResult. An update that
// matched no document and a delete that deleted none are also reported with
// [connections.Call.Notef], so the caller's log says that nothing was written.
//
// Lowdefy opens a client per request; here clients are kept in Deps.Pools, keyed by the
// connection string and client options, so requests reuse connections. Error messages
// never contain the connection string or its password.
package mongodb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
)

// Name is the connection type's name in Lowdefy config.
const Name = "MongoDBCollection"

// Type returns the MongoDBCollection connection type.
func Type() *connections.Type {
	t := &connections.Type{
		Name:     Name,
		Check:    checkConnection,
		Requests: map[string]*connections.RequestType{},
	}
	for _, r := range requestTypes.Get() {
		t.Requests[r.name] = &connections.RequestType{
			CheckRead:  r.read,
			CheckWrite: r.write,
			Check:      r.schema.check,
			Run:        r.runFunc(),
		}
	}
	return t
}

// requestType is one request type: its meta flags, schema and implementation.
type requestType struct {
	name        string
	read, write bool
	schema      *schema
	run         func(ctx context.Context, r *request) (any, error)
}

// request is one request being run.
type request struct {
	typ   string
	conn  *conn
	props *jsvalue.Object
	deps  *connections.Deps
	log   *slog.Logger
	call  *connections.Call
}

// noteNothing notes an update that matched no document, or a delete that deleted none:
// the response says so in a count, which an agent (or a form tool reporting success) can
// overlook.
func (r *request) noteNothing(matched, upserted, deleted int64, isDelete bool) {
	switch {
	case isDelete && deleted == 0:
		r.call.Notef("%s %s deleted nothing (deletedCount 0): no document matched the filter", r.call.RequestID, r.typ)
	case !isDelete && matched == 0 && upserted == 0:
		r.call.Notef("%s %s matched no document (matchedCount 0): nothing was changed", r.call.RequestID, r.typ)
	}
}

// requestTypes are the request types, built on first use.
var requestTypes = lazy.Value[[]*requestType]{New: func() []*requestType {
	return []*requestType{
		{name: "MongoDBFind", read: true, run: runFind,
			schema: requestSchema("MongoDBFind", req("query", kindObject), opt("options", kindObject))},
		{name: "MongoDBFindOne", read: true, run: runFindOne,
			schema: requestSchema("MongoDBFindOne", req("query", kindObject), opt("options", kindObject))},
		{name: "MongoDBAggregation", read: true, run: runAggregation,
			schema: requestSchema("MongoDBAggregation", req("pipeline", kindArray), opt("options", kindObject))},
		{name: "MongoDBInsertOne", write: true, run: runInsertOne,
			schema: requestSchema("MongoDBInsertOne", req("doc", kindObject), opt("options", kindObject))},
		{name: "MongoDBInsertMany", write: true, run: runInsertMany,
			schema: requestSchema("MongoDBInsertMany", req("docs", kindArrayOfObjects), opt("options", kindObject))},
		{name: "MongoDBUpdateOne", write: true, run: runUpdateOne,
			schema: requestSchema("MongoDBUpdateOne", req("filter", kindObject), req("update", kindObjectOrArray), opt("options", kindObject))},
		{name: "MongoDBUpdateMany", write: true, run: runUpdateMany,
			schema: requestSchema("MongoDBUpdateMany", req("filter", kindObject), req("update", kindObjectOrArray), opt("options", kindObject))},
		{name: "MongoDBDeleteOne", write: true, run: runDeleteOne,
			schema: requestSchema("MongoDBDeleteOne", req("filter", kindObject), opt("options", kindObject))},
		{name: "MongoDBDeleteMany", write: true, run: runDeleteMany,
			schema: requestSchema("MongoDBDeleteMany", req("filter", kindObject), opt("options", kindObject))},
		bulkWriteType,
	}
}}

// runFunc returns the Run of the request type: it validates the connection and request
// properties, applies the read/write rules again (the server applies them first; a
// connection never writes without `write: true`, whoever calls it) and runs the request.
func (rt *requestType) runFunc() func(ctx context.Context, c *connections.Call) (any, error) {
	return func(ctx context.Context, c *connections.Call) (any, error) {
		cn, err := parseConn(c)
		if err != nil {
			return nil, err
		}
		if rt.read && !cn.read {
			return nil, fmt.Errorf("Connection %q does not allow reads.", c.ConnectionID)
		}
		if rt.write && !cn.write {
			return nil, fmt.Errorf("Connection %q does not allow writes.", c.ConnectionID)
		}
		if err := rt.schema.check(c.Request); err != nil {
			return nil, err
		}
		r := &request{typ: rt.name, conn: cn, props: c.Request.(*jsvalue.Object), deps: c.Deps, log: slog.Default(), call: c}
		if c.Deps != nil && c.Deps.Logger != nil {
			r.log = c.Deps.Logger
		}
		r.log = r.log.With("connectionId", c.ConnectionID, "requestType", rt.name)
		if c.RequestID != "" {
			r.log = r.log.With("pageId", c.PageID, "requestId", c.RequestID)
		}
		return rt.run(ctx, r)
	}
}

// warn logs a problem that does not stop the request.
func (r *request) warn(msg string, args ...any) { r.log.Warn(msg, args...) }

// collection returns the connection's collection with the request's collection options,
// a context with the request's deadline, and a function to call when done.
func (r *request) collection(ctx context.Context, c opCommon) (*mongo.Collection, context.Context, func(), error) {
	client, release, err := r.conn.client(r.deps, r.log)
	if err != nil {
		return nil, nil, nil, err
	}
	coll := client.Database(r.conn.database).Collection(r.conn.collection, c.coll...)
	cancel := func() {}
	if c.maxTime > 0 {
		ctx, cancel = context.WithTimeout(ctx, c.maxTime)
	}
	return coll, ctx, func() { cancel(); release() }, nil
}

// fail wraps an error of the driver: it names the request and the collection and removes
// the connection's secrets. Context errors stay visible to errors.Is.
func (r *request) fail(err error) error {
	msg := r.conn.redact(err.Error())
	where := fmt.Sprintf("%s on collection %q of database %q", r.typ, r.conn.collection, r.conn.database)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: %s: %w", where, msg, context.DeadlineExceeded)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("%s: %s: %w", where, msg, context.Canceled)
	}
	return fmt.Errorf("%s: %s", where, msg)
}

// prop converts request property name to a BSON document.
func (r *request) doc(name string) (bson.D, error) {
	return toDocument(r.props.Prop(name), name)
}

// onCollection applies the request's options to the driver's options builder b (by the
// request type's table), opens the collection, and runs op on it while it is open.
func onCollection[B any](ctx context.Context, r *request, table map[string]setter[B], b B, op func(context.Context, *mongo.Collection) (any, error)) (any, error) {
	common, err := applyOptions(r.typ, r.props.Prop("options"), table, b, r.warn)
	if err != nil {
		return nil, err
	}
	coll, ctx, done, err := r.collection(ctx, common)
	if err != nil {
		return nil, err
	}
	defer done()
	return op(ctx, coll)
}

func runFind(ctx context.Context, r *request) (any, error) {
	query, err := r.doc("query")
	if err != nil {
		return nil, err
	}
	b := options.Find()
	return onCollection(ctx, r, findOptions.Get(), b, func(ctx context.Context, coll *mongo.Collection) (any, error) {
		cur, err := coll.Find(ctx, query, b)
		if err != nil {
			return nil, r.fail(err)
		}
		return r.all(ctx, cur)
	})
}

// all reads every document of a cursor.
func (r *request) all(ctx context.Context, cur *mongo.Cursor) (any, error) {
	defer cur.Close(context.WithoutCancel(ctx))
	out := []any{}
	for cur.Next(ctx) {
		o, err := fromRaw(cur.Current)
		if err != nil {
			return nil, r.fail(err)
		}
		out = append(out, o)
	}
	if err := cur.Err(); err != nil {
		return nil, r.fail(err)
	}
	return out, nil
}

func runFindOne(ctx context.Context, r *request) (any, error) {
	query, err := r.doc("query")
	if err != nil {
		return nil, err
	}
	b := options.FindOne()
	return onCollection(ctx, r, findOneOptions.Get(), b, func(ctx context.Context, coll *mongo.Collection) (any, error) {
		raw, err := coll.FindOne(ctx, query, b).Raw()
		if errors.Is(err, mongo.ErrNoDocuments) {
			return nil, nil
		}
		if err != nil {
			return nil, r.fail(err)
		}
		o, err := fromRaw(raw)
		if err != nil {
			return nil, r.fail(err)
		}
		return o, nil
	})
}

func runAggregation(ctx context.Context, r *request) (any, error) {
	stages, _ := r.props.Prop("pipeline").([]any)
	if !r.conn.write {
		for _, s := range stages {
			if o, ok := s.(*jsvalue.Object); ok && (!jsvalue.IsNullish(o.Prop("$out")) || !jsvalue.IsNullish(o.Prop("$merge"))) {
				return nil, errors.New(`Connection does not allow writes and aggregation pipeline contains a "$merge" or "$out" stage.`)
			}
		}
	}
	pipeline, err := toBSON(stages, "pipeline")
	if err != nil {
		return nil, err
	}
	b := options.Aggregate()
	return onCollection(ctx, r, aggregateOptions.Get(), b, func(ctx context.Context, coll *mongo.Collection) (any, error) {
		cur, err := coll.Aggregate(ctx, pipeline, b)
		if err != nil {
			return nil, r.fail(err)
		}
		return r.all(ctx, cur)
	})
}

func runInsertOne(ctx context.Context, r *request) (any, error) {
	doc, err := r.doc("doc")
	if err != nil {
		return nil, err
	}
	b := options.InsertOne()
	return onCollection(ctx, r, insertOneOptions.Get(), b, func(ctx context.Context, coll *mongo.Collection) (any, error) {
		res, err := coll.InsertOne(ctx, doc, b)
		if err != nil {
			return nil, r.fail(err)
		}
		id, err := fromGo(res.InsertedID)
		if err != nil {
			return nil, r.fail(err)
		}
		return jsvalue.ObjectOf("acknowledged", res.Acknowledged, "insertedId", id), nil
	})
}

func runInsertMany(ctx context.Context, r *request) (any, error) {
	items, _ := r.props.Prop("docs").([]any)
	docs := make([]any, len(items))
	for i, item := range items {
		d, err := toDocument(item, fmt.Sprintf("docs.%d", i))
		if err != nil {
			return nil, err
		}
		docs[i] = d
	}
	b := options.InsertMany()
	return onCollection(ctx, r, insertManyOptions.Get(), b, func(ctx context.Context, coll *mongo.Collection) (any, error) {
		res, err := coll.InsertMany(ctx, docs, b)
		if err != nil {
			return nil, r.fail(err)
		}
		return jsvalue.ObjectOf("acknowledged", res.Acknowledged, "insertedCount", float64(len(res.InsertedIDs))), nil
	})
}

// filterAndUpdate reads the filter and the update (an update document or a pipeline).
func (r *request) filterAndUpdate() (bson.D, any, error) {
	filter, err := r.doc("filter")
	if err != nil {
		return nil, nil, err
	}
	update, err := toBSON(r.props.Prop("update"), "update")
	if err != nil {
		return nil, nil, err
	}
	return filter, update, nil
}

// updateResult is the Node driver's UpdateResult; UpdateMany's result in the plugin has
// no acknowledged.
func updateResult(res *mongo.UpdateResult, acknowledged bool) (*jsvalue.Object, error) {
	id, err := fromGo(res.UpsertedID)
	if err != nil {
		return nil, err
	}
	o := jsvalue.NewObject(5)
	if acknowledged {
		o.Set("acknowledged", res.Acknowledged)
	}
	o.Set("modifiedCount", float64(res.ModifiedCount))
	o.Set("upsertedId", id)
	o.Set("upsertedCount", float64(res.UpsertedCount))
	o.Set("matchedCount", float64(res.MatchedCount))
	return o, nil
}

func runUpdateOne(ctx context.Context, r *request) (any, error) {
	filter, update, err := r.filterAndUpdate()
	if err != nil {
		return nil, err
	}
	b := options.UpdateOne()
	return onCollection(ctx, r, updateOneOptions.Get(), b, func(ctx context.Context, coll *mongo.Collection) (any, error) {
		res, err := coll.UpdateOne(ctx, filter, update, b)
		if err != nil {
			return nil, r.fail(err)
		}
		r.noteNothing(res.MatchedCount, res.UpsertedCount, 0, false)
		return updateResult(res, true)
	})
}

func runUpdateMany(ctx context.Context, r *request) (any, error) {
	filter, update, err := r.filterAndUpdate()
	if err != nil {
		return nil, err
	}
	b := options.UpdateMany()
	return onCollection(ctx, r, updateManyOptions.Get(), b, func(ctx context.Context, coll *mongo.Collection) (any, error) {
		res, err := coll.UpdateMany(ctx, filter, update, b)
		if err != nil {
			return nil, r.fail(err)
		}
		r.noteNothing(res.MatchedCount, res.UpsertedCount, 0, false)
		return updateResult(res, false)
	})
}

func runDeleteOne(ctx context.Context, r *request) (any, error) {
	filter, err := r.doc("filter")
	if err != nil {
		return nil, err
	}
	b := options.DeleteOne()
	return onCollection(ctx, r, deleteOneOptions.Get(), b, func(ctx context.Context, coll *mongo.Collection) (any, error) {
		res, err := coll.DeleteOne(ctx, filter, b)
		if err != nil {
			return nil, r.fail(err)
		}
		r.noteNothing(0, 0, res.DeletedCount, true)
		return jsvalue.ObjectOf("acknowledged", res.Acknowledged, "deletedCount", float64(res.DeletedCount)), nil
	})
}

func runDeleteMany(ctx context.Context, r *request) (any, error) {
	filter, err := r.doc("filter")
	if err != nil {
		return nil, err
	}
	b := options.DeleteMany()
	return onCollection(ctx, r, deleteManyOptions.Get(), b, func(ctx context.Context, coll *mongo.Collection) (any, error) {
		res, err := coll.DeleteMany(ctx, filter, b)
		if err != nil {
			return nil, r.fail(err)
		}
		r.noteNothing(0, 0, res.DeletedCount, true)
		return jsvalue.ObjectOf("acknowledged", res.Acknowledged, "deletedCount", float64(res.DeletedCount)), nil
	})
}
