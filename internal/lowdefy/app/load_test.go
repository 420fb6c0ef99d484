package app

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

func TestLoadRefsAndVars(t *testing.T) {
	app := mustLoad(t, map[string]string{
		"lowdefy.yaml": `lowdefy: 4.0.0
global:
  text: {_ref: notes/readme.md}
  raw: {_ref: notes/plain.txt}
  json: {_ref: data/values.json}
  picked: {_ref: {path: data/values.json, key: nested.list.1}}
  missingKey: {_ref: {path: data/values.json, key: nope}}
  withVars:
    _ref:
      path: parts/vars.yaml
      vars:
        name: Ada
        deep: {a: [10, 20]}
        fromRef: {_ref: notes/plain.txt}
  topVar: {_var: anything}
  pathVar:
    _ref:
      path: parts/outer.yaml
      vars: {file: notes/plain.txt}
  env: {_build.env: GREETING}
  envDefault: {_build.env: {key: NOPE, default: fallback}}
  concat: {_build.string.concat: [a, {_build.env: GREETING}, 1]}
  cond: {_build.if: {test: {_build.eq: [1, 1]}, then: yes-branch, else: no}}
  notBuildOp: {_build.notAnOperator: 1}
  njk:
    _ref:
      path: parts/list.yaml.njk
      vars: {items: [x, y], title: "A & <B>"}
`,
		"notes/readme.md":  "# Title\n\ntext\n",
		"notes/plain.txt":  "plain",
		"data/values.json": "// comment\n{a: 1, 'b': 'two', nested: {list: [1, 2, 3,],}, hex: 0xff, half: .5, inf: Infinity,}\n",
		"parts/vars.yaml": `name: {_var: name}
first: {_var: deep.a.0}
whole: {_var: deep}
withDefault: {_var: {key: missing, default: dflt}}
nullDefault: {_var: {key: missing}}
fromRef: {_var: fromRef}
emptyVar: {_var: ""}
`,
		"parts/outer.yaml":    "inner:\n  _ref: {_var: file}\n",
		"parts/list.yaml.njk": "title: {{ title }}\nitems:\n{% for i in items %}  - {{ i | upper }}\n{% endfor %}",
	})
	want := map[string]any{
		"text":       "# Title\n\ntext\n",
		"raw":        "plain",
		"json":       map[string]any{"a": 1.0, "b": "two", "nested": map[string]any{"list": []any{1.0, 2.0, 3.0}}, "hex": 255.0, "half": 0.5, "inf": nil},
		"picked":     2.0,
		"missingKey": nil,
		"withVars": map[string]any{
			"name": "Ada", "first": 10.0, "whole": map[string]any{"a": []any{10.0, 20.0}},
			"withDefault": "dflt", "nullDefault": nil, "fromRef": "plain", "emptyVar": map[string]any{"_var": ""},
		},
		"topVar":     nil,
		"pathVar":    map[string]any{"inner": "plain"},
		"env":        "hi",
		"envDefault": "fallback",
		"concat":     "ahi1",
		"cond":       "yes-branch",
		"notBuildOp": map[string]any{"_build.notAnOperator": 1.0},
		"njk":        map[string]any{"title": "A &amp; &lt;B&gt;", "items": []any{"X", "Y"}},
	}
	if diff := cmp.Diff(want, jsvalue.ToGo(app.Global)); diff != "" {
		t.Errorf("global (-want +got):\n%s", diff)
	}
}

func TestLoadRefReuseWithOtherVarsIsNotACycle(t *testing.T) {
	app := mustLoad(t, map[string]string{
		"lowdefy.yaml":  "lowdefy: 4.0.0\nglobal:\n  tree:\n    _ref: {path: node.yaml.njk, vars: {depth: 2}}\n",
		"node.yaml.njk": "depth: {{ depth }}\n{% if depth > 0 %}child:\n  _ref:\n    path: node.yaml.njk\n    vars:\n      depth: {{ depth - 1 }}\n{% endif %}",
	})
	want := map[string]any{"depth": 2.0, "child": map[string]any{"depth": 1.0, "child": map[string]any{"depth": 0.0}}}
	if diff := cmp.Diff(want, jsvalue.ToGo(app.Global.Prop("tree"))); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
}

