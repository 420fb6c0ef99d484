package lowdefy_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// truthApp (issue 22 points 7 and 9): a page whose onInit calls seven requests that all
// fail (each on a table of its own that does not exist), a button whose Request names two
// requests whose payloads fail, and an edit form whose UPDATE may match no row.
func truthApp() string {
	var reqs, ids strings.Builder
	for i := 1; i <= 7; i++ {
		fmt.Fprintf(&reqs, `
      - id: r%d
        type: KnexRaw
        connectionId: db
        properties: {query: SELECT * FROM missing_table_%d}`, i, i)
		fmt.Fprintf(&ids, "r%d, ", i)
	}
	return `lowdefy: 4.0.0
connections:
  - id: db
    type: Knex
    properties:
      client: sqlite
      useNullAsDefault: true
      connection: {filename: {_secret: SQLITE_FILENAME}}
pages:
  - id: seven
    type: Box
    requests:` + reqs.String() + `
      - id: p1
        type: KnexRaw
        connectionId: db
        payload: {x: {_divide: [1, 0]}}
        properties: {query: SELECT 1}
      - id: p2
        type: KnexRaw
        connectionId: db
        payload: {x: {_subtract: [1]}}
        properties: {query: SELECT 2}
    events:
      onInit:
        - {id: load, type: Request, params: [` + strings.TrimSuffix(ids.String(), ", ") + `]}
    blocks:
      - id: both
        type: Button
        events:
          onClick:
            - {id: call_both, type: Request, params: [p1, p2]}
  - id: edit
    type: Box
    requests:
      - id: update_note
        type: KnexRaw
        connectionId: db
        payload: {id: {_state: note_id}, body: {_state: body}}
        properties:
          query: UPDATE notes SET body = :body WHERE id = :id
          parameters: {id: {_payload: id}, body: {_payload: body}}
    blocks:
      - id: note_id
        type: NumberInput
        required: true
      - id: body
        type: TextInput
      - id: save
        type: Button
        events:
          onClick:
            - {id: validate, type: Validate}
            - {id: update, type: Request, params: update_note}
  - id: dup
    type: Box
    blocks:
      - id: first_card
        type: Card
        blocks:
          - {id: name, type: TextInput}
          - id: ok
            type: Button
            events: {onClick: [{id: pick, type: SetState, params: {picked: first}}]}
      - id: second_card
        type: Card
        blocks:
          - {id: name, type: TextInput}
          - id: ok
            type: Button
            events: {onClick: [{id: pick, type: SetState, params: {picked: second}}]}
`
}

func startTruth(t *testing.T) (*gatewaytest.Server, string) {
	t.Helper()
	return startSQLiteApp(t, truthApp(), "notes.sqlite",
		`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (id, body) VALUES (1, 'first')`)
}

