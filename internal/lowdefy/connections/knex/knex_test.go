package knex

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
	"github.com/mcpbridge/mcpbridge/internal/testenv"
)

// obj decodes JSON text into an ordered object.
func obj(t *testing.T, s string) *jsvalue.Object {
	t.Helper()
	v, err := jsvalue.Decode([]byte(s))
	if err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v.(*jsvalue.Object)
}

// tutorialDB copies the Lowdefy tutorial's SQLite database into a temporary directory.
func tutorialDB(t *testing.T) string {
	t.Helper()
	src := filepath.Join(testenv.LowdefyApps(t), "tutorial", "tutorial_db.sqlite")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatalf("reading the tutorial database %s: %v", src, err)
	}
	dst := filepath.Join(t.TempDir(), "tutorial_db.sqlite")
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dst
}

// run runs one request of type typ with a fresh call.
func run(t *testing.T, deps *connections.Deps, conn *jsvalue.Object, typ string, req *jsvalue.Object) (any, error) {
	t.Helper()
	kt := Type()
	if err := kt.Check(conn); err != nil {
		t.Fatalf("connection check: %v", err)
	}
	rt := kt.Requests[typ]
	if err := rt.Check(req); err != nil {
		t.Fatalf("request check: %v", err)
	}
	return rt.Run(context.Background(), &connections.Call{ConnectionID: "knex", RequestID: "r", Connection: conn, Request: req, Deps: deps})
}

func jsonString(v any) string {
	s, ok := jsvalue.Stringify(v, "")
	if !ok {
		return "undefined"
	}
	return s
}

