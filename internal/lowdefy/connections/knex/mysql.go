package knex

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// mysqlDialect runs knex's mysql client the way the mysql npm driver (mysqljs) talks to
// the server: values escaped into the SQL text (SqlString.format), results read as text
// and converted by column type.
type mysqlDialect struct {
	db *sql.DB
}

// openMySQL reads a mysql connection: a mysql:// URL or an object with host, port, user,
// password, database (and socketPath).
func openMySQL(props *jsvalue.Object) (string, func() (io.Closer, error), func(io.Closer) dialect, error) {
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr = "tcp", "localhost:3306"
	// mysqljs connects with the FOUND_ROWS flag: affectedRows counts matched rows.
	cfg.ClientFoundRows = true
	cfg.Loc = time.Local
	// mysqljs talks utf8 (utf8_general_ci, 33), which knex's `COLLATE utf8_bin` needs.
	cfg.Collation = "utf8_general_ci"
	switch c := props.Prop("connection").(type) {
	case string:
		u, err := url.Parse(c)
		if err != nil || (u.Scheme != "mysql" && u.Scheme != "mysql2") {
			return "", nil, nil, errors.New(`Knex connection property "connection" is not a valid MySQL connection string; use mysql://user:password@host:port/database`)
		}
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
		host, port := u.Hostname(), u.Port()
		if host == "" {
			host = "localhost"
		}
		if port == "" {
			port = "3306"
		}
		cfg.Addr = net.JoinHostPort(host, port)
		cfg.DBName = strings.TrimPrefix(u.Path, "/")
	case *jsvalue.Object:
		host, _ := c.Prop("host").(string)
		if host == "" {
			host = "localhost"
		}
		port := "3306"
		if p, ok := c.Get("port"); ok && !jsvalue.IsNullish(p) {
			port = jsvalue.ToString(p)
		}
		cfg.Addr = net.JoinHostPort(host, port)
		if s, ok := c.Prop("socketPath").(string); ok && s != "" {
			cfg.Net, cfg.Addr = "unix", s
		}
		cfg.User, _ = c.Prop("user").(string)
		cfg.Passwd, _ = c.Prop("password").(string)
		cfg.DBName, _ = c.Prop("database").(string)
	default:
		return "", nil, nil, errors.New(`Knex connection property "connection" should be a MySQL connection string or an object with host, port, user, password and database`)
	}
	connJSON, _ := jsvalue.Stringify(props.Prop("connection"), "")
	open := func() (io.Closer, error) {
		conn, err := mysql.NewConnector(cfg)
		if err != nil {
			return nil, fmt.Errorf("opening the MySQL connection: %w", err)
		}
		return sql.OpenDB(conn), nil
	}
	wrap := func(h io.Closer) dialect { return &mysqlDialect{db: h.(*sql.DB)} }
	return "mysql\x00" + connJSON, open, wrap, nil
}

func (*mysqlDialect) client() string                 { return "mysql" }
func (*mysqlDialect) wrapIdentifier(s string) string { return backtick(s) }

// rowsKeyword matches the statements that answer with rows.
var rowsKeyword = lazy.Regexp{Expr: `(?is)^(?:\s|/\*.*?\*/|--[^\n]*\n|#[^\n]*\n|\()*(select|show|describe|desc|explain|with|values|table|call|analyze|check|checksum|help|optimize|repair)\b`}

// raw runs a raw query: [rows, fields] for a statement with rows, [OkPacket, undefined]
// otherwise.
func (d *mysqlDialect) raw(ctx context.Context, query string, bindings []any) (any, error) {
	text, err := mysqlFormat(query, bindings)
	if err != nil {
		return nil, queryError(query, err)
	}
	if rowsKeyword.Get().MatchString(text) {
		rows, fields, err := d.query(ctx, text)
		if err != nil {
			return nil, queryError(query, err)
		}
		return []any{rows, fields}, nil
	}
	res, err := d.db.ExecContext(ctx, text)
	if err != nil {
		return nil, queryError(query, mysqlError(err))
	}
	return []any{okPacket(res, text), jsvalue.Undefined}, nil
}

// run runs a builder query and processes the response as knex's mysql client does.
func (d *mysqlDialect) run(ctx context.Context, q *compiled) (any, error) {
	text, err := mysqlFormat(q.sql, q.bindings)
	if err != nil {
		return nil, queryError(q.sql, err)
	}
	switch q.method {
	case "insert", "update", "del", "counter":
		res, err := d.db.ExecContext(ctx, text)
		if err != nil {
			return nil, queryError(q.sql, mysqlError(err))
		}
		if q.method == "insert" {
			id, _ := res.LastInsertId()
			return []any{float64(id)}, nil
		}
		n, _ := res.RowsAffected()
		return float64(n), nil
	}
	rows, _, err := d.query(ctx, text)
	if err != nil {
		return nil, queryError(q.sql, err)
	}
	return processRows(q, rows), nil
}

