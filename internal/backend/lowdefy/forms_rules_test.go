package lowdefy_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// notesApp has a public form with a validate rule, a Throw and annotated blocks, a form for
// the support role with a destructive action (mcp.tools confirm), a public and a
// support-only query page, and API endpoints, on a SQLite file.
const notesApp = `lowdefy: 4.0.0
mcp:
  tools:
    submit_close_note: {confirm: true}
  resources:
    desk_notes: {description: The support desk's notes.}
auth:
  pages:
    public: [home, notes]
    roles:
      support: [close-note, desk-notes]
  api:
    roles:
      support: [close_all]
connections:
  - id: db
    type: Knex
    properties:
      client: sqlite
      useNullAsDefault: true
      connection: {filename: {_secret: SQLITE_FILENAME}}
api:
  - id: whoami
    type: Api
    routine:
      - :return: {user: {_user: id}, echo: {_payload: text}}
  - id: close_all
    type: Api
    mcp: {description: Close every note.}
    routine:
      - :return: closed
  - id: internal
    type: Api
    mcp: {exclude: true}
    routine:
      - :return: 1
pages:
  - id: home
    type: Box
    requests:
      - id: add_note
        type: KnexRaw
        connectionId: db
        payload: {note: {_state: note}}
        properties:
          query: INSERT INTO notes (author, email, body, priority) VALUES (:author, :email, :body, :priority)
          parameters:
            author: {_payload: note.author}
            email: {_payload: note.email}
            body: {_payload: note.body}
            priority: {_payload: note.priority}
    blocks:
      - id: note.author
        type: TextInput
        required: true
        properties: {title: Author}
      - id: note.email
        type: TextInput
        properties: {title: Email}
        validate:
          - pass: {_regex: {pattern: '^\S+@\S+$', key: note.email}}
            message: Give an email address such as ada@example.com
      - id: note.body
        type: TextArea
        required: Write the note
        properties: {label: {title: The note}}
      - id: note.priority
        type: NumberInput
        properties: {title: Priority}
      - id: secret_field
        type: TextInput
        mcp: {exclude: true}
      - id: hidden_box
        type: Box
        visible: false
        blocks:
          - {id: ghost, type: TextInput}
      - id: save
        type: Button
        mcp: {toolName: add_note, description: Add a note to the desk.}
        events:
          onClick:
            - {id: validate, type: Validate}
            - id: too_urgent
              type: Throw
              params:
                throw: {_gt: [{_state: note.priority}, 5]}
                message: Priority above 5 goes to the phone line
            - {id: add, type: Request, params: add_note}
  - id: close-note
    type: Box
    requests:
      - id: close_note
        type: KnexRaw
        connectionId: db
        payload: {id: {_state: note_id}}
        properties:
          query: DELETE FROM notes WHERE id = :id
          parameters: {id: {_payload: id}}
    blocks:
      - id: note_id
        type: NumberInput
        required: true
      - id: close
        type: Button
        events:
          onClick:
            - {id: close, type: Request, params: close_note}
  - id: notes
    type: Box
    requests:
      - id: list_notes
        type: KnexRaw
        connectionId: db
        properties: {query: 'SELECT id, author, body FROM notes ORDER BY id'}
    events:
      onMount:
        - {id: load, type: Request, params: list_notes}
    blocks:
      - id: table
        type: AgGridAlpine
        properties: {rowData: {_request: list_notes}}
  - id: desk-notes
    type: Box
    requests:
      - id: all_notes
        type: KnexRaw
        connectionId: db
        properties: {query: SELECT * FROM notes}
    events:
      onInit:
        - {id: load, type: Request, params: all_notes}
    blocks:
      - id: table
        type: AgGridAlpine
        properties: {rowData: {_request: all_notes}}
`

func startNotes(t *testing.T) (*gatewaytest.Server, string) {
	t.Helper()
	return startSQLiteApp(t, notesApp, "notes.sqlite",
		`CREATE TABLE notes (id INTEGER PRIMARY KEY, author TEXT, email TEXT, body TEXT, priority REAL)`)
}

