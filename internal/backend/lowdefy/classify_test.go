package lowdefy

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// exampleApp loads one of the real example apps (read only: nothing runs).
func exampleApp(t *testing.T, dir string) *app.App {
	t.Helper()
	a, err := app.Load(filepath.Join(lowdefytest.AppsDir(t), dir), app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The classification and the generated tools and resources of the tutorial's final step and
// of the crud app, as golden JSON (go test -update rewrites it; review the diff).
func TestGeneratedExamples(t *testing.T) {
	for name, dir := range map[string]string{"tutorial-08-final": "tutorial/08-final", "crud": "crud"} {
		t.Run(name, func(t *testing.T) {
			a := exampleApp(t, dir)
			type page struct {
				Page, Kind, Why string
				Forms           []string `json:",omitempty"`
			}
			var out struct {
				Pages     []page
				Tools     []any
				Resources []any
			}
			for _, pc := range classifyApp(a) {
				p := page{Page: pc.Page.ID, Kind: string(pc.Kind), Why: pc.Why}
				for _, f := range pc.Forms {
					p.Forms = append(p.Forms, f.Button)
				}
				out.Pages = append(out.Pages, p)
			}
			g, err := generate(a, sessionToolNames(ToolsetBoth))
			if err != nil {
				t.Fatal(err)
			}
			for _, tl := range g.tools {
				out.Tools = append(out.Tools, tl.tool)
			}
			for _, r := range g.resources {
				out.Resources = append(out.Resources, r.res)
			}
			got, err := json.MarshalIndent(out, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "generated-"+name+".json")
			if *update {
				if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -update creates it)", err)
			}
			if strings.TrimSpace(string(want)) != string(got) {
				t.Errorf("generated for %s differs from %s (go test -update rewrites it):\n%s", name, path, got)
			}
		})
	}
}

// loadYAML loads an app written inline.
func loadYAML(t *testing.T, yaml string) *app.App {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lowdefy.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := app.Load(dir, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The classifier's rules, one page each.
func TestClassifyRules(t *testing.T) {
	a := loadYAML(t, `lowdefy: 4.0.0
connections:
  - {id: db, type: Knex, properties: {client: sqlite}}
  - {id: web, type: AxiosHttp, properties: {baseURL: http://x}}
  - {id: mdb, type: MongoDBCollection, properties: {collection: c}}
pages:
  - id: search        # inputs and a button, but the request only reads: not a form
    type: Box
    requests:
      - {id: find, type: KnexRaw, connectionId: db, properties: {query: "  -- find\n  SELECT * FROM t WHERE name = :n"}}
    blocks:
      - {id: q, type: TextInput}
      - id: go
        type: Button
        events: {onClick: [{id: r, type: Request, params: find}]}
  - id: post          # an AxiosHttp POST writes
    type: Box
    requests:
      - {id: send, type: AxiosHttp, connectionId: web, payload: {msg: {_state: msg}}, properties: {method: post}}
    blocks:
      - {id: msg, type: TextArea, required: true}
      - id: go
        type: Button
        events: {onClick: {try: [{id: r, type: Request, params: [send]}], catch: []}}
  - id: dash          # reads on mount and shows it: a query page
    type: Box
    requests:
      - {id: stats, type: MongoDBAggregation, connectionId: mdb, properties: {pipeline: []}}
    events: {onMount: [{id: r, type: Request, params: stats}]}
    blocks:
      - {id: s, type: Statistic, properties: {value: {_request: stats.0.n}}}
  - id: blind         # reads but shows nothing of it
    type: Box
    requests:
      - {id: stats, type: MongoDBFind, connectionId: mdb}
    events: {onInit: [{id: r, type: Request, params: stats}]}
  - id: writes-on-open  # writes when it opens: not a query page
    type: Box
    requests:
      - {id: touch, type: MongoDBUpdateOne, connectionId: mdb}
    events: {onMount: [{id: r, type: Request, params: touch}]}
    blocks:
      - {id: s, type: Statistic, properties: {value: {_request: touch}}}
  - id: hidden        # the only inputs are hidden for good or excluded
    type: Box
    mcp: {exclude: false}
    requests:
      - {id: save, type: KnexRaw, connectionId: db, properties: {query: INSERT INTO t VALUES (1)}}
    blocks:
      - id: box
        type: Box
        visible: false
        blocks: [{id: a, type: TextInput}]
      - {id: b, type: TextInput, mcp: {exclude: true}}
      - id: go
        type: Button
        events: {onClick: [{id: r, type: Request, params: save}]}
  - id: off
    type: Box
    mcp: {exclude: true}
    blocks: [{id: a, type: TextInput}]
`)
	want := map[string]string{
		"search":         "other: input blocks but no button whose onClick runs a writing Request or a CallAPI",
		"post":           "form: input blocks and 1 submit button(s) that write",
		"dash":           "query: no input blocks; reads stats when it opens and shows the data",
		"blind":          "other: no block shows request data",
		"writes-on-open": "other: a request its lifecycle runs may write",
		"hidden":         "other: no input blocks and no request when it opens",
		"off":            "excluded: the page says mcp: {exclude: true}",
		"404":            "excluded: the built-in not-found page",
	}
	for _, pc := range classifyApp(a) {
		if got := string(pc.Kind) + ": " + pc.Why; got != want[pc.Page.ID] {
			t.Errorf("%s: %s, want %s", pc.Page.ID, got, want[pc.Page.ID])
		}
	}
}

// Input schemas: types from the block table, static options as enum (object options by
// value; an AutoComplete's options are suggestions, not an enum), labels as descriptions, dotted ids as nested objects, lists as arrays of their
// item inputs, required only when static, conditional visibility said.
func TestInputSchema(t *testing.T) {
	a := loadYAML(t, `lowdefy: 4.0.0
connections:
  - {id: db, type: Knex, properties: {client: sqlite}}
pages:
  - id: order
    type: Box
    requests:
      - {id: save, type: KnexRaw, connectionId: db, payload: {all: {_state: true}}, properties: {query: INSERT INTO o VALUES (1)}}
    blocks:
      - {id: order.qty, type: NumberInput, required: true, properties: {title: Quantity}}
      - {id: order.gift, type: Switch, properties: {label: {title: Gift wrap}}}
      - {id: order.when, type: DateSelector}
      - {id: order.at, type: DateTimeSelector, required: {_state: order.gift}}
      - id: order.size
        type: RadioSelector
        required: Pick a size
        properties:
          options: [{label: Small, value: 1}, {label: Large, value: 2}]
      - {id: tags, type: MultipleSelector, properties: {options: [red, blue]}}
      - {id: city, type: AutoComplete, properties: {title: City, options: [Oslo, Rome]}}
      - {id: span, type: DateRangeSelector, properties: {placeholder: From and to}}
      - {id: phone, type: PhoneNumberInput}
      - id: note
        type: TextInput
        required: true
        visible: {_eq: [{_state: order.gift}, true]}
      - id: lines
        type: ControlledList
        blocks:
          - {id: lines.$.sku, type: TextInput, required: true}
          - {id: lines.$.n, type: NumberInput}
      - id: go
        type: Button
        events: {onClick: [{id: r, type: Request, params: save}]}
`)
	pc := classifyPage(a, a.Page("order"))
	if pc.Kind != kindForm || len(pc.Forms) != 1 {
		t.Fatalf("order: %s %s", pc.Kind, pc.Why)
	}
	got, _ := json.Marshal(pc.Forms[0].inputSchema(func(p string) { t.Errorf("conflict %s", p) }))
	want := `{"type":"object","properties":{` +
		`"order":{"type":"object","properties":{` +
		`"qty":{"type":"number","description":"Quantity"},` +
		`"gift":{"type":"boolean","description":"Gift wrap"},` +
		`"when":{"type":"string","format":"date","description":"A date, YYYY-MM-DD."},` +
		`"at":{"type":"string","format":"date-time","description":"A date and time, ISO 8601 such as 2026-03-01T09:30 (without an offset: UTC time). Required in some cases."},` +
		`"size":{"type":"number","enum":[1,2],"description":"Values: 1=Small, 2=Large."}` +
		`},"additionalProperties":false,"required":["qty","size"]},` +
		`"tags":{"type":"array","items":{"type":"string","enum":["red","blue"]}},` +
		`"city":{"type":"string","description":"City. Suggestions: Oslo, Rome; any text is accepted."},` +
		`"span":{"type":"array","items":{"type":"string","format":"date"},"minItems":2,"maxItems":2,"description":"From and to. Two dates [start, end], each YYYY-MM-DD."},` +
		`"phone":{"type":"object","properties":{"code":{"type":"string"},"phone":{"type":"string"}}},` +
		`"note":{"type":"string","description":"Used only when shown; that depends on order.gift."},` +
		`"lines":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"n":{"type":"number"}},"required":["sku"],"additionalProperties":false}}` +
		`},"required":["order"],"additionalProperties":false}`
	if string(got) != want {
		t.Errorf("schema:\n%s\nwant\n%s", got, want)
	}
}

// The app's mcp section and annotations are checked against what the app generates: names
// that name nothing list the known ones, clashes are refused, and what they turn off is off.
func TestMCPSectionProblems(t *testing.T) {
	const pages = `
connections:
  - {id: db, type: Knex, properties: {client: sqlite}}
api:
  - {id: ping, type: Api, routine: [{":return": 1}]}
pages:
  - id: new-item
    type: Box
    requests:
      - {id: save, type: KnexRaw, connectionId: db, payload: {name: {_state: name}}, properties: {query: INSERT INTO t VALUES (1)}}
      - {id: list, type: KnexRaw, connectionId: db, properties: {query: SELECT 1}}
    blocks:
      - {id: name, type: TextInput}
      - id: go
        type: Button
        events: {onClick: [{id: r, type: Request, params: save}]}
  - id: items
    type: Box
    requests:
      - {id: list, type: KnexRaw, connectionId: db, properties: {query: SELECT 1}}
    events: {onMount: [{id: r, type: Request, params: list}]}
    blocks:
      - {id: t, type: AgGridAlpine, properties: {rowData: {_request: list}}}
`
	for _, tc := range []struct{ mcp, want string }{
		{"mcp:\n  tools: {submit_new: {enabled: false}}\n", "the app's mcp.tools.submit_new: no generated tool is named submit_new; the generated tools are: api_ping, submit_new_item"},
		{"mcp:\n  resources: {item_list: {enabled: false}}\n", "the app's mcp.resources.item_list: no generated resource is named item_list (they are: items); to serve another page's data, give page (and requests)"},
		{"mcp:\n  resources: {x: {page: nope}}\n", "the app's mcp.resources.x.page: the app has no page \"nope\""},
		{"mcp:\n  resources: {x: {page: new-item}}\n", "the app's mcp.resources.x: page new-item runs no request when it opens; name the requests to serve with requests: [...]"},
		{"mcp:\n  resources: {x: {page: new-item, requests: [list]}}\n", "the app's mcp.resources.x.requests: page new-item does not run request \"list\" when it opens; a resource serves what its page loads"},
	} {
		_, err := generate(loadYAML(t, "lowdefy: 4.0.0\n"+tc.mcp+pages), sessionToolNames(ToolsetBoth))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v\nwant %s", tc.mcp, err, tc.want)
		}
	}
	clash := strings.Replace(pages, "- {id: name, type: TextInput}", "- {id: name, type: TextInput}\n      - {id: go2, type: Button, mcp: {toolName: api_ping}, events: {onClick: [{id: r, type: Request, params: save}]}}", 1)
	if _, err := generate(loadYAML(t, "lowdefy: 4.0.0\n"+clash), nil); err == nil || !strings.Contains(err.Error(), `api[0] (endpoint ping): tool name "api_ping" is also the name of page new-item, button go2`) {
		t.Errorf("clash: %v", err)
	}
	navigate := strings.Replace(pages, "type: Button\n", "type: Button\n        mcp: {toolName: navigate}\n", 1)
	if _, err := generate(loadYAML(t, "lowdefy: 4.0.0\n"+navigate), sessionToolNames(ToolsetBoth)); err == nil || !strings.Contains(err.Error(), `tool name "navigate" is taken by a work-session tool`) {
		t.Errorf("session clash: %v", err)
	}
	if g, err := generate(loadYAML(t, "lowdefy: 4.0.0\n"+navigate), sessionToolNames(ToolsetForms)); err != nil || g.byName["navigate"] == nil {
		t.Errorf("toolset forms frees the name navigate: %v", err)
	}

	g, err := generate(loadYAML(t, "lowdefy: 4.0.0\nmcp:\n  tools:\n    api_ping: {enabled: false}\n    submit_new_item: {description: Add an item., confirm: true}\n  resources:\n    items: {enabled: false}\n    item_data: {page: items, description: Items.}\n"+pages), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.tools) != 1 || g.tools[0].tool.Name != "submit_new_item" || !g.tools[0].confirm ||
		g.tools[0].tool.Description != "Add an item. Destructive: the call must say confirm: true." {
		t.Errorf("tools: %+v", g.tools)
	}
	if s, _ := json.Marshal(g.tools[0].tool.InputSchema); !strings.Contains(string(s), `"required":["confirm"]`) {
		t.Errorf("confirm is not a required argument: %s", s)
	}
	if len(g.resources) != 1 || g.resources[0].res.URI != "lowdefy://items/item_data" || g.resources[0].res.Description != "Items." {
		t.Errorf("resources: %+v", g.resources[0].res)
	}
	g, err = generate(loadYAML(t, "lowdefy: 4.0.0\nmcp: {enabled: false}\n"+pages), nil)
	if err != nil || len(g.tools)+len(g.resources) != 0 {
		t.Errorf("enabled: false still generates %d tools, %d resources (%v)", len(g.tools), len(g.resources), err)
	}
}
