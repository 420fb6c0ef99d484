package knex

import (
	"context"
	"crypto/tls"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// pgDialect runs knex's postgres client. It talks to the server as node-postgres does:
// parameters as text with types left to the server, results as text parsed by type
// (pg-types), the simple protocol when there are no parameters.
type pgDialect struct {
	db *sql.DB
}

// openPostgres reads a pg connection: a URL (or key=value DSN) or an object with host,
// port, user, password, database and ssl.
func openPostgres(props *jsvalue.Object) (string, func() (io.Closer, error), func(io.Closer) dialect, error) {
	var cfg *pgx.ConnConfig
	var err error
	switch c := props.Prop("connection").(type) {
	case string:
		cfg, err = pgx.ParseConfig(c)
		if err != nil {
			return "", nil, nil, errors.New(`Knex connection property "connection" is not a valid PostgreSQL connection string; use postgres://user:password@host:port/database`)
		}
	case *jsvalue.Object:
		cfg, err = pgx.ParseConfig("")
		if err != nil {
			return "", nil, nil, fmt.Errorf("reading PostgreSQL defaults: %w", err)
		}
		// node-postgres uses no TLS unless ssl is set.
		cfg.TLSConfig, cfg.Fallbacks = nil, nil
		if h, ok := c.Prop("host").(string); ok {
			cfg.Host = h
		}
		if p, ok := c.Get("port"); ok {
			n, err := strconv.Atoi(jsvalue.ToString(p))
			if err != nil {
				return "", nil, nil, errors.New(`Knex connection property "connection.port" should be a port number`)
			}
			cfg.Port = uint16(n)
		}
		if u, ok := c.Prop("user").(string); ok {
			cfg.User = u
		}
		if p, ok := c.Prop("password").(string); ok {
			cfg.Password = p
		}
		if d, ok := c.Prop("database").(string); ok {
			cfg.Database = d
		}
		switch ssl := c.Prop("ssl").(type) {
		case bool:
			if ssl {
				cfg.TLSConfig = &tls.Config{ServerName: cfg.Host}
			}
		case *jsvalue.Object:
			cfg.TLSConfig = &tls.Config{ServerName: cfg.Host, InsecureSkipVerify: ssl.Prop("rejectUnauthorized") == false}
		}
	default:
		return "", nil, nil, errors.New(`Knex connection property "connection" should be a PostgreSQL connection string or an object with host, port, user, password and database`)
	}
	searchPath, _ := props.Prop("searchPath").(string)
	connJSON, _ := jsvalue.Stringify(props.Prop("connection"), "")
	key := "postgres\x00" + connJSON + "\x00" + searchPath
	open := func() (io.Closer, error) {
		var opts []stdlib.OptionOpenDB
		if searchPath != "" {
			parts := strings.Split(searchPath, ",")
			for i, p := range parts {
				parts[i] = `"` + strings.TrimSpace(p) + `"`
			}
			set := "set search_path to " + strings.Join(parts, ",")
			opts = append(opts, stdlib.OptionAfterConnect(func(ctx context.Context, c *pgx.Conn) error {
				_, err := c.Exec(ctx, set)
				return err
			}))
		}
		return stdlib.OpenDB(*cfg, opts...), nil
	}
	wrap := func(h io.Closer) dialect { return &pgDialect{db: h.(*sql.DB)} }
	return key, open, wrap, nil
}

func (*pgDialect) client() string                 { return "postgres" }
func (*pgDialect) wrapIdentifier(s string) string { return doubleQuote(s) }

// positionBindings turns `?` into $1, $2, … and `\?` into `?` (knex's postgres client).
func positionBindings(sql string) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(sql); i++ {
		if sql[i] == '\\' {
			j := i
			for j < len(sql) && sql[j] == '\\' {
				j++
			}
			if j < len(sql) && sql[j] == '?' {
				if (j-i)%2 == 1 {
					b.WriteString(sql[i:j-1] + "?")
				} else {
					n++
					b.WriteString(sql[i:j] + "$" + strconv.Itoa(n))
				}
				i = j
				continue
			}
			b.WriteString(sql[i:j])
			i = j - 1
			continue
		}
		if sql[i] == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(sql[i])
	}
	return b.String()
}

