package app

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// parseJSON5 parses a JSON5 document (https://spec.json5.org), which is how Lowdefy reads
// referenced `.json` files: comments, trailing commas, single-quoted strings, unquoted
// identifier keys, hexadecimal numbers, leading/trailing decimal points, `+`, Infinity and
// NaN. Later duplicate keys win, as in JSON5.parse.
func parseJSON5(data []byte, file string) (*node, error) {
	p := &json5Parser{src: string(data), file: file, line: 1, col: 1}
	p.skipSpace()
	if p.err != nil {
		return nil, p.err
	}
	v := p.value(0)
	if p.err != nil {
		return nil, p.err
	}
	p.skipSpace()
	if p.err == nil && p.i < len(p.src) {
		p.fail("unexpected %q after the value", p.peekRune())
	}
	if p.err != nil {
		return nil, p.err
	}
	return v, nil
}

type json5Parser struct {
	src       string
	i         int
	file      string
	line, col int
	err       error
}

func (p *json5Parser) pos() position { return position{file: p.file, line: p.line, col: p.col} }

func (p *json5Parser) fail(format string, args ...any) {
	if p.err == nil {
		p.err = &parseError{pos: p.pos(), msg: "invalid JSON5: " + fmt.Sprintf(format, args...)}
	}
}

func (p *json5Parser) peekRune() rune {
	if p.i >= len(p.src) {
		return 0
	}
	r, _ := utf8.DecodeRuneInString(p.src[p.i:])
	return r
}

func (p *json5Parser) next() rune {
	if p.i >= len(p.src) {
		return 0
	}
	r, size := utf8.DecodeRuneInString(p.src[p.i:])
	p.i += size
	if r == '\n' {
		p.line++
		p.col = 1
	} else {
		p.col++
	}
	return r
}

func isJSON5Space(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x2028, 0x2029, 0xFEFF:
		return true
	}
	return unicode.Is(unicode.Zs, r)
}

func (p *json5Parser) skipSpace() {
	for p.i < len(p.src) && p.err == nil {
		r := p.peekRune()
		switch {
		case isJSON5Space(r):
			p.next()
		case strings.HasPrefix(p.src[p.i:], "//"):
			for p.i < len(p.src) && p.peekRune() != '\n' && p.peekRune() != '\r' && p.peekRune() != 0x2028 && p.peekRune() != 0x2029 {
				p.next()
			}
		case strings.HasPrefix(p.src[p.i:], "/*"):
			end := strings.Index(p.src[p.i+2:], "*/")
			if end < 0 {
				p.fail("unterminated comment")
				return
			}
			stop := p.i + 2 + end + 2
			for p.i < stop {
				p.next()
			}
		default:
			return
		}
	}
}

func (p *json5Parser) value(depth int) *node {
	if depth > 10000 {
		p.fail("document nests too deeply")
		return nil
	}
	start := p.pos()
	r := p.peekRune()
	switch {
	case p.i >= len(p.src):
		p.fail("unexpected end of input")
		return nil
	case r == '{':
		return p.object(depth)
	case r == '[':
		return p.array(depth)
	case r == '"' || r == '\'':
		s := p.str()
		return newString(s, start)
	case r == '-' || r == '+' || r == '.' || (r >= '0' && r <= '9'):
		return p.number()
	}
	word := p.identifier()
	switch word {
	case "true":
		return newBool(true, start)
	case "false":
		return newBool(false, start)
	case "null":
		return newNull(start)
	case "Infinity":
		return newNumber(math.Inf(1), start)
	case "NaN":
		return newNumber(math.NaN(), start)
	}
	if word == "" {
		p.fail("unexpected %q", r)
	} else {
		p.fail("unexpected %q", word)
	}
	return nil
}

func (p *json5Parser) object(depth int) *node {
	m := newMap(p.pos())
	p.next() // {
	for p.err == nil {
		p.skipSpace()
		if p.peekRune() == '}' {
			p.next()
			return m
		}
		keyPos := p.pos()
		var key string
		switch r := p.peekRune(); {
		case r == '"' || r == '\'':
			key = p.str()
		default:
			key = p.identifier()
			if key == "" {
				p.fail("expected a key or '}', found %q", r)
				return nil
			}
		}
		p.skipSpace()
		if p.peekRune() != ':' {
			p.fail("expected ':' after key %q", key)
			return nil
		}
		p.next()
		p.skipSpace()
		v := p.value(depth + 1)
		if p.err != nil {
			return nil
		}
		replaced := false
		for i := range m.fields {
			if m.fields[i].key == key {
				m.fields[i].val = v
				replaced = true
			}
		}
		if !replaced {
			m.fields = append(m.fields, field{key: key, keyPos: keyPos, val: v})
		}
		p.skipSpace()
		switch p.peekRune() {
		case ',':
			p.next()
		case '}':
			p.next()
			return m
		default:
			p.fail("expected ',' or '}' in object")
		}
	}
	return nil
}