func TestLoadYMLAndDefaults(t *testing.T) {
	app := mustLoad(t, map[string]string{"lowdefy.yml": "lowdefy: 4.0.0\npages:\n  - id: a\n    type: Box\n  - id: b\n    type: Box\n"})
	if diff := cmp.Diff(map[string]any{"html": map[string]any{"appendBody": "", "appendHead": ""}}, jsvalue.ToGo(app.AppConfig)); diff != "" {
		t.Errorf("app defaults (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{}, jsvalue.ToGo(app.Config)); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{}, jsvalue.ToGo(app.Global)); diff != "" {
		t.Errorf("global (-want +got):\n%s", diff)
	}
	wantAuth := map[string]any{
		"authPages": map[string]any{}, "pages": map[string]any{"roles": map[string]any{}},
		"callbacks": []any{}, "events": []any{}, "providers": []any{},
		"session": map[string]any{}, "theme": map[string]any{}, "configured": false,
	}
	if diff := cmp.Diff(wantAuth, jsvalue.ToGo(app.Auth)); diff != "" {
		t.Errorf("auth (-want +got):\n%s", diff)
	}
	var ids []string
	for _, p := range app.Pages {
		ids = append(ids, p.ID)
	}
	if diff := cmp.Diff([]string{"a", "b", "404"}, ids); diff != "" {
		t.Errorf("page ids (-want +got):\n%s", diff)
	}
	wantMenus := []any{map[string]any{
		"id": "menu:default", "menuId": "default",
		"links": []any{
			map[string]any{"id": "menuitem:default:0", "menuItemId": "0", "type": "MenuLink", "pageId": "a", "auth": map[string]any{"public": true}},
			map[string]any{"id": "menuitem:default:1", "menuItemId": "1", "type": "MenuLink", "pageId": "b", "auth": map[string]any{"public": true}},
		},
	}}
	if diff := cmp.Diff(wantMenus, jsvalue.ToGo(app.Menus)); diff != "" {
		t.Errorf("default menu (-want +got):\n%s", diff)
	}
	if len(app.Warnings) != 1 || !strings.Contains(app.Warnings[0].Message, "default menu") {
		t.Errorf("warnings = %v, want the default-menu warning", app.Warnings)
	}
	p404 := app.Page("404")
	if p404 == nil || p404.Type != "Result" || dig(p404.Config, "areas", "extra", "blocks", "0", "id") != "block:404:home:0" {
		t.Errorf("built-in 404 page = %+v", p404)
	}
}

func TestLoadOwn404PageIsKept(t *testing.T) {
	app := mustLoad(t, map[string]string{"lowdefy.yaml": "lowdefy: 4.0.0\npages:\n  - id: '404'\n    type: Box\n"})
	if len(app.Pages) != 1 || app.Pages[0].Type != "Box" {
		t.Fatalf("pages = %+v, want only the app's own 404", app.Pages)
	}
}

func TestLoadPageStructure(t *testing.T) {
	app := mustLoad(t, map[string]string{"lowdefy.yaml": `lowdefy: 4.0.0
connections:
  - {id: db, type: Knex, properties: {client: sqlite, connection: {filename: {_secret: SQLITE_FILENAME}}}}
pages:
  - id: p
    type: PageHeaderMenu
    requests:
      - {id: first, type: KnexRaw, connectionId: db, properties: {query: select 1}}
    events:
      onInit:
        - {id: a, type: SetState, params: {x: 1}}
      onEnter:
        try: [{id: b, type: Request, params: second}]
        debounce: {ms: 10}
    areas:
      header:
        blocks:
          - id: t
            type: Title
      content:
        gutter: 4
        blocks:
          - id: t
            type: Box
            requests:
              - {id: second, type: KnexRaw, connectionId: db, payload: {v: {_state: t}}}
            blocks:
              - id: inner
                type: TextInput
`})
	p := app.Page("p")
	if p == nil {
		t.Fatal("page p missing")
	}
	checks := []struct {
		path []string
		want any
	}{
		{[]string{"id"}, "page:p"},
		{[]string{"pageId"}, "p"},
		{[]string{"blockId"}, "p"},
		{[]string{"auth", "public"}, true},
		{[]string{"events", "onInit", "try", "0", "id"}, "a"},
		{[]string{"events", "onInit", "catch"}, []any{}},
		{[]string{"events", "onEnter", "debounce", "ms"}, 10.0},
		{[]string{"events", "onEnter", "catch"}, []any{}},
		{[]string{"areas", "header", "blocks", "0", "id"}, "block:p:t:0"},
		{[]string{"areas", "content", "gutter"}, 4.0},
		{[]string{"areas", "content", "blocks", "0", "id"}, "block:p:t:1"},
		{[]string{"areas", "content", "blocks", "0", "blockId"}, "t"},
		{[]string{"areas", "content", "blocks", "0", "requests"}, nil},
		{[]string{"areas", "content", "blocks", "0", "areas", "content", "blocks", "0", "id"}, "block:p:inner:0"},
		{[]string{"requests", "0"}, map[string]any{"id": "request:p:first", "payload": map[string]any{}, "requestId": "first", "pageId": "p"}},
		{[]string{"requests", "1", "payload", "v", "_state"}, "t"},
		{[]string{"operators"}, []any{}},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, jsvalue.ToGo(dig(p.Config, c.path...))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", strings.Join(c.path, "."), diff)
		}
	}
	if len(p.Requests) != 2 || p.Requests[0].ID != "first" || p.Requests[1].ID != "second" {
		t.Fatalf("requests = %+v, want first then second", p.Requests)
	}
	wantReq := map[string]any{
		"id": "request:p:second", "requestId": "second", "pageId": "p", "type": "KnexRaw", "connectionId": "db",
		"payload": map[string]any{"v": map[string]any{"_state": "t"}}, "auth": map[string]any{"public": true},
	}
	if diff := cmp.Diff(wantReq, jsvalue.ToGo(p.Requests[1].Config)); diff != "" {
		t.Errorf("request file (-want +got):\n%s", diff)
	}
	if r := p.Request("first"); r == nil || r.Type != "KnexRaw" || r.ConnectionID != "db" {
		t.Errorf("Request(first) = %+v", r)
	}
	c := app.Connection("db")
	if c == nil || c.Type != "Knex" || get(c.Config, "id") != "connection:db" || dig(c.Properties, "connection", "filename", "_secret") != "SQLITE_FILENAME" {
		t.Errorf("connection = %+v", c)
	}
}