// pgResult is one statement's result as read from the server.
type pgResult struct {
	fields []pgconn.FieldDescription
	rows   [][][]byte
	tag    string
}

// exec runs sql on one pooled connection.
func (d *pgDialect) exec(ctx context.Context, query string, bindings []any) ([]pgResult, error) {
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connecting to PostgreSQL: %w", err)
	}
	defer conn.Close()
	var out []pgResult
	err = conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn().PgConn()
		if len(bindings) == 0 {
			results, err := pc.Exec(ctx, query).ReadAll()
			if err != nil {
				return err
			}
			for _, r := range results {
				if r.Err != nil {
					return r.Err
				}
				out = append(out, pgResult{fields: r.FieldDescriptions, rows: r.Rows, tag: r.CommandTag.String()})
			}
			return nil
		}
		params := make([][]byte, len(bindings))
		for i, b := range bindings {
			v, null := pgParam(b)
			if !null {
				params[i] = []byte(v)
			}
		}
		r := pc.ExecParams(ctx, query, params, nil, nil, nil).Read()
		if r.Err != nil {
			return r.Err
		}
		out = append(out, pgResult{fields: r.FieldDescriptions, rows: r.Rows, tag: r.CommandTag.String()})
		return nil
	})
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			return nil, queryError(query, errors.New(pgErr.Message))
		}
		return nil, queryError(query, err)
	}
	return out, nil
}

// raw runs a raw query: node-postgres' Result, or an array of them for several
// statements.
func (d *pgDialect) raw(ctx context.Context, query string, bindings []any) (any, error) {
	results, err := d.exec(ctx, positionBindings(query), bindings)
	if err != nil {
		return nil, err
	}
	if len(results) == 1 {
		return results[0].object(), nil
	}
	arr := make([]any, len(results))
	for i, r := range results {
		arr[i] = r.object()
	}
	return arr, nil
}

// run runs a builder query and processes the response as knex's postgres client does.
func (d *pgDialect) run(ctx context.Context, q *compiled) (any, error) {
	results, err := d.exec(ctx, positionBindings(q.sql), q.bindings)
	if err != nil {
		return nil, err
	}
	if len(results) == 0 {
		return jsvalue.Undefined, nil
	}
	r := results[0]
	res := r.object()
	command, rowCount, _ := parseTag(r.tag)
	rows, _ := res.Prop("rows").([]any)
	switch {
	case command == "SELECT":
		return processRows(q, rows), nil
	case q.returning:
		return rows, nil
	case command == "UPDATE" || command == "DELETE":
		return rowCount, nil
	}
	return res, nil
}

var tagRE = lazy.Regexp{Expr: `^([A-Za-z]+)(?: (\d+))?(?: (\d+))?`}

// parseTag reads a command tag as node-postgres does: the command, the row count and the
// oid (null when absent).
func parseTag(tag string) (command, rowCount, oid any) {
	command, rowCount, oid = nil, nil, nil
	m := tagRE.Get().FindStringSubmatch(tag)
	if m == nil {
		return
	}
	command = m[1]
	num := func(s string) any { f, _ := strconv.ParseFloat(s, 64); return f }
	switch {
	case m[3] != "":
		oid, rowCount = num(m[2]), num(m[3])
	case m[2] != "":
		rowCount = num(m[2])
	}
	return
}

// object is node-postgres' Result without its internal (_-prefixed) keys.
func (r pgResult) object() *jsvalue.Object {
	command, rowCount, oid := parseTag(r.tag)
	rows := make([]any, len(r.rows))
	for i, vals := range r.rows {
		row := jsvalue.NewObject(len(vals))
		for j, v := range vals {
			row.Set(r.fields[j].Name, pgValue(v, r.fields[j].DataTypeOID))
		}
		rows[i] = row
	}
	fields := make([]any, len(r.fields))
	for i, f := range r.fields {
		format := "text"
		if f.Format == 1 {
			format = "binary"
		}
		fields[i] = jsvalue.ObjectOf("name", f.Name, "tableID", float64(f.TableOID),
			"columnID", float64(f.TableAttributeNumber), "dataTypeID", float64(f.DataTypeOID),
			"dataTypeSize", float64(f.DataTypeSize), "dataTypeModifier", float64(f.TypeModifier),
			"format", format)
	}
	return jsvalue.ObjectOf("command", command, "rowCount", rowCount, "oid", oid, "rows", rows,
		"fields", fields, "RowCtor", nil, "rowAsArray", false)
}

