package render_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections/mongodb/mongotest"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/render"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// crudApp copies the crud example app with a database of its own on the shared FerretDB,
// seeded with lowdefytest's testdata/crud-seed.json (two brands, their products).
func crudApp(t *testing.T) *lowdefytest.App {
	t.Helper()
	return lowdefytest.SeededCrud(t, mongotest.Shared(t).URI, mongotest.DatabaseName(t))
}

// The crud app's pages on MongoDB (FerretDB) through the real runtime: the brands grid, a
// brand's edit form with its confirm modal, the new-brand form, and the products page with
// its List of items and two drawers of forms.
func TestCrudPages(t *testing.T) {
	ctx := context.Background()
	e := appEngine(t, crudApp(t))

	got := render.Page(navigate(t, e, "brands"), render.Options{})
	contains(t, got, `menu=[brands:"Brands", products:"Products"]`,
		`<table id="brands_table" type="AgGridAlpine" rows=2 events=[onRowClick]>`,
		"| Name | Description |\n|---|---|\n| Bluebird | Kitchenware |\n| Northwind | Outdoor gear |")
	golden(t, "crud-brands", got)

	// A row click, as an agent triggers it, links to the brand's edit page.
	rows, _ := propOf(e.Page().RequestResults().Prop("get_brands"), "response").([]any)
	if len(rows) != 2 {
		t.Fatalf("get_brands answered %v", rows)
	}
	must(t, e.Trigger(ctx, "brands_table", "onRowClick", jsvalue.ObjectOf("row", rows[0])))
	if e.Page().ID() != "edit-brand" {
		t.Fatalf("the row click opened %s", e.Page().ID())
	}
	got = render.Page(e.Page(), render.Options{})
	contains(t, got, `<input id="name" type="TextInput" label="Name" placeholder="Brand Name" value="Bluebird">`,
		`<container id="delete_modal" type="ConfirmModal" open=false methods=[open] okText="Yes" cancelText="No" events=[onOk, onCancel]>`)
	golden(t, "crud-edit-brand", got)

	golden(t, "crud-new-brand", render.Page(navigate(t, e, "new-brand"), render.Options{}))

	got = render.Page(navigate(t, e, "products"), render.Options{})
	contains(t, got, `<list id="product_list" type="List" items=`,
		`<container id="product_list.0.container" type="Box" events=[onClick]>`,
		`<container id="new_product_drawer" type="Drawer"`)
	golden(t, "crud-products", got)

	// Opening the edit drawer from a list item shows it open with the item's values.
	must(t, e.Trigger(ctx, "product_list.0.container", "onClick", nil))
	got = render.Page(e.Page(), render.Options{})
	contains(t, got, `<container id="edit_product_drawer" type="Drawer"`, "open=true")
	golden(t, "crud-products-edit-open", got)
}

// A brand's edit page opened by its shared link (the URL the brands page's row click
// opens: edit-brand?brand_id={"_oid": …}) loads that brand, as a browser opening the link
// does; the same page opened without the query finds none.
func TestCrudEditBrandByLink(t *testing.T) {
	ctx := context.Background()
	a := crudApp(t)
	e := appEngine(t, a)
	link := "edit-brand?brand_id=" + url.QueryEscape(`{"_oid":"650000000000000000000001"}`)
	must(t, e.NavigateURL(ctx, link, nil, nil))
	got := render.Page(e.Page(), render.Options{})
	contains(t, got, `<input id="name" type="TextInput" label="Name" placeholder="Brand Name" value="Northwind">`)
	if q := e.URLQuery().String(); q != `{"brand_id":{"_oid":"650000000000000000000001"}}` {
		t.Errorf("_url_query = %s", q)
	}

	other := appEngine(t, a)
	must(t, other.NavigateURL(ctx, "edit-brand", nil, nil))
	lacks(t, render.Page(other.Page(), render.Options{}), "Northwind")
}