func TestLoadPageAuth(t *testing.T) {
	pages := "pages:\n  - {id: a, type: Box}\n  - {id: b, type: Box}\n  - {id: c, type: Box}\n"
	tests := []struct {
		name string
		auth string
		want map[string]PageAuth
	}{
		{"nothing: all public", "", map[string]PageAuth{"a": {Public: true}, "b": {Public: true}, "c": {Public: true}, "404": {Public: true}}},
		{"protected true", "auth:\n  pages:\n    protected: true\n", map[string]PageAuth{"a": {}, "b": {}, "c": {}, "404": {}}},
		{"protected list", "auth:\n  pages:\n    protected: [b]\n", map[string]PageAuth{"a": {Public: true}, "b": {}, "c": {Public: true}, "404": {Public: true}}},
		{"public list", "auth:\n  pages:\n    public: [a, '404']\n", map[string]PageAuth{"a": {Public: true}, "b": {}, "c": {}, "404": {Public: true}}},
		{"roles in source order", "auth:\n  pages:\n    roles:\n      zeta: [c]\n      alpha: [c, b]\n", map[string]PageAuth{"a": {Public: true}, "b": {Roles: []string{"alpha"}}, "c": {Roles: []string{"zeta", "alpha"}}, "404": {Public: true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			app := mustLoad(t, map[string]string{"lowdefy.yaml": "lowdefy: 4.0.0\n" + tc.auth + pages})
			got := map[string]PageAuth{}
			for _, p := range app.Pages {
				got[p.ID] = p.Auth
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("page auth (-want +got):\n%s", diff)
			}
			if configured := get(app.Auth, "configured"); configured != (tc.auth != "") {
				t.Errorf("auth.configured = %v", configured)
			}
		})
	}
}

func TestLoadMenus(t *testing.T) {
	app := mustLoad(t, map[string]string{"lowdefy.yaml": `lowdefy: 4.0.0
auth:
  pages:
    protected: [secret]
pages:
  - {id: home, type: Box}
  - {id: secret, type: Box}
menus:
  - id: main
    links:
      - {id: h, type: MenuLink, pageId: home}
      - id: g
        type: MenuGroup
        links:
          - {id: s, type: MenuLink, pageId: secret}
          - {id: missing, type: MenuLink, pageId: nowhere}
      - {id: ext, type: MenuLink, url: 'https://example.com'}
`})
	links := dig(app.Menus, "0", "links").([]any)
	if len(links) != 3 {
		t.Fatalf("links = %v", links)
	}
	checks := []struct {
		path []string
		want any
	}{
		{[]string{"0", "id"}, "menu:main"},
		{[]string{"0", "menuId"}, "main"},
		{[]string{"0", "links", "0", "id"}, "menuitem:main:h"},
		{[]string{"0", "links", "0", "auth"}, map[string]any{"public": true}},
		{[]string{"0", "links", "1", "auth"}, map[string]any{"public": true}},
		{[]string{"0", "links", "1", "links", "0", "auth"}, map[string]any{"public": false}},
		{[]string{"0", "links", "1", "links", "0", "id"}, "menuitem:main:s"},
		{[]string{"0", "links", "1", "links", "1"}, nil},
		{[]string{"0", "links", "2", "auth"}, map[string]any{"public": true}},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, jsvalue.ToGo(dig(app.Menus, c.path...))); diff != "" {
			t.Errorf("menus.%s (-want +got):\n%s", strings.Join(c.path, "."), diff)
		}
	}
	if len(app.Warnings) != 1 || !strings.Contains(app.Warnings[0].String(), `page "nowhere" referenced in menu link "missing" not found`) {
		t.Errorf("warnings = %v", app.Warnings)
	}
}