func countNotes(t *testing.T, file, where string, args ...any) int {
	t.Helper()
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM notes WHERE `+where, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The generated tools follow the app: annotations name, describe and leave out blocks and
// endpoints; the app's validation and Throw come back as error results naming what to fix;
// mcp.tools confirm makes a tool destructive; auth.pages and auth.api apply to the caller.
func TestFormToolRules(t *testing.T) {
	srv, dbFile := startNotes(t)
	alice := connect(t, srv.URL+"/mcp/tickets", aliceKey) // role support
	bob := connect(t, srv.URL+"/mcp/tickets", bobKey)     // role sales
	ctx := context.Background()

	lt, err := alice.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	var names []string
	for _, x := range lt.Tools {
		tools[x.Name] = x
		names = append(names, x.Name)
	}
	slices.Sort(names)
	if got := strings.Join(names, ","); got != "add_note,api_close_all,api_whoami,get_pages,get_state,interact,navigate,session_close,session_create,session_list,submit_close_note" {
		t.Errorf("tools: %s", got)
	}
	schema, _ := json.Marshal(tools["add_note"].InputSchema)
	if want := `{"additionalProperties":false,"properties":{"note":{"additionalProperties":false,"properties":{"author":{"description":"Author","type":"string"},"body":{"description":"The note","type":"string"},"email":{"description":"Email","type":"string"},"priority":{"description":"Priority","type":"number"}},"required":["author","body"],"type":"object"}},"required":["note"],"type":"object"}`; string(schema) != want {
		t.Errorf("add_note schema:\n%s\nwant\n%s", schema, want)
	}
	if d := tools["add_note"].Description; d != "Add a note to the desk." {
		t.Errorf("add_note description: %q", d)
	}
	if c := tools["submit_close_note"]; c.Annotations == nil || c.Annotations.DestructiveHint == nil || !*c.Annotations.DestructiveHint || !strings.Contains(c.Description, "confirm: true") {
		t.Errorf("submit_close_note is not marked destructive: %+v", c)
	}
	lr, err := alice.cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range lr.Resources {
		uris = append(uris, r.URI+" "+r.Description)
	}
	if got := strings.Join(uris, "\n"); !strings.Contains(got, "lowdefy://notes/notes ") || !strings.Contains(got, "lowdefy://desk-notes/desk_notes The support desk's notes.") {
		t.Errorf("resources:\n%s", got)
	}

	// The app's validation, by field.
	res := alice.call("add_note", map[string]any{"note": map[string]any{"author": "Ada", "email": "not-an-email", "body": "Hi"}}, true)
	if !strings.Contains(text(res), "note.email: Give an email address such as ada@example.com") {
		t.Errorf("invalid email: %s", text(res))
	}
	// A Throw in the chain stops it before the request.
	res = alice.call("add_note", map[string]any{"note": map[string]any{"author": "Ada", "email": "ada@example.com", "body": "Fire", "priority": 9}}, true)
	if !strings.Contains(text(res), "Priority above 5 goes to the phone line") {
		t.Errorf("throw: %s", text(res))
	}
	if n := countNotes(t, dbFile, "1=1"); n != 0 {
		t.Fatalf("%d notes after refused submits", n)
	}
	res = bob.call("add_note", map[string]any{"note": map[string]any{"author": "Bob", "email": "bob@example.com", "body": "Hello", "priority": 2}}, false)
	if n := countNotes(t, dbFile, "author = ? AND email = ? AND body = ? AND priority = 2", "Bob", "bob@example.com", "Hello"); n != 1 {
		t.Fatalf("%d notes by Bob, want 1: %s", n, text(res))
	}

	// auth.pages: the support page's tool and resource are not bob's: he is not shown the
	// tool, and calling it is answered as for a tool that does not exist.
	listed := func(c *mcp.ClientSession) []string {
		lt, err := c.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range lt.Tools {
			names = append(names, tool.Name)
		}
		return names
	}
	if names := listed(bob.cs); slices.Contains(names, "submit_close_note") || !slices.Contains(names, "add_note") {
		t.Errorf("bob's tools/list: %v, want add_note and not submit_close_note", names)
	}
	if names := listed(alice.cs); !slices.Contains(names, "submit_close_note") {
		t.Errorf("alice's tools/list lacks submit_close_note: %v", names)
	}
	if _, err := bob.cs.CallTool(ctx, &mcp.CallToolParams{Name: "submit_close_note", Arguments: map[string]any{"note_id": 1, "confirm": true}}); err == nil || !strings.Contains(err.Error(), `unknown tool "submit_close_note"`) {
		t.Errorf("bob closes a note: %v, want unknown tool", err)
	}
	// The backend's own check holds for a caller that skips the gateway.
	b := srv.Gateway.Entry("tickets").Backend()
	bobP := auth.Principal{User: "bob", Roles: []string{"sales"}}
	if res, _ := b.CallTool(ctx, &backend.Call{Name: "submit_close_note", Arguments: json.RawMessage(`{"note_id":1,"confirm":true}`), Principal: bobP, Session: backend.NoSession{}}); res == nil || !strings.Contains(text(res), "not available to you") {
		t.Errorf("bob closes a note through the backend: %v", res)
	}
	if _, err := bob.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "lowdefy://desk-notes/desk_notes"}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("bob reads the desk's notes: %v", err)
	}
	if rr, err := bob.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "lowdefy://notes/notes"}); err != nil || !strings.Contains(rr.Contents[0].Text, `"author":"Bob"`) {
		t.Errorf("bob reads the public notes: %v %v", rr, err)
	}
	if rr, err := alice.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "lowdefy://desk-notes/desk_notes"}); err != nil || !strings.Contains(rr.Contents[0].Text, `"email":"bob@example.com"`) {
		t.Errorf("alice reads the desk's notes: %v %v", rr, err)
	}

	// confirm: refused without it, done with it.
	res = alice.call("submit_close_note", map[string]any{"note_id": 1, "confirm": false}, true)
	if !strings.Contains(text(res), "confirm") {
		t.Errorf("close without confirm: %s", text(res))
	}
	if n := countNotes(t, dbFile, "1=1"); n != 1 {
		t.Fatalf("a note was closed without confirm")
	}
	alice.call("submit_close_note", map[string]any{"note_id": 1, "confirm": true}, false)
	if n := countNotes(t, dbFile, "1=1"); n != 0 {
		t.Fatalf("%d notes after closing", n)
	}

	// Endpoints: the arguments are the payload; auth.api applies.
	res = alice.call("api_whoami", map[string]any{"text": "hi"}, false)
	if got := text(res); got != `{"response":{"user":"alice","echo":"hi"}}` {
		t.Errorf("api_whoami: %s", got)
	}
	if res := bob.call("api_close_all", nil, true); !strings.Contains(text(res), "does not exist") {
		t.Errorf("bob api_close_all: %s", text(res))
	}
	if res := alice.call("api_close_all", nil, false); text(res) != `{"response":"closed"}` {
		t.Errorf("alice api_close_all: %s", text(res))
	}
}