// okPacket is mysqljs' OkPacket for a statement without rows. go-sql-driver does not
// expose serverStatus, warningCount, message or changedRows: they are 2, 0, "" and (for
// an UPDATE) affectedRows.
func okPacket(res sql.Result, text string) *jsvalue.Object {
	affected, _ := res.RowsAffected()
	id, _ := res.LastInsertId()
	changed := 0.0
	if regexp.MustCompile(`(?i)^\s*update\b`).MatchString(text) {
		changed = float64(affected)
	}
	return jsvalue.ObjectOf("fieldCount", 0.0, "affectedRows", float64(affected), "insertId", float64(id),
		"serverStatus", 2.0, "warningCount", 0.0, "message", "", "protocol41", true, "changedRows", changed)
}

// query runs a statement with rows and returns the rows and mysqljs-like fields.
func (d *mysqlDialect) query(ctx context.Context, text string) ([]any, []any, error) {
	rows, err := d.db.QueryContext(ctx, text)
	if err != nil {
		return nil, nil, mysqlError(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, mysqlError(err)
	}
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, nil, mysqlError(err)
	}
	raw := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	out := []any{}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, mysqlError(err)
		}
		row := jsvalue.NewObject(len(cols))
		for i, c := range cols {
			row.Set(c, mysqlValue(raw[i], types[i].DatabaseTypeName()))
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, mysqlError(err)
	}
	fields := make([]any, len(types))
	for i, t := range types {
		fields[i] = mysqlField(t)
	}
	return out, fields, nil
}

// mysqlValue converts a text value as mysqljs' typeCast does.
func mysqlValue(b sql.RawBytes, typ string) any {
	if b == nil {
		return nil
	}
	s := string(b)
	base := strings.TrimPrefix(typ, "UNSIGNED ")
	switch base {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "YEAR", "FLOAT", "DOUBLE", "DECIMAL":
		return jsvalue.StringToNumber(s)
	case "DATE", "DATETIME", "TIMESTAMP":
		if base == "DATE" {
			s += " 00:00:00"
		}
		t, err := time.ParseInLocation("2006-01-02 15:04:05.999999", s, time.Local)
		if err != nil {
			return nil // JavaScript's Invalid Date, which JSON writes as null
		}
		return t.Truncate(time.Millisecond).UTC()
	case "BIT", "BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB", "GEOMETRY":
		return bufferJSON([]byte(b))
	}
	return s
}

// mysqlTypes maps go-sql-driver's type names to MySQL's protocol type codes.
// The table is built on first use.
var mysqlTypes = lazy.Value[map[string]float64]{New: func() map[string]float64 {
	return map[string]float64{
		"DECIMAL": 246, "TINYINT": 1, "SMALLINT": 2, "INT": 3, "FLOAT": 4, "DOUBLE": 5, "NULL": 6,
		"TIMESTAMP": 7, "BIGINT": 8, "MEDIUMINT": 9, "DATE": 10, "TIME": 11, "DATETIME": 12, "YEAR": 13,
		"BIT": 16, "JSON": 245, "ENUM": 254, "SET": 254, // ENUM and SET travel as STRING "TINYBLOB": 249, "TINYTEXT": 249,
		"MEDIUMBLOB": 250, "MEDIUMTEXT": 250, "LONGBLOB": 251, "LONGTEXT": 251, "BLOB": 252, "TEXT": 252,
		"VARCHAR": 253, "VARBINARY": 253, "CHAR": 254, "BINARY": 254, "GEOMETRY": 255,
	}
}}

// mysqlField is mysqljs' FieldPacket as far as go-sql-driver tells it (see the package
// doc).
func mysqlField(t *sql.ColumnType) *jsvalue.Object {
	name := t.DatabaseTypeName()
	base := strings.TrimPrefix(name, "UNSIGNED ")
	flags := 0.0
	if n, ok := t.Nullable(); ok && !n {
		flags += 1 // NOT_NULL
	}
	if base != name {
		flags += 32 // UNSIGNED
	}
	charset := 63.0 // binary
	switch base {
	case "VARCHAR", "CHAR", "TEXT", "TINYTEXT", "MEDIUMTEXT", "LONGTEXT", "ENUM", "SET", "JSON":
		charset = 33
	}
	length, _ := t.Length()
	_, decimals, _ := t.DecimalSize()
	return jsvalue.ObjectOf("catalog", "def", "db", "", "table", "", "orgTable", "", "name", t.Name(),
		"orgName", "", "charsetNr", charset, "length", float64(length), "type", mysqlTypes.Get()[base],
		"flags", flags, "decimals", float64(decimals), "zeroFill", false, "protocol41", true)
}