func (p *json5Parser) array(depth int) *node {
	l := newList(p.pos())
	p.next() // [
	for p.err == nil {
		p.skipSpace()
		if p.peekRune() == ']' {
			p.next()
			return l
		}
		v := p.value(depth + 1)
		if p.err != nil {
			return nil
		}
		l.items = append(l.items, v)
		p.skipSpace()
		switch p.peekRune() {
		case ',':
			p.next()
		case ']':
			p.next()
			return l
		default:
			p.fail("expected ',' or ']' in array")
		}
	}
	return nil
}

func isIDStart(r rune) bool {
	return r == '$' || r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r)
}

func isIDPart(r rune) bool {
	return isIDStart(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Pc) || r == 0x200C || r == 0x200D
}

// identifier reads an ECMAScript identifier name (without escapes).
func (p *json5Parser) identifier() string {
	var b strings.Builder
	for p.i < len(p.src) {
		r := p.peekRune()
		if r == '\\' {
			p.next()
			if p.next() != 'u' {
				p.fail("invalid identifier escape")
				return ""
			}
			r = p.hex(4)
			b.WriteRune(r)
			continue
		}
		if (b.Len() == 0 && !isIDStart(r)) || (b.Len() > 0 && !isIDPart(r)) {
			break
		}
		b.WriteRune(p.next())
	}
	return b.String()
}

func (p *json5Parser) hex(n int) rune {
	var v rune
	for range n {
		r := p.next()
		d, err := strconv.ParseUint(string(r), 16, 8)
		if err != nil {
			p.fail("invalid hexadecimal escape")
			return 0
		}
		v = v*16 + rune(d)
	}
	return v
}

func (p *json5Parser) str() string {
	quote := p.next()
	var b strings.Builder
	for p.err == nil {
		if p.i >= len(p.src) {
			p.fail("unterminated string")
			return ""
		}
		r := p.next()
		switch {
		case r == quote:
			return b.String()
		case r == '\n' || r == '\r':
			p.fail("line break inside a string")
			return ""
		case r != '\\':
			b.WriteRune(r)
			continue
		}
		e := p.next()
		switch e {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '0':
			if d := p.peekRune(); d >= '0' && d <= '9' {
				p.fail("octal escapes are not allowed")
				return ""
			}
			b.WriteByte(0)
		case 'x':
			b.WriteRune(p.hex(2))
		case 'u':
			r1 := p.hex(4)
			if r1 >= 0xD800 && r1 < 0xDC00 && strings.HasPrefix(p.src[p.i:], `\u`) {
				save, line, col := p.i, p.line, p.col
				p.next()
				p.next()
				r2 := p.hex(4)
				if r2 >= 0xDC00 && r2 < 0xE000 {
					r1 = (r1-0xD800)<<10 + (r2 - 0xDC00) + 0x10000
				} else {
					p.i, p.line, p.col = save, line, col
				}
			}
			b.WriteRune(r1)
		case '\r':
			if p.peekRune() == '\n' {
				p.next()
			}
		case '\n', 0x2028, 0x2029:
			// line continuation
		case 0:
			p.fail("unterminated string")
			return ""
		default:
			if e >= '1' && e <= '9' {
				p.fail("invalid escape \\%c", e)
				return ""
			}
			b.WriteRune(e)
		}
	}
	return ""
}

func (p *json5Parser) number() *node {
	start := p.pos()
	begin := p.i
	sign := 1.0
	if r := p.peekRune(); r == '+' || r == '-' {
		if r == '-' {
			sign = -1
		}
		p.next()
	}
	rest := p.src[p.i:]
	switch {
	case strings.HasPrefix(rest, "Infinity"):
		for range len("Infinity") {
			p.next()
		}
		return newNumber(sign*math.Inf(1), start)
	case strings.HasPrefix(rest, "NaN"):
		for range 3 {
			p.next()
		}
		return newNumber(math.NaN(), start)
	case strings.HasPrefix(rest, "0x") || strings.HasPrefix(rest, "0X"):
		p.next()
		p.next()
		hs := p.i
		for p.i < len(p.src) && strings.ContainsRune("0123456789abcdefABCDEF", p.peekRune()) {
			p.next()
		}
		if hs == p.i {
			p.fail("invalid hexadecimal number")
			return nil
		}
		u, err := strconv.ParseUint(p.src[hs:p.i], 16, 64)
		f := float64(u)
		if err != nil {
			f, _ = strconv.ParseFloat("0x"+p.src[hs:p.i]+"p0", 64)
		}
		return newNumber(sign*f, start)
	}
	digits := func() int {
		n := 0
		for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
			p.next()
			n++
		}
		return n
	}
	intDigits := digits()
	if intDigits > 1 && p.src[p.i-intDigits] == '0' {
		p.fail("leading zeros are not allowed")
		return nil
	}
	fracDigits := 0
	if p.peekRune() == '.' {
		p.next()
		fracDigits = digits()
	}
	if intDigits == 0 && fracDigits == 0 {
		p.fail("invalid number")
		return nil
	}
	if r := p.peekRune(); r == 'e' || r == 'E' {
		p.next()
		if r := p.peekRune(); r == '+' || r == '-' {
			p.next()
		}
		if digits() == 0 {
			p.fail("invalid number exponent")
			return nil
		}
	}
	text := p.src[begin:p.i]
	text = strings.TrimPrefix(text, "+")
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			p.fail("invalid number %q", text)
			return nil
		}
	}
	return newNumber(f, start)
}
