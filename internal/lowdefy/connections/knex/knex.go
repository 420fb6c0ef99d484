// Package knex is Lowdefy's Knex connection type: SQL on SQLite, PostgreSQL and MySQL
// (MariaDB) with the request types KnexRaw and KnexBuilder.
//
// It follows @lowdefy/connection-knex 4.0.0-rc.11, which hands the connection's
// properties to knex 2.5.1 and returns what knex returns; this package reproduces knex's
// SQL, bindings and result shapes on Go drivers (modernc.org/sqlite, pgx's low-level
// connection, github.com/go-sql-driver/mysql).
//
// # Connection
//
//	client:     sqlite3 | sqlite | better-sqlite3 | pg | postgres | postgresql | mysql | mysql2
//	            (better-sqlite3 and mysql2 behave as sqlite3 and mysql: Lowdefy's package ships
//	            only the sqlite3, pg and mysql drivers)
//	connection: sqlite: {filename} (or the file name as a string);
//	            pg: a postgres:// URL or {host, port, user, password, database, ssl};
//	            mysql: a mysql:// URL or {host, port, user, password, database, socketPath}
//	            (a relative sqlite file name is relative to the process's working directory)
//	searchPath: PostgreSQL schema search path ("a,b"), set on every pooled connection
//	useNullAsDefault: SQLite only, as in knex (missing insert values become NULL)
//
// Database handles are kept in [connections.Deps.Pools], keyed by client and connection,
// so requests share a pool (SQLite: one connection, as knex's sqlite pool).
//
// # KnexRaw
//
// {query, parameters}. parameters is an object for named bindings (`:name` is a value,
// `:name:` an identifier; `\:name` is left as `:name`), an array for positional ones (`?`
// a value, `??` an identifier, `\?` a literal `?`), or one value for a single `?`.
// Identifiers are quoted as knex quotes them ("x" on PostgreSQL, `x` elsewhere; `a.b`
// and `a as b` are split). An undefined parameter is knex's error. The result is knex's
// raw result, with keys starting with `_` removed as Lowdefy does:
//
//   - sqlite: the array of rows (empty for statements without rows);
//   - pg: {command, rowCount, oid, rows, fields, RowCtor, rowAsArray} (node-postgres'
//     Result; an array of them when a query without parameters has several statements);
//   - mysql: [rows, fields] for a statement with rows, [OkPacket, undefined] otherwise.
//
// Rows are objects with the columns in the order the database gives them; values are
// converted as the Node drivers convert them (pg: int8 and numeric as strings, dates as
// dates, json parsed; mysql: numbers including DECIMAL and BIGINT as numbers, DATETIME as
// dates in the local zone; sqlite: integers and reals as numbers, blobs as Node Buffer
// JSON {type: "Buffer", data}).
//
// # KnexBuilder
//
// {tableName, query}: query is a list of single-key objects {method: [args…]}, each
// applied as knex's `builder[method](...args)`. The methods are:
//
//	select column columns distinct from table into
//	where andWhere orWhere whereNot andWhereNot orWhereNot
//	whereIn orWhereIn whereNotIn orWhereNotIn whereNull orWhereNull whereNotNull orWhereNotNull
//	whereBetween orWhereBetween whereNotBetween orWhereNotBetween
//	whereLike orWhereLike whereILike orWhereILike whereRaw orWhereRaw andWhereRaw
//	join innerJoin leftJoin leftOuterJoin rightJoin rightOuterJoin fullOuterJoin crossJoin
//	groupBy groupByRaw having orHaving havingRaw orderBy orderByRaw limit offset
//	count countDistinct min max sum sumDistinct avg avgDistinct
//	first pluck insert update del delete increment decrement returning
//	clearSelect clearWhere clearOrder
//
// An unknown method is Lowdefy's error `Invalid query builder method "x".`. The result is
// knex's for the method and client: rows for a select, a row (or nothing) for first, an
// array of values for pluck, [lastId] (sqlite, mysql) or node-postgres' Result (pg) for
// an insert without returning, the number of rows for update, del and increment, and the
// returned rows for returning (pg, sqlite).
//
// # Writes that change nothing
//
// A raw UPDATE, DELETE, INSERT or REPLACE that changed no rows, and a KnexBuilder update
// or del that changed none, is reported with [connections.Call.Notef] (the response does
// not change: knex's sqlite answers [] whatever an UPDATE did, so on SQLite the raw write
// runs on one connection followed by SELECT changes()).
//
// # Differences from knex
//
// Error messages are "<sql> - <driver message>" as knex's, but the SQL shows its
// placeholders rather than the values knex interpolates for sqlite and mysql, so that
// parameters (user data, secrets) do not reach logs or agents. Driver messages are worded
// like the Node drivers' (SQLITE_ERROR: …, ER_PARSE_ERROR: …, PostgreSQL's own text). The
// mysql `fields` list carries what go-sql-driver exposes: name and type are exact;
// db, table, orgTable and orgName are empty and charsetNr, length, flags and decimals
// are approximations. A mysql OkPacket's serverStatus, warningCount, message and
// changedRows are not known to go-sql-driver: they are 2, 0, "" and affectedRows. node-
// postgres' internals (_types, _parsers, …) are not in a pg Result returned by
// KnexBuilder, nor in the Results of a raw query with several statements (KnexRaw strips
// only the top level). MySQL raw
// queries are sent as text (values escaped as mysqljs escapes them); whether a raw
// statement returns rows is decided by its first keyword (SELECT, SHOW, WITH, …), so a
// MariaDB INSERT … RETURNING gives its OkPacket, not its rows. SQLite text in columns
// declared DATE, DATETIME or TIMESTAMP is parsed by modernc.org/sqlite and written back in
// SQLite's canonical form (YYYY-MM-DD HH:MM:SS[.SSS]); node-sqlite3 returns the stored
// text, which differs only when it was stored in another form (such as an ISO string
// with T and Z). mysql connections use mysqljs' utf8 (utf8_general_ci) character set,
// as Lowdefy does.
//
// # Tests
//
// The tests run testdata/scenario.json on a SQLite file, on PostgreSQL
// (MCPBRIDGE_TEST_POSTGRES, from scripts/setup-postgres.sh) and on MariaDB
// (MCPBRIDGE_TEST_MYSQL, from scripts/setup-mysql.sh) and compare every step with what
// Lowdefy's own connection returned in Node (testdata/oracle.mjs writes
// testdata/want-<client>.txt).
package knex

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
)

