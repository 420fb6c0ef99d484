package mongodb

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// This file maps the `options` a Lowdefy request passes to the Node driver (4.13, which
// @lowdefy/connection-mongodb 4.0.0-rc.11 uses) onto the Go driver's option builders.
//
// The Node driver ignores options it does not know, so an app that works in Lowdefy may
// carry some; they are ignored here too, with a warning in the log. A known option with
// a value of the wrong type is an error naming the option.

// setter applies one option value to a builder B.
type setter[B any] func(b B, v any, path string) error

// opCommon are the options every request type understands apart from its builder:
// maxTimeMS (a deadline; the Go driver's v2 API has no per-operation maxTimeMS) and the
// collection-level concerns.
type opCommon struct {
	maxTime time.Duration
	coll    []options.Lister[options.CollectionOptions]
}

// applyOptions reads a request's `options` object into b using table, and returns the
// common options. typ is the request type (for messages).
func applyOptions[B any](typ string, opts any, table map[string]setter[B], b B, warn func(msg string, args ...any)) (opCommon, error) {
	var c opCommon
	if jsvalue.IsNullish(opts) {
		return c, nil
	}
	o, ok := opts.(*jsvalue.Object)
	if !ok {
		return c, fmt.Errorf("%s request property \"options\" should be an object.", typ)
	}
	var err error
	o.Range(func(k string, v any) bool {
		if jsvalue.IsUndefined(v) {
			return true
		}
		path := "options." + k
		if s, ok := table[k]; ok {
			err = s(b, v, path)
		} else if s, ok := commonOptions.Get()[k]; ok {
			err = s(&c, v, path)
		} else if _, ok := nodeOnlyOptions.Get()[k]; ok {
			// Options about the Node driver's own behaviour (sessions, BSON decoding);
			// nothing to do in Go.
		} else {
			names := append(slices.Collect(maps.Keys(table)), "maxTimeMS", "readConcern", "readPreference", "writeConcern")
			slices.Sort(names)
			warn("MongoDB request option not supported; it is ignored",
				"requestType", typ, "option", k, "supported", strings.Join(names, ", "))
		}
		if err != nil {
			err = fmt.Errorf("%s request %w", typ, err)
			return false
		}
		return true
	})
	return c, err
}

// nodeOnlyOptions are Node driver options without meaning here. The table is built on
// first use.
var nodeOnlyOptions = lazy.Value[map[string]struct{}]{New: func() map[string]struct{} {
	return map[string]struct{}{
		"session": {}, "raw": {}, "promoteLongs": {}, "promoteValues": {}, "promoteBuffers": {},
		"bsonRegExp": {}, "fieldsAsRaw": {}, "serializeFunctions": {}, "ignoreUndefined": {},
		"checkKeys": {}, "enableUtf8Validation": {}, "useBigInt64": {}, "forceServerObjectId": {},
		"retryWrites": {}, "explain": {}, "dbName": {}, "authdb": {}, "willRetryWrite": {},
		"timeout": {}, "awaitData": {}, "tailable": {}, "oplogReplay": {}, "partial": {},
	}
}}

var commonOptions = lazy.Value[map[string]setter[*opCommon]]{New: func() map[string]setter[*opCommon] {
	return map[string]setter[*opCommon]{
		"maxTimeMS": func(c *opCommon, v any, path string) error {
			ms, err := number(v, path)
			if err != nil {
				return err
			}
			if ms > 0 {
				c.maxTime = time.Duration(ms * float64(time.Millisecond))
			}
			return nil
		},
		"readConcern": func(c *opCommon, v any, path string) error {
			rc, err := readConcern(v, path)
			if err != nil {
				return err
			}
			c.coll = append(c.coll, options.Collection().SetReadConcern(rc))
			return nil
		},
		"readPreference": func(c *opCommon, v any, path string) error {
			rp, err := readPreference(v, path)
			if err != nil {
				return err
			}
			c.coll = append(c.coll, options.Collection().SetReadPreference(rp))
			return nil
		},
		"writeConcern": func(c *opCommon, v any, path string) error {
			wc, err := writeConcern(v, path)
			if err != nil {
				return err
			}
			c.coll = append(c.coll, options.Collection().SetWriteConcern(wc))
			return nil
		},
		"w": func(c *opCommon, v any, path string) error {
			wc, err := writeConcern(jsvalue.ObjectOf("w", v), path)
			if err != nil {
				return err
			}
			c.coll = append(c.coll, options.Collection().SetWriteConcern(wc))
			return nil
		},
	}
}}

