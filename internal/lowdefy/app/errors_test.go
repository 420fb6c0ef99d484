package app

import (
	"strings"
	"testing"
)

func TestLoadProblems(t *testing.T) {
	const head = "lowdefy: 4.0.0\n"
	tests := []struct {
		name  string
		files map[string]string
		want  []string // substrings of one problem line
	}{
		{
			name:  "no config file",
			files: map[string]string{"other.yaml": "a: 1"},
			want:  []string{"no lowdefy.yaml or lowdefy.yml"},
		},
		{
			name:  "missing referenced file",
			files: map[string]string{"lowdefy.yaml": head + "pages:\n  - _ref: pages/nope.yaml\n"},
			want:  []string{"lowdefy.yaml:3:5:", `"pages/nope.yaml"`, "does not exist"},
		},
		{
			name: "reference cycle names the chain",
			files: map[string]string{
				"lowdefy.yaml": head + "pages:\n  - _ref: a.yaml\n",
				"a.yaml":       "id: a\ntype: Box\nblocks:\n  - _ref: b.yaml\n",
				"b.yaml":       "_ref: a.yaml\n",
			},
			want: []string{"b.yaml:1:1:", "reference cycle: lowdefy.yaml → a.yaml → b.yaml → a.yaml"},
		},
		{
			name: "unknown key in a referenced block has its file position and path",
			files: map[string]string{
				"lowdefy.yaml": head + "pages:\n  - _ref: pages/p.yaml\n",
				"pages/p.yaml": "id: p\ntype: Box\nblocks:\n  - id: t\n    type: Title\n    colour: red\n",
			},
			want: []string{"pages/p.yaml:6:5:", "pages[0].blocks[0].colour", `unknown key "colour" in a block`},
		},
		{
			name:  "wrong type",
			files: map[string]string{"lowdefy.yaml": head + "pages:\n  - id: p\n    type: Box\n    properties: 3\n"},
			want:  []string{"lowdefy.yaml:5:17:", "pages[0].properties", "must be object, got number 3"},
		},
		{
			name:  "unknown top-level key",
			files: map[string]string{"lowdefy.yaml": head + "pagez: []\n"},
			want:  []string{"lowdefy.yaml:2:1:", `unknown key "pagez" in an app`},
		},
		{
			name:  "lowdefy version required",
			files: map[string]string{"lowdefy.yaml": "name: x\n"},
			want:  []string{"lowdefy.yaml:1:1:", `missing required key "lowdefy"`},
		},
		{
			name:  "block without type",
			files: map[string]string{"lowdefy.yaml": head + "pages:\n  - id: p\n"},
			want:  []string{"lowdefy.yaml:3:5:", "pages[0]", `missing required key "type"`},
		},
		{
			name:  "event neither array nor try/catch",
			files: map[string]string{"lowdefy.yaml": head + "pages:\n  - id: p\n    type: Box\n    events:\n      onInit: go\n"},
			want:  []string{"lowdefy.yaml:6:15:", "pages[0].events.onInit", "must be array"},
		},
		{
			name:  "action without id",
			files: map[string]string{"lowdefy.yaml": head + "pages:\n  - id: p\n    type: Box\n    events:\n      onInit:\n        try:\n          - type: Wait\n"},
			want:  []string{"lowdefy.yaml:8:13:", "pages[0].events.onInit.try[0]", `missing required key "id"`},
		},
		{
			name:  "invalid _ref definition",
			files: map[string]string{"lowdefy.yaml": head + "pages:\n  - _ref:\n      vars: {}\n"},
			want:  []string{"lowdefy.yaml:3:5:", "invalid _ref definition"},
		},
		{
			name:  "bad _var argument",
			files: map[string]string{"lowdefy.yaml": head + "global:\n  x:\n    _var: [1]\n"},
			want:  []string{"lowdefy.yaml:4:5:", `"_var" takes a string or an object with a string "key"`},
		},
		{
			name:  "missing ref resolver file",
			files: map[string]string{"lowdefy.yaml": head + "pages:\n  - _ref:\n      path: x.yaml\n      resolver: r.js\n"},
			want:  []string{"lowdefy.yaml:3:5:", `resolver "r.js" does not exist`},
		},
		{
			name: "transformer that imports modules",
			files: map[string]string{
				"lowdefy.yaml": head + "global:\n  _ref:\n    path: x.yaml\n    transformer: t.js\n",
				"x.yaml":       "a: 1\n",
				"t.js":         "import fs from 'fs';\nexport default (input) => fs.readFileSync('x');\n",
			},
			want: []string{"lowdefy.yaml:3:3:", `transformer "t.js" imports other modules`},
		},
		{
			name: "transformer without default export",
			files: map[string]string{
				"lowdefy.yaml": head + "global:\n  _ref:\n    path: x.yaml\n    transformer: t.js\n",
				"x.yaml":       "a: 1\n",
				"t.js":         "function f(input) { return input }\n",
			},
			want: []string{`transformer "t.js" has no ` + "`export default`"},
		},
		{
			name: "transformer that throws",
			files: map[string]string{
				"lowdefy.yaml": head + "global:\n  _ref:\n    path: x.yaml\n    transformer: t.js\n",
				"x.yaml":       "a: 1\n",
				"t.js":         "export default function (input) { throw new Error('no way'); }\n",
			},
			want: []string{`calling transformer "t.js"`, "no way"},
		},
		{
			name: "transformer that never ends",
			files: map[string]string{
				"lowdefy.yaml": head + "global:\n  _ref:\n    path: x.yaml\n    transformer: t.js\n",
				"x.yaml":       "a: 1\n",
				"t.js":         "export default function (input) { for (;;) {} }\n",
			},
			want: []string{`calling transformer "t.js"`},
		},
		{
			name:  "resolver must be a path",
			files: map[string]string{"lowdefy.yaml": head + "global:\n  _ref:\n    path: x.yaml\n    resolver: [a]\n"},
			want:  []string{"lowdefy.yaml:5:15:", "_ref resolver must be a file path"},
		},
		{
			name:  "yaml syntax error",
			files: map[string]string{"lowdefy.yaml": head + "pages: [\n"},
			want:  []string{"lowdefy.yaml:2: did not find expected node content"},
		},
		{
			name:  "duplicate yaml key",
			files: map[string]string{"lowdefy.yaml": head + "name: a\nname: b\n"},
			want:  []string{"lowdefy.yaml:3:1:", `duplicate key "name"`},
		},
		{
			name:  "two yaml documents",
			files: map[string]string{"lowdefy.yaml": head + "---\nname: b\n"},
			want:  []string{"more than one YAML document"},
		},
		{
			name: "json5 syntax error in a referenced file",
			files: map[string]string{
				"lowdefy.yaml": head + "global:\n  _ref: g.json\n",
				"g.json":       "{\n  a: 1,\n  b: [1 2],\n}\n",
			},
			want: []string{"g.json:3:9:", "invalid JSON5", "expected ',' or ']'"},
		},
		{
			name: "nunjucks error names the template",
			files: map[string]string{
				"lowdefy.yaml": head + "global:\n  _ref: g.yaml.njk\n",
				"g.yaml.njk":   "a: {% if %}\n",
			},
			want: []string{"lowdefy.yaml:3:3:", `rendering nunjucks template "g.yaml.njk"`},
		},
		{
			name:  "duplicate page id",
			files: map[string]string{"lowdefy.yaml": head + "pages:\n  - id: p\n    type: Box\n  - id: p\n    type: Box\n"},
			want:  []string{"lowdefy.yaml:5:5:", "pages[1]", `duplicate pageId "p"`},
		},
		{
			name: "duplicate request id across blocks",
			files: map[string]string{"lowdefy.yaml": head + `pages:
  - id: p
    type: Box
    requests:
      - {id: r, type: KnexRaw, connectionId: c}
    blocks:
      - id: b
        type: Box
        requests:
          - {id: r, type: KnexRaw, connectionId: c}
`},
			want: []string{"lowdefy.yaml:11:13:", "pages[0].blocks[0].requests[0]", `duplicate requestId "r" on page "p"`},
		},
		{
			name:  "request id with a period",
			files: map[string]string{"lowdefy.yaml": head + "pages:\n  - id: p\n    type: Box\n    requests:\n      - {id: a.b, type: KnexRaw, connectionId: c}\n"},
			want:  []string{`request id "a.b" on page "p" must not include a period`},
		},
		{
			name:  "duplicate action id across try and catch",
			files: map[string]string{"lowdefy.yaml": head + "pages:\n  - id: p\n    type: Box\n    events:\n      onInit:\n        try: [{id: a, type: Wait}]\n        catch: [{id: a, type: Wait}]\n"},
			want:  []string{"lowdefy.yaml:8:17:", `duplicate actionId "a" on event "onInit"`},
		},
		{
			name:  "unknown block type",
			files: map[string]string{"lowdefy.yaml": head + "pages:\n  - id: p\n    type: Box\n    blocks:\n      - id: x\n        type: Boxx\n"},
			want:  []string{"lowdefy.yaml:6:9:", `Block type "Boxx" was used but is not defined`},
		},
		{
			name:  "unknown action type",
			files: map[string]string{"lowdefy.yaml": head + "pages:\n  - id: p\n    type: Box\n    events:\n      onInit: [{id: a, type: Teleport}]\n"},
			want:  []string{`Action type "Teleport" was used but is not defined`},
		},
		{
			name:  "duplicate connection id",
			files: map[string]string{"lowdefy.yaml": head + "connections:\n  - {id: c, type: Knex}\n  - {id: c, type: Knex}\n"},
			want:  []string{"lowdefy.yaml:4:5:", `duplicate connectionId "c"`},
		},
		{
			name:  "protected and public lists",
			files: map[string]string{"lowdefy.yaml": head + "auth:\n  pages:\n    protected: [a]\n    public: [b]\n"},
			want:  []string{"auth.pages", "mutually exclusive"},
		},
		{
			name:  "protected false",
			files: map[string]string{"lowdefy.yaml": head + "auth:\n  pages:\n    protected: false\n"},
			want:  []string{"protected pages can not be set to false"},
		},
		{
			name:  "page with roles and public",
			files: map[string]string{"lowdefy.yaml": head + "auth:\n  pages:\n    public: [p]\n    roles:\n      admin: [p]\npages:\n  - id: p\n    type: Box\n"},
			want:  []string{`page "p" is both protected by roles ["admin"] and public`},
		},
		{
			name:  "base path must start with a slash",
			files: map[string]string{"lowdefy.yaml": head + "config:\n  basePath: app\n"},
			want:  []string{"config.basePath", `must start with "/"`},
		},
		{
			name:  "menu link with unknown key",
			files: map[string]string{"lowdefy.yaml": head + "menus:\n  - id: m\n    links:\n      - {id: l, type: MenuLink, pageId: p, colour: red}\n"},
			want:  []string{"menus[0].links[0].colour", `unknown key "colour" in a menu link`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ps := loadProblems(t, tc.files)
			text := problemsText(ps)
			for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
				ok := true
				for _, w := range tc.want {
					if !strings.Contains(line, w) {
						ok = false
						break
					}
				}
				if ok {
					return
				}
			}
			t.Errorf("no problem contains all of %q; got:\n%s", tc.want, text)
		})
	}
}