// Type returns the Knex connection type, with its request types KnexRaw and KnexBuilder.
func Type() *connections.Type {
	return &connections.Type{
		Name:  "Knex",
		Check: checkConnection,
		Requests: map[string]*connections.RequestType{
			"KnexRaw":     {Check: checkRaw, Run: runRaw},
			"KnexBuilder": {Check: checkBuilder, Run: runBuilder},
		},
	}
}

// dialect is one SQL client: how it quotes identifiers and how it runs SQL.
type dialect interface {
	// client is knex's name of the dialect: sqlite3, postgres or mysql.
	client() string
	// wrapIdentifier quotes one identifier segment (not `*`).
	wrapIdentifier(s string) string
	// raw runs sql with `?` placeholders (`\?` a literal) and returns knex's raw
	// result.
	raw(ctx context.Context, sql string, bindings []any) (any, error)
	// run runs a compiled builder query and returns knex's processed response.
	run(ctx context.Context, q *compiled) (any, error)
}

// logger returns the call's logger, or slog.Default.
func logger(c *connections.Call) *slog.Logger {
	if c.Deps != nil && c.Deps.Logger != nil {
		return c.Deps.Logger
	}
	return slog.Default()
}

// logDone logs a finished request at debug level: which one, how long, whether it failed.
// The SQL and its values are not logged (they may hold user data).
func logDone(c *connections.Call, typ string, start time.Time, err error) {
	logger(c).Debug("Knex request", "type", typ, "connection", c.ConnectionID, "request", c.RequestID,
		"duration", time.Since(start), "error", err)
}

// open returns the dialect of a connection, opening its database handle (or taking it
// from the pools) and a function to call when the request is done.
func open(c *connections.Call) (dialect, func(), error) {
	props := c.Connection
	client, _ := props.Prop("client").(string)
	var deps connections.Deps
	if c.Deps != nil {
		deps = *c.Deps
	}
	log := logger(c)
	var (
		key    string
		opener func() (io.Closer, error)
		wrap   func(io.Closer) dialect
		err    error
	)
	switch strings.ToLower(client) {
	case "sqlite3", "sqlite", "better-sqlite3":
		key, opener, wrap, err = openSQLite(props)
	case "pg", "postgres", "postgresql":
		key, opener, wrap, err = openPostgres(props)
	case "mysql", "mysql2":
		key, opener, wrap, err = openMySQL(props)
	default:
		return nil, nil, fmt.Errorf("Knex connection property \"client\" %q is not supported; use sqlite3, pg or mysql", client)
	}
	if err != nil {
		return nil, nil, err
	}
	h, err := deps.Pools.Get(key, opener)
	if err != nil {
		return nil, nil, err
	}
	done := func() {}
	if deps.Pools == nil {
		done = func() {
			if err := h.Close(); err != nil {
				log.Warn("Knex: closing the database handle", "connection", c.ConnectionID, "error", err)
			}
		}
	}
	return wrap(h), done, nil
}

