package knex

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"modernc.org/sqlite"
)

// sqliteDialect runs knex's sqlite3 client on modernc.org/sqlite.
type sqliteDialect struct {
	db *sql.DB
	// nullAsDefault is knex's useNullAsDefault: missing insert values become NULL.
	nullAsDefault bool
	// changes is what SQLite's changes() said after the last raw write (-1: not known).
	changes int64
}

func (d *sqliteDialect) rawChanges() (int64, bool) { return d.changes, d.changes >= 0 }

// openSQLite reads an sqlite connection: {filename} or the file name.
func openSQLite(props *jsvalue.Object) (string, func() (io.Closer, error), func(io.Closer) dialect, error) {
	var filename string
	switch c := props.Prop("connection").(type) {
	case string:
		filename = c
	case *jsvalue.Object:
		filename, _ = c.Prop("filename").(string)
	}
	if filename == "" {
		return "", nil, nil, errors.New(`Knex connection property "connection.filename" is required for sqlite: set it to the database file`)
	}
	dsn := filename
	if !strings.Contains(dsn, "?") {
		dsn += "?_pragma=busy_timeout(5000)"
	}
	nullAsDefault := jsvalue.Truthy(props.Prop("useNullAsDefault"))
	open := func() (io.Closer, error) {
		db, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, fmt.Errorf("opening sqlite database %q: %w", filename, err)
		}
		// knex's sqlite pool holds one connection; that also keeps ":memory:" one database.
		db.SetMaxOpenConns(1)
		db.SetConnMaxIdleTime(0)
		return db, nil
	}
	wrap := func(h io.Closer) dialect {
		return &sqliteDialect{db: h.(*sql.DB), nullAsDefault: nullAsDefault, changes: -1}
	}
	return "sqlite3\x00" + filename, open, wrap, nil
}

func (*sqliteDialect) client() string                 { return "sqlite3" }
func (*sqliteDialect) wrapIdentifier(s string) string { return backtick(s) }

// sqliteArgs converts bindings as node-sqlite3 binds them: booleans as 1 and 0, dates as
// milliseconds, 32-bit integers as integers and other numbers as reals.
func sqliteArgs(bindings []any) ([]any, error) {
	args := make([]any, len(bindings))
	for i, b := range bindings {
		switch x := b.(type) {
		case nil, jsvalue.UndefinedType:
			args[i] = nil
		case bool:
			if x {
				args[i] = int64(1)
			} else {
				args[i] = int64(0)
			}
		case float64:
			if x == math.Trunc(x) && x >= math.MinInt32 && x <= math.MaxInt32 {
				args[i] = int64(x)
			} else {
				args[i] = x
			}
		case int:
			args[i] = int64(x)
		case string:
			args[i] = x
		case time.Time:
			args[i] = jsvalue.Millis(x)
		default:
			return nil, fmt.Errorf("SQLITE_RANGE: parameter %d is %s, which sqlite cannot bind; pass a string, number, boolean, date or null", i+1, jsvalue.Typeof(b))
		}
	}
	return args, nil
}

// unescapeQ turns knex's `\?` into `?` for the driver.
func unescapeQ(s string) string { return strings.ReplaceAll(s, `\?`, `?`) }

// raw runs a raw query the way knex's sqlite3 client does (Database#all): the rows, or
// an empty array for a statement without rows.
// A write statement (UPDATE, DELETE, INSERT, REPLACE) runs on one connection followed by
// SELECT changes(), so that a write that changed nothing can be told (see rawChanges).
func (d *sqliteDialect) raw(ctx context.Context, query string, bindings []any) (any, error) {
	if !writeStatement.Get().MatchString(query) {
		rows, err := d.all(ctx, d.db, query, bindings)
		if err != nil {
			return nil, err
		}
		return rows, nil
	}
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return nil, queryError(query, sqliteError(err))
	}
	defer conn.Close()
	rows, err := d.all(ctx, conn, query, bindings)
	if err != nil {
		return nil, err
	}
	var n int64
	if conn.QueryRowContext(ctx, "SELECT changes()").Scan(&n) == nil {
		d.changes = n
	}
	return rows, nil
}

// querier is a *sql.DB or one of its connections.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// all runs query on q and returns its rows.
func (d *sqliteDialect) all(ctx context.Context, q querier, query string, bindings []any) ([]any, error) {
	args, err := sqliteArgs(bindings)
	if err != nil {
		return nil, queryError(query, err)
	}
	args = append(args, unboundNames(query)...)
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, queryError(query, sqliteError(err))
	}
	defer rows.Close()
	out, err := scanRows(rows, sqliteValue)
	if err != nil {
		return nil, queryError(query, sqliteError(err))
	}
	return out, nil
}

// run runs a compiled builder query and processes the response as knex's sqlite3
// client does.
func (d *sqliteDialect) run(ctx context.Context, q *compiled) (any, error) {
	switch q.method {
	case "insert", "update":
		if q.returning {
			return d.all(ctx, d.db, q.sql, q.bindings)
		}
	case "del", "counter":
	default:
		rows, err := d.all(ctx, d.db, q.sql, q.bindings)
		if err != nil {
			return nil, err
		}
		return processRows(q, rows), nil
	}
	args, err := sqliteArgs(q.bindings)
	if err != nil {
		return nil, queryError(q.sql, err)
	}
	args = append(args, unboundNames(q.sql)...)
	res, err := d.db.ExecContext(ctx, q.sql, args...)
	if err != nil {
		return nil, queryError(q.sql, sqliteError(err))
	}
	if q.method == "insert" {
		id, _ := res.LastInsertId()
		return []any{float64(id)}, nil
	}
	n, _ := res.RowsAffected()
	return float64(n), nil
}

