package knex

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// compiled is a builder query ready to run: knex's toSQL() output.
type compiled struct {
	// method is knex's: select, first, pluck, insert, update, del or counter.
	method    string
	sql       string
	bindings  []any
	returning bool
	// pluck is the key of the plucked column in a row.
	pluck string
}

// fragment is a piece of SQL with its bindings.
type fragment struct {
	bool     string // "and" or "or", for where and having clauses
	sql      string
	bindings []any
}

// builder is a knex query builder: methods record statements, compile writes the SQL as
// knex's query compiler for the dialect does.
type builder struct {
	d             dialect
	nullAsDefault bool

	method    string
	table     string
	columns   []fragment
	distinct  bool
	joins     []fragment
	wheres    []fragment
	groups    []fragment
	havings   []fragment
	orders    []fragment
	limit     *float64
	offset    *float64
	insert    any
	hasInsert bool
	update    []fragment
	returning []string
	pluck     string

	// the flags set by or*/*Not methods for the statement being added.
	bool string
	not  bool
}

// newBuilder returns an empty builder for d.
func newBuilder(d dialect, conn *jsvalue.Object) *builder {
	return &builder{d: d, method: "select", nullAsDefault: jsvalue.Truthy(conn.Prop("useNullAsDefault"))}
}

// errNotSupported names a knex method this package does not implement.
func errNotSupported(name string) error {
	return fmt.Errorf("KnexBuilder: query builder method %q is not supported by mcpbridge; write this query with KnexRaw", name)
}

// otherKnexMethods are knex builder methods outside the common set implemented here.
// The table is built on first use.
var otherKnexMethods = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"with": true, "withRecursive": true, "withMaterialized": true, "withSchema": true, "as": true,
		"union": true, "unionAll": true, "intersect": true, "except": true, "modify": true,
		"transacting": true, "forUpdate": true, "forShare": true, "skipLocked": true, "noWait": true,
		"onConflict": true, "ignore": true, "merge": true, "upsert": true, "truncate": true,
		"whereExists": true, "orWhereExists": true, "whereNotExists": true, "orWhereNotExists": true,
		"whereJsonObject": true, "whereJsonPath": true, "whereJsonSupersetOf": true, "whereJsonSubsetOf": true,
		"jsonExtract": true, "jsonSet": true, "jsonInsert": true, "jsonRemove": true, "havingIn": true,
		"havingNotIn": true, "havingNull": true, "havingNotNull": true, "havingBetween": true,
		"havingNotBetween": true, "havingExists": true, "distinctOn": true, "joinRaw": true,
		"columnInfo": true, "timeout": true, "connection": true, "options": true, "queryContext": true,
		"hintComment": true, "comment": true, "clear": true, "clearGroup": true, "clearHaving": true,
		"clearCounters": true, "rank": true, "denseRank": true, "rowNumber": true, "partitionBy": true,
		"analytic": true, "crossApply": true, "outerApply": true, "fromRaw": true, "on": true,
		"toSQL": true, "toString": true, "then": true, "catch": true, "finally": true, "stream": true,
		"pipe": true, "asCallback": true, "debug": true, "pluckRaw": true, "select_raw": true,
	}
}}