// The value readers. Each names the option in its error.

func number(v any, path string) (float64, error) {
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) {
		return 0, fmt.Errorf("property %q should be a number", path)
	}
	return f, nil
}

func integer(v any, path string) (int64, error) {
	f, err := number(v, path)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, fmt.Errorf("property %q should be an integer", path)
	}
	return int64(f), nil
}

func boolean(v any, path string) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("property %q should be true or false", path)
	}
	return b, nil
}

func document(v any, path string) (bson.D, error) {
	if _, ok := v.(*jsvalue.Object); !ok {
		return nil, fmt.Errorf("property %q should be an object", path)
	}
	return toDocument(v, path)
}

// anyValue converts a value that may be of any BSON type (comment).
func anyValue(v any, path string) (any, error) { return toBSON(v, path) }

// hint is an index name or an index key document.
func hint(v any, path string) (any, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return document(v, path)
}

// sortSpec reads the sort forms the Node driver accepts: {a: 1, b: -1}, "a", ["a", "b"],
// ["a", -1] and [["a", 1], ["b", "desc"]]; directions are 1, -1, "asc", "desc",
// "ascending", "descending" or a {$meta: …} object.
func sortSpec(v any, path string) (bson.D, error) {
	switch x := v.(type) {
	case string:
		return bson.D{{Key: x, Value: int32(1)}}, nil
	case *jsvalue.Object:
		d := make(bson.D, 0, x.Len())
		var err error
		x.Range(func(k string, dir any) bool {
			var b any
			b, err = sortDirection(dir, path+"."+k)
			d = append(d, bson.E{Key: k, Value: b})
			return err == nil
		})
		return d, err
	case []any:
		if len(x) == 2 {
			if k, ok := x[0].(string); ok {
				if _, isArr := x[1].([]any); !isArr {
					if _, isStr := x[1].(string); !isStr || isDirection(x[1]) {
						dir, err := sortDirection(x[1], path+".1")
						if err != nil {
							return nil, err
						}
						return bson.D{{Key: k, Value: dir}}, nil
					}
				}
			}
		}
		var d bson.D
		for i, item := range x {
			switch it := item.(type) {
			case string:
				d = append(d, bson.E{Key: it, Value: int32(1)})
			case []any:
				k, ok := it[0].(string)
				if len(it) != 2 || !ok {
					return nil, fmt.Errorf("property \"%s.%d\" should be a [field, direction] pair", path, i)
				}
				dir, err := sortDirection(it[1], fmt.Sprintf("%s.%d.1", path, i))
				if err != nil {
					return nil, err
				}
				d = append(d, bson.E{Key: k, Value: dir})
			default:
				return nil, fmt.Errorf("property \"%s.%d\" should be a field name or a [field, direction] pair", path, i)
			}
		}
		return d, nil
	}
	return nil, fmt.Errorf("property %q should be an object such as {name: 1, date: -1}", path)
}

func isDirection(v any) bool {
	s, _ := v.(string)
	switch strings.ToLower(s) {
	case "asc", "desc", "ascending", "descending":
		return true
	}
	return false
}

func sortDirection(v any, path string) (any, error) {
	switch x := v.(type) {
	case float64:
		if x == 1 || x == -1 {
			return int32(x), nil
		}
	case string:
		switch strings.ToLower(x) {
		case "asc", "ascending":
			return int32(1), nil
		case "desc", "descending":
			return int32(-1), nil
		}
	case *jsvalue.Object:
		if x.Has("$meta") {
			return toDocument(x, path)
		}
	}
	return nil, fmt.Errorf("property %q should be a sort direction: 1, -1, \"asc\" or \"desc\"", path)
}