// processRows gives a select's rows as knex returns them for the method: all rows, the
// first row (undefined when there is none) or one column of each row.
func processRows(q *compiled, rows []any) any {
	switch q.method {
	case "first":
		if len(rows) == 0 {
			return jsvalue.Undefined
		}
		return rows[0]
	case "pluck":
		out := make([]any, len(rows))
		for i, r := range rows {
			out[i] = pluckValue(r, q.pluck)
		}
		return out
	}
	return rows
}

// pluckValue is lodash's property(path) on a row: the key itself, else a dotted path.
func pluckValue(row any, path string) any {
	o, _ := row.(*jsvalue.Object)
	if v, ok := o.Get(path); ok {
		return v
	}
	var cur any = o
	for _, seg := range strings.Split(path, ".") {
		co, ok := cur.(*jsvalue.Object)
		if !ok {
			return jsvalue.Undefined
		}
		cur = co.Prop(seg)
	}
	return cur
}

// unboundNames returns a NULL argument for each named parameter (:name, @name, $name)
// in query, outside quotes and comments: node-sqlite3 binds NULL to a named parameter it
// is not given (knex leaves `:name` in place when parameters have no such key), where
// modernc.org/sqlite would fail.
func unboundNames(query string) []any {
	var out []any
	seen := map[string]bool{}
	for i := 0; i < len(query); i++ {
		switch c := query[i]; c {
		case '\'', '"', '`':
			if j := strings.IndexByte(query[i+1:], c); j >= 0 {
				i += j + 1
			} else {
				i = len(query)
			}
		case '[':
			if j := strings.IndexByte(query[i+1:], ']'); j >= 0 {
				i += j + 1
			}
		case '-':
			if strings.HasPrefix(query[i:], "--") {
				if j := strings.IndexByte(query[i:], '\n'); j >= 0 {
					i += j
				} else {
					i = len(query)
				}
			}
		case '/':
			if strings.HasPrefix(query[i:], "/*") {
				if j := strings.Index(query[i+2:], "*/"); j >= 0 {
					i += j + 3
				} else {
					i = len(query)
				}
			}
		case ':', '@', '$':
			j := i + 1
			for j < len(query) && isWord(query[j]) {
				j++
			}
			if j > i+1 && !(c == ':' && i > 0 && query[i-1] == ':') && !seen[query[i+1:j]] {
				seen[query[i+1:j]] = true
				out = append(out, sql.Named(query[i+1:j], nil))
			}
			i = j - 1
		}
	}
	return out
}

// sqliteValue converts a value read from modernc.org/sqlite as node-sqlite3 gives it.
// modernc parses the text of columns declared DATE, DATETIME or TIMESTAMP into times;
// node-sqlite3 returns the text, which is written back here in SQLite's canonical form
// (YYYY-MM-DD HH:MM:SS[.SSS], YYYY-MM-DD for a DATE at midnight).
func sqliteValue(v any, ct *sql.ColumnType) any {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case []byte:
		return bufferJSON(x)
	case time.Time:
		if ct != nil && ct.DatabaseTypeName() == "DATE" && x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format("2006-01-02")
		}
		layout := "2006-01-02 15:04:05"
		if x.Nanosecond() != 0 {
			layout += ".000"
		}
		if _, off := x.Zone(); off != 0 {
			layout += "-07:00"
		}
		return x.Format(layout)
	}
	return v
}

// bufferJSON is a Node Buffer as JSON.stringify writes it: {type: "Buffer", data: [...]}.
func bufferJSON(b []byte) *jsvalue.Object {
	data := make([]any, len(b))
	for i, c := range b {
		data[i] = float64(c)
	}
	return jsvalue.ObjectOf("type", "Buffer", "data", data)
}

// scanRows reads all rows into objects with the columns in the result's order, each value
// converted by conv.
func scanRows(rows *sql.Rows, conv func(any, *sql.ColumnType) any) ([]any, error) {
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	out := []any{}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := jsvalue.NewObject(len(cols))
		for i, c := range cols {
			row.Set(c, conv(vals[i], types[i]))
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

var (
	codeName      = lazy.Regexp{Expr: `\((SQLITE_[A-Z_]+)\)`}
	modernMessage = lazy.Regexp{Expr: `^[^:]*: (.*) \(\d+\)`}
)

// sqliteError words a modernc.org/sqlite error as node-sqlite3 does: "SQLITE_ERROR: near
// "x": syntax error".
func sqliteError(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	code := se.Code()
	name := fmt.Sprintf("SQLITE_%d", code&0xff)
	if m := codeName.Get().FindStringSubmatch(sqlite.ErrorCodeString[code&0xff]); m != nil {
		name = m[1]
	}
	msg := se.Error()
	// modernc writes "<error string>: <message> (<code>)".
	if m := modernMessage.Get().FindStringSubmatch(msg); m != nil {
		msg = m[1]
	}
	return fmt.Errorf("%s: %s", name, msg)
}

// queryError is knex's query error: "<sql> - <driver message>".
func queryError(query string, err error) error {
	return &QueryError{SQL: query, Err: err}
}

// QueryError is a database error with the SQL that caused it, worded as knex words it.
type QueryError struct {
	SQL string
	Err error
}

func (e *QueryError) Error() string { return e.SQL + " - " + e.Err.Error() }

// Unwrap returns the driver's error.
func (e *QueryError) Unwrap() error { return e.Err }