// call applies one builder method.
func (b *builder) call(name string, args []any) error {
	arg := func(i int) any {
		if i < len(args) {
			return args[i]
		}
		return jsvalue.Undefined
	}
	b.bool, b.not = "and", false
	switch name {
	case "select", "column", "columns":
		b.addColumns(args)
	case "distinct":
		b.distinct = true
		b.addColumns(args)
	case "from", "table", "into":
		return b.from(arg(0))
	case "where", "andWhere":
		return b.where(args)
	case "orWhere":
		b.bool = "or"
		return b.where(args)
	case "whereNot", "andWhereNot":
		b.not = true
		return b.where(args)
	case "orWhereNot":
		b.bool, b.not = "or", true
		return b.where(args)
	case "whereIn", "andWhereIn", "orWhereIn", "whereNotIn", "orWhereNotIn":
		b.setFlags(name)
		b.whereIn(arg(0), arg(1))
	case "whereNull", "andWhereNull", "orWhereNull", "whereNotNull", "orWhereNotNull", "andWhereNotNull":
		b.setFlags(name)
		b.whereNull(arg(0))
	case "whereBetween", "andWhereBetween", "orWhereBetween", "whereNotBetween", "orWhereNotBetween", "andWhereNotBetween":
		b.setFlags(name)
		return b.whereBetween(name, arg(0), arg(1))
	case "whereLike", "andWhereLike", "orWhereLike", "whereILike", "andWhereILike", "orWhereILike":
		b.setFlags(name)
		b.whereLike(strings.Contains(name, "ILike"), arg(0), arg(1))
	case "whereRaw", "andWhereRaw", "orWhereRaw":
		b.setFlags(name)
		f, err := b.raw(arg(0), args[1:])
		if err != nil {
			return err
		}
		b.addWhere(f.sql, f.bindings...)
	case "join", "innerJoin", "leftJoin", "leftOuterJoin", "rightJoin", "rightOuterJoin",
		"fullOuterJoin", "outerJoin", "crossJoin":
		return b.join(name, args)
	case "groupBy":
		for _, a := range flatten(args) {
			b.groups = append(b.groups, fragment{sql: wrap(b.d, a)})
		}
	case "groupByRaw":
		f, err := b.raw(arg(0), args[1:])
		if err != nil {
			return err
		}
		b.groups = append(b.groups, f)
	case "having", "andHaving", "orHaving":
		b.setFlags(name)
		return b.having(args)
	case "havingRaw", "orHavingRaw":
		b.setFlags(name)
		f, err := b.raw(arg(0), args[1:])
		if err != nil {
			return err
		}
		f.bool = b.bool
		b.havings = append(b.havings, f)
	case "orderBy":
		b.orderBy(arg(0), arg(1), arg(2))
	case "orderByRaw":
		f, err := b.raw(arg(0), args[1:])
		if err != nil {
			return err
		}
		b.orders = append(b.orders, f)
	case "limit", "offset":
		n, err := strconv.ParseInt(strings.TrimSpace(jsvalue.ToString(arg(0))), 10, 64)
		if err != nil {
			// knex warns and ignores a value that is not a number.
			return nil
		}
		v := float64(n)
		if name == "limit" {
			b.limit = &v
		} else {
			b.offset = &v
		}
	case "count", "countDistinct", "min", "max", "sum", "sumDistinct", "avg", "avgDistinct":
		b.aggregate(name, args)
	case "first":
		b.method = "first"
		b.addColumns(args)
		one := 1.0
		b.limit = &one
	case "pluck":
		b.method = "pluck"
		col := jsvalue.ToString(arg(0))
		b.pluck = col
		if i := strings.LastIndexByte(col, '.'); i >= 0 {
			b.pluck = col[i+1:]
		}
		b.columns = append(b.columns, fragment{sql: wrapString(b.d, col)})
	case "insert":
		b.method = "insert"
		b.insert, b.hasInsert = arg(0), true
		b.setReturning(arg(1))
	case "update":
		b.method = "update"
		b.update = nil
		ret := arg(1)
		if o, ok := arg(0).(*jsvalue.Object); ok {
			for k, v := range o.Range {
				if !jsvalue.IsUndefined(v) {
					b.update = append(b.update, fragment{sql: wrapString(b.d, k) + " = ?", bindings: []any{v}})
				}
			}
		} else {
			b.update = []fragment{{sql: wrapString(b.d, jsvalue.ToString(arg(0))) + " = ?", bindings: []any{arg(1)}}}
			ret = arg(2)
		}
		b.setReturning(ret)
	case "del", "delete":
		b.method = "del"
		b.setReturning(arg(0))
	case "increment", "decrement":
		b.method = "counter"
		op := " + "
		if name == "decrement" {
			op = " - "
		}
		add := func(col string, amount any) {
			if jsvalue.IsUndefined(amount) {
				amount = 1.0
			}
			c := wrapString(b.d, col)
			b.update = append(b.update, fragment{sql: c + " = " + c + op + "?", bindings: []any{amount}})
		}
		if o, ok := arg(0).(*jsvalue.Object); ok {
			for k, v := range o.Range {
				add(k, v)
			}
		} else {
			add(jsvalue.ToString(arg(0)), arg(1))
		}
	case "returning":
		b.setReturning(arg(0))
	case "clearSelect":
		b.columns, b.distinct = nil, false
	case "clearWhere":
		b.wheres = nil
	case "clearOrder":
		b.orders = nil
	default:
		if otherKnexMethods.Get()[name] {
			return errNotSupported(name)
		}
		return fmt.Errorf("Invalid query builder method %q.", name)
	}
	return nil
}