// startSQLiteApp serves the Lowdefy app appYAML as server tickets, with work sessions in a
// store and a SQLite database, the file dbName that the statements schema make, named by
// LD_TEST_SQLITE_FILENAME. It returns the gateway and the database file.
func startSQLiteApp(t *testing.T, appYAML, dbName, schema string) (*gatewaytest.Server, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lowdefy.yaml"), []byte(appYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	dbFile := filepath.Join(dir, dbName)
	db, err := sql.Open("sqlite", dbFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
	db.Close()
	t.Setenv("LD_TEST_SQLITE_FILENAME", dbFile)
	st := openStore(t, filepath.Join(t.TempDir(), "s.db"))
	return gatewaytest.Start(t, gatewayConfig(dir, ""), gateway.Options{WorkSessions: st.WorkSessions}), dbFile
}

func sessionOf(t *testing.T, a *agent) string {
	t.Helper()
	var out struct{ SessionID string }
	res := a.call("session_create", map[string]any{"name": "truth"}, false)
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil || out.SessionID == "" {
		t.Fatalf("session_create answered %s", text(res))
	}
	return out.SessionID
}

// Issue 22 point 7: a failed request's error is its message, every failure of a call is
// in its log, and a write that matched nothing says so (in the log, and in a form tool's
// answer, which is then not a success).
func TestRequestFailuresAreInTheLog(t *testing.T) {
	srv, dbFile := startTruth(t)
	a := connect(t, srv.URL+"/mcp/tickets", aliceKey)
	sid := sessionOf(t, a)

	// Seven requests fail in one onInit: seven messages, each its own.
	_, log := pageLog(t, a.call("navigate", map[string]any{"sessionId": sid, "pageId": "seven"}, false))
	results, _ := log[0]["requestResults"].([]any)
	if len(results) != 7 {
		t.Fatalf("navigate logged %d request results, want 7: %v", len(results), log)
	}
	for i, r := range results {
		rm := r.(map[string]any)
		msg, _ := rm["error"].(string)
		if rm["success"] != false || !strings.Contains(msg, fmt.Sprintf("no such table: missing_table_%d", i+1)) {
			t.Errorf("request result %d: %v, want its own error message (not {})", i+1, rm)
		}
	}
	if errs, _ := log[0]["errors"].([]any); len(errs) == 0 || log[0]["success"] != false {
		t.Errorf("the failed onInit chain is not in the log's errors: %v", log[0])
	}

	// Two payloads fail in one Request action: Lowdefy's chain reports the first; the log
	// has both.
	_, log = pageLog(t, a.call("interact", map[string]any{"sessionId": sid, "actions": []any{
		map[string]any{"type": "triggerEvent", "blockId": "both", "event": "onClick"}}}, false))
	all, _ := json.Marshal(log[0]["errors"])
	if !strings.Contains(string(all), "_divide") || !strings.Contains(string(all), "request p2 was not called") || !strings.Contains(string(all), "_subtract") {
		t.Errorf("the log of two failing payloads: %s", all)
	}

	// An UPDATE that matches no row says so in the log.
	_, log = pageLog(t, a.call("interact", map[string]any{"sessionId": sid, "actions": []any{
		map[string]any{"type": "navigate", "pageId": "edit"}}}, false))
	_, log = pageLog(t, a.call("interact", map[string]any{"sessionId": sid, "actions": []any{
		map[string]any{"type": "setValue", "blockId": "note_id", "value": 999},
		map[string]any{"type": "setValue", "blockId": "body", "value": "lost"},
		map[string]any{"type": "triggerEvent", "blockId": "save", "event": "onClick"}}}, false))
	rr, _ := json.Marshal(log[2]["requestResults"])
	if !strings.Contains(string(rr), "update_note UPDATE changed no rows") {
		t.Errorf("an UPDATE of no row: %s", rr)
	}
	// One that matches a row has no such note.
	_, log = pageLog(t, a.call("interact", map[string]any{"sessionId": sid, "actions": []any{
		map[string]any{"type": "setValue", "blockId": "note_id", "value": 1},
		map[string]any{"type": "triggerEvent", "blockId": "save", "event": "onClick"}}}, false))
	if rr, _ := json.Marshal(log[1]["requestResults"]); strings.Contains(string(rr), "notes") || log[1]["success"] != true {
		t.Errorf("an UPDATE of one row: %s", rr)
	}

	// The form tool answers what the request did: nothing written is not a success.
	res := a.call("submit_edit", map[string]any{"note_id": 999, "body": "lost"}, true)
	if !strings.Contains(text(res), "nothing was written") || !strings.Contains(text(res), "changed no rows") {
		t.Errorf("submit_edit of no row: %s", text(res))
	}
	a.call("submit_edit", map[string]any{"note_id": 1, "body": "second"}, false)
	db, err := sql.Open("sqlite", dbFile)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var body string
	if err := db.QueryRow(`SELECT body FROM notes WHERE id = 1`).Scan(&body); err != nil || body != "second" {
		t.Errorf("note 1 is %q (%v) after submit_edit", body, err)
	}
}

// Issue 22 point 9: the work-session tools declare no output schema and answer with text
// only, so the page (and get_state's JSON) is paid for once.
func TestSessionToolsAnswerTextOnly(t *testing.T) {
	srv, _ := startTruth(t)
	a := connect(t, srv.URL+"/mcp/tickets", aliceKey)
	lt, err := a.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	session := map[string]bool{"session_create": true, "session_list": true, "session_close": true, "navigate": true, "interact": true, "get_state": true, "get_pages": true}
	n := 0
	for _, tool := range lt.Tools {
		if session[tool.Name] {
			n++
			if tool.OutputSchema != nil {
				t.Errorf("%s declares an output schema: %v", tool.Name, tool.OutputSchema)
			}
		}
	}
	if n != len(session) {
		t.Fatalf("%d session tools listed, want %d", n, len(session))
	}
	sid := sessionOf(t, a)
	results := map[string]*mcp.CallToolResult{
		"get_pages": a.call("get_pages", map[string]any{"sessionId": sid}, false),
		"navigate":  a.call("navigate", map[string]any{"sessionId": sid, "pageId": "edit"}, false),
		"interact": a.call("interact", map[string]any{"sessionId": sid, "actions": []any{
			map[string]any{"type": "setValue", "blockId": "body", "value": "x"}}}, false),
		"get_state":    a.call("get_state", map[string]any{"sessionId": sid}, false),
		"session_list": a.call("session_list", map[string]any{}, false),
	}
	for name, res := range results {
		if res.StructuredContent != nil {
			t.Errorf("%s answered with structured content beside its text: %v", name, res.StructuredContent)
		}
	}
	var st struct {
		PageID string         `json:"pageId"`
		State  map[string]any `json:"state"`
	}
	if err := json.Unmarshal([]byte(text(results["get_state"])), &st); err != nil || st.PageID != "edit" || st.State["body"] != "x" {
		t.Errorf("get_state is not the page's JSON (%v): %s", err, text(results["get_state"]))
	}
	if page, _ := pageLog(t, results["interact"]); !strings.Contains(page, `<input id="body"`) {
		t.Errorf("interact's page: %s", page)
	}
}

// pluggedApp declares a plugin and uses its operators (client and server side), a block
// type and an action of it.
const pluggedApp = `lowdefy: 4.0.0
plugins:
  - {name: '@acme/lowdefy-plugin', version: 1.0.0}
connections:
  - id: db
    type: Knex
    properties:
      client: sqlite
      useNullAsDefault: true
      connection: {filename: {_secret: SQLITE_FILENAME}}
pages:
  - id: home
    type: Box
    requests:
      - id: calc
        type: KnexRaw
        connectionId: db
        properties:
          query: {_acme_sql: 1}
    blocks:
      - id: greeting
        type: Title
        properties:
          content: {_string.concat: ['Hello ', {_my_operator: {name: x}}]}
      - id: fancy
        type: AcmeFancyChart
        properties: {title: Sales}
      - id: go
        type: Button
        events:
          onClick:
            - {id: confetti, type: AcmeConfetti}
      - id: run_calc
        type: Button
        events:
          onClick:
            - {id: calc, type: Request, params: calc}
`

// Issue 22 point 6: what mcpbridge does not run is said on the page and in the call's
// log — a plugin operator by name (never "[object Object]"), a plugin block type, a plugin
// action, a plugin operator on the server side.
func TestUnsupportedIsSaid(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lowdefy.yaml"), []byte(pluggedApp), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LD_TEST_SQLITE_FILENAME", filepath.Join(dir, "db.sqlite"))
	st := openStore(t, filepath.Join(t.TempDir(), "s.db"))
	srv := gatewaytest.Start(t, gatewayConfig(dir, ""), gateway.Options{WorkSessions: st.WorkSessions})
	a := connect(t, srv.URL+"/mcp/tickets", aliceKey)
	sid := sessionOf(t, a)

	page, log := pageLog(t, a.call("navigate", map[string]any{"sessionId": sid, "pageId": "home"}, false))
	for _, want := range []string{
		"> not supported: `_my_operator` is a plugin operator mcpbridge does not run (it evaluates to null) (at greeting)",
		"> not supported: `AcmeFancyChart` is a plugin block type mcpbridge does not run",
		`<display id="fancy" type="AcmeFancyChart" unsupported>`,
		"> not supported: action type `AcmeConfetti` (of a plugin) is not one mcpbridge runs: the action fails with Invalid action type, and the event's catch actions run (go.onClick)",
		"Hello null",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "[object Object]") {
		t.Errorf("the page shows [object Object]:\n%s", page)
	}
	warnings, _ := json.Marshal(log[0]["warnings"])
	if !strings.Contains(string(warnings), "`_my_operator` is a plugin operator mcpbridge does not run") ||
		!strings.Contains(string(warnings), "`AcmeFancyChart` is a plugin block type") {
		t.Errorf("the navigate log's warnings: %s", warnings)
	}

	page, log = pageLog(t, a.call("interact", map[string]any{"sessionId": sid, "actions": []any{
		map[string]any{"type": "triggerEvent", "blockId": "go", "event": "onClick"},
		map[string]any{"type": "triggerEvent", "blockId": "run_calc", "event": "onClick"}}}, false))
	// The next call (on the session restored from the store) still shows the notes.
	if !strings.Contains(page, "> not supported: `_my_operator` is a plugin operator") || !strings.Contains(page, "> not supported: `AcmeFancyChart`") {
		t.Errorf("the page of the next call lacks the notes:\n%s", page)
	}
	if e, _ := json.Marshal(log[0]["errors"]); !strings.Contains(string(e), `Invalid action type \"AcmeConfetti\"`) {
		t.Errorf("the plugin action's log: %s", e)
	}
	if rr, _ := json.Marshal(log[1]["requestResults"]); !strings.Contains(string(rr), "`_acme_sql` is a plugin operator mcpbridge does not run") {
		t.Errorf("the request with a server-side plugin operator: %s", rr)
	}
}

