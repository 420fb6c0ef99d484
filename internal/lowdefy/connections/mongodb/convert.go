package mongodb

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// This file converts between Lowdefy values (package jsvalue) and BSON the way the
// Lowdefy plugin does with @lowdefy/helpers' serializer.copy and the Node driver's BSON
// serializer (bson 4.7):
//
// Requests (deserialize): the value goes through a JSON round trip, so undefined and
// functions vanish from objects and become null in arrays, and NaN and ±Infinity become
// null. An object with a truthy `_oid` becomes ObjectId(_oid); an object with `~d` that
// makes a valid date becomes that date. Numbers that are integers in the int32 range are
// stored as int32, all others as double.
//
// Results (serialize): documents keep the server's field order; ObjectIds become
// {_oid: hex}; dates stay dates (time.Time) for the server's serializer; numbers of every
// BSON width become numbers; other BSON types take the form their toJSON gives in Node.

// toBSON converts a request value into a BSON value. path names the value in errors
// ("query._id").
func toBSON(v any, path string) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case jsvalue.UndefinedType, jsvalue.Func:
		// Only reached at the top or in arrays: JSON writes null there.
		return nil, nil
	case bool:
		return x, nil
	case float64:
		return jsNumber(x), nil
	case int:
		return jsNumber(float64(x)), nil
	case int64:
		return jsNumber(float64(x)), nil
	case string:
		return x, nil
	case time.Time:
		return bson.NewDateTimeFromTime(x), nil
	case []any:
		a := make(bson.A, 0, len(x))
		for i, item := range x {
			b, err := toBSON(item, path+"."+strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			a = append(a, b)
		}
		return a, nil
	case *jsvalue.Object:
		return objectToBSON(x, path)
	case *jsvalue.Error:
		// serializer.copy revives {~e} into an Error whose assigned name is its only
		// enumerable property; BSON stores that.
		return bson.D{{Key: "name", Value: x.Name}}, nil
	case bson.ObjectID, bson.DateTime, bson.D, bson.A:
		return x, nil
	}
	return nil, fmt.Errorf("%s: a %T cannot be stored in MongoDB; use JSON data, dates or {_oid: hex}", path, v)
}

// jsNumber stores a JavaScript number as the Node driver does: int32 when it is an integer
// that fits, double otherwise; NaN and ±Infinity are null after JSON.
func jsNumber(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	if f == math.Trunc(f) && f >= math.MinInt32 && f <= math.MaxInt32 {
		return int32(f)
	}
	return f
}