// setFlags sets the or/not flags from a method's name (orWhereNotIn, …).
func (b *builder) setFlags(name string) {
	if strings.HasPrefix(name, "or") {
		b.bool = "or"
	}
	b.not = strings.Contains(name, "Not")
}

// flatten spreads array arguments one level (knex's normalizeArr for column lists).
func flatten(args []any) []any {
	var out []any
	for _, a := range args {
		if arr, ok := a.([]any); ok {
			out = append(out, arr...)
		} else {
			out = append(out, a)
		}
	}
	return out
}

// addColumns adds select columns: strings, arrays of them, or {alias: column} objects.
func (b *builder) addColumns(args []any) {
	for _, a := range flatten(args) {
		if jsvalue.IsNullish(a) {
			continue
		}
		b.columns = append(b.columns, fragment{sql: wrap(b.d, a)})
	}
}

// from sets the table: a name ("t", "t as x") or {alias: table}.
func (b *builder) from(t any) error {
	switch t.(type) {
	case string, *jsvalue.Object:
		b.table = wrap(b.d, t)
		return nil
	}
	return fmt.Errorf("KnexBuilder: the table name should be a string or an object, received %s", jsonOf(t))
}

// raw compiles a raw fragment: SQL with bindings given as knex.raw would take them.
func (b *builder) raw(sqlArg any, rest []any) (fragment, error) {
	s, ok := sqlArg.(string)
	if !ok {
		return fragment{}, fmt.Errorf("KnexBuilder: a raw fragment should be a string of SQL, received %s", jsonOf(sqlArg))
	}
	if len(rest) == 0 || jsvalue.IsUndefined(rest[0]) {
		return fragment{sql: s}, nil
	}
	q, bindings, err := rawSQL(b.d, s, rest[0], true)
	if err != nil {
		return fragment{}, err
	}
	return fragment{sql: q, bindings: bindings}, nil
}

// addWhere records a where clause with the current flags.
func (b *builder) addWhere(sql string, bindings ...any) {
	if b.not {
		sql = "not " + sql
	}
	b.wheres = append(b.wheres, fragment{bool: b.bool, sql: sql, bindings: bindings})
}

// operators are the operators knex permits, by their lower-case form, built on first use.
var operators = lazy.Value[map[string]string]{New: func() map[string]string {
	operators := map[string]string{}
	for _, op := range []string{"=", "<", ">", "<=", ">=", "<>", "!=", "like", "not like", "between",
		"not between", "ilike", "not ilike", "exists", "not exist", "rlike", "not rlike", "regexp",
		"not regexp", "match", "&", "|", "^", "<<", ">>", "~", "~=", "~*", "!~", "!~*", "#", "&&",
		"@>", "<@", "||", "&<", "&>", "-|-", "@@", "!!"} {
		operators[op] = op
	}
	operators["?"] = `\?`
	operators["?|"] = `\?|`
	operators["?&"] = `\?&`
	return operators
}}

// operator checks and normalises a comparison operator.
func operator(op any) (string, error) {
	s := strings.ToLower(jsvalue.ToString(op))
	if o, ok := operators.Get()[s]; ok {
		return o, nil
	}
	return "", fmt.Errorf("The operator %q is not permitted", jsvalue.ToString(op))
}

