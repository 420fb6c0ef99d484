package mongodb

import (
	"context"
	"fmt"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// MongoDBBulkWrite is not in @lowdefy/connection-mongodb 4.0.0-rc.11; it follows the
// later plugin (6.0.0 on npm, which Lowdefy 4.x apps meet as `MongoDBBulkWrite`):
// `operations` is an array of one-key objects — insertOne {document}, updateOne and
// updateMany {filter, update, upsert, arrayFilters, collation, hint}, deleteOne and
// deleteMany {filter, collation, hint}, replaceOne {filter, replacement, upsert,
// collation, hint} — and the result is the Node driver's BulkWriteResult as JSON:
// {insertedCount, matchedCount, modifiedCount, deletedCount, upsertedCount, upsertedIds,
// insertedIds}, the id maps keyed by operation index.

var bulkWriteType = &requestType{
	name: "MongoDBBulkWrite", write: true, run: runBulkWrite,
	schema: &schema{
		notObject: "MongoDBBulkWrite request properties should be an object.",
		props: []prop{
			{name: "operations", kind: kindArrayOfObjects,
				required: `MongoDBBulkWrite request should have required property "operations".`,
				typeMsg:  `MongoDBBulkWrite request property "operations" should be an array.`,
				itemMsg:  `MongoDBBulkWrite request property "operations" should be an array of write operation objects.`},
			{name: "options", kind: kindObject,
				typeMsg: `MongoDBBulkWrite request property "options" should be an object.`},
		},
	},
}

var bulkWriteOptions = lazy.Value[map[string]setter[*options.BulkWriteOptionsBuilder]]{New: func() map[string]setter[*options.BulkWriteOptionsBuilder] {
	return map[string]setter[*options.BulkWriteOptionsBuilder]{
		"ordered": func(b *options.BulkWriteOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetOrdered(x)
			return err
		},
		"bypassDocumentValidation": func(b *options.BulkWriteOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetBypassDocumentValidation(x)
			return err
		},
		"comment": func(b *options.BulkWriteOptionsBuilder, v any, p string) error {
			c, err := anyValue(v, p)
			b.SetComment(c)
			return err
		},
		"let": func(b *options.BulkWriteOptionsBuilder, v any, p string) error {
			d, err := document(v, p)
			b.SetLet(d)
			return err
		},
	}
}}

// bulkOp reads one operation's fields, with the later plugin's messages.
type bulkOp struct {
	name string
	o    *jsvalue.Object
	path string
}

func (b bulkOp) doc(field string, required bool) (bson.D, error) {
	v := b.o.Prop(field)
	if jsvalue.IsUndefined(v) {
		if required {
			return nil, fmt.Errorf("%s operation should have required property %q.", b.name, field)
		}
		return nil, nil
	}
	if !isSchemaObject(v) {
		return nil, fmt.Errorf("%s operation property %q should be an object.", b.name, field)
	}
	return toDocument(v, b.path+"."+field)
}

func (b bulkOp) update() (any, error) {
	v := b.o.Prop("update")
	if jsvalue.IsUndefined(v) {
		return nil, fmt.Errorf("%s operation should have required property \"update\".", b.name)
	}
	if _, arr := v.([]any); !arr && !isSchemaObject(v) {
		return nil, fmt.Errorf("%s operation property \"update\" should be an object or an array.", b.name)
	}
	return toBSON(v, b.path+".update")
}

// extras reads upsert, arrayFilters, collation and hint where the operation has them.
func (b bulkOp) extras(set func(field string, v any)) error {
	for _, f := range []string{"upsert", "arrayFilters", "collation", "hint"} {
		v := b.o.Prop(f)
		if jsvalue.IsUndefined(v) {
			continue
		}
		p := b.path + "." + f
		var x any
		var err error
		switch f {
		case "upsert":
			x, err = boolean(v, p)
		case "arrayFilters":
			x, err = documents(v, p)
		case "collation":
			x, err = collation(v, p)
		case "hint":
			x, err = hint(v, p)
		}
		if err != nil {
			return fmt.Errorf("MongoDBBulkWrite request %w", err)
		}
		set(f, x)
	}
	return nil
}

// setExtras reads the operation's extras (see extras) into m, a write model of any kind but
// insertOne's: collation and hint, and upsert and arrayFilters where m has them (updates
// have both, replaceOne only upsert).
func setExtras[M interface {
	SetCollation(*options.Collation) M
	SetHint(any) M
}](b bulkOp, m M) error {
	return b.extras(func(f string, v any) {
		switch f {
		case "upsert":
			if u, ok := any(m).(interface{ SetUpsert(bool) M }); ok {
				u.SetUpsert(v.(bool))
			}
		case "arrayFilters":
			if u, ok := any(m).(interface{ SetArrayFilters([]any) M }); ok {
				u.SetArrayFilters(v.([]any))
			}
		case "collation":
			m.SetCollation(v.(*options.Collation))
		case "hint":
			m.SetHint(v)
		}
	})
}

// bulkModels converts the operations into write models. Documents inserted without an
// _id get one here, put first as the driver does, so the result can list them.
func bulkModels(ops []any) ([]mongo.WriteModel, *jsvalue.Object, error) {
	models := make([]mongo.WriteModel, 0, len(ops))
	inserted := jsvalue.NewObject(0)
	for i, item := range ops {
		o, _ := item.(*jsvalue.Object)
		if o.Len() != 1 {
			return nil, nil, fmt.Errorf("MongoDBBulkWrite operation should be a write operation (operations.%d has %d keys; want one of insertOne, updateOne, updateMany, deleteOne, deleteMany, replaceOne).", i, o.Len())
		}
		name, body := o.At(0)
		bo, ok := body.(*jsvalue.Object)
		b := bulkOp{name: name, o: bo, path: fmt.Sprintf("operations.%d.%s", i, name)}
		switch name {
		case "insertOne", "updateOne", "updateMany", "deleteOne", "deleteMany", "replaceOne":
			if !ok {
				return nil, nil, fmt.Errorf("%s operation should be an object.", name)
			}
		default:
			return nil, nil, fmt.Errorf("MongoDBBulkWrite operation should be a write operation (operations.%d is %q; want one of insertOne, updateOne, updateMany, deleteOne, deleteMany, replaceOne).", i, name)
		}
		var filter bson.D
		if name != "insertOne" {
			var err error
			if filter, err = b.doc("filter", true); err != nil {
				return nil, nil, err
			}
		}
		switch name {
		case "insertOne":
			d, err := b.doc("document", true)
			if err != nil {
				return nil, nil, err
			}
			var id any
			for _, e := range d {
				if e.Key == "_id" {
					id = e.Value
				}
			}
			if id == nil {
				oid := bson.NewObjectID()
				id = oid
				d = append(bson.D{{Key: "_id", Value: oid}}, d...)
			}
			js, err := fromGo(id)
			if err != nil {
				return nil, nil, err
			}
			inserted.Set(strconv.Itoa(i), js)
			models = append(models, mongo.NewInsertOneModel().SetDocument(d))
		case "updateOne", "updateMany":
			u, err := b.update()
			if err != nil {
				return nil, nil, err
			}
			if name == "updateOne" {
				m := mongo.NewUpdateOneModel().SetFilter(filter).SetUpdate(u)
				err = setExtras(b, m)
				models = append(models, m)
			} else {
				m := mongo.NewUpdateManyModel().SetFilter(filter).SetUpdate(u)
				err = setExtras(b, m)
				models = append(models, m)
			}
			if err != nil {
				return nil, nil, err
			}
		case "replaceOne":
			r, err := b.doc("replacement", true)
			if err != nil {
				return nil, nil, err
			}
			m := mongo.NewReplaceOneModel().SetFilter(filter).SetReplacement(r)
			if err := setExtras(b, m); err != nil {
				return nil, nil, err
			}
			models = append(models, m)
		case "deleteOne":
			m := mongo.NewDeleteOneModel().SetFilter(filter)
			if err := setExtras(b, m); err != nil {
				return nil, nil, err
			}
			models = append(models, m)
		case "deleteMany":
			m := mongo.NewDeleteManyModel().SetFilter(filter)
			if err := setExtras(b, m); err != nil {
				return nil, nil, err
			}
			models = append(models, m)
		}
	}
	return models, inserted, nil
}

func runBulkWrite(ctx context.Context, r *request) (any, error) {
	ops, _ := r.props.Prop("operations").([]any)
	models, inserted, err := bulkModels(ops)
	if err != nil {
		return nil, err
	}
	b := options.BulkWrite()
	common, err := applyOptions(r.typ, r.props.Prop("options"), bulkWriteOptions.Get(), b, r.warn)
	if err != nil {
		return nil, err
	}
	if len(models) == 0 {
		// The Node driver refuses an empty bulk write too.
		return nil, fmt.Errorf(`MongoDBBulkWrite request property "operations" is empty; a bulk write needs at least one operation.`)
	}
	coll, ctx, done, err := r.collection(ctx, common)
	if err != nil {
		return nil, err
	}
	defer done()
	res, err := coll.BulkWrite(ctx, models, b)
	if err != nil {
		return nil, r.fail(err)
	}
	upserted := jsvalue.NewObject(len(res.UpsertedIDs))
	for i, id := range res.UpsertedIDs {
		v, err := fromGo(id)
		if err != nil {
			return nil, r.fail(err)
		}
		upserted.Set(strconv.FormatInt(i, 10), v) // array-index keys sort as in JavaScript
	}
	return jsvalue.ObjectOf(
		"insertedCount", float64(res.InsertedCount),
		"matchedCount", float64(res.MatchedCount),
		"modifiedCount", float64(res.ModifiedCount),
		"deletedCount", float64(res.DeletedCount),
		"upsertedCount", float64(res.UpsertedCount),
		"upsertedIds", upserted,
		"insertedIds", inserted,
	), nil
}
