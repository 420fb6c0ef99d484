package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

// placementServer has one tool per placement concern, all against the recording upstream.
func placementServer(base string) string {
	return fmt.Sprintf(`kind: http
description: placement tests
base_url: %s/echo
allow_private: true
headers: {X-Server: from-server, X-Override: server}
tools:
  get_user:
    description: every non-body placement
    inputSchema: {type: object, properties: {id: {type: string}, verbose: {type: boolean}, tags: {type: array, items: {type: string}}, limit: {type: integer}, ratio: {type: number}, filter: {type: object}, lang: {type: string}, theme: {type: string}}, required: [id]}
    method: GET
    path: /users/{id}
    headers: {X-Override: tool}
    mappings:
      - {field: id, in: path, direct: id}
      - {field: verbose, in: query, direct: verbose}
      - {field: tag, in: query, direct: tags}
      - {field: limit, in: query, direct: limit}
      - {field: ratio, in: query, direct: ratio}
      - {field: filter, in: query, direct: filter}
      - {field: X-Tenant, in: header, constant: acme}
      - {field: Accept-Language, in: header, direct: lang}
      - {field: session, in: cookie, constant: abc123}
      - {field: theme, in: cookie, direct: theme}
  create_note:
    description: nested JSON body with path and query
    inputSchema: {type: object, properties: {folder: {type: string}, title: {type: string}, n: {type: integer}, f: {type: number}, flag: {type: boolean}, tags: {type: array}, meta: {type: object}, maybe: {type: [string, "null"]}, dry: {type: boolean}}, required: [folder, title]}
    method: POST
    path: /folders/{folder}/notes
    body: json
    static_fields: {source: mcp, note: {kind: memo}}
    mappings:
      - {field: folder, in: path, direct: folder}
      - {field: dry_run, in: query, direct: dry}
      - {field: note.title, in: body, direct: title}
      - {field: note.count, in: body, direct: n}
      - {field: note.ratio, in: body, direct: f}
      - {field: note.flag, in: body, direct: flag}
      - {field: note.tags, in: body, direct: tags}
      - {field: note.meta, in: body, direct: meta}
      - {field: note.maybe, in: body, direct: maybe}
      - {field: cleared, in: body, constant: null}
      - {field: upper, in: body, expression: "args.title.toUpperCase()"}
      - {field: shout.title, in: body, expression: "value + '!'"}
      - {field: skipped, in: body, expression: "args.n === undefined ? null : 'has n'"}
  whole_body:
    description: the whole body from one argument
    inputSchema: {type: object, properties: {doc: {type: object}, extra: {type: string}}, required: [doc]}
    method: PUT
    path: /doc
    body: json
    mappings:
      - {field: "", in: body, direct: doc}
      - {field: extra, in: body, direct: extra}
  array_body:
    description: a JSON array as the whole body
    inputSchema: {type: object, properties: {items: {type: array}}, required: [items]}
    method: POST
    path: /batch
    body: json
    mappings:
      - {field: "", in: body, direct: items}
  form:
    description: form body
    inputSchema: {type: object, properties: {name: {type: string}, age: {type: integer}, colors: {type: array, items: {type: string}}, opt: {type: string}}, required: [name]}
    method: POST
    path: /form
    body: form
    static_fields: {client: mcp}
    mappings:
      - {field: name, in: body, direct: name}
      - {field: age, in: body, direct: age}
      - {field: color, in: body, direct: colors}
      - {field: opt, in: body, direct: opt}
  calc:
    description: expressions see numbers as numbers
    inputSchema: {type: object, properties: {n: {type: integer}, f: {type: number}, list: {type: array}}, required: [n, f, list]}
    method: POST
    path: /calc
    body: json
    mappings:
      - {field: n1, in: body, expression: "args.n + 1"}
      - {field: sum, in: body, expression: "args.n + args.f"}
      - {field: count, in: body, expression: "args.list.length"}
      - {field: obj, in: body, expression: "({a: [1, 'x', true, null], b: {c: args.f * 2}})"}
      - {field: q, in: query, expression: "args.list.map(x => x * 10)"}
  empty_json:
    description: body json with every field absent
    inputSchema: {type: object, properties: {a: {type: string}}}
    method: PATCH
    path: /patch
    body: json
    mappings:
      - {field: a, in: body, direct: a}
`, base)
}

