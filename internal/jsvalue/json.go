package jsvalue

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth bounds the nesting of arrays and objects that Decode accepts
// and AppendJSON writes, so hostile input cannot exhaust the stack.
const maxJSONDepth = 10000

var errTooDeep = errors.New("jsvalue: value nested deeper than 10000 levels")

// SyntaxError is a JSON syntax error found by Decode.
type SyntaxError struct {
	Offset int // byte offset in the input where the error was found
	msg    string
}

// Error describes the problem and where it is.
func (e *SyntaxError) Error() string {
	return "invalid JSON at offset " + strconv.Itoa(e.Offset) + ": " + e.msg
}

// Decode parses JSON text the way JSON.parse does: objects become *Object
// with their keys in JavaScript property order (array indices ascending,
// then source order; a repeated key keeps its first position and its last
// value), arrays []any, numbers float64 (out of range: ±Infinity or 0),
// strings, booleans and nil. Invalid UTF-8 and lone surrogate escapes become
// U+FFFD. Whitespace may surround the value; anything else after it is an
// error, as is nesting deeper than 10000 levels.
func Decode(data []byte) (any, error) {
	d := decoder{data: data}
	return d.top()
}

// DecodeNumbers is Decode keeping each number as a json.Number holding its
// source text, so integers of any size and exact decimals survive.
func DecodeNumbers(data []byte) (any, error) {
	d := decoder{data: data, useNumber: true}
	return d.top()
}

type decoder struct {
	data      []byte
	pos       int
	depth     int
	useNumber bool
	buf       []byte // scratch for strings with escapes
}

func (d *decoder) errorf(msg string) error {
	return &SyntaxError{Offset: d.pos, msg: msg}
}

func (d *decoder) unexpected() error {
	if d.pos >= len(d.data) {
		return d.errorf("unexpected end of input")
	}
	r, _ := utf8.DecodeRune(d.data[d.pos:])
	return d.errorf("unexpected character " + strconv.QuoteRune(r))
}

func (d *decoder) top() (any, error) {
	d.skipSpace()
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos < len(d.data) {
		return nil, d.errorf("unexpected data after the JSON value")
	}
	return v, nil
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) literal(word string, v any) (any, error) {
	end := d.pos + len(word)
	if end > len(d.data) || string(d.data[d.pos:end]) != word {
		return nil, d.unexpected()
	}
	d.pos += len(word)
	return v, nil
}

func (d *decoder) value() (any, error) {
	if d.pos >= len(d.data) {
		return nil, d.unexpected()
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		return s, nil
	case c == 't':
		return d.literal("true", true)
	case c == 'f':
		return d.literal("false", false)
	case c == 'n':
		return d.literal("null", nil)
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return nil, d.unexpected()
}

func (d *decoder) object() (any, error) {
	d.depth++
	if d.depth > maxJSONDepth {
		return nil, d.errorf("nested deeper than 10000 levels")
	}
	d.pos++ // {
	o := &Object{}
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		d.depth--
		return o, nil
	}
	for {
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.unexpected()
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.unexpected()
		}
		d.pos++
		d.skipSpace()
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		o.Set(k, v)
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.unexpected()
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.skipSpace()
		case '}':
			d.pos++
			d.depth--
			return o, nil
		default:
			return nil, d.unexpected()
		}
	}
}

func (d *decoder) array() (any, error) {
	d.depth++
	if d.depth > maxJSONDepth {
		return nil, d.errorf("nested deeper than 10000 levels")
	}
	d.pos++ // [
	out := []any{}
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		d.depth--
		return out, nil
	}
	for {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.unexpected()
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.skipSpace()
		case ']':
			d.pos++
			d.depth--
			return out, nil
		default:
			return nil, d.unexpected()
		}
	}
}

