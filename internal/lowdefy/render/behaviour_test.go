package render_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/render"
)

// Charts render the data a person reads off them: title, series names, categories and values
// as tables, pie slices as name/value pairs, datasets, points, radar, links, trees; a long
// series stops at MaxChartRows rows and counts the rest.
func TestChartsCarryTheirData(t *testing.T) {
	e := blocksEngine(t)
	got := render.Page(navigate(t, e, "charts"), render.Options{})
	contains(t, got,
		"<chart id=\"weekly\" type=\"EChart\" title=\"Weekly sales — 2024\">\n```\n| category | Sales | Target |\n|---|---|---|\n| Mon | 120 | 100 |\n| Tue | 200 | 100 |",
		"| Thu | 80 |  |", // ECharts' "-" is a missing value
		"| Region | value |\n|---|---|\n| North | 5 |\n| South | 9 |",
		"<chart id=\"share\" type=\"EChart\" title=\"Market share\" events=[click]>\n```\n| name | Share |\n|---|---|\n| Alpha | 40 |",
		"| product | 2015 | 2016 |\n|---|---|---|\n| Matcha | 43.3 | 85.8 |",
		"| product | sales |\n|---|---|\n| A | 1 |",
		"| Height | Weight |\n|---|---|\n| 170 | 65 |",
		"| name | Speed | Comfort |\n|---|---|---|\n| Car | 8 | 6 |",
		"| source | target | value |\n|---|---|---|\n| a | b | 5 |",
		"| x | y | value |\n|---|---|---|\n| Mon | Morning | 5 |",
		"| Fruit / Apple | 6 |",
		"| Score | 72 |",
		"| d50 | 500 |\n```\n… 10 more rows\n</chart>",
		`<display id="revenue" type="Statistic" title="Revenue" value=1234567.891>€ 1,234,567.89</display>`,
		`<display id="pending_stat" type="Statistic" title="Pending" loading>`,
		`<display id="done_pct" type="Progress" percent=100 status="success">100%</display>`,
		`<display id="failed_pct" type="Progress" percent=30 success=10 status="exception">30%</display>`,
		"| A | Office | -33.92 | 18.42 |",
		"| -33.9 | 18.4 | 3 |",
		"[0] Ordered\nStep\n[1] Shipped\nStep\n",
	)
	lacks(t, got, "| d51 |", "\n3\n")
	// The chart follows the state it reads.
	must(t, e.SetState(context.Background(), jsvalue.ObjectOf("week", []any{1.0, 2.0})))
	got = render.Page(e.Page(), render.Options{})
	contains(t, got, "| Mon | 1 | 100 |\n| Tue | 2 | 100 |\n| Wed |  | 150 |")
}

// Html is text turned into markdown, never raw markup; titles with markup read as text; a
// Result page keeps its title and subtitle; built-in types mcpbridge cannot run say so.
func TestMarkupAsText(t *testing.T) {
	e := blocksEngine(t)
	got := render.Page(navigate(t, e, "more"), render.Options{})
	contains(t, got,
		"# More blocks\n",
		"<display id=\"rich_html\" type=\"Html\">\n```markdown\n## Report\n\nSales **rose** by *12%*.\nSee [the report](https://example.com/r).\n\n- North\n- South\n```\n</display>",
		`<display id="danger_html" type="DangerousHtml">Raw HTML</display>`,
		"A **warning**\n\n- kept as markdown",
		`<container id="field_label" type="Label" title="Reference" extra="Shown under the field">`,
		`tooltip="More help"`,
		`<input id="city" type="AutoComplete" label="City" suggestions=["Oslo", "Rome", "1984"] value=null>`,
		`<display id="crumbs" type="Breadcrumb">Home / Tickets / New</display>`,
		`<container id="badge" type="Badge" count="100+">`,
		`<input id="pages" type="Pagination" total=42 value=`,
		`<display id="mobile_nav" type="MobileMenu" links=[charts:"Charts"]>`,
		"\nA span's own text.\n",
		`<input id="scanner" type="QRScanner" unsupported="QRScanner scans a QR code with the device camera;`,
		`<display id="search" type="DocSearch" unsupported=`,
		`<input id="upload" type="S3UploadButton" unsupported=`,
	)
	lacks(t, got, "<h2", "\\u003c", "style=", "alert(1)", "<script", "onclick", "<div", "Skeleton", "Saved.")

	got = render.Page(navigate(t, e, "result_page"), render.Options{})
	contains(t, got, "# Access denied\n<page id=\"result_page\" type=\"Result\" status=\"warning\" subTitle=\"Ask an admin for access.\">\n<button id=\"home\">Home</button>")
}