// TestTutorial runs the requests of the Lowdefy tutorial (08-final) on its database: the
// insert with named parameters and a date, then the select.
func TestTutorial(t *testing.T) {
	// The tutorial writes `client: sqlite` and the file name from a secret.
	conn := jsvalue.ObjectOf("client", "sqlite", "connection", jsvalue.ObjectOf("filename", tutorialDB(t)))
	deps := &connections.Deps{Pools: &connections.Pools{}}
	defer deps.Pools.Close()
	insert := jsvalue.ObjectOf(
		"query", "INSERT INTO tickets (\nticket_title,\nticket_type,\nticket_description,\nproduct,\npurchase_in_last_month,\ncreated_date)\nVALUES(\n:ticket_title,\n:ticket_type,\n:ticket_description,\n:product,\n:purchase_in_last_month,\n:created_date)\n",
		"parameters", jsvalue.ObjectOf("ticket_title", "Broken", "ticket_type", "Bug", "ticket_description", nil,
			"product", "iPhone 9", "purchase_in_last_month", true, "created_date", time.UnixMilli(1700000000123).UTC()))
	res, err := run(t, deps, conn, "KnexRaw", insert)
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonString(res); got != "[]" {
		t.Errorf("insert = %s, want [] (node-sqlite3's all)", got)
	}
	res, err = run(t, deps, conn, "KnexRaw", jsvalue.ObjectOf("query", `SELECT * FROM "tickets"`))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"ticket_title":"Broken","ticket_type":"Bug","ticket_description":null,"product":"iPhone 9","purchase_in_last_month":1,"created_date":1700000000123}]`
	if got := jsonString(res); got != want {
		t.Errorf("select\n got %s\nwant %s", got, want)
	}
	// The builder reads the same rows, columns in the table's order.
	res, err = run(t, deps, conn, "KnexBuilder", obj(t, `{"tableName":"tickets","query":[{"where":["product","iPhone 9"]},{"first":[]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.(*jsvalue.Object).Keys(); strings.Join(got, ",") != "ticket_title,ticket_type,ticket_description,product,purchase_in_last_month,created_date" {
		t.Errorf("first row keys = %v", got)
	}
}

func TestPools(t *testing.T) {
	file := filepath.Join(t.TempDir(), "p.sqlite")
	conn := jsvalue.ObjectOf("client", "sqlite3", "connection", jsvalue.ObjectOf("filename", file))
	pools := &connections.Pools{}
	deps := &connections.Deps{Pools: pools}
	var first io.Closer
	for i := 0; i < 3; i++ {
		if _, err := run(t, deps, conn, "KnexRaw", jsvalue.ObjectOf("query", "select 1")); err != nil {
			t.Fatal(err)
		}
		h, err := pools.Get("sqlite3\x00"+file, func() (io.Closer, error) {
			t.Fatal("the pool has no handle for the connection after a request")
			return nil, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = h
		} else if h != first {
			t.Errorf("request %d opened a new handle", i)
		}
	}
	if err := pools.Close(); err != nil {
		t.Fatal(err)
	}
	// Without pools, each request opens and closes its own handle, and still works.
	if res, err := run(t, nil, conn, "KnexRaw", jsvalue.ObjectOf("query", "select 2 as n")); err != nil || jsonString(res) != `[{"n":2}]` {
		t.Errorf("without pools: %v %v", jsonString(res), err)
	}
}

func TestErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "e.sqlite")
	conn := jsvalue.ObjectOf("client", "sqlite3", "connection", jsvalue.ObjectOf("filename", file))
	cases := []struct {
		typ, req, want string
	}{
		{"KnexRaw", `{"query":"select :a","parameters":{"a":1,"b":null}}`, ""},
		{"KnexRaw", `{"query":""}`, "The query is empty"},
		{"KnexBuilder", `{"tableName":"t","query":[{"union":[]}]}`, `KnexBuilder: query builder method "union" is not supported by mcpbridge; write this query with KnexRaw`},
		{"KnexBuilder", `{"tableName":"t","query":[{"selectt":["a"]}]}`, `Invalid query builder method "selectt".`},
		{"KnexBuilder", `{"tableName":"t","query":[{"whereBetween":["a",[1]]}]}`, `You must specify 2 values for the whereBetween clause`},
		{"KnexBuilder", `{"tableName":"t","query":[5]}`, `Invalid query, method should be an object, received 5.`},
		{"KnexBuilder", `{"tableName":"t","query":[{"insert":[[{"a":1},{"b":2}]]}]}`, "`sqlite` does not support inserting default values. Specify values explicitly or use the `useNullAsDefault` config flag. (see docs https://knexjs.org/guide/query-builder.html#insert)."},
		{"KnexRaw", `{"query":"select ?","parameters":[[1,2]]}`, `select ? - SQLITE_RANGE: parameter 1 is object, which sqlite cannot bind; pass a string, number, boolean, date or null`},
	}
	for _, tc := range cases {
		_, err := run(t, nil, conn, tc.typ, obj(t, tc.req))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s %s:\n got %q\nwant %q", tc.typ, tc.req, got, tc.want)
		}
	}
	// An undefined named parameter is knex's error.
	req := jsvalue.ObjectOf("query", "select :a, :b", "parameters", jsvalue.ObjectOf("a", jsvalue.Undefined, "b", 1.0))
	_, err := Type().Requests["KnexRaw"].Run(context.Background(), &connections.Call{Connection: conn, Request: req})
	if err == nil || err.Error() != "Undefined binding(s) detected for keys [a] when compiling RAW query: select :a, ?" {
		t.Errorf("undefined binding: %v", err)
	}
	// An unknown client names what to use.
	_, err = Type().Requests["KnexRaw"].Run(context.Background(), &connections.Call{
		Connection: jsvalue.ObjectOf("client", "oracledb", "connection", "x"), Request: jsvalue.ObjectOf("query", "select 1")})
	if err == nil || !strings.Contains(err.Error(), `"oracledb" is not supported; use sqlite3, pg or mysql`) {
		t.Errorf("unknown client: %v", err)
	}
}

func TestChecks(t *testing.T) {
	cases := []struct {
		check func() error
		want  string
	}{
		{func() error { return checkConnection(obj(t, `{}`)) }, `Knex connection should have required property "client".; Knex connection should have required property "connection".`},
		{func() error { return checkConnection(obj(t, `{"client":1}`)) }, `Knex connection property "client" should be a string.; Knex connection should have required property "connection".`},
		{func() error { return checkConnection(obj(t, `{"client":"pg","connection":"x","searchPath":1}`)) }, `Knex connection property "searchPath" should be a string.`},
		{func() error { return checkRaw(obj(t, `{}`)) }, `KnexRaw request should have required property "query".`},
		{func() error { return checkRaw(obj(t, `{"query":1,"parameters":true}`)) }, `KnexRaw request property "query" should be a string.; KnexRaw request property "parameters" should be a string, number, array, or object.`},
		{func() error { return checkBuilder(obj(t, `{"query":{},"tableName":1}`)) }, `KnexBuilder request property "query" should be an array.; KnexBuilder request property "tableName" should be a string or object`},
		{func() error { return checkBuilder(3.0) }, `KnexBuilder request properties should be an object.`},
		{func() error { return checkRaw(obj(t, `{"query":"select 1","parameters":[1]}`)) }, ``},
	}
	for i, tc := range cases {
		got := ""
		if err := tc.check(); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("case %d: got %q, want %q", i, got, tc.want)
		}
	}
}