func TestPlacement(t *testing.T) {
	up := newUpstream(t)
	b := mustOpen(t, placementServer(up.URL))
	type want struct {
		method, path string
		query        url.Values
		headers      map[string]string // "" means must be absent
		body         any               // JSON value; nil means no body
		form         url.Values
		contentType  string
	}
	cases := []struct {
		name string
		tool string
		args map[string]any
		want want
	}{
		{
			name: "all non-body placements, types formatted as JSON would",
			tool: "get_user",
			args: map[string]any{"id": "a/b c?#", "verbose": true, "tags": []any{"x", "y z"}, "limit": 10, "ratio": 0.5,
				"filter": map[string]any{"k": "v"}, "lang": "fr", "theme": "dark; evil=1"},
			want: want{
				method: "GET", path: "/echo/users/a%2Fb%20c%3F%23",
				query:   url.Values{"verbose": {"true"}, "tag": {"x", "y z"}, "limit": {"10"}, "ratio": {"0.5"}, "filter": {`{"k":"v"}`}},
				headers: map[string]string{"X-Tenant": "acme", "Accept-Language": "fr", "Cookie": "session=abc123; theme=dark%3B%20evil=1", "X-Server": "from-server", "X-Override": "tool", "Authorization": ""},
			},
		},
		{
			name: "absent optional arguments are left out entirely",
			tool: "get_user",
			args: map[string]any{"id": "42"},
			want: want{
				method: "GET", path: "/echo/users/42", query: url.Values{},
				headers: map[string]string{"X-Tenant": "acme", "Accept-Language": "", "Cookie": "session=abc123"},
			},
		},
		{
			name: "null optional arguments are left out too",
			tool: "get_user",
			args: map[string]any{"id": "42", "verbose": nil, "lang": nil, "theme": nil, "tags": nil},
			want: want{
				method: "GET", path: "/echo/users/42", query: url.Values{},
				headers: map[string]string{"Accept-Language": "", "Cookie": "session=abc123"},
			},
		},
		{
			name: "path + query + nested JSON body, types kept",
			tool: "create_note",
			args: map[string]any{"folder": "inbox", "title": "héllo <b>", "n": 12345678901234567, "f": 2.5, "flag": false,
				"tags": []any{"a", 1, true, nil}, "meta": map[string]any{"x": map[string]any{"y": 1}}, "maybe": nil, "dry": true},
			want: want{
				method: "POST", path: "/echo/folders/inbox/notes", query: url.Values{"dry_run": {"true"}},
				contentType: "application/json",
				body: map[string]any{
					"note": map[string]any{"title": "héllo <b>", "count": json.Number("12345678901234567"), "ratio": json.Number("2.5"), "flag": false,
						"tags": []any{"a", json.Number("1"), true, nil}, "meta": map[string]any{"x": map[string]any{"y": json.Number("1")}}, "kind": "memo"},
					"cleared": nil, "upper": "HÉLLO <B>", "source": "mcp", "shout": map[string]any{"title": "héllo <b>!"}, "skipped": "has n",
				},
			},
		},
		{
			name: "absent optional body fields are not sent as empty keys",
			tool: "create_note",
			args: map[string]any{"folder": "x", "title": "t"},
			want: want{
				method: "POST", path: "/echo/folders/x/notes", query: url.Values{}, contentType: "application/json",
				body: map[string]any{"note": map[string]any{"title": "t", "kind": "memo"}, "cleared": nil, "upper": "T", "source": "mcp", "shout": map[string]any{"title": "t!"}},
			},
		},
		{
			name: "whole body from an argument, plus a field",
			tool: "whole_body",
			args: map[string]any{"doc": map[string]any{"a": 1, "b": []any{true}}, "extra": "e"},
			want: want{method: "PUT", path: "/echo/doc", query: url.Values{}, contentType: "application/json",
				body: map[string]any{"a": json.Number("1"), "b": []any{true}, "extra": "e"}},
		},
		{
			name: "array as the whole body",
			tool: "array_body",
			args: map[string]any{"items": []any{1, "x", nil}},
			want: want{method: "POST", path: "/echo/batch", query: url.Values{}, contentType: "application/json",
				body: []any{json.Number("1"), "x", nil}},
		},
		{
			name: "form body with repeated keys and static fields",
			tool: "form",
			args: map[string]any{"name": "Ada & Bob", "age": 36, "colors": []any{"red", "blue"}},
			want: want{method: "POST", path: "/echo/form", query: url.Values{}, contentType: "application/x-www-form-urlencoded",
				form: url.Values{"name": {"Ada & Bob"}, "age": {"36"}, "color": {"red", "blue"}, "client": {"mcp"}}},
		},
		{
			name: "expression results keep their JSON types",
			tool: "calc",
			args: map[string]any{"n": 2, "f": 0.5, "list": []any{1, 2}},
			want: want{method: "POST", path: "/echo/calc", query: url.Values{"q": {"10", "20"}}, contentType: "application/json",
				body: map[string]any{"n1": json.Number("3"), "sum": json.Number("2.5"), "count": json.Number("2"),
					"obj": map[string]any{"a": []any{json.Number("1"), "x", true, nil}, "b": map[string]any{"c": json.Number("1")}}}},
		},
		{
			name: "JSON body with nothing mapped is an empty body",
			tool: "empty_json",
			args: map[string]any{},
			want: want{method: "PATCH", path: "/echo/patch", query: url.Values{}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := callTool(t, b, c.tool, c.args)
			if res.IsError {
				t.Fatalf("isError: %s", resultText(res))
			}
			got := up.last(t)
			if got.Method != c.want.method || got.RawPath != c.want.path {
				t.Errorf("request line = %s %s, want %s %s", got.Method, got.RawPath, c.want.method, c.want.path)
			}
			q, err := url.ParseQuery(got.Query)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want.query, q); diff != "" {
				t.Errorf("query %q (-want +got):\n%s", got.Query, diff)
			}
			for k, v := range c.want.headers {
				if g := strings.Join(got.Header.Values(k), ","); g != v {
					t.Errorf("header %s = %q, want %q", k, g, v)
				}
			}
			if ct := got.Header.Get("Content-Type"); ct != c.want.contentType {
				t.Errorf("Content-Type = %q, want %q", ct, c.want.contentType)
			}
			switch {
			case c.want.form != nil:
				f, err := url.ParseQuery(got.Body)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(c.want.form, f); diff != "" {
					t.Errorf("form %q (-want +got):\n%s", got.Body, diff)
				}
			case c.want.body != nil:
				dec := json.NewDecoder(strings.NewReader(got.Body))
				dec.UseNumber()
				var v any
				if err := dec.Decode(&v); err != nil {
					t.Fatalf("body %q is not JSON: %v", got.Body, err)
				}
				if diff := cmp.Diff(c.want.body, v); diff != "" {
					t.Errorf("body %s (-want +got):\n%s", got.Body, diff)
				}
			default:
				if got.Body != "" {
					t.Errorf("body = %q, want none", got.Body)
				}
			}
		})
	}
}

