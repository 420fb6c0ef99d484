package mongodb_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections/mongodb"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/operators"
	"github.com/mcpbridge/mcpbridge/internal/testenv"
)

// crudDir is Lowdefy's example CRUD app, in ../shared/lowdefy-apps beside the repository
// (or $LOWDEFY_APPS).
func crudDir(t testing.TB) string {
	t.Helper()
	return filepath.Join(testenv.LowdefyApps(t), "crud")
}

// crudApp runs the requests of the crud app the way the server does: the connection's and
// the request's properties evaluated with the server parser over the payload and the
// secrets, then the connection type's checks and Run.
type crudApp struct {
	t     *testing.T
	app   *app.App
	set   connections.Set
	deps  *connections.Deps
	uri   string
	db    string
	calls map[string]int
}

func (c *crudApp) request(pageID, requestID string, payload string) any {
	t := c.t
	t.Helper()
	page := c.app.Page(pageID)
	if page == nil {
		t.Fatalf("no page %s", pageID)
	}
	r := page.Request(requestID)
	if r == nil {
		t.Fatalf("no request %s on page %s", requestID, pageID)
	}
	cn := c.app.Connection(r.ConnectionID)
	if cn == nil {
		t.Fatalf("request %s: no connection %s", requestID, r.ConnectionID)
	}
	typ, rt, err := c.set.Lookup(cn.Type, r.Type)
	if err != nil {
		t.Fatalf("request %s: %v", requestID, err)
	}
	pctx := &operators.Context{
		Secrets: jsvalue.ObjectOf("EXAMPLES_MDB", c.uri),
		Payload: obj(t, payload).(*jsvalue.Object),
	}
	p := operators.NewServerParser(pctx)
	connProps, errs := p.Parse(context.Background(), cn.Properties, r.ConnectionID, nil, nil)
	if len(errs) > 0 {
		t.Fatalf("connection %s: %v", r.ConnectionID, errs)
	}
	props := connProps.(*jsvalue.Object).Clone()
	props.Set("databaseName", c.db) // the test's own database instead of example-crud
	reqProps, errs := p.Parse(context.Background(), r.Config.Prop("properties"), requestID, nil, nil)
	if len(errs) > 0 {
		t.Fatalf("request %s: %v", requestID, errs)
	}
	if rt.CheckRead && props.Prop("read") == false || rt.CheckWrite && props.Prop("write") != true {
		t.Fatalf("request %s refused by the connection's read/write rules", requestID)
	}
	if err := typ.Check(props); err != nil {
		t.Fatalf("connection %s: %v", r.ConnectionID, err)
	}
	if err := rt.Check(reqProps); err != nil {
		t.Fatalf("request %s: %v", requestID, err)
	}
	res, err := rt.Run(context.Background(), &connections.Call{
		PageID: pageID, RequestID: requestID, ConnectionID: r.ConnectionID,
		Connection: props, Request: reqProps, Deps: c.deps,
	})
	if err != nil {
		t.Fatalf("request %s: %v", requestID, err)
	}
	c.calls[requestID]++
	return res
}