// notesDeskApp: a list of notes whose row click picks the note to edit (a record from a row), an
// Icon that deletes (not a form's submit), a new-note modal and an edit drawer whose
// buttons validate and write (each a tool with only the inputs its chain reads), a modal of
// unrelated required inputs, a Modal whose OK writes, and a page whose record comes from
// the URL.
const notesDeskApp = `lowdefy: 4.0.0
connections:
  - id: db
    type: Knex
    properties:
      client: sqlite
      useNullAsDefault: true
      connection: {filename: {_secret: SQLITE_FILENAME}}
pages:
  - id: desk
    type: Box
    requests:
      - {id: list_notes, type: KnexRaw, connectionId: db, properties: {query: 'SELECT id, body FROM notes ORDER BY id'}}
      - id: insert_note
        type: KnexRaw
        connectionId: db
        payload: {note: {_state: new}}
        properties:
          query: INSERT INTO notes (body) VALUES (:body)
          parameters: {body: {_payload: note.body}}
      - id: update_note
        type: KnexRaw
        connectionId: db
        payload: {note: {_state: edit}}
        properties:
          query: UPDATE notes SET body = :body WHERE id = :id
          parameters: {body: {_payload: note.body}, id: {_payload: note.id}}
      - id: delete_note
        type: KnexRaw
        connectionId: db
        payload: {id: {_state: edit.id}}
        properties:
          query: DELETE FROM notes WHERE id = :id
          parameters: {id: {_payload: id}}
      - id: tag_note
        type: KnexRaw
        connectionId: db
        payload: {tag: {_state: tag.name}}
        properties:
          query: INSERT INTO tags (name) VALUES (:tag)
          parameters: {tag: {_payload: tag}}
    events:
      onMount:
        - {id: load, type: Request, params: list_notes}
        - {id: show, type: SetState, params: {notes: {_request: list_notes}}}
    blocks:
      - id: notes
        type: List
        blocks:
          - id: notes.$.row
            type: Box
            events:
              onClick:
                - {id: pick, type: SetState, params: {edit: {_state: notes.$}}}
                - {id: open, type: CallMethod, params: {blockId: edit_drawer, method: toggleOpen}}
            blocks:
              - {id: notes.$.body, type: Paragraph, properties: {content: {_state: notes.$.body}}}
      - id: trash
        type: Icon
        events:
          onClick:
            - {id: del, type: Request, params: delete_note}
      - id: new_modal
        type: Modal
        blocks:
          - {id: new.body, type: TextInput, required: true, properties: {title: Note}}
          - id: create
            type: Button
            properties: {title: Create}
            events:
              onClick:
                - {id: check, type: Validate, params: {regex: '^new\.'}}
                - {id: insert, type: Request, params: insert_note}
      - id: edit_drawer
        type: Drawer
        blocks:
          - {id: edit.body, type: TextArea, required: true, properties: {title: Note}}
          - id: save
            type: Button
            properties: {title: Save}
            events:
              onClick:
                - {id: check, type: Validate, params: [edit.body]}
                - {id: update, type: Request, params: update_note}
      - id: settings_modal
        type: Modal
        blocks:
          - {id: other.x, type: TextInput, required: true}
          - {id: other.y, type: NumberInput, required: true}
          - id: close_settings
            type: Button
            events:
              onClick:
                - {id: close, type: CallMethod, params: {blockId: settings_modal, method: toggleOpen}}
      - id: tag_modal
        type: Modal
        events:
          onOk:
            - {id: check, type: Validate, params: tag.name}
            - {id: tag, type: Request, params: tag_note}
        blocks:
          - {id: tag.name, type: TextInput, required: true, properties: {title: Tag}}
  - id: rename
    type: Box
    requests:
      - id: rename_note
        type: KnexRaw
        connectionId: db
        payload: {id: {_url_query: id}, body: {_state: body}}
        properties:
          query: UPDATE notes SET body = :body WHERE id = :id
          parameters: {id: {_payload: id}, body: {_payload: body}}
    blocks:
      - {id: body, type: TextInput, required: true}
      - id: go
        type: Button
        events:
          onClick:
            - {id: check, type: Validate}
            - {id: rename, type: Request, params: rename_note}
`