func TestNoClientAuthorizationForwarded(t *testing.T) {
	// The backend never sees the client's request; only configured headers are sent.
	up := newUpstream(t)
	b := mustOpen(t, placementServer(up.URL))
	callTool(t, b, "get_user", map[string]any{"id": "1"})
	if a := up.last(t).Header.Get("Authorization"); a != "" {
		t.Errorf("Authorization = %q, want none", a)
	}
}

func TestBuildErrors(t *testing.T) {
	up := newUpstream(t)
	b := mustOpen(t, fmt.Sprintf(`kind: http
description: d
base_url: %s
allow_private: true
tools:
  opt_path:
    description: optional path parameter
    inputSchema: {type: object, properties: {id: {type: string}}}
    method: GET
    path: /users/{id}
    mappings: [{field: id, in: path, direct: id}]
  hdr:
    description: header from argument
    inputSchema: {type: object, properties: {h: {type: string}}}
    method: GET
    path: /echo
    mappings: [{field: X-H, in: header, direct: h}]
  scalar_body:
    description: whole body a string, plus a field
    inputSchema: {type: object, properties: {s: {type: string}, f: {type: string}}}
    method: POST
    path: /echo
    body: json
    mappings: [{field: "", in: body, direct: s}, {field: f, in: body, direct: f}]
`, up.URL))
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"opt_path", map[string]any{}, "no value for path parameter {id}; give the argument id"},
		{"opt_path", map[string]any{"id": ".."}, `path parameter {id} cannot be ".."`},
		{"opt_path", map[string]any{"id": ""}, `path parameter {id} cannot be ""`},
		{"hdr", map[string]any{"h": "a\r\nX-Evil: 1"}, "header values cannot contain line breaks"},
		{"scalar_body", map[string]any{"s": "x", "f": "y"}, "the whole body is a string, so field f cannot be set"},
	}
	before := up.count()
	for _, c := range cases {
		res := callTool(t, b, c.tool, c.args)
		if !res.IsError || !strings.Contains(resultText(res), c.want) {
			t.Errorf("%s %v: got isError=%v %q, want error containing %q", c.tool, c.args, res.IsError, resultText(res), c.want)
		}
	}
	if n := up.count() - before; n != 0 {
		t.Errorf("%d requests reached the upstream for calls that should fail before sending", n)
	}
}

