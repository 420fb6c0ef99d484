package mongodb

import (
	"math"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// TestFromRawTypes checks the Lowdefy form of every BSON type: what JSON.stringify makes
// of the Node driver's value (bson 4.7 toJSON methods) after the plugin's serializer.
func TestFromRawTypes(t *testing.T) {
	oid := bson.NewObjectIDFromTimestamp(time.Unix(1700000000, 0))
	dec, err := bson.ParseDecimal128("1.50")
	if err != nil {
		t.Fatal(err)
	}
	doc := bson.D{
		{Key: "z", Value: int32(3)},
		{Key: "a", Value: int64(1) << 40},
		{Key: "d", Value: 2.5},
		{Key: "oid", Value: oid},
		{Key: "date", Value: bson.DateTime(1700000000123)},
		{Key: "dec", Value: dec},
		{Key: "bin", Value: bson.Binary{Subtype: 0, Data: []byte("hi")}},
		{Key: "ts", Value: bson.Timestamp{T: 1, I: 2}},
		{Key: "re", Value: bson.Regex{Pattern: "a.*", Options: "i"}},
		{Key: "undef", Value: bson.Undefined{}},
		{Key: "arr", Value: bson.A{bson.Undefined{}, oid, nil}},
		{Key: "sym", Value: bson.Symbol("s")},
		{Key: "code", Value: bson.JavaScript("f()")},
		{Key: "min", Value: bson.MinKey{}},
		{Key: "2", Value: "index keys come first, as in JavaScript"},
	}
	raw, err := bson.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	o, err := fromRaw(raw)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := serial.Stringify(o, "", false)
	want := `{"2":"index keys come first, as in JavaScript","z":3,"a":1099511627776,"d":2.5,` +
		`"oid":{"_oid":"` + oid.Hex() + `"},"date":{"~d":1700000000123},"dec":{"$numberDecimal":"1.50"},` +
		`"bin":"aGk=","ts":{"$timestamp":"4294967298"},"re":{},"arr":[null,{"_oid":"` + oid.Hex() + `"},null],` +
		`"sym":"s","code":{"code":"f()"},"min":{}}`
	if got != want {
		t.Errorf("fromRaw:\n got %s\nwant %s", got, want)
	}
	if _, ok := o.Prop("date").(time.Time); !ok {
		t.Errorf("date is %T, want time.Time", o.Prop("date"))
	}
}

// TestToBSON checks the request side: the JSON round trip of serializer.copy and the
// Node driver's number encoding.
func TestToBSON(t *testing.T) {
	when := time.UnixMilli(1700000000123).UTC()
	in := jsvalue.ObjectOf(
		"i", 5.0, "neg0", math.Copysign(0, -1), "big", 2147483648.0, "f", 0.5,
		"nan", math.NaN(), "inf", math.Inf(1),
		"u", jsvalue.Undefined, "fn", jsvalue.Func(nil),
		"arr", []any{jsvalue.Undefined, jsvalue.Func(nil), 1.0},
		"date", when, "marker", jsvalue.ObjectOf("~d", "2023-11-14T22:13:20.123Z"),
		"badMarker", jsvalue.ObjectOf("~d", "not a date"),
		"oid", jsvalue.ObjectOf("_oid", "65a1b2c3d4e5f6a7b8c9d0e1", "ignored", 1.0),
		"err", jsvalue.ObjectOf("~e", jsvalue.ObjectOf("name", "TypeError", "message", "m")),
	)
	d, err := toDocument(in, "doc")
	if err != nil {
		t.Fatal(err)
	}
	oid, _ := bson.ObjectIDFromHex("65a1b2c3d4e5f6a7b8c9d0e1")
	want := bson.D{
		{Key: "i", Value: int32(5)}, {Key: "neg0", Value: int32(0)}, {Key: "big", Value: 2147483648.0}, {Key: "f", Value: 0.5},
		{Key: "nan", Value: nil}, {Key: "inf", Value: nil},
		{Key: "arr", Value: bson.A{nil, nil, int32(1)}},
		{Key: "date", Value: bson.DateTime(1700000000123)}, {Key: "marker", Value: bson.DateTime(1700000000123)},
		{Key: "badMarker", Value: bson.D{{Key: "~d", Value: "not a date"}}},
		{Key: "oid", Value: oid},
		{Key: "err", Value: bson.D{{Key: "name", Value: "TypeError"}}},
	}
	gotRaw, _ := bson.MarshalExtJSON(d, true, false)
	wantRaw, _ := bson.MarshalExtJSON(want, true, false)
	if string(gotRaw) != string(wantRaw) {
		t.Errorf("toDocument:\n got %s\nwant %s", gotRaw, wantRaw)
	}
	if _, err := toDocument([]any{}, "filter"); err == nil || err.Error() != "filter should be an object" {
		t.Errorf("array as document: err = %v", err)
	}
}

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ uri, msg, want string }{
		{"mongodb://u:p%40ss@h/db", "bad mongodb://u:p%40ss@h/db here", "bad <databaseUri> here"},
		{"mongodb://u:p%40ss@h/db", "auth failed for p@ss and p%40ss", "auth failed for xxxxx and xxxxx"},
		{"mongodb+srv://u:pw@cluster/x?y=1", "x pw y", "x xxxxx y"},
		{"mongodb://h:27017/db", "dial h:27017 refused", "dial h:27017 refused"},
		{"mongodb://u@h/db", "user u", "user u"},
	} {
		if got := redact(tc.msg, tc.uri); got != tc.want {
			t.Errorf("redact(%q, %q) = %q, want %q", tc.msg, tc.uri, got, tc.want)
		}
	}
}

func TestURIDatabase(t *testing.T) {
	for uri, want := range map[string]string{
		"mongodb://h/db":                  "db",
		"mongodb://h1:1,h2:2/my%20db?x=1": "my db",
		"mongodb://h/?x=1":                "test",
		"mongodb://h":                     "test",
		"mongodb+srv://u:p@c.example/app": "app",
	} {
		if got := uriDatabase(uri); got != want {
			t.Errorf("uriDatabase(%q) = %q, want %q", uri, got, want)
		}
	}
}

func TestSortSpec(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": 1, "b": -1}`:                 `{"a": {"$numberInt":"1"},"b": {"$numberInt":"-1"}}`,
		`"a"`:                               `{"a": {"$numberInt":"1"}}`,
		`["a", "desc"]`:                     `{"a": {"$numberInt":"-1"}}`,
		`["a", "b"]`:                        `{"a": {"$numberInt":"1"},"b": {"$numberInt":"1"}}`,
		`[["a", 1], ["b", "descending"]]`:   `{"a": {"$numberInt":"1"},"b": {"$numberInt":"-1"}}`,
		`{"score": {"$meta": "textScore"}}`: `{"score": {"$meta": "textScore"}}`,
		`{"a": 2}`:                          `error: property "options.sort.a" should be a sort direction`,
		`5`:                                 `error: property "options.sort" should be an object`,
	} {
		v, err := serial.Unmarshal([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		d, err := sortSpec(v, "options.sort")
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			raw, _ := bson.Marshal(d)
			got = bson.Raw(raw).String()
		}
		if !strings.HasPrefix(got, want) {
			t.Errorf("sortSpec(%s) = %s, want %s", in, got, want)
		}
	}
}