// where is knex's where(column, operator, value) with all its argument forms.
func (b *builder) where(args []any) error {
	if len(args) == 0 {
		return nil
	}
	col := args[0]
	if c, ok := col.(bool); ok {
		v := 0.0
		if c {
			v = 1
		}
		return b.where([]any{1.0, "=", v})
	}
	if o, ok := col.(*jsvalue.Object); ok {
		bool_, not := b.bool, b.not
		for k, v := range o.Range {
			b.bool, b.not = bool_, not
			if err := b.where([]any{k, v}); err != nil {
				return err
			}
		}
		return nil
	}
	if len(args) == 1 {
		return fmt.Errorf("KnexBuilder: where needs a column and a value, received %s", jsonOf(args))
	}
	var op, value any
	if len(args) == 2 {
		op, value = "=", args[1]
		if value == nil {
			b.whereNull(col)
			return nil
		}
	} else {
		op, value = args[1], args[2]
		check := strings.TrimSpace(strings.ToLower(jsvalue.ToString(op)))
		switch check {
		case "in", "not in":
			b.not = b.not || check == "not in"
			b.whereIn(col, value)
			return nil
		case "between", "not between":
			b.not = b.not || check == "not between"
			return b.whereBetween("whereBetween", col, value)
		}
		if value == nil {
			switch check {
			case "is":
				b.whereNull(col)
				return nil
			case "is not":
				b.not = true
				b.whereNull(col)
				return nil
			}
		}
	}
	o, err := operator(op)
	if err != nil {
		return err
	}
	if b.d.client() == "mysql" {
		switch value.(type) {
		case []any, *jsvalue.Object:
			return errors.New("The values in where clause must not be object or array.")
		}
	}
	b.addWhere(wrap(b.d, col)+" "+o+" ?", value)
	return nil
}

// whereIn is knex's whereIn/whereNotIn.
func (b *builder) whereIn(col, values any) {
	kw := "in"
	if b.not {
		kw = "not in"
	}
	not := b.not
	b.not = false
	arr, isArr := values.([]any)
	if isArr && len(arr) == 0 {
		v := 0.0
		if not {
			v = 1
		}
		b.addWhere("1 = ?", v)
		return
	}
	if !isArr {
		b.addWhere(wrap(b.d, col)+" "+kw+" ?", values)
		return
	}
	if cols, ok := col.([]any); ok {
		var bindings []any
		groups := make([]string, len(arr))
		for i, v := range arr {
			row, _ := v.([]any)
			marks := make([]string, len(row))
			for j := range row {
				marks[j] = "?"
			}
			bindings = append(bindings, row...)
			groups[i] = "(" + strings.Join(marks, ", ") + ")"
		}
		list := "(" + strings.Join(groups, ", ") + ")"
		if b.d.client() == "sqlite3" {
			list = "( values " + strings.Join(groups, ", ") + ")"
		}
		b.addWhere("("+columnize(b.d, cols)+") "+kw+" "+list, bindings...)
		return
	}
	marks := make([]string, len(arr))
	for i := range arr {
		marks[i] = "?"
	}
	b.addWhere(wrap(b.d, col)+" "+kw+" ("+strings.Join(marks, ", ")+")", arr...)
}

// whereNull is knex's whereNull/whereNotNull.
func (b *builder) whereNull(col any) {
	s := wrap(b.d, col) + " is null"
	if b.not {
		s = wrap(b.d, col) + " is not null"
	}
	b.not = false
	b.addWhere(s)
}

// whereBetween is knex's whereBetween/whereNotBetween.
func (b *builder) whereBetween(name string, col, values any) error {
	arr, ok := values.([]any)
	if !ok || len(arr) != 2 {
		return errors.New("You must specify 2 values for the whereBetween clause")
	}
	kw := " between ? and ?"
	if b.not {
		kw = " not between ? and ?"
	}
	b.not = false
	b.addWhere(wrap(b.d, col)+kw, arr[0], arr[1])
	return nil
}