// Content inside a loading container shows as loading, not as the values it holds; a block
// with a skeleton shows no values while loading; a loading table hides its rows. Once loading
// ends the content shows.
func TestLoading(t *testing.T) {
	ctx := context.Background()
	e := blocksEngine(t)
	got := render.Page(navigate(t, e, "loading"), render.Options{})
	contains(t, got,
		`<container id="busy_card" type="Card" loading title="Customer">(loading)</container>`,
		`<display id="skeleton_title" type="Title" loading>(loading)</display>`,
		`<table id="busy_grid" type="AgGridAlpine" loading rows=1>(loading)</table>`,
		`<button id="busy_button" loading>Wait</button>`,
	)
	lacks(t, got, "placeholder", "Not yet", "| 1 |")
	must(t, e.Trigger(ctx, "done", "onClick", nil))
	got = render.Page(e.Page(), render.Options{})
	contains(t, got,
		"<container id=\"busy_card\" type=\"Card\" title=\"Customer\">\n<input id=\"name\" type=\"TextInput\" label=\"Name\" value=\"placeholder\">",
		"## Not yet", "| 1 |", "<button id=\"busy_button\">Wait</button>",
	)
}

// What components do to their own state shows in the next render: a Modal closes after its
// onOk succeeded, Tabs and Collapse switch, a closed Alert or Tag is gone.
func TestComponentStateRenders(t *testing.T) {
	ctx := context.Background()
	e := blocksEngine(t)
	navigate(t, e, "containers")
	must(t, e.CallMethod(ctx, "modal", "toggleOpen", nil))
	must(t, e.Trigger(ctx, "modal", "onOk", nil))
	must(t, e.Trigger(ctx, "tabs", "onChange", jsvalue.ObjectOf("activeKey", "two")))
	must(t, e.Trigger(ctx, "collapse", "onChange", jsvalue.ObjectOf("activeKey", []any{})))
	got := render.Page(e.Page(), render.Options{})
	contains(t, got,
		`<container id="modal" type="Modal" title="Edit" open=false`,
		`<tabs id="tabs" type="Tabs" active="two" events=[onChange]>`,
		`<collapse id="collapse" type="Collapse" open=[] events=[onChange]>`,
	)
	if e.Page().State().Prop("ok") != true {
		t.Error("the modal's onOk did not run")
	}
}

// The menu a page layout or Menu block shows lists only the pages the user may open.
func TestMenuFilteredByAuth(t *testing.T) {
	anon := render.Page(navigate(t, blocksEngine(t), "more"), render.Options{})
	contains(t, anon, `menu=[inputs:"Inputs", display:"Display"]>`, `<display id="nav" type="Menu" links=[inputs:"Inputs", display:"Display"] events=[onClick]>`)
	if strings.Contains(anon, "admin_only") {
		t.Errorf("an anonymous user's menu lists the admin page:\n%s", anon)
	}
	admin := render.Page(navigate(t, blocksEngineAs(t, jsvalue.ObjectOf("sub", "ada", "roles", []any{"admin"})), "more"), render.Options{})
	contains(t, admin, `menu=[inputs:"Inputs", display:"Display", admin_only:"Admin"]>`)
}