func (d *decoder) number() (any, error) {
	start := d.pos
	data := d.data
	i := d.pos
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	default:
		d.pos = i
		return nil, d.unexpected()
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			d.pos = i
			return nil, d.unexpected()
		}
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			d.pos = i
			return nil, d.unexpected()
		}
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	}
	d.pos = i
	text := string(data[start:i])
	if d.useNumber {
		return json.Number(text), nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, &SyntaxError{Offset: start, msg: "invalid number " + text}
	}
	return f, nil // out of range: ParseFloat's ±Inf or 0, like JSON.parse
}

// str parses a string starting at the opening quote.
func (d *decoder) str() (string, error) {
	d.pos++ // "
	start := d.pos
	data := d.data
	// Fast path: no escapes, no control characters, valid UTF-8.
	ascii := true
	for i := start; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '"':
			s := data[start:i]
			if !ascii && !utf8.Valid(s) {
				d.pos = start
				return d.strSlow()
			}
			d.pos = i + 1
			return string(s), nil
		case c == '\\':
			return d.strSlow()
		case c < 0x20:
			d.pos = i
			return "", d.errorf("control character in string")
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	d.pos = len(data)
	return "", d.errorf("unterminated string")
}

// strSlow parses the rest of a string with escapes or invalid UTF-8,
// starting after the opening quote.
func (d *decoder) strSlow() (string, error) {
	b := d.buf[:0]
	data := d.data
	i := d.pos
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			d.buf = b
			return string(b), nil
		case c == '\\':
			i++
			if i >= len(data) {
				d.pos = i
				return "", d.errorf("unterminated string")
			}
			switch data[i] {
			case '"', '\\', '/':
				b = append(b, data[i])
				i++
			case 'b':
				b = append(b, '\b')
				i++
			case 'f':
				b = append(b, '\f')
				i++
			case 'n':
				b = append(b, '\n')
				i++
			case 'r':
				b = append(b, '\r')
				i++
			case 't':
				b = append(b, '\t')
				i++
			case 'u':
				r, ok := hex4(data, i+1)
				if !ok {
					d.pos = i
					return "", d.errorf("invalid \\u escape")
				}
				i += 5
				if utf16.IsSurrogate(r) {
					r2, ok2 := rune(0), false
					if i+1 < len(data) && data[i] == '\\' && data[i+1] == 'u' {
						r2, ok2 = hex4(data, i+2)
					}
					if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				b = utf8.AppendRune(b, r)
			default:
				d.pos = i
				return "", d.errorf("invalid escape")
			}
		case c < 0x20:
			d.pos = i
			return "", d.errorf("control character in string")
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, "\uFFFD"...)
			} else {
				b = append(b, data[i:i+size]...)
			}
			i += size
		}
	}
	d.pos = len(data)
	return "", d.errorf("unterminated string")
}

// hex4 reads four hex digits at data[i:].
func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// Stringify is JSON.stringify(v, null, indent): objects in property order,
// undefined and functions dropped from objects and written as null in
// arrays, NaN and ±Infinity as null, dates as their ISO string (toJSON),
// errors as {} (they have no enumerable properties), json.Number as its
// text, a JSONer as what its ToJSON returns. indent is the space string ("" for compact output; see Indent). ok
// is false when v has no JSON form (undefined or a function at the top, or
// nesting deeper than 10000 levels).
func Stringify(v any, indent string) (s string, ok bool) {
	b, ok := AppendJSON(nil, v, indent)
	return string(b), ok
}

// AppendJSON appends Stringify(v, indent) to dst. When v has no JSON form it
// returns dst unchanged and false.
func AppendJSON(dst []byte, v any, indent string) ([]byte, bool) {
	v, ok := jsonForm(v)
	if !ok {
		return dst, false
	}
	e := encoder{indent: indent}
	out, ok := e.value(dst, v, 0)
	if !ok {
		return dst, false
	}
	return out, true
}