// whereLike is knex's whereLike/whereILike for the dialect.
func (b *builder) whereLike(insensitive bool, col, value any) {
	s := wrap(b.d, col)
	switch {
	case b.d.client() == "mysql" && insensitive:
		s += " like ?"
	case b.d.client() == "mysql":
		s += " like ? COLLATE utf8_bin"
	case insensitive:
		s += " ilike ?"
	default:
		s += " like ?"
	}
	b.not = false
	b.addWhere(s, value)
}

// having is knex's having(column, operator, value).
func (b *builder) having(args []any) error {
	if len(args) < 2 {
		return fmt.Errorf("KnexBuilder: having needs a column, an operator and a value, received %s", jsonOf(args))
	}
	op, value := any("="), args[1]
	if len(args) > 2 {
		op, value = args[1], args[2]
	}
	o, err := operator(op)
	if err != nil {
		return err
	}
	s := wrap(b.d, args[0]) + " " + o + " ?"
	if b.not {
		s = "not " + s
	}
	b.havings = append(b.havings, fragment{bool: b.bool, sql: s, bindings: []any{value}})
	return nil
}

// join is knex's join family: join(table, first, [operator,] second), join(table,
// {a: b}), crossJoin(table).
func (b *builder) join(name string, args []any) error {
	kw := map[string]string{
		"join": "inner join", "innerJoin": "inner join", "leftJoin": "left join",
		"leftOuterJoin": "left outer join", "rightJoin": "right join", "rightOuterJoin": "right outer join",
		"fullOuterJoin": "full outer join", "outerJoin": "outer join", "crossJoin": "cross join",
	}[name]
	if len(args) == 0 {
		return fmt.Errorf("KnexBuilder: %s needs a table", name)
	}
	s := kw + " " + wrap(b.d, args[0])
	var ons []string
	switch {
	case len(args) == 1:
	case len(args) == 2:
		o, ok := args[1].(*jsvalue.Object)
		if !ok {
			return fmt.Errorf("KnexBuilder: %s needs the columns to join on: (table, first, operator, second) or (table, {first: second})", name)
		}
		for k, v := range o.Range {
			ons = append(ons, wrapString(b.d, k)+" = "+wrap(b.d, v))
		}
	case len(args) == 3:
		ons = append(ons, wrap(b.d, args[1])+" = "+wrap(b.d, args[2]))
	default:
		op, err := operator(args[2])
		if err != nil {
			return err
		}
		ons = append(ons, wrap(b.d, args[1])+" "+op+" "+wrap(b.d, args[3]))
	}
	if len(ons) > 0 {
		s += " on " + strings.Join(ons, " and ")
	}
	b.joins = append(b.joins, fragment{sql: s})
	return nil
}

// orderBy is knex's orderBy(column, direction, nulls) and orderBy([columns]).
func (b *builder) orderBy(col, dir, nulls any) {
	if arr, ok := col.([]any); ok {
		for _, item := range arr {
			if o, ok := item.(*jsvalue.Object); ok {
				b.orderBy(o.Prop("column"), o.Prop("order"), o.Prop("nulls"))
			} else {
				b.orderBy(item, dir, jsvalue.Undefined)
			}
		}
		return
	}
	d := "asc"
	if s, ok := dir.(string); ok && strings.EqualFold(s, "desc") {
		d = "desc"
	}
	c := wrap(b.d, col)
	n, _ := nulls.(string)
	switch {
	case n != "" && b.d.client() == "postgres":
		b.orders = append(b.orders, fragment{sql: c + " " + d + " nulls " + strings.ToLower(n)})
	case strings.EqualFold(n, "first"):
		b.orders = append(b.orders, fragment{sql: "(" + c + " is not null) " + d})
	case strings.EqualFold(n, "last"):
		b.orders = append(b.orders, fragment{sql: "(" + c + " is null) " + d})
	default:
		b.orders = append(b.orders, fragment{sql: c + " " + d})
	}
}