func TestOpenErrors(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"expression syntax error with position", `kind: http
description: d
base_url: http://127.0.0.1:1
tools:
  t:
    description: d
    method: POST
    path: /x
    body: json
    mappings: [{field: a, in: body, expression: "args.title +* 2"}]
`, "at 1:13"},
		{"response expression syntax error", `kind: http
description: d
base_url: http://127.0.0.1:1
tools:
  t:
    description: d
    method: GET
    path: /x
    response: {expression: "response.body.("}
`, "response.expression"},
		{"overlapping body fields", `kind: http
description: d
base_url: http://127.0.0.1:1
tools:
  t:
    description: d
    inputSchema: {type: object, properties: {a: {type: object}, b: {type: string}}}
    method: POST
    path: /x
    body: json
    mappings: [{field: note, in: body, direct: a}, {field: note.title, in: body, direct: b}]
`, "overlaps note"},
		{"static fields without body", `kind: http
description: d
base_url: http://127.0.0.1:1
tools:
  t:
    description: d
    method: GET
    path: /x
    static_fields: {a: 1}
`, "static_fields: need body"},
		{"bad cookie name", `kind: http
description: d
base_url: http://127.0.0.1:1
tools:
  t:
    description: d
    method: GET
    path: /x
    mappings: [{field: "a b", in: cookie, constant: x}]
`, `"a b" is not a valid cookie name`},
		{"reserved header", `kind: http
description: d
base_url: http://127.0.0.1:1
tools:
  t:
    description: d
    method: GET
    path: /x
    mappings: [{field: host, in: header, constant: evil.example}]
`, "the host header is set by mcpbridge"},
		{"bad header name", `kind: http
description: d
base_url: http://127.0.0.1:1
headers: {"Bad Name": x}
tools:
  t: {description: d, method: GET, path: /x}
`, `"Bad Name" is not a valid header name`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Configuration validation or Open must refuse it (expressions are compiled by both).
			_, cfgErr, err := parseAndOpen(t, c.yaml)
			if cfgErr != nil {
				err = cfgErr
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// TestExpressionsCompiledOnce checks that the kind compiles its expressions when the
// definition is decoded, and reports a syntax error there with its position, so Open never
// sees an uncompiled expression.
func TestExpressionsCompiledOnce(t *testing.T) {
	_, err := config.Parse("c.yaml", t.TempDir(), []byte(`servers:
  api:
    kind: http
    description: d
    base_url: http://127.0.0.1:1
    tools:
      t:
        description: d
        method: POST
        path: /x
        body: json
        mappings: [{field: a, in: body, expression: "args.title +* 2"}]
        response: {expression: "response.body.("}
`), backend.Kinds())
	for _, want := range []string{
		`c.yaml:12:53: servers.api.tools.t.mappings[0].expression: invalid expression: SyntaxError`,
		`c.yaml:13:32: servers.api.tools.t.response.expression: invalid expression: SyntaxError`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse error = %v\nwant it to contain %s", err, want)
		}
	}
	s := &config.Server{Name: "api", Kind: "http"}
	if _, err := backend.Open(context.Background(), s, backend.Deps{}); err == nil || !strings.Contains(err.Error(), "was not decoded") {
		t.Errorf("Open of an undecoded definition = %v", err)
	}
}