// mysqlFormat is mysqljs' SqlString.format: each `?` takes the next value escaped, `??`
// the next identifier; runs of three or more stay.
func mysqlFormat(sql string, values []any) (string, error) {
	if len(values) == 0 {
		return sql, nil
	}
	var b strings.Builder
	idx := 0
	for i := 0; i < len(sql); {
		if sql[i] != '?' {
			b.WriteByte(sql[i])
			i++
			continue
		}
		j := i
		for j < len(sql) && sql[j] == '?' {
			j++
		}
		run := sql[i:j]
		i = j
		if len(run) > 2 || idx >= len(values) {
			b.WriteString(run)
			continue
		}
		v := values[idx]
		idx++
		if run == "??" {
			b.WriteString(mysqlEscapeID(jsvalue.ToString(v)))
			continue
		}
		b.WriteString(mysqlEscape(v))
	}
	return b.String(), nil
}

// mysqlEscape is SqlString.escape.
func mysqlEscape(v any) string {
	switch x := v.(type) {
	case nil, jsvalue.UndefinedType:
		return "NULL"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		return jsvalue.NumberToString(x)
	case int:
		return strconv.Itoa(x)
	case string:
		return mysqlEscapeString(x)
	case time.Time:
		t := x.In(time.Local)
		return mysqlEscapeString(fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d.%03d", t.Year(), int(t.Month()), t.Day(),
			t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1e6))
	case []any:
		parts := make([]string, len(x))
		for i, item := range x {
			if arr, ok := item.([]any); ok {
				inner := make([]string, len(arr))
				for j, e := range arr {
					inner[j] = mysqlEscape(e)
				}
				parts[i] = "(" + strings.Join(inner, ", ") + ")"
			} else {
				parts[i] = mysqlEscape(item)
			}
		}
		return strings.Join(parts, ", ")
	case *jsvalue.Object:
		var parts []string
		for k, val := range x.Range {
			parts = append(parts, mysqlEscapeID(k)+" = "+mysqlEscape(val))
		}
		return strings.Join(parts, ", ")
	}
	return mysqlEscapeString(jsvalue.ToString(v))
}

// mysqlEscapeString quotes a string literal as SqlString.escapeString does.
func mysqlEscapeString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case 0:
			b.WriteString(`\0`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case 0x1a:
			b.WriteString(`\Z`)
		case '"', '\'', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// mysqlEscapeID is SqlString.escapeId: `a`.`b` for "a.b".
func mysqlEscapeID(s string) string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = backtick(p)
	}
	return strings.Join(parts, ".")
}

// mysqlErrorCodes names the MySQL error numbers as mysqljs does (its ER_ codes), for the
// errors an app is likely to meet. The table is built on first use.
var mysqlErrorCodes = lazy.Value[map[uint16]string]{New: func() map[uint16]string {
	return map[uint16]string{
		1044: "ER_DBACCESS_DENIED_ERROR", 1045: "ER_ACCESS_DENIED_ERROR", 1046: "ER_NO_DB_ERROR",
		1048: "ER_BAD_NULL_ERROR", 1049: "ER_BAD_DB_ERROR", 1050: "ER_TABLE_EXISTS_ERROR",
		1051: "ER_BAD_TABLE_ERROR", 1052: "ER_NON_UNIQ_ERROR", 1054: "ER_BAD_FIELD_ERROR",
		1062: "ER_DUP_ENTRY", 1064: "ER_PARSE_ERROR", 1065: "ER_EMPTY_QUERY", 1136: "ER_WRONG_VALUE_COUNT_ON_ROW",
		1142: "ER_TABLEACCESS_DENIED_ERROR", 1146: "ER_NO_SUCH_TABLE", 1149: "ER_SYNTAX_ERROR",
		1264: "ER_WARN_DATA_OUT_OF_RANGE", 1292: "ER_TRUNCATED_WRONG_VALUE", 1305: "ER_SP_DOES_NOT_EXIST",
		1364: "ER_NO_DEFAULT_FOR_FIELD", 1366: "ER_TRUNCATED_WRONG_VALUE_FOR_FIELD", 1406: "ER_DATA_TOO_LONG",
		1451: "ER_ROW_IS_REFERENCED_2", 1452: "ER_NO_REFERENCED_ROW_2", 3140: "ER_INVALID_JSON_TEXT",
		4025: "ER_CONSTRAINT_FAILED",
	}
}}

// mysqlError words a server error as mysqljs does: "ER_PARSE_ERROR: You have an error …".
func mysqlError(err error) error {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return err
	}
	code, ok := mysqlErrorCodes.Get()[me.Number]
	if !ok {
		code = "ER_" + strconv.Itoa(int(me.Number))
	}
	return fmt.Errorf("%s: %s", code, me.Message)
}