// aggregate adds count(col) and friends: "col", "col as alias", {alias: col}, none (*).
func (b *builder) aggregate(name string, args []any) {
	fn := strings.TrimSuffix(name, "Distinct")
	distinct := ""
	if fn != name {
		distinct = "distinct "
	}
	expr := func(col any) string {
		if s, ok := col.(string); ok {
			alias := ""
			if i := indexFold(s, " as "); i >= 0 {
				s, alias = strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+4:])
			}
			inner := "*"
			if s != "*" {
				inner = wrapString(b.d, s)
			}
			out := fn + "(" + distinct + inner + ")"
			if alias != "" {
				out += " as " + wrapAsIdentifier(b.d, alias)
			}
			return out
		}
		return fn + "(" + distinct + wrap(b.d, col) + ")"
	}
	if len(args) == 0 || jsvalue.IsUndefined(args[0]) {
		b.columns = append(b.columns, fragment{sql: fn + "(*)"})
		return
	}
	if o, ok := args[0].(*jsvalue.Object); ok {
		for alias, col := range o.Range {
			b.columns = append(b.columns, fragment{sql: expr(col) + " as " + wrapAsIdentifier(b.d, alias)})
		}
		return
	}
	s := expr(args[0])
	if len(args) > 1 {
		if opts, ok := args[1].(*jsvalue.Object); ok {
			if as, ok := opts.Prop("as").(string); ok {
				s += " as " + wrapAsIdentifier(b.d, as)
			}
		}
	}
	b.columns = append(b.columns, fragment{sql: s})
}

// setReturning records returning columns (a name, "*" or a list).
func (b *builder) setReturning(v any) {
	switch x := v.(type) {
	case string:
		b.returning = []string{x}
	case []any:
		b.returning = nil
		for _, c := range x {
			b.returning = append(b.returning, jsvalue.ToString(c))
		}
	}
}

// errSQLiteDefault is knex's error for a row that leaves a column out on SQLite without
// useNullAsDefault.
var errSQLiteDefault = errors.New("`sqlite` does not support inserting default values. Specify values explicitly or use the `useNullAsDefault` config flag. (see docs https://knexjs.org/guide/query-builder.html#insert).")

// sqlWriter accumulates SQL and bindings in order.
type sqlWriter struct {
	sb       strings.Builder
	bindings []any
}

func (w *sqlWriter) add(f fragment) {
	w.sb.WriteString(f.sql)
	w.bindings = append(w.bindings, f.bindings...)
}

func (w *sqlWriter) str(s string) { w.sb.WriteString(s) }

// list writes fs separated by commas.
func (w *sqlWriter) list(fs []fragment) {
	for i, f := range fs {
		if i > 0 {
			w.str(", ")
		}
		w.add(f)
	}
}

// clauses writes where or having clauses joined by their and/or.
func (w *sqlWriter) clauses(kw string, fs []fragment) {
	if len(fs) == 0 {
		return
	}
	w.str(" " + kw + " ")
	for i, f := range fs {
		if i > 0 {
			w.str(" " + f.bool + " ")
		}
		w.add(f)
	}
}

// compile writes the query as knex does for the dialect.
func (b *builder) compile() (*compiled, error) {
	q := &compiled{method: b.method, pluck: b.pluck}
	var w sqlWriter
	returning := func() {
		if len(b.returning) == 0 || b.d.client() == "mysql" {
			return
		}
		q.returning = true
		cols := make([]any, len(b.returning))
		for i, c := range b.returning {
			cols[i] = c
		}
		w.str(" returning " + columnize(b.d, cols))
	}
	switch b.method {
	case "insert":
		if err := b.compileInsert(&w); err != nil {
			return nil, err
		}
		returning()
	case "update", "counter":
		w.str("update " + b.table + " set ")
		w.list(b.update)
		w.clauses("where", b.wheres)
		if b.method == "update" {
			returning()
		}
	case "del":
		w.str("delete from " + b.table)
		w.clauses("where", b.wheres)
		returning()
	default:
		w.str("select ")
		if b.distinct {
			w.str("distinct ")
		}
		if len(b.columns) == 0 {
			w.str("*")
		}
		w.list(b.columns)
		if b.table != "" {
			w.str(" from " + b.table)
		}
		for _, j := range b.joins {
			w.str(" ")
			w.add(j)
		}
		w.clauses("where", b.wheres)
		if len(b.groups) > 0 {
			w.str(" group by ")
			w.list(b.groups)
		}
		w.clauses("having", b.havings)
		if len(b.orders) > 0 {
			w.str(" order by ")
			w.list(b.orders)
		}
		b.compileLimit(&w)
	}
	q.sql, q.bindings = w.sb.String(), w.bindings
	return q, nil
}