// objectToBSON converts one object, reviving {_oid} and {~d}/{~e} markers.
func objectToBSON(o *jsvalue.Object, path string) (any, error) {
	if oid := o.Prop("_oid"); jsvalue.Truthy(oid) {
		s, _ := oid.(string)
		id, err := bson.ObjectIDFromHex(s)
		if err != nil {
			return nil, fmt.Errorf("%s: {_oid: %s} is not an ObjectId; _oid must be a string of 24 hexadecimal characters", path, jsvalue.ToString(oid))
		}
		return id, nil
	}
	if o.Has("~d") || o.Has("~e") {
		switch r := serial.ReviveMarker(o).(type) {
		case time.Time:
			return bson.NewDateTimeFromTime(r), nil
		case *jsvalue.Error:
			return toBSON(r, path)
		}
	}
	d := make(bson.D, 0, o.Len())
	var err error
	o.Range(func(k string, val any) bool {
		switch val.(type) {
		case jsvalue.UndefinedType, jsvalue.Func:
			return true // JSON.stringify drops them
		}
		var b any
		b, err = toBSON(val, path+"."+k)
		if err != nil {
			return false
		}
		d = append(d, bson.E{Key: k, Value: b})
		return true
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// toDocument converts a request value that must be a document (a filter, a doc to
// insert, an update).
func toDocument(v any, path string) (bson.D, error) {
	b, err := toBSON(v, path)
	if err != nil {
		return nil, err
	}
	d, ok := b.(bson.D)
	if !ok {
		return nil, fmt.Errorf("%s should be an object", path)
	}
	return d, nil
}

// fromRaw converts a document read from MongoDB into a Lowdefy value, keeping its field
// order.
func fromRaw(doc bson.Raw) (*jsvalue.Object, error) {
	elems, err := doc.Elements()
	if err != nil {
		return nil, fmt.Errorf("read a document from MongoDB: %w", err)
	}
	o := jsvalue.NewObject(len(elems))
	for _, e := range elems {
		v, err := fromRawValue(e.Value())
		if err != nil {
			return nil, err
		}
		if _, undef := v.(jsvalue.UndefinedType); undef {
			continue // JSON drops undefined properties
		}
		o.Set(e.Key(), v)
	}
	return o, nil
}

// fromRawValue converts one BSON value (see the file comment for the forms).
func fromRawValue(v bson.RawValue) (any, error) {
	switch v.Type {
	case bson.TypeDouble:
		return v.Double(), nil
	case bson.TypeInt32:
		return float64(v.Int32()), nil
	case bson.TypeInt64:
		return float64(v.Int64()), nil
	case bson.TypeString:
		return v.StringValue(), nil
	case bson.TypeBoolean:
		return v.Boolean(), nil
	case bson.TypeNull:
		return nil, nil
	case bson.TypeUndefined:
		return jsvalue.Undefined, nil
	case bson.TypeObjectID:
		return oidObject(v.ObjectID()), nil
	case bson.TypeDateTime:
		return jsvalue.DateFromMillis(float64(v.DateTime())), nil
	case bson.TypeEmbeddedDocument:
		return fromRaw(v.Document())
	case bson.TypeArray:
		vals, err := v.Array().Values()
		if err != nil {
			return nil, fmt.Errorf("read an array from MongoDB: %w", err)
		}
		a := make([]any, len(vals))
		for i, item := range vals {
			x, err := fromRawValue(item)
			if err != nil {
				return nil, err
			}
			if _, undef := x.(jsvalue.UndefinedType); undef {
				x = nil // JSON writes undefined array items as null
			}
			a[i] = x
		}
		return a, nil
	case bson.TypeDecimal128:
		return jsvalue.ObjectOf("$numberDecimal", v.Decimal128().String()), nil
	case bson.TypeBinary:
		_, data := v.Binary()
		return base64.StdEncoding.EncodeToString(data), nil
	case bson.TypeTimestamp:
		t, i := v.Timestamp()
		return jsvalue.ObjectOf("$timestamp", strconv.FormatUint(uint64(t)<<32|uint64(i), 10)), nil
	case bson.TypeSymbol:
		return v.Symbol(), nil
	case bson.TypeJavaScript:
		return jsvalue.ObjectOf("code", v.JavaScript()), nil
	case bson.TypeCodeWithScope:
		code, scope := v.CodeWithScope()
		s, err := fromRaw(scope)
		if err != nil {
			return nil, err
		}
		return jsvalue.ObjectOf("code", code, "scope", s), nil
	case bson.TypeRegex, bson.TypeMinKey, bson.TypeMaxKey, bson.TypeDBPointer:
		// A RegExp, MinKey, MaxKey or DBPointer has no enumerable properties in Node.
		return jsvalue.NewObject(0), nil
	}
	return nil, fmt.Errorf("MongoDB returned a value of BSON type %v that Lowdefy cannot represent", v.Type)
}

// oidObject is the {_oid: hex} form of an ObjectId.
func oidObject(id bson.ObjectID) *jsvalue.Object {
	return jsvalue.ObjectOf("_oid", id.Hex())
}

// fromGo converts a Go value the driver returns (an inserted or upserted id) by encoding
// it as BSON and reading it back.
func fromGo(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	raw, err := bson.Marshal(bson.D{{Key: "v", Value: v}})
	if err != nil {
		return nil, fmt.Errorf("encode the id MongoDB returned: %w", err)
	}
	return fromRawValue(bson.Raw(raw).Lookup("v"))
}
