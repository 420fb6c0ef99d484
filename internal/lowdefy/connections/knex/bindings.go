package knex

import (
	"fmt"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// rawSQL applies KnexRaw's parameters to query as knex.raw(query, parameters) does
// (formatter/rawFormatter.js): an array binds `?` and `??` in order, an object binds
// `:name` and `:name:`, another value is one positional binding. It returns the SQL with
// `?` placeholders and the values to bind. has is false when there are no parameters,
// which leaves the query as it is.
func rawSQL(d dialect, query string, params any, has bool) (string, []any, error) {
	if !has {
		return query, nil, nil
	}
	var (
		sql      string
		bindings []any
		err      error
		missing  []string
	)
	switch p := params.(type) {
	case []any:
		sql, bindings, err = replaceArr(d, query, p)
		for i, v := range p {
			if jsvalue.IsUndefined(v) {
				missing = append(missing, fmt.Sprint(i))
			}
		}
	case *jsvalue.Object:
		sql, bindings = replaceKeys(d, query, p)
		for k, v := range p.Range {
			if jsvalue.IsUndefined(v) {
				missing = append(missing, k)
			}
		}
	default:
		sql, bindings, err = replaceArr(d, query, []any{p})
	}
	if err != nil {
		return "", nil, err
	}
	for _, b := range bindings {
		if jsvalue.IsUndefined(b) {
			return "", nil, fmt.Errorf("Undefined binding(s) detected for keys [%s] when compiling RAW query: %s", strings.Join(missing, ","), sql)
		}
	}
	return sql, bindings, nil
}

// replaceArr is knex's replaceRawArrBindings: each `?` takes the next value, each `??`
// the next identifier, `\?` stays.
func replaceArr(d dialect, sql string, values []any) (string, []any, error) {
	var b strings.Builder
	var bindings []any
	index := 0
	for i := 0; i < len(sql); {
		start := i
		if sql[i] == '\\' && i+1 < len(sql) && sql[i+1] == '?' {
			i += 2
		} else if sql[i] == '?' {
			i++
		} else {
			b.WriteByte(sql[i])
			i++
			continue
		}
		if i < len(sql) && sql[i] == '?' {
			i++
		}
		match := sql[start:i]
		if match == `\?` {
			b.WriteString(match)
			continue
		}
		var v any = jsvalue.Undefined
		if index < len(values) {
			v = values[index]
		}
		index++
		if match == "??" {
			b.WriteString(columnize(d, v))
			continue
		}
		bindings = append(bindings, v)
		b.WriteByte('?')
	}
	if index != len(values) {
		return "", nil, fmt.Errorf("Expected %d bindings, saw %d", len(values), index)
	}
	return b.String(), bindings, nil
}

// isWord reports whether c matches JavaScript's \w.
func isWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// replaceKeys is knex's replaceKeyBindings: `:name` binds a value, `:name:` an
// identifier; a name that is not a key is left as it is, and `\:name` loses its
// backslash.
func replaceKeys(d dialect, sql string, values *jsvalue.Object) (string, []any) {
	var b strings.Builder
	var bindings []any
	for i := 0; i < len(sql); {
		escaped := sql[i] == '\\' && i+2 < len(sql) && sql[i+1] == ':' && isWord(sql[i+2])
		at := i
		if escaped {
			at = i + 1
		}
		if sql[at] != ':' || at+1 >= len(sql) || !isWord(sql[at+1]) {
			b.WriteByte(sql[i])
			i++
			continue
		}
		j := at + 1
		for j < len(sql) && isWord(sql[j]) {
			j++
		}
		name := sql[at+1 : j]
		end, ident := j, false
		if j < len(sql) && sql[j] == ':' {
			switch {
			case j+2 < len(sql) && sql[j+1] == ':' && sql[j+2] == ':': // :name: followed by ::
				end, ident = j+1, true
			case j+1 >= len(sql) || sql[j+1] != ':': // :name: not followed by :
				end, ident = j+1, true
			}
		}
		p1 := sql[at:end]
		i = end
		if escaped {
			b.WriteString(p1)
			continue
		}
		v, has := values.Get(name)
		if !has || jsvalue.IsUndefined(v) {
			if has {
				bindings = append(bindings, jsvalue.Undefined)
			}
			b.WriteString(p1)
			continue
		}
		if ident {
			b.WriteString(columnize(d, v))
			continue
		}
		bindings = append(bindings, v)
		b.WriteByte('?')
	}
	return b.String(), bindings
}

// columnize quotes a value used as identifiers (knex's columnize): an array is a list.
func columnize(d dialect, v any) string {
	arr, ok := v.([]any)
	if !ok {
		return wrap(d, v)
	}
	parts := make([]string, len(arr))
	for i, c := range arr {
		parts[i] = wrap(d, c)
	}
	return strings.Join(parts, ", ")
}

// wrap quotes one identifier value as knex's wrap does: numbers as they are, objects as
// `value as alias` lists, anything else as a string.
func wrap(d dialect, v any) string {
	switch x := v.(type) {
	case float64:
		return jsvalue.NumberToString(x)
	case int:
		return fmt.Sprint(x)
	case *jsvalue.Object:
		var parts []string
		for alias, val := range x.Range {
			parts = append(parts, wrap(d, val)+" as "+wrapAsIdentifier(d, alias))
		}
		return strings.Join(parts, ", ")
	case []any:
		var parts []string
		for i, val := range x {
			parts = append(parts, wrap(d, val)+" as "+wrapAsIdentifier(d, fmt.Sprint(i)))
		}
		return strings.Join(parts, ", ")
	case nil:
		return ""
	default:
		return wrapString(d, jsvalue.ToString(v))
	}
}

// wrapString quotes a column reference: "a as b" becomes an alias, "t.c" two segments.
func wrapString(d dialect, s string) string {
	if i := indexFold(s, " as "); i >= 0 {
		return wrapString(d, s[:i]) + " as " + wrapAsIdentifier(d, s[i+4:])
	}
	segs := strings.Split(s, ".")
	for i, seg := range segs {
		segs[i] = wrapAsIdentifier(d, seg)
	}
	return strings.Join(segs, ".")
}

// wrapAsIdentifier quotes one trimmed segment; `*` stays.
func wrapAsIdentifier(d dialect, s string) string {
	s = strings.TrimSpace(s)
	if s == "*" {
		return s
	}
	return d.wrapIdentifier(s)
}

// indexFold is the index of the ASCII string sub in s, ignoring ASCII case, or -1.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// backtick quotes an identifier for sqlite and mysql.
func backtick(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// doubleQuote quotes an identifier for PostgreSQL, keeping an array accessor (`a[1]`).
func doubleQuote(s string) string {
	accessor := ""
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 1 && allDigits(s[i+1:i+j]) {
			accessor = s[i : i+j+1]
			s = s[:i]
		}
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` + accessor
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