// TestIdentifiers checks knex's identifier quoting and binding replacement without a
// database.
func TestIdentifiers(t *testing.T) {
	pg, my := &pgDialect{}, &mysqlDialect{}
	sql, b, err := rawSQL(pg, `select ??, ?? from ?? where "x" = ? and y = \?`, []any{"a.b", "c as d", []any{"t1", "t2"}, 1.0}, true)
	if err != nil || sql != `select "a"."b", "c" as "d" from "t1", "t2" where "x" = ? and y = \?` || len(b) != 1 {
		t.Errorf("pg positional: %q %v %v", sql, b, err)
	}
	if got := positionBindings(sql); got != `select "a"."b", "c" as "d" from "t1", "t2" where "x" = $1 and y = ?` {
		t.Errorf("positioned: %q", got)
	}
	sql, b, _ = rawSQL(my, `select :col:, :v, :v::text, \:skip, :missing from :tbl:`, obj(t, `{"col":"we`+"`"+`ird","v":2,"tbl":{"x":"t"}}`), true)
	if sql != "select `we``ird`, ?, ?::text, :skip, :missing from `t` as `x`" || len(b) != 2 {
		t.Errorf("mysql named: %q %v", sql, b)
	}
	if got := doubleQuote(`arr[2]`); got != `"arr"[2]` {
		t.Errorf("pg array accessor: %s", got)
	}
	if got, _ := mysqlFormat("select ?, ?, ?, ?, ?? , ???", []any{"it's", 1.5, nil, []any{1.0, []any{2.0, 3.0}}, "a.b"}); got != "select 'it\\'s', 1.5, NULL, 1, (2, 3), `a`.`b` , ???" {
		t.Errorf("mysql format: %s", got)
	}
}