// collation reads {locale, caseLevel, caseFirst, strength, numericOrdering, alternate,
// maxVariable, normalization, backwards}.
func collation(v any, path string) (*options.Collation, error) {
	o, ok := v.(*jsvalue.Object)
	if !ok {
		return nil, fmt.Errorf("property %q should be an object such as {locale: \"en\"}", path)
	}
	c := &options.Collation{}
	var err error
	o.Range(func(k string, val any) bool {
		p := path + "." + k
		switch k {
		case "locale":
			c.Locale, err = str(val, p)
		case "caseLevel":
			c.CaseLevel, err = boolean(val, p)
		case "caseFirst":
			c.CaseFirst, err = str(val, p)
		case "strength":
			var n int64
			n, err = integer(val, p)
			c.Strength = int(n)
		case "numericOrdering":
			c.NumericOrdering, err = boolean(val, p)
		case "alternate":
			c.Alternate, err = str(val, p)
		case "maxVariable":
			c.MaxVariable, err = str(val, p)
		case "normalization":
			c.Normalization, err = boolean(val, p)
		case "backwards":
			c.Backwards, err = boolean(val, p)
		default:
			err = fmt.Errorf("property %q is not a collation field (locale, caseLevel, caseFirst, strength, numericOrdering, alternate, maxVariable, normalization, backwards)", p)
		}
		return err == nil
	})
	if err == nil && c.Locale == "" {
		err = fmt.Errorf("property \"%s.locale\" is required", path)
	}
	return c, err
}

func str(v any, path string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("property %q should be a string", path)
	}
	return s, nil
}