// runRaw is the KnexRaw request.
func runRaw(ctx context.Context, c *connections.Call) (res any, err error) {
	defer func(start time.Time) { logDone(c, "KnexRaw", start, err) }(time.Now())
	req, _ := c.Request.(*jsvalue.Object)
	query, _ := req.Prop("query").(string)
	d, done, err := open(c)
	if err != nil {
		return nil, err
	}
	defer done()
	params, has := req.Get("parameters")
	if has && jsvalue.IsUndefined(params) {
		has = false
	}
	sql, bindings, err := rawSQL(d, query, params, has)
	if err != nil {
		return nil, err
	}
	if sql == "" {
		return nil, errEmptyQuery
	}
	res, err = d.raw(ctx, sql, bindings)
	if err != nil {
		return nil, err
	}
	noteRawChanges(c, d, sql, res)
	return stripUnderscore(res), nil
}

// writeStatement matches the statements that write rows: UPDATE, DELETE, INSERT, REPLACE
// (after comments).
var writeStatement = lazy.Regexp{Expr: `(?is)^(?:\s|/\*.*?\*/|--[^\n]*\n)*(update|delete|insert|replace)\b`}

// rawChanger is a dialect that can say how many rows its last raw write changed, where
// the response cannot (SQLite's knex answers [] for an UPDATE).
type rawChanger interface {
	rawChanges() (n int64, ok bool)
}

// noteRawChanges notes a raw UPDATE, DELETE, INSERT or REPLACE that changed no rows: the
// response looks the same whether it changed rows or not, so without the note a write
// that matched nothing would pass for a success.
func noteRawChanges(c *connections.Call, d dialect, query string, res any) {
	m := writeStatement.Get().FindStringSubmatch(query)
	if m == nil {
		return
	}
	verb := strings.ToUpper(m[1])
	n, known := int64(-1), false
	if rc, ok := d.(rawChanger); ok {
		n, known = rc.rawChanges()
	}
	if !known {
		switch r := res.(type) {
		case *jsvalue.Object: // node-postgres: {command, rowCount, ...}
			if f, ok := r.Prop("rowCount").(float64); ok {
				n, known = int64(f), true
			}
		case []any: // mysqljs: [OkPacket, undefined]
			if len(r) > 0 {
				if ok, _ := r[0].(*jsvalue.Object); ok != nil {
					if f, isNum := ok.Prop("affectedRows").(float64); isNum {
						n, known = int64(f), true
					}
				}
			}
		}
	}
	if known && n == 0 {
		c.Notef("%s %s changed no rows: nothing was written (no row matched its WHERE clause and parameters)", c.RequestID, verb)
	}
}

// errEmptyQuery is knex's error for an empty query.
var errEmptyQuery = errors.New("The query is empty")

// stripUnderscore removes the keys starting with "_" from an object result, as KnexRaw
// does.
func stripUnderscore(v any) any {
	o, ok := v.(*jsvalue.Object)
	if !ok {
		return v
	}
	for _, k := range o.Keys() {
		if strings.HasPrefix(k, "_") {
			o.Delete(k)
		}
	}
	return o
}