// TestCrudApp loads Lowdefy's example CRUD app, checks that every request it has is of a
// type this connection supports, and runs all ten requests through a create, read,
// update and delete of a brand and a product.
func TestCrudApp(t *testing.T) {
	a, err := app.Load(crudDir(t), app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	set := connections.Set{mongodb.Name: mongodb.Type()}
	var types, ids []string
	for _, cn := range a.Connections {
		if cn.Type != mongodb.Name {
			t.Errorf("connection %s has type %s, want %s", cn.ID, cn.Type, mongodb.Name)
		}
	}
	for _, page := range a.Pages {
		for _, r := range page.Requests {
			cn := a.Connection(r.ConnectionID)
			if cn == nil {
				t.Errorf("request %s: no connection %q", r.ID, r.ConnectionID)
				continue
			}
			if _, _, err := set.Lookup(cn.Type, r.Type); err != nil {
				t.Errorf("request %s on page %s: %v", r.ID, page.ID, err)
			}
			types = append(types, r.Type)
			ids = append(ids, page.ID+"/"+r.ID)
		}
	}
	slices.Sort(types)
	types = slices.Compact(types)
	if len(ids) != 10 {
		t.Errorf("found %d requests in the crud app, want 10: %v", len(ids), ids)
	}
	if want := []string{"MongoDBAggregation", "MongoDBDeleteOne", "MongoDBFindOne", "MongoDBInsertOne", "MongoDBUpdateOne"}; !slices.Equal(types, want) {
		t.Errorf("request types %v, want %v", types, want)
	}

	e := newEnv(t)
	c := &crudApp{t: t, app: a, set: set, deps: e.deps, uri: e.uri, db: e.db, calls: map[string]int{}}

	// brands: new, list, view, edit.
	ins := c.request("new-brand", "insert_brand", `{"name": "Acme", "description": "Tools"}`).(*jsvalue.Object)
	brandID := ins.Prop("insertedId").(*jsvalue.Object)
	if ins.Prop("acknowledged") != true || len(brandID.Prop("_oid").(string)) != 24 {
		t.Fatalf("insert_brand = %s", js(t, ins))
	}
	c.request("new-brand", "insert_brand", `{"name": "Bolt", "description": "Fasteners"}`)
	oid := js(t, brandID)

	brands := c.request("brands", "get_brands", `{}`).([]any)
	if len(brands) != 2 {
		t.Fatalf("get_brands = %s", js(t, brands))
	}
	first := brands[0].(*jsvalue.Object)
	if got := strings.Join(first.Keys(), ","); got != "_id,name,description,created_at,updated_at" {
		t.Errorf("brand fields %s, want the order of insert_brand's doc after _id", got)
	}
	if first.Prop("name") != "Acme" || js(t, first.Prop("_id")) != oid {
		t.Errorf("first brand = %s", js(t, first))
	}
	if _, ok := first.Prop("created_at").(time.Time); !ok {
		t.Errorf("created_at = %#v, want a date", first.Prop("created_at"))
	}

	got := c.request("edit-brand", "get_brand", `{"brand_id": `+oid+`}`)
	if js(t, got) != js(t, first) {
		t.Errorf("get_brand = %s, want %s", js(t, got), js(t, first))
	}
	upd := c.request("edit-brand", "update_brand", `{"_id": `+oid+`, "name": "Acme Ltd", "description": "Tools"}`)
	eq(t, "update_brand", js(t, upd), `{"acknowledged":true,"modifiedCount":1,"upsertedId":null,"upsertedCount":0,"matchedCount":1}`)
	eq(t, "renamed", js(t, c.request("edit-brand", "get_brand", `{"brand_id": `+oid+`}`).(*jsvalue.Object).Prop("name")), `"Acme Ltd"`)

	// products: the brand selector, new, list, edit, delete. (FerretDB 1.24 does not
	// evaluate field paths in $project, so only the selector's shape is checked.)
	sel := c.request("products", "brands_selector", `{}`).([]any)
	if len(sel) != 2 || strings.Join(sel[0].(*jsvalue.Object).Keys(), ",") != "label,value" {
		t.Errorf("brands_selector = %s, want [{label, value}, …]", js(t, sel))
	}
	pins := c.request("products", "insert_product", `{"new_product": {"name": "Hammer", "brand_id": `+oid+`, "description": "Steel"}}`).(*jsvalue.Object)
	productID := js(t, pins.Prop("insertedId"))
	products := c.request("products", "all_products", `{}`).([]any)
	if len(products) != 1 {
		t.Fatalf("all_products = %s", js(t, products))
	}
	p := products[0].(*jsvalue.Object)
	eq(t, "product brand_id", js(t, p.Prop("brand_id")), oid) // stored as an ObjectId, read back as {_oid}
	edit := `{"edit_product": {"_id": ` + productID + `, "name": "Mallet", "brand_id": ` + oid + `, "description": "Wood"}}`
	eq(t, "update_product", js(t, c.request("products", "update_product", edit)),
		`{"acknowledged":true,"modifiedCount":1,"upsertedId":null,"upsertedCount":0,"matchedCount":1}`)
	eq(t, "delete_product", js(t, c.request("products", "delete_product", `{"_id": `+productID+`}`)), `{"acknowledged":true,"deletedCount":1}`)
	eq(t, "no products", js(t, c.request("products", "all_products", `{}`)), `[]`)
	eq(t, "delete_brand", js(t, c.request("edit-brand", "delete_brand", `{"_id": `+oid+`}`)), `{"acknowledged":true,"deletedCount":1}`)
	if n := len(c.request("brands", "get_brands", `{}`).([]any)); n != 1 {
		t.Errorf("%d brands left, want 1", n)
	}

	for _, id := range ids {
		if c.calls[id[strings.Index(id, "/")+1:]] == 0 {
			t.Errorf("request %s was not run", id)
		}
	}
}