// JSONer is implemented by Go values that choose their JSON form, like a
// JavaScript toJSON method: Stringify writes what ToJSON returns instead
// (Undefined drops the value from an object, as a function would).
type JSONer interface {
	ToJSON() any
}

// jsonForm returns what Stringify writes for v and whether it writes
// anything (not for undefined or a function).
func jsonForm(v any) (any, bool) {
	switch x := v.(type) {
	case nil, bool, float64, string, *Object, []any:
		return v, true
	case UndefinedType, Func:
		return nil, false
	case JSONer:
		v = x.ToJSON()
		switch v.(type) {
		case UndefinedType, Func:
			return nil, false
		}
	}
	return v, true
}

type encoder struct {
	indent string
}

func (e *encoder) newline(b []byte, depth int) []byte {
	if e.indent == "" {
		return b
	}
	b = append(b, '\n')
	for range depth {
		b = append(b, e.indent...)
	}
	return b
}

func (e *encoder) value(b []byte, v any, depth int) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, x), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return append(b, "null"...), true
		}
		return appendNumber(b, x), true
	case string:
		return AppendQuote(b, x), true
	case *Object:
		if x == nil {
			return append(b, "null"...), true
		}
		if depth >= maxJSONDepth {
			return b, false
		}
		b = append(b, '{')
		wrote := false
		for _, en := range x.entries {
			val, ok := jsonForm(en.val)
			if !ok {
				continue
			}
			if wrote {
				b = append(b, ',')
			}
			wrote = true
			b = e.newline(b, depth+1)
			b = AppendQuote(b, en.key)
			b = append(b, ':')
			if e.indent != "" {
				b = append(b, ' ')
			}
			if b, ok = e.value(b, val, depth+1); !ok {
				return b, false
			}
		}
		if wrote {
			b = e.newline(b, depth)
		}
		return append(b, '}'), true
	case []any:
		if depth >= maxJSONDepth {
			return b, false
		}
		if len(x) == 0 {
			return append(b, "[]"...), true
		}
		b = append(b, '[')
		for i, item := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.newline(b, depth+1)
			item, ok := jsonForm(item)
			if !ok {
				b = append(b, "null"...)
				continue
			}
			if b, ok = e.value(b, item, depth+1); !ok {
				return b, false
			}
		}
		b = e.newline(b, depth)
		return append(b, ']'), true
	case time.Time:
		b = append(b, '"')
		b = append(b, ISOString(x)...)
		return append(b, '"'), true
	case json.Number:
		if x == "" {
			return append(b, '0'), true
		}
		return append(b, x...), true
	case int:
		return strconv.AppendInt(b, int64(x), 10), true
	case int64:
		return appendNumber(b, float64(x)), true
	case float32:
		return e.value(b, float64(x), depth)
	case *Error:
		return append(b, "{}"...), true
	}
	return append(b, "null"...), true
}

// Quote returns s as a JSON string literal the way JSON.stringify writes it:
// `"` and `\` escaped, \b \f \n \r \t, other control characters as \u00XX,
// everything else (including U+2028, U+2029 and non-ASCII) as is. Invalid
// UTF-8 bytes are written as \ufffd.
func Quote(s string) string {
	return string(AppendQuote(make([]byte, 0, len(s)+2), s))
}

// AppendQuote appends Quote(s) to dst.
func AppendQuote(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b := append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Indent converts the space argument of JSON.stringify to an indent string:
// a number gives that many spaces (at most 10), a string its first 10 UTF-16
// code units, anything else no indentation.
func Indent(space any) string {
	switch x := normalizeNumber(space).(type) {
	case float64:
		if math.IsNaN(x) || x < 1 {
			return ""
		}
		return strings.Repeat(" ", int(math.Min(10, math.Trunc(x))))
	case string:
		units := 0
		for i, r := range x {
			units += utf16.RuneLen(r)
			if units > 10 {
				return x[:i]
			}
		}
		return x
	}
	return ""
}