func TestLoadReportsAllSchemaProblems(t *testing.T) {
	ps := loadProblems(t, map[string]string{"lowdefy.yaml": "lowdefy: 4.0.0\npages:\n  - id: p\n    type: Box\n    colour: red\n    style: 1\n  - id: 3\n    type: Box\n"})
	if len(ps) != 3 {
		t.Fatalf("got %d problems, want 3:\n%s", len(ps), problemsText(ps))
	}
	want := []string{"pages[0].colour", "pages[0].style", "pages[1].id"}
	for i, w := range want {
		if ps[i].Path != w {
			t.Errorf("problem %d path %q, want %q", i, ps[i].Path, w)
		}
	}
}

func TestProblemString(t *testing.T) {
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{File: "a.yaml", Line: 2, Col: 3, Path: "pages[0]", Message: "bad"}, "a.yaml:2:3: pages[0]: bad"},
		{Problem{File: "a.yaml", Message: "bad"}, "a.yaml: bad"},
		{Problem{Message: "bad"}, "bad"},
	}
	for _, tc := range tests {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
	e := &Error{Dir: "d", Problems: []Problem{{Message: "a"}, {Message: "b"}}}
	if got := e.Error(); got != "loading Lowdefy app d: 2 problems:\n  a\n  b" {
		t.Errorf("Error() = %q", got)
	}
}