// compileLimit writes limit and offset as the dialect needs them.
func (b *builder) compileLimit(w *sqlWriter) {
	if b.limit != nil {
		w.add(fragment{sql: " limit ?", bindings: []any{*b.limit}})
	}
	if b.offset == nil {
		return
	}
	if b.limit == nil {
		switch b.d.client() {
		case "sqlite3":
			w.add(fragment{sql: " limit ?", bindings: []any{-1.0}})
		case "mysql":
			w.str(" limit 18446744073709551615")
		}
	}
	w.add(fragment{sql: " offset ?", bindings: []any{*b.offset}})
}

// compileInsert writes insert into … values …: columns sorted, missing values DEFAULT
// (sqlite: NULL with useNullAsDefault, else knex's error), several sqlite rows as a
// union all select.
func (b *builder) compileInsert(w *sqlWriter) error {
	var rows []*jsvalue.Object
	switch x := b.insert.(type) {
	case *jsvalue.Object:
		rows = []*jsvalue.Object{x}
	case []any:
		for _, r := range x {
			o, ok := r.(*jsvalue.Object)
			if !ok {
				return fmt.Errorf("KnexBuilder: insert values should be objects, received %s", jsonOf(r))
			}
			rows = append(rows, o)
		}
	default:
		return fmt.Errorf("KnexBuilder: insert needs an object or an array of objects, received %s", jsonOf(b.insert))
	}
	w.str("insert into " + b.table)
	seen := map[string]bool{}
	var cols []string
	for _, r := range rows {
		for k, v := range r.Range {
			if !seen[k] && !jsvalue.IsUndefined(v) {
				seen[k] = true
				cols = append(cols, k)
			}
		}
	}
	sort.Strings(cols)
	if len(cols) == 0 {
		if b.d.client() == "mysql" {
			w.str(" () values ()")
		} else {
			w.str(" default values")
		}
		return nil
	}
	names := make([]any, len(cols))
	for i, c := range cols {
		names[i] = c
	}
	w.str(" (" + columnize(b.d, names) + ")")
	sqlite := b.d.client() == "sqlite3"
	if sqlite && len(rows) > 1 {
		for i, r := range rows {
			if i == 0 {
				w.str(" select ")
			} else {
				w.str(" union all select ")
			}
			for j, c := range cols {
				if j > 0 {
					w.str(", ")
				}
				v := r.Prop(c)
				if jsvalue.IsUndefined(v) {
					if !b.nullAsDefault {
						return errSQLiteDefault
					}
					v = nil
				}
				w.add(fragment{sql: "? as " + wrapAsIdentifier(b.d, c), bindings: []any{v}})
			}
		}
		return nil
	}
	w.str(" values ")
	for i, r := range rows {
		if i > 0 {
			w.str(", ")
		}
		w.str("(")
		for j, c := range cols {
			if j > 0 {
				w.str(", ")
			}
			v := r.Prop(c)
			if jsvalue.IsUndefined(v) {
				if sqlite {
					if !b.nullAsDefault {
						return errSQLiteDefault
					}
					w.add(fragment{sql: "?", bindings: []any{nil}})
					continue
				}
				w.str("DEFAULT")
				continue
			}
			w.add(fragment{sql: "?", bindings: []any{v}})
		}
		w.str(")")
	}
	return nil
}