// pgParam writes a binding as node-postgres' prepareValue does; null reports NULL.
func pgParam(v any) (s string, null bool) {
	switch x := v.(type) {
	case nil, jsvalue.UndefinedType:
		return "", true
	case bool:
		if x {
			return "true", false
		}
		return "false", false
	case float64:
		return jsvalue.NumberToString(x), false
	case string:
		return x, false
	case time.Time:
		return pgDateString(x), false
	case []any:
		return pgArrayString(x), false
	case *jsvalue.Object:
		j, _ := jsvalue.Stringify(x, "")
		return j, false
	}
	return jsvalue.ToString(v), false
}

// pgDateString is node-postgres' dateToString: local time with its offset.
func pgDateString(t time.Time) string {
	t = t.In(time.Local)
	_, off := t.Zone()
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	return fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d.%03d%s%02d:%02d", t.Year(), int(t.Month()), t.Day(),
		t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1e6, sign, off/3600, off%3600/60)
}

// pgArrayString is node-postgres' arrayString: {"a","b"} with nested arrays.
func pgArrayString(arr []any) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, v := range arr {
		if i > 0 {
			b.WriteByte(',')
		}
		switch x := v.(type) {
		case nil, jsvalue.UndefinedType:
			b.WriteString("null")
		case []any:
			b.WriteString(pgArrayString(x))
		default:
			s, _ := pgParam(v)
			b.WriteString(`"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// pgValue parses a text value by its type as pg-types does for node-postgres.
func pgValue(v []byte, oid uint32) any {
	if v == nil {
		return nil
	}
	s := string(v)
	switch oid {
	case 16: // bool
		return pgBool(s)
	case 21, 23, 26: // int2, int4, oid
		return parseIntJS(s)
	case 700, 701: // float4, float8
		return parseFloatJS(s)
	case 114, 3802: // json, jsonb
		if j, err := jsvalue.Decode(v); err == nil {
			return j
		}
		return s
	case 1082, 1114, 1184: // date, timestamp, timestamptz
		return pgDate(s)
	case 17: // bytea
		if strings.HasPrefix(s, `\x`) {
			if b, err := hex.DecodeString(s[2:]); err == nil {
				return bufferJSON(b)
			}
		}
		return bufferJSON([]byte(s))
	case 1186: // interval
		return pgInterval(s)
	case 600: // point
		if p := pgPoint(s); p != nil {
			return p
		}
		return s
	case 1000:
		return pgArray(s, func(e string) any { return pgBool(e) })
	case 1005, 1007, 1028:
		return pgArray(s, parseIntJS)
	case 1021, 1022, 1231:
		return pgArray(s, parseFloatJS)
	case 1016, 1014, 1015, 1008, 1009, 1040, 1041, 3907, 2951, 791, 1183, 1270, 651:
		return pgArray(s, func(e string) any { return e })
	case 1115, 1182, 1185:
		return pgArray(s, pgDate)
	case 199, 3807:
		return pgArray(s, func(e string) any {
			if j, err := jsvalue.Decode([]byte(e)); err == nil {
				return j
			}
			return e
		})
	}
	return s // int8, numeric, text, varchar, uuid, time, … stay strings
}

func pgBool(s string) any {
	switch s {
	case "TRUE", "t", "true", "y", "yes", "on", "1":
		return true
	}
	return false
}

// parseIntJS is parseInt(s, 10).
func parseIntJS(s string) any {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return math.NaN()
	}
	return float64(n)
}

// parseFloatJS is parseFloat(s).
func parseFloatJS(s string) any {
	switch s {
	case "NaN":
		return math.NaN()
	case "Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

var pgDateRE = lazy.Regexp{Expr: `^(\d{1,})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?(?::?\d{2})?)?( BC)?$`}

// pgDate parses a date or timestamp as postgres-date does: with an offset when there is
// one, else in the local zone; "infinity" is ±Infinity.
func pgDate(s string) any {
	switch s {
	case "infinity":
		return math.Inf(1)
	case "-infinity":
		return math.Inf(-1)
	}
	m := pgDateRE.Get().FindStringSubmatch(s)
	if m == nil {
		return s
	}
	atoi := func(x string) int { n, _ := strconv.Atoi(x); return n }
	year := atoi(m[1])
	if m[9] != "" {
		year = -year + 1
	}
	ms := 0
	if m[7] != "" {
		frac := (m[7] + "000")[:3]
		ms = atoi(frac)
	}
	loc := time.Local
	if z := m[8]; z != "" {
		if z == "Z" {
			loc = time.UTC
		} else {
			digits := strings.ReplaceAll(z[1:], ":", "")
			off := atoi(digits[:2]) * 3600
			if len(digits) >= 4 {
				off += atoi(digits[2:4]) * 60
			}
			if len(digits) >= 6 {
				off += atoi(digits[4:6])
			}
			if z[0] == '-' {
				off = -off
			}
			loc = time.FixedZone("", off)
		}
	}
	t := time.Date(year, time.Month(atoi(m[2])), atoi(m[3]), atoi(m[4]), atoi(m[5]), atoi(m[6]), ms*1e6, loc)
	return t.UTC()
}

var pgIntervalRE = lazy.Regexp{Expr: `(?:([+-]?\d+)\s+years?)?\s*(?:([+-]?\d+)\s+mons?)?\s*(?:([+-]?\d+)\s+days?)?\s*(?:([+-])?([\d]*):(\d\d):(\d\d)\.?(\d{1,6})?)?`}

// pgInterval parses an interval as postgres-interval does: an object with the non-zero
// parts among years, months, days, hours, minutes, seconds and milliseconds.
func pgInterval(s string) any {
	m := pgIntervalRE.Get().FindStringSubmatch(s)
	out := jsvalue.NewObject(0)
	if m == nil {
		return out
	}
	neg := m[4] == "-"
	set := func(key, v string, timePart bool) {
		if v == "" {
			return
		}
		n, _ := strconv.Atoi(v)
		if n == 0 {
			return
		}
		if timePart && neg {
			n = -n
		}
		out.Set(key, float64(n))
	}
	set("years", m[1], false)
	set("months", m[2], false)
	set("days", m[3], false)
	set("hours", m[5], true)
	set("minutes", m[6], true)
	set("seconds", m[7], true)
	if m[8] != "" {
		f, _ := strconv.ParseFloat("0."+m[8], 64)
		ms := f * 1000
		if ms != 0 {
			if neg {
				ms = -ms
			}
			out.Set("milliseconds", ms)
		}
	}
	return out
}

// pgPoint parses "(x,y)" into {x, y}.
func pgPoint(s string) any {
	if len(s) < 5 || s[0] != '(' || s[len(s)-1] != ')' {
		return nil
	}
	parts := strings.Split(s[1:len(s)-1], ",")
	if len(parts) != 2 {
		return nil
	}
	return jsvalue.ObjectOf("x", parseFloatJS(parts[0]), "y", parseFloatJS(parts[1]))
}

// pgArray parses a PostgreSQL array literal ({a,"b c",NULL,{1,2}}) as postgres-array
// does, converting each element with conv.
func pgArray(s string, conv func(string) any) any {
	p := &arrayParser{s: s, conv: conv}
	if len(s) == 0 || s[0] != '{' {
		if i := strings.Index(s, "={"); i >= 0 { // dimension decoration: [1:2]={…}
			p.s = s[i+1:]
		} else {
			return s
		}
	}
	p.i = 1
	return p.parse()
}

type arrayParser struct {
	s    string
	i    int
	conv func(string) any
}

func (p *arrayParser) parse() []any {
	out := []any{}
	var cur strings.Builder
	quoted, inQuote, have := false, false, false
	flush := func() {
		if !have {
			return
		}
		v := cur.String()
		if !quoted && v == "NULL" {
			out = append(out, nil)
		} else {
			out = append(out, p.conv(v))
		}
		cur.Reset()
		quoted, have = false, false
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case inQuote && c == '\\' && p.i < len(p.s):
			cur.WriteByte(p.s[p.i])
			p.i++
		case inQuote && c == '"':
			inQuote = false
		case inQuote:
			cur.WriteByte(c)
		case c == '"':
			inQuote, quoted, have = true, true, true
		case c == '{':
			out = append(out, p.parse())
		case c == '}':
			flush()
			return out
		case c == ',':
			flush()
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	flush()
	return out
}
