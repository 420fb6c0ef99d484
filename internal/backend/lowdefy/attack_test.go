package lowdefy_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// attackApp has one destructive form whose page reads _url_query and _input, with a text
// input and an object-valued input (Pagination).
const attackApp = `lowdefy: 4.0.0
mcp:
  tools:
    submit_edit: {confirm: true}
auth:
  pages:
    public: [edit]
connections:
  - id: db
    type: Knex
    properties:
      client: sqlite
      useNullAsDefault: true
      connection: {filename: {_secret: SQLITE_FILENAME}}
pages:
  - id: edit
    type: Box
    requests:
      - id: save_note
        type: KnexRaw
        connectionId: db
        payload: {body: {_state: title}, page: {_state: pager}}
        properties:
          query: INSERT INTO notes (body) VALUES (:body)
          parameters: {body: {_payload: body}}
    events:
      onInit:
        - id: seen
          type: SetState
          params: {id: {_url_query: id}, mode: {_input: mode}}
    blocks:
      - id: title
        type: TextInput
        properties: {title: Title}
      - id: pager
        type: Pagination
      - id: save
        type: Button
        events:
          onClick:
            - {id: save, type: Request, params: save_note}
`

// Hostile arguments of a generated form tool: deep nesting, a 4 MB string, urlQuery and
// input of the wrong type, confirm as a string. Each is an error result or a JSON-RPC error
// saying what to fix, in bounded time and memory (what fits in limits.max_body and the
// JSON-RPC nesting bound, 900 levels or 900 KB, is submitted within bounds).
func TestAttackFormToolArguments(t *testing.T) {
	srv, _ := startSQLiteApp(t, attackApp, "notes.sqlite",
		`CREATE TABLE notes (id INTEGER PRIMARY KEY, author TEXT, email TEXT, body TEXT, priority REAL)`)
	alice := connect(t, srv.URL+"/mcp/tickets", aliceKey)
	ctx := context.Background()

	lt, err := alice.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tool *mcp.Tool
	for _, x := range lt.Tools {
		if x.Name == "submit_edit" {
			tool = x
		}
	}
	if tool == nil {
		t.Fatalf("no submit_edit: %v", lt.Tools)
	}
	schema, _ := json.Marshal(tool.InputSchema)
	t.Logf("schema: %s", schema)

	deep := func(n int) any {
		var v any = map[string]any{}
		for range n {
			v = map[string]any{"a": v}
		}
		return v
	}
	call := func(args map[string]any) (*mcp.CallToolResult, error, time.Duration, uint64) {
		t.Helper()
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		res, err := alice.cs.CallTool(ctx, &mcp.CallToolParams{Name: "submit_edit", Arguments: args})
		d := time.Since(start)
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		return res, err, d, after.TotalAlloc - before.TotalAlloc
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		want string // in the error result's text or the JSON-RPC error; "" for a call that succeeds
	}{
		{"confirm as a string", map[string]any{"title": "x", "confirm": "true"}, `/properties/confirm: type: true has type "string", want "boolean"`},
		{"confirm left out", map[string]any{"title": "x"}, `missing properties: ["confirm"]`},
		{"confirm false", map[string]any{"title": "x", "confirm": false}, `/properties/confirm`},
		{"urlQuery a string", map[string]any{"confirm": true, "urlQuery": "id=1"}, "urlQuery"},
		{"urlQuery an array", map[string]any{"confirm": true, "urlQuery": []any{"id", 1}}, "urlQuery"},
		{"urlQuery a 500 KB string", map[string]any{"confirm": true, "urlQuery": strings.Repeat("x", 500<<10)}, `has type "string", want "object"`},
		{"input a string", map[string]any{"confirm": true, "input": "x"}, "input"},
		{"input an array", map[string]any{"confirm": true, "input": []any{1}}, "input"},
		{"5,000-deep object for the object input", map[string]any{"confirm": true, "pager": deep(5000)}, "exceeded maximum nesting depth of 1000"},
		{"5,000-deep input", map[string]any{"confirm": true, "input": deep(5000)}, "exceeded maximum nesting depth of 1000"},
		{"900-deep object for the object input", map[string]any{"confirm": true, "pager": deep(900)}, ""},
		{"900 KB title", map[string]any{"confirm": true, "title": strings.Repeat("x", 900<<10)}, ""},
		// Last: the SDK client closes its session on a refused body.
		{"4 MB title", map[string]any{"confirm": true, "title": strings.Repeat("x", 4<<20)}, "Request Entity Too Large"},
	} {
		res, err, d, alloc := call(tc.args)
		msg := ""
		switch {
		case err != nil:
			msg = err.Error()
		case res.IsError:
			msg = text(res)
		}
		t.Logf("%s: %.300s (%s, %d MB allocated in the test process)", tc.name, msg, d.Round(time.Millisecond), alloc>>20)
		if d > 10*time.Second {
			t.Errorf("%s took %s", tc.name, d)
		}
		if (msg == "") != (tc.want == "") {
			t.Errorf("%s: %.300s %.300s, want an error naming %q", tc.name, msg, text(res), tc.want)
			continue
		}
		if !strings.Contains(msg, tc.want) || len(msg) > 4000 {
			t.Errorf("%s: %.600s (%d bytes), want it to name %q", tc.name, msg, len(msg), tc.want)
		}
	}
}