// TestSearchPath sets the PostgreSQL schema search path.
func TestSearchPath(t *testing.T) {
	url, _ := postgresDB(t)
	deps := &connections.Deps{Pools: &connections.Pools{}}
	defer deps.Pools.Close()
	plain := jsvalue.ObjectOf("client", "pg", "connection", url)
	if _, err := run(t, deps, plain, "KnexRaw", jsvalue.ObjectOf("query", "create schema app; create table app.things (name text); insert into app.things values ('in app')")); err != nil {
		t.Fatal(err)
	}
	conn := jsvalue.ObjectOf("client", "postgresql", "connection", url, "searchPath", "app,public")
	res, err := run(t, deps, conn, "KnexBuilder", obj(t, `{"tableName":"things","query":[{"pluck":["name"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonString(res); got != `["in app"]` {
		t.Errorf("things on the search path = %s", got)
	}
	if _, err := run(t, deps, plain, "KnexRaw", jsvalue.ObjectOf("query", "select * from things")); err == nil ||
		err.Error() != `select * from things - relation "things" does not exist` {
		t.Errorf("without searchPath: %v", err)
	}
}

// TestConnectionObjects opens PostgreSQL and MySQL from connection objects, not URLs.
func TestConnectionObjects(t *testing.T) {
	pgURL, pgName := postgresDB(t)
	myURL, myName := mysqlDB(t)
	for _, tc := range []struct{ client, url, db string }{{"pg", pgURL, pgName}, {"mysql2", myURL, myName}} {
		u := mustURL(t, tc.url)
		pass, _ := u.User.Password()
		conn := jsvalue.ObjectOf("client", tc.client, "connection", jsvalue.ObjectOf(
			"host", u.Hostname(), "port", u.Port(), "user", u.User.Username(), "password", pass, "database", tc.db))
		res, err := run(t, nil, conn, "KnexBuilder", obj(t, `{"query":[{"select":[{"n":"x"}]},{"from":[{"x":"y"}]}]}`))
		if err == nil {
			t.Errorf("%s: selecting from a missing table worked: %s", tc.client, jsonString(res))
		}
		res, err = run(t, nil, conn, "KnexRaw", obj(t, `{"query":"select ? as n","parameters":[7]}`))
		if err != nil {
			t.Fatalf("%s: %v", tc.client, err)
		}
		if !strings.Contains(jsonString(res), `{"n":`) {
			t.Errorf("%s: %s", tc.client, jsonString(res))
		}
	}
}

// noteCaller returns a function that runs a request of type typ (JSON req) on the
// connection conn and returns the notes it made; the connection's pools close with t.
func noteCaller(t *testing.T, conn *jsvalue.Object) func(typ, req string) []string {
	deps := &connections.Deps{Pools: &connections.Pools{}}
	t.Cleanup(func() { deps.Pools.Close() })
	return func(typ, req string) []string {
		t.Helper()
		var notes []string
		_, err := Type().Requests[typ].Run(context.Background(), &connections.Call{ConnectionID: "knex", RequestID: "r",
			Connection: conn, Request: obj(t, req), Deps: deps, Note: func(m string) { notes = append(notes, m) }})
		if err != nil {
			t.Fatalf("%s %s: %v", typ, req, err)
		}
		return notes
	}
}

// A write that changed no rows is noted on the call (issue 22 point 7), although the
// response looks the same (knex's sqlite answers [] to a raw UPDATE whatever it changed):
// raw UPDATE, DELETE and INSERT OR IGNORE, and KnexBuilder update and del.
func TestNothingWrittenIsNoted(t *testing.T) {
	file := filepath.Join(t.TempDir(), "n.sqlite")
	conn := jsvalue.ObjectOf("client", "sqlite3", "connection", jsvalue.ObjectOf("filename", file), "useNullAsDefault", true)
	call := noteCaller(t, conn)
	call("KnexRaw", `{"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"}`)
	call("KnexRaw", `{"query": "INSERT INTO notes (id, body) VALUES (1, 'a')"}`)
	for _, c := range []struct{ typ, req, want string }{
		{"KnexRaw", `{"query": "UPDATE notes SET body = 'x' WHERE id = ?", "parameters": [9]}`, "r UPDATE changed no rows: nothing was written (no row matched its WHERE clause and parameters)"},
		{"KnexRaw", `{"query": "-- remove\n delete from notes where id = :id", "parameters": {"id": 9}}`, "r DELETE changed no rows: nothing was written (no row matched its WHERE clause and parameters)"},
		{"KnexRaw", `{"query": "INSERT OR IGNORE INTO notes (id, body) VALUES (1, 'dup')"}`, "r INSERT changed no rows: nothing was written (no row matched its WHERE clause and parameters)"},
		{"KnexBuilder", `{"tableName": "notes", "query": [{"where": ["id", 9]}, {"update": [{"body": "x"}]}]}`, "r UPDATE changed no rows: nothing was written (no row matched its where clause)"},
		{"KnexBuilder", `{"tableName": "notes", "query": [{"where": ["id", 9]}, {"del": []}]}`, "r DELETE changed no rows: nothing was written (no row matched its where clause)"},
		{"KnexRaw", `{"query": "UPDATE notes SET body = 'y' WHERE id = ?", "parameters": [1]}`, ""},
		{"KnexRaw", `{"query": "SELECT * FROM notes WHERE id = 9"}`, ""},
		{"KnexBuilder", `{"tableName": "notes", "query": [{"where": ["id", 1]}, {"update": [{"body": "z"}]}]}`, ""},
		{"KnexRaw", `{"query": "INSERT INTO notes (id, body) VALUES (2, 'b')"}`, ""},
	} {
		if got := strings.Join(call(c.typ, c.req), "; "); got != c.want {
			t.Errorf("%s %s: notes %q, want %q", c.typ, c.req, got, c.want)
		}
	}
}

// The same on PostgreSQL, where node-postgres' rowCount tells.
func TestNothingWrittenIsNotedPostgres(t *testing.T) {
	url, _ := postgresDB(t)
	conn := jsvalue.ObjectOf("client", "pg", "connection", url)
	call := noteCaller(t, conn)
	call("KnexRaw", `{"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"}`)
	call("KnexRaw", `{"query": "INSERT INTO notes (id, body) VALUES (1, 'a')"}`)
	for _, c := range []struct{ typ, req, want string }{
		{"KnexRaw", `{"query": "UPDATE notes SET body = 'x' WHERE id = ?", "parameters": [9]}`, "r UPDATE changed no rows: nothing was written (no row matched its WHERE clause and parameters)"},
		{"KnexRaw", `{"query": "DELETE FROM notes WHERE id = 9"}`, "r DELETE changed no rows: nothing was written (no row matched its WHERE clause and parameters)"},
		{"KnexBuilder", `{"tableName": "notes", "query": [{"where": ["id", 9]}, {"update": [{"body": "x"}]}]}`, "r UPDATE changed no rows: nothing was written (no row matched its where clause)"},
		{"KnexRaw", `{"query": "UPDATE notes SET body = 'y' WHERE id = ?", "parameters": [1]}`, ""},
		{"KnexBuilder", `{"tableName": "notes", "query": [{"where": ["id", 1]}, {"del": []}]}`, ""},
	} {
		if got := strings.Join(call(c.typ, c.req), "; "); got != c.want {
			t.Errorf("%s %s: notes %q, want %q", c.typ, c.req, got, c.want)
		}
	}
}