// Issue 22 point 8: a generated tool is a real submit (a Button, or a Modal's OK, whose
// chain writes; not an Icon), with the inputs its chain reads and only those; a record a
// list row picks, or the URL names, is an argument; the answer says what the request did.
func TestFormToolsMeanWhatTheySay(t *testing.T) {
	srv, dbFile := startSQLiteApp(t, notesDeskApp, "desk.sqlite", `CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); CREATE TABLE tags (name TEXT);
		INSERT INTO notes (id, body) VALUES (1, 'one'), (2, 'two')`)
	db, err := sql.Open("sqlite", dbFile)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a := connect(t, srv.URL+"/mcp/tickets", aliceKey)

	lt, err := a.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]string{}
	for _, tool := range lt.Tools {
		if strings.HasPrefix(tool.Name, "submit_") {
			b, _ := json.Marshal(tool.InputSchema)
			schemas[tool.Name] = string(b)
		}
	}
	want := map[string][]string{
		// Only new.body: not the edit drawer's, not the settings modal's required inputs.
		"submit_desk_create": {`"new":{"additionalProperties":false,"properties":{"body":{"description":"Note","type":"string"}},"required":["body"],"type":"object"}`},
		// edit.body and the record, edit.id, which a row's click sets.
		"submit_desk_save": {`"body":{"description":"Note","type":"string"}`, `"id":{"description":"The record to work on: the id of a row of list notes`, `"required":["body","id"]`},
		// A Modal's OK that writes.
		"submit_desk_tag_modal": {`"tag":{"additionalProperties":false,"properties":{"name":{"description":"Tag","type":"string"}},"required":["name"],"type":"object"}`},
		// The URL names the record the UPDATE writes to: urlQuery.id is required.
		"submit_rename": {`"body":{"type":"string"}`, `"urlQuery":{"description":"The page's URL query (_url_query), such as the id of the record to work on: id.","properties":{"id":{}},"required":["id"],"type":"object"}`, `"required":["body","urlQuery"]`},
	}
	for name, parts := range want {
		s, ok := schemas[name]
		if !ok {
			t.Errorf("no tool %s; the form tools are %v", name, schemas)
			continue
		}
		for _, p := range parts {
			if !strings.Contains(s, p) {
				t.Errorf("%s schema lacks %s:\n%s", name, p, s)
			}
		}
		for _, bad := range []string{"other", "trash"} {
			if strings.Contains(s, `"`+bad+`"`) {
				t.Errorf("%s takes the unrelated %s:\n%s", name, bad, s)
			}
		}
	}
	if len(schemas) != len(want) {
		t.Errorf("form tools %v, want %d (the Icon that deletes is no form)", schemas, len(want))
	}
	body := func(id int) string {
		var b string
		if err := db.QueryRow(`SELECT body FROM notes WHERE id = ?`, id).Scan(&b); err != nil {
			return err.Error()
		}
		return b
	}

	// The record is picked by its id as a row click picks it; the answer shows the update.
	res := a.call("submit_desk_save", map[string]any{"edit": map[string]any{"id": 2, "body": "two, edited"}}, false)
	if body(2) != "two, edited" || body(1) != "one" {
		t.Errorf("after submit_desk_save: note 1 %q, note 2 %q (%s)", body(1), body(2), text(res))
	}
	res = a.call("submit_desk_save", map[string]any{"edit": map[string]any{"id": 99, "body": "lost"}}, true)
	if !strings.Contains(text(res), "no row of list notes has edit.id = 99 (the rows have: 1, 2)") {
		t.Errorf("a record that is not a row: %s", text(res))
	}
	a.call("submit_desk_create", map[string]any{"new": map[string]any{"body": "three"}}, false)
	if body(3) != "three" {
		t.Errorf("after submit_desk_create: note 3 %q", body(3))
	}
	a.call("submit_desk_tag_modal", map[string]any{"tag": map[string]any{"name": "urgent"}}, false)
	var tags int
	if err := db.QueryRow(`SELECT count(*) FROM tags WHERE name = 'urgent'`).Scan(&tags); err != nil || tags != 1 {
		t.Errorf("after submit_desk_tag_modal: %d tags (%v)", tags, err)
	}

	// The record from the URL: the right id renames; a wrong one says nothing was written.
	a.call("submit_rename", map[string]any{"body": "first", "urlQuery": map[string]any{"id": 1}}, false)
	if body(1) != "first" {
		t.Errorf("after submit_rename: note 1 %q", body(1))
	}
	res = a.call("submit_rename", map[string]any{"body": "nobody", "urlQuery": map[string]any{"id": 42}}, true)
	if !strings.Contains(text(res), "nothing was written") {
		t.Errorf("submit_rename of no note: %s", text(res))
	}
}