// runBuilder is the KnexBuilder request.
func runBuilder(ctx context.Context, c *connections.Call) (res any, err error) {
	defer func(start time.Time) { logDone(c, "KnexBuilder", start, err) }(time.Now())
	req, _ := c.Request.(*jsvalue.Object)
	d, done, err := open(c)
	if err != nil {
		return nil, err
	}
	defer done()
	b := newBuilder(d, c.Connection)
	if t, ok := req.Get("tableName"); ok && jsvalue.Truthy(t) {
		if err := b.from(t); err != nil {
			return nil, err
		}
	}
	query, _ := req.Prop("query").([]any)
	for _, m := range query {
		o, ok := m.(*jsvalue.Object)
		if !ok {
			return nil, fmt.Errorf("Invalid query, method should be an object, received %s.", jsonOf(m))
		}
		if o.Len() != 1 {
			return nil, fmt.Errorf("Invalid query, more than one method defined in a method object, received %s.", jsonOf(anyStrings(o.Keys())))
		}
		name, args := o.At(0)
		list, ok := args.([]any)
		if !ok {
			return nil, fmt.Errorf("Invalid query, method %q arguments should be an array, received %s.", name, jsonOf(args))
		}
		if err := b.call(name, list); err != nil {
			return nil, err
		}
	}
	q, err := b.compile()
	if err != nil {
		return nil, err
	}
	if q.sql == "" {
		return nil, errEmptyQuery
	}
	res, err = d.run(ctx, q)
	if err == nil && (q.method == "update" || q.method == "del") && !q.returning {
		if n, ok := res.(float64); ok && n == 0 {
			verb := "UPDATE"
			if q.method == "del" {
				verb = "DELETE"
			}
			c.Notef("%s %s changed no rows: nothing was written (no row matched its where clause)", c.RequestID, verb)
		}
	}
	return res, err
}

// jsonOf is JSON.stringify(v) for error messages.
func jsonOf(v any) string {
	s, ok := jsvalue.Stringify(v, "")
	if !ok {
		return "undefined"
	}
	return s
}

// anyStrings converts a []string to a JavaScript array.
func anyStrings(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// checkConnection validates the connection properties as the Knex schema does.
func checkConnection(props *jsvalue.Object) error {
	var p problems
	if props == nil {
		props = jsvalue.NewObject(0)
	}
	if v, ok := props.Get("client"); ok {
		if _, isStr := v.(string); !isStr {
			p.add(`Knex connection property "client" should be a string.`)
		}
	}
	if v, ok := props.Get("connection"); ok {
		switch v.(type) {
		case string, *jsvalue.Object:
		default:
			p.add(`Knex connection property "connection" should be a string or object.`)
		}
	}
	for _, k := range []string{"searchPath", "version"} {
		if v, ok := props.Get(k); ok {
			if _, isStr := v.(string); !isStr {
				p.add(`Knex connection property "` + k + `" should be a string.`)
			}
		}
	}
	for _, k := range []string{"client", "connection"} {
		if !props.Has(k) {
			p.add(`Knex connection should have required property "` + k + `".`)
		}
	}
	return p.err()
}

// checkRaw validates KnexRaw request properties as its schema does.
func checkRaw(props any) error {
	o, ok := props.(*jsvalue.Object)
	if !ok {
		return errors.New("KnexRaw request properties should be an object.")
	}
	var p problems
	if v, ok := o.Get("query"); ok {
		if _, isStr := v.(string); !isStr {
			p.add(`KnexRaw request property "query" should be a string.`)
		}
	}
	if v, ok := o.Get("parameters"); ok {
		switch v.(type) {
		case string, float64, int, []any, *jsvalue.Object:
		default:
			p.add(`KnexRaw request property "parameters" should be a string, number, array, or object.`)
		}
	}
	if !o.Has("query") {
		p.add(`KnexRaw request should have required property "query".`)
	}
	return p.err()
}

// checkBuilder validates KnexBuilder request properties as its schema does.
func checkBuilder(props any) error {
	o, ok := props.(*jsvalue.Object)
	if !ok {
		return errors.New("KnexBuilder request properties should be an object.")
	}
	var p problems
	if v, ok := o.Get("query"); ok {
		if _, isArr := v.([]any); !isArr {
			p.add(`KnexBuilder request property "query" should be an array.`)
		}
	}
	if v, ok := o.Get("tableName"); ok {
		switch v.(type) {
		case string, *jsvalue.Object:
		default:
			p.add(`KnexBuilder request property "tableName" should be a string or object`)
		}
	}
	if !o.Has("query") {
		p.add(`KnexBuilder request should have required property "query".`)
	}
	return p.err()
}

// problems collects schema problems and words them as @lowdefy/ajv does: the first and
// the last, joined by "; ".
type problems []string

func (p *problems) add(s string) { *p = append(*p, s) }

func (p problems) err() error {
	switch len(p) {
	case 0:
		return nil
	case 1:
		return errors.New(p[0])
	default:
		return errors.New(p[0] + "; " + p[len(p)-1])
	}
}