func TestLoadSkeletonBlocksMoveToAreas(t *testing.T) {
	app := mustLoad(t, map[string]string{"lowdefy.yaml": `lowdefy: 4.0.0
pages:
  - id: p
    type: Box
    skeleton:
      id: s
      type: Box
      blocks:
        - id: s1
          type: Box
          blocks:
            - {id: s2, type: Skeleton}
`})
	got := dig(app.Page("p").Config, "skeleton", "areas", "content", "blocks", "0", "areas", "content", "blocks", "0", "id")
	if got != "s2" {
		t.Errorf("nested skeleton block = %v, want s2 (skeleton ids are not rewritten)", got)
	}
}

func TestLoadPluginsMakeUnknownTypesWarnings(t *testing.T) {
	app := mustLoad(t, map[string]string{"lowdefy.yaml": `lowdefy: 4.0.0
plugins:
  - {name: '@acme/blocks', version: 1.0.0}
pages:
  - {id: p, type: AcmeWidget}
`})
	if len(app.Warnings) == 0 || !strings.Contains(problemsText(app.Warnings), `Block type "AcmeWidget" was used but is not defined (it may come from a plugin)`) {
		t.Errorf("warnings = %v", app.Warnings)
	}
}

func TestYAMLCoreSchema(t *testing.T) {
	n, err := parseYAML([]byte(`a: yes
b: on
c: 0o17
d: 0x1F
e: 017
f: ~
g: 1e3
h: 2024-01-02
i: '12'
j:
k: True
l: -.inf
m: !!str 12
n: 1_000
o: &x [1]
p: *x
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"a": "yes", "b": "on", "c": 15.0, "d": 31.0, "e": 17.0, "f": nil, "g": 1000.0, "h": "2024-01-02",
		"i": "12", "j": nil, "k": true, "l": nil, "m": "12", "n": "1_000", "o": []any{1.0}, "p": []any{1.0},
	}
	if diff := cmp.Diff(want, jsvalue.ToGo(n.toPlain(nil))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if v := n.get("l"); v == nil || !math.IsInf(v.num, -1) {
		t.Errorf("-.inf node = %+v, want -Inf before JSON conversion", v)
	}
	if p := n.get("g").pos; p.line != 7 || p.col != 4 {
		t.Errorf("position of g = %v, want 7:4", p)
	}
}

func TestYAMLAliasBombFails(t *testing.T) {
	var b strings.Builder
	b.WriteString("a: &a [x, x, x, x, x, x, x, x, x, x]\n")
	prev := "a"
	for i := range 8 {
		name := string(rune('b' + i))
		b.WriteString(name + ": &" + name + " [")
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*" + prev)
		}
		b.WriteString("]\n")
		prev = name
	}
	_, err := parseYAML([]byte(b.String()), "bomb.yaml")
	if err == nil || !strings.Contains(err.Error(), "expand to more than") {
		t.Fatalf("err = %v, want the expansion limit", err)
	}
}

func TestBuildOperatorErrorsAndPlugIn(t *testing.T) {
	files := map[string]string{"lowdefy.yaml": "lowdefy: 4.0.0\nglobal:\n  bad:\n    _build.divide: [1, 0]\n  now:\n    _build.date: now\n"}
	// By default an operator error is a warning and null, and operators outside the loader's
	// own subset (here _build.date) go to the operators package's build parser.
	def, err := Load(writeApp(t, map[string]string{"lowdefy.yaml": "lowdefy: 4.0.0\nglobal:\n  bad:\n    _build.divide: [1, 0]\n  at:\n    _build.date: 1700000000000\n"}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"bad": nil, "at": map[string]any{"~d": 1700000000000.0}}, jsvalue.ToGo(def.Global)); diff != "" {
		t.Errorf("default evaluator, global (-want +got):\n%s", diff)
	}
	// A plugged-in evaluator takes over.
	app, err := Load(writeApp(t, files), Options{BuildOperators: func(op, method string, params any, env map[string]string) (any, error) {
		if op == "_date" {
			return "2024-01-01", nil
		}
		return EvalBuildOperator(op, method, params, env)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"bad": nil, "now": "2024-01-01"}, jsvalue.ToGo(app.Global)); diff != "" {
		t.Errorf("global (-want +got):\n%s", diff)
	}
	if len(app.Warnings) != 2 || !strings.Contains(app.Warnings[0].String(), "lowdefy.yaml:4:5: _build.divide: _divide by zero") {
		t.Errorf("warnings = %v", app.Warnings)
	}
}

// TestSourceOrder checks that objects keep the order they were written in, through YAML,
// JSON5 references, _build operators and the build steps, as Lowdefy keeps them.
func TestSourceOrder(t *testing.T) {
	app := mustLoad(t, map[string]string{
		"lowdefy.yaml": "lowdefy: 4.0.0\nglobal:\n  zeta: 1\n  alpha: 2\n  '10': 3\n  '2': 4\n  ref:\n    _ref: data.json\n  built:\n    _build.object.assign:\n      - {y: 1}\n      - {x: 2, y: 3}\n" +
			"pages:\n  - id: p\n    type: Box\n    properties:\n      title: T\n      subtitle: S\n      another: A\n    blocks:\n      - id: b\n        type: Button\n",
		"data.json": `{z: 1, a: {d: 1, c: 2}}`,
	})
	if got := strings.Join(app.Global.Keys(), " "); got != "2 10 zeta alpha ref built" {
		t.Errorf("global keys = %s", got)
	}
	if s, _ := jsvalue.Stringify(app.Global.Prop("ref"), ""); s != `{"z":1,"a":{"d":1,"c":2}}` {
		t.Errorf("global.ref = %s", s)
	}
	if s, _ := jsvalue.Stringify(app.Global.Prop("built"), ""); s != `{"y":3,"x":2}` {
		t.Errorf("global.built = %s", s)
	}
	p := app.Page("p")
	if got := strings.Join(p.Config.Keys(), " "); got != "id type properties auth pageId blockId areas requests operators" { // as Lowdefy's build writes it
		t.Errorf("page keys = %s", got)
	}
	if got := strings.Join(getObj(p.Config, "properties").Keys(), " "); got != "title subtitle another" {
		t.Errorf("properties keys = %s", got)
	}
}

func getObj(o *jsvalue.Object, key string) *jsvalue.Object {
	m, _ := o.Prop(key).(*jsvalue.Object)
	return m
}