// Issue 22 point 8: blocks that share an id each stay addressable, by the path-qualified
// id the page shows (Lowdefy's own lookup by id reaches only the last).
func TestDuplicateBlockIDsAreAddressable(t *testing.T) {
	srv, _ := startTruth(t)
	a := connect(t, srv.URL+"/mcp/tickets", aliceKey)
	sid := sessionOf(t, a)
	page, _ := pageLog(t, a.call("navigate", map[string]any{"sessionId": sid, "pageId": "dup"}, false))
	for _, want := range []string{`<input id="first_card/name"`, `<button id="first_card/ok"`, `<input id="second_card/name"`, `<button id="second_card/ok"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s:\n%s", want, page)
		}
	}
	for _, c := range []struct{ id, want string }{{"first_card/ok", "first"}, {"second_card/ok", "second"}, {"ok", "second"}} {
		a.call("interact", map[string]any{"sessionId": sid, "actions": []any{
			map[string]any{"type": "triggerEvent", "blockId": c.id, "event": "onClick"}}}, false)
		var st struct{ State map[string]any }
		if err := json.Unmarshal([]byte(text(a.call("get_state", map[string]any{"sessionId": sid}, false))), &st); err != nil || st.State["picked"] != c.want {
			t.Errorf("clicking %s picked %v (%v), want %s", c.id, st.State["picked"], err, c.want)
		}
	}
	_, log := pageLog(t, a.call("interact", map[string]any{"sessionId": sid, "actions": []any{
		map[string]any{"type": "setValue", "blockId": "first_card/name", "value": "Ada"}}}, false))
	if log[0]["success"] != true {
		t.Errorf("setValue on first_card/name: %v", log[0])
	}
}