func documents(v any, path string) ([]any, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("property %q should be an array of objects", path)
	}
	out := make([]any, len(a))
	for i, item := range a {
		d, err := document(item, fmt.Sprintf("%s.%d", path, i))
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

func readConcern(v any, path string) (*readconcern.ReadConcern, error) {
	level, ok := v.(string)
	if o, isObj := v.(*jsvalue.Object); isObj {
		level, ok = o.Prop("level").(string)
		path += ".level"
	}
	if !ok {
		return nil, fmt.Errorf("property %q should be a read concern level such as \"majority\"", path)
	}
	return &readconcern.ReadConcern{Level: level}, nil
}

func readPreference(v any, path string) (*readpref.ReadPref, error) {
	mode, ok := v.(string)
	if o, isObj := v.(*jsvalue.Object); isObj {
		mode, ok = o.Prop("mode").(string)
		path += ".mode"
	}
	if !ok {
		return nil, fmt.Errorf("property %q should be a read preference such as \"secondaryPreferred\"", path)
	}
	m, err := readpref.ModeFromString(mode)
	if err != nil {
		return nil, fmt.Errorf("property %q: %w", path, err)
	}
	rp, err := readpref.New(m)
	if err != nil {
		return nil, fmt.Errorf("property %q: %w", path, err)
	}
	return rp, nil
}

// writeConcern reads {w, j, journal, wtimeout, wtimeoutMS}; w is a number or a tag such
// as "majority". The timeout has no equivalent in the Go driver's v2 API and is ignored.
func writeConcern(v any, path string) (*writeconcern.WriteConcern, error) {
	o, ok := v.(*jsvalue.Object)
	if !ok {
		return nil, fmt.Errorf("property %q should be an object such as {w: \"majority\"}", path)
	}
	wc := &writeconcern.WriteConcern{}
	var err error
	o.Range(func(k string, val any) bool {
		p := path + "." + k
		switch k {
		case "w":
			switch x := val.(type) {
			case string:
				wc.W = x
			case float64:
				var n int64
				n, err = integer(x, p)
				wc.W = int(n)
			default:
				err = fmt.Errorf("property %q should be a number or a string such as \"majority\"", p)
			}
		case "j", "journal":
			var j bool
			j, err = boolean(val, p)
			wc.Journal = &j
		case "wtimeout", "wtimeoutMS":
		default:
			err = fmt.Errorf("property %q is not a write concern field (w, j, wtimeoutMS)", p)
		}
		return err == nil
	})
	return wc, err
}

// The tables of each request type's options, named as the Node driver names them. They are
// built on first use.

var findOptions = lazy.Value[map[string]setter[*options.FindOptionsBuilder]]{New: func() map[string]setter[*options.FindOptionsBuilder] {
	return map[string]setter[*options.FindOptionsBuilder]{
		"sort": func(b *options.FindOptionsBuilder, v any, p string) error {
			s, err := sortSpec(v, p)
			b.SetSort(s)
			return err
		},
		"projection": func(b *options.FindOptionsBuilder, v any, p string) error {
			d, err := document(v, p)
			b.SetProjection(d)
			return err
		},
		"limit": func(b *options.FindOptionsBuilder, v any, p string) error {
			n, err := integer(v, p)
			b.SetLimit(n)
			return err
		},
		"skip": func(b *options.FindOptionsBuilder, v any, p string) error {
			n, err := integer(v, p)
			b.SetSkip(n)
			return err
		},
		"batchSize": func(b *options.FindOptionsBuilder, v any, p string) error {
			n, err := integer(v, p)
			b.SetBatchSize(int32(n))
			return err
		},
		"hint": func(b *options.FindOptionsBuilder, v any, p string) error {
			h, err := hint(v, p)
			b.SetHint(h)
			return err
		},
		"collation": func(b *options.FindOptionsBuilder, v any, p string) error {
			c, err := collation(v, p)
			b.SetCollation(c)
			return err
		},
		"comment": func(b *options.FindOptionsBuilder, v any, p string) error {
			c, err := anyValue(v, p)
			b.SetComment(c)
			return err
		},
		"let": func(b *options.FindOptionsBuilder, v any, p string) error {
			d, err := document(v, p)
			b.SetLet(d)
			return err
		},
		"min": func(b *options.FindOptionsBuilder, v any, p string) error {
			d, err := document(v, p)
			b.SetMin(d)
			return err
		},
		"max": func(b *options.FindOptionsBuilder, v any, p string) error {
			d, err := document(v, p)
			b.SetMax(d)
			return err
		},
		"allowDiskUse": func(b *options.FindOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetAllowDiskUse(x)
			return err
		},
		"allowPartialResults": func(b *options.FindOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetAllowPartialResults(x)
			return err
		},
		"noCursorTimeout": func(b *options.FindOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetNoCursorTimeout(x)
			return err
		},
		"returnKey": func(b *options.FindOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetReturnKey(x)
			return err
		},
		"showRecordId": func(b *options.FindOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetShowRecordID(x)
			return err
		},
	}
}}

var findOneOptions = lazy.Value[map[string]setter[*options.FindOneOptionsBuilder]]{New: func() map[string]setter[*options.FindOneOptionsBuilder] {
	return map[string]setter[*options.FindOneOptionsBuilder]{
		"sort": func(b *options.FindOneOptionsBuilder, v any, p string) error {
			s, err := sortSpec(v, p)
			b.SetSort(s)
			return err
		},
		"projection": func(b *options.FindOneOptionsBuilder, v any, p string) error {
			d, err := document(v, p)
			b.SetProjection(d)
			return err
		},
		"skip": func(b *options.FindOneOptionsBuilder, v any, p string) error {
			n, err := integer(v, p)
			b.SetSkip(n)
			return err
		},
		"hint": func(b *options.FindOneOptionsBuilder, v any, p string) error {
			h, err := hint(v, p)
			b.SetHint(h)
			return err
		},
		"collation": func(b *options.FindOneOptionsBuilder, v any, p string) error {
			c, err := collation(v, p)
			b.SetCollation(c)
			return err
		},
		"comment": func(b *options.FindOneOptionsBuilder, v any, p string) error {
			c, err := anyValue(v, p)
			b.SetComment(c)
			return err
		},
		"min": func(b *options.FindOneOptionsBuilder, v any, p string) error {
			d, err := document(v, p)
			b.SetMin(d)
			return err
		},
		"max": func(b *options.FindOneOptionsBuilder, v any, p string) error {
			d, err := document(v, p)
			b.SetMax(d)
			return err
		},
		"allowPartialResults": func(b *options.FindOneOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetAllowPartialResults(x)
			return err
		},
		"returnKey": func(b *options.FindOneOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetReturnKey(x)
			return err
		},
		"showRecordId": func(b *options.FindOneOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetShowRecordID(x)
			return err
		},
	}
}}

var aggregateOptions = lazy.Value[map[string]setter[*options.AggregateOptionsBuilder]]{New: func() map[string]setter[*options.AggregateOptionsBuilder] {
	return map[string]setter[*options.AggregateOptionsBuilder]{
		"allowDiskUse": func(b *options.AggregateOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetAllowDiskUse(x)
			return err
		},
		"batchSize": func(b *options.AggregateOptionsBuilder, v any, p string) error {
			n, err := integer(v, p)
			b.SetBatchSize(int32(n))
			return err
		},
		"bypassDocumentValidation": func(b *options.AggregateOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetBypassDocumentValidation(x)
			return err
		},
		"collation": func(b *options.AggregateOptionsBuilder, v any, p string) error {
			c, err := collation(v, p)
			b.SetCollation(c)
			return err
		},
		"comment": func(b *options.AggregateOptionsBuilder, v any, p string) error {
			c, err := anyValue(v, p)
			b.SetComment(c)
			return err
		},
		"hint": func(b *options.AggregateOptionsBuilder, v any, p string) error {
			h, err := hint(v, p)
			b.SetHint(h)
			return err
		},
		"let": func(b *options.AggregateOptionsBuilder, v any, p string) error {
			d, err := document(v, p)
			b.SetLet(d)
			return err
		},
		"maxAwaitTimeMS": func(b *options.AggregateOptionsBuilder, v any, p string) error {
			ms, err := number(v, p)
			b.SetMaxAwaitTime(time.Duration(ms * float64(time.Millisecond)))
			return err
		},
	}
}}

var insertOneOptions = lazy.Value[map[string]setter[*options.InsertOneOptionsBuilder]]{New: func() map[string]setter[*options.InsertOneOptionsBuilder] {
	return map[string]setter[*options.InsertOneOptionsBuilder]{
		"bypassDocumentValidation": func(b *options.InsertOneOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetBypassDocumentValidation(x)
			return err
		},
		"comment": func(b *options.InsertOneOptionsBuilder, v any, p string) error {
			c, err := anyValue(v, p)
			b.SetComment(c)
			return err
		},
	}
}}

var insertManyOptions = lazy.Value[map[string]setter[*options.InsertManyOptionsBuilder]]{New: func() map[string]setter[*options.InsertManyOptionsBuilder] {
	return map[string]setter[*options.InsertManyOptionsBuilder]{
		"bypassDocumentValidation": func(b *options.InsertManyOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetBypassDocumentValidation(x)
			return err
		},
		"comment": func(b *options.InsertManyOptionsBuilder, v any, p string) error {
			c, err := anyValue(v, p)
			b.SetComment(c)
			return err
		},
		"ordered": func(b *options.InsertManyOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetOrdered(x)
			return err
		},
	}
}}

var updateOneOptions = lazy.Value[map[string]setter[*options.UpdateOneOptionsBuilder]]{New: func() map[string]setter[*options.UpdateOneOptionsBuilder] {
	return map[string]setter[*options.UpdateOneOptionsBuilder]{
		"upsert": func(b *options.UpdateOneOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetUpsert(x)
			return err
		},
		"arrayFilters": func(b *options.UpdateOneOptionsBuilder, v any, p string) error {
			a, err := documents(v, p)
			b.SetArrayFilters(a)
			return err
		},
		"bypassDocumentValidation": func(b *options.UpdateOneOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetBypassDocumentValidation(x)
			return err
		},
		"collation": func(b *options.UpdateOneOptionsBuilder, v any, p string) error {
			c, err := collation(v, p)
			b.SetCollation(c)
			return err
		},
		"comment": func(b *options.UpdateOneOptionsBuilder, v any, p string) error {
			c, err := anyValue(v, p)
			b.SetComment(c)
			return err
		},
		"hint": func(b *options.UpdateOneOptionsBuilder, v any, p string) error {
			h, err := hint(v, p)
			b.SetHint(h)
			return err
		},
		"let": func(b *options.UpdateOneOptionsBuilder, v any, p string) error {
			d, err := document(v, p)
			b.SetLet(d)
			return err
		},
	}
}}

var updateManyOptions = lazy.Value[map[string]setter[*options.UpdateManyOptionsBuilder]]{New: func() map[string]setter[*options.UpdateManyOptionsBuilder] {
	return map[string]setter[*options.UpdateManyOptionsBuilder]{
		"upsert": func(b *options.UpdateManyOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetUpsert(x)
			return err
		},
		"arrayFilters": func(b *options.UpdateManyOptionsBuilder, v any, p string) error {
			a, err := documents(v, p)
			b.SetArrayFilters(a)
			return err
		},
		"bypassDocumentValidation": func(b *options.UpdateManyOptionsBuilder, v any, p string) error {
			x, err := boolean(v, p)
			b.SetBypassDocumentValidation(x)
			return err
		},
		"collation": func(b *options.UpdateManyOptionsBuilder, v any, p string) error {
			c, err := collation(v, p)
			b.SetCollation(c)
			return err
		},
		"comment": func(b *options.UpdateManyOptionsBuilder, v any, p string) error {
			c, err := anyValue(v, p)
			b.SetComment(c)
			return err
		},
		"hint": func(b *options.UpdateManyOptionsBuilder, v any, p string) error {
			h, err := hint(v, p)
			b.SetHint(h)
			return err
		},
		"let": func(b *options.UpdateManyOptionsBuilder, v any, p string) error {
			d, err := document(v, p)
			b.SetLet(d)
			return err
		},
	}
}}

var deleteOneOptions = lazy.Value[map[string]setter[*options.DeleteOneOptionsBuilder]]{New: func() map[string]setter[*options.DeleteOneOptionsBuilder] {
	return map[string]setter[*options.DeleteOneOptionsBuilder]{
		"collation": func(b *options.DeleteOneOptionsBuilder, v any, p string) error {
			c, err := collation(v, p)
			b.SetCollation(c)
			return err
		},
		"comment": func(b *options.DeleteOneOptionsBuilder, v any, p string) error {
			c, err := anyValue(v, p)
			b.SetComment(c)
			return err
		},
		"hint": func(b *options.DeleteOneOptionsBuilder, v any, p string) error {
			h, err := hint(v, p)
			b.SetHint(h)
			return err
		},
		"let": func(b *options.DeleteOneOptionsBuilder, v any, p string) error {
			d, err := document(v, p)
			b.SetLet(d)
			return err
		},
	}
}}

var deleteManyOptions = lazy.Value[map[string]setter[*options.DeleteManyOptionsBuilder]]{New: func() map[string]setter[*options.DeleteManyOptionsBuilder] {
	return map[string]setter[*options.DeleteManyOptionsBuilder]{
		"collation": func(b *options.DeleteManyOptionsBuilder, v any, p string) error {
			c, err := collation(v, p)
			b.SetCollation(c)
			return err
		},
		"comment": func(b *options.DeleteManyOptionsBuilder, v any, p string) error {
			c, err := anyValue(v, p)
			b.SetComment(c)
			return err
		},
		"hint": func(b *options.DeleteManyOptionsBuilder, v any, p string) error {
			h, err := hint(v, p)
			b.SetHint(h)
			return err
		},
		"let": func(b *options.DeleteManyOptionsBuilder, v any, p string) error {
			d, err := document(v, p)
			b.SetLet(d)
			return err
		},
	}
}}
