package nunjucks

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// tokKind is the kind of a lexical token.
type tokKind int

const (
	tokEOF tokKind = iota
	tokData
	tokBlockStart
	tokBlockEnd
	tokVarStart
	tokVarEnd
	tokString
	tokInt
	tokFloat
	tokName
	tokOp
)

// token is one lexical token with its 1-based position.
type token struct {
	kind tokKind
	val  string
	line int
	col  int
}

const delimChars = "()[]{}%*-+~/#,:|.<>=!"

// lexer splits a template into tokens.
type lexer struct {
	src       string
	pos       int
	line, col int
	toks      []token
	name      string
	// afterComment is set when a comment follows the last token: nunjucks
	// only trims data immediately followed by a `{%-`/`{{-`/`{#-` tag.
	afterComment bool
}

var rawTagRe = lazy.Value[map[string]*regexp.Regexp]{New: func() map[string]*regexp.Regexp {
	return map[string]*regexp.Regexp{
		"raw":      regexp.MustCompile(`\{%\s*(raw|endraw)\s*%\}`),
		"verbatim": regexp.MustCompile(`\{%\s*(verbatim|endverbatim)\s*%\}`),
	}
}}

// lex tokenizes src.
func lex(name, src string) ([]token, error) {
	l := &lexer{src: src, line: 1, col: 1, name: name}
	if err := l.run(); err != nil {
		return nil, err
	}
	return l.toks, nil
}

func (l *lexer) errf(line, col int, format string, args ...any) error {
	return newError(l.name, line, col, format, args...)
}

// advance moves n bytes forward, tracking line and column.
func (l *lexer) advance(n int) {
	for i := 0; i < n && l.pos < len(l.src); i++ {
		if l.src[l.pos] == '\n' {
			l.line++
			l.col = 1
		} else if l.src[l.pos]&0xC0 != 0x80 {
			l.col++
		}
		l.pos++
	}
}

func (l *lexer) emit(kind tokKind, val string, line, col int) {
	l.afterComment = false
	l.toks = append(l.toks, token{kind: kind, val: val, line: line, col: col})
}

// trimLastData right-trims the previous data token (for `{%-` and friends).
func (l *lexer) trimLastData() {
	if n := len(l.toks); n > 0 && l.toks[n-1].kind == tokData && !l.afterComment {
		l.toks[n-1].val = strings.TrimRightFunc(l.toks[n-1].val, unicode.IsSpace)
	}
}

func (l *lexer) run() error {
	dropLeading := false
	for l.pos < len(l.src) {
		rest := l.src[l.pos:]
		idx := indexTagStart(rest)
		if idx < 0 {
			idx = len(rest)
		}
		if idx > 0 {
			data := rest[:idx]
			if dropLeading {
				data = strings.TrimLeftFunc(data, unicode.IsSpace)
			}
			line, col := l.line, l.col
			l.advance(idx)
			if data != "" {
				l.emit(tokData, data, line, col)
			}
		}
		dropLeading = false
		if l.pos >= len(l.src) {
			break
		}
		open := l.src[l.pos : l.pos+2]
		line, col := l.line, l.col
		l.advance(2)
		if l.pos < len(l.src) && l.src[l.pos] == '-' {
			l.trimLastData()
			l.advance(1)
		}
		switch open {
		case "{#":
			end := strings.Index(l.src[l.pos:], "#}")
			if end < 0 {
				return l.errf(line, col, "expected end of comment, got end of file")
			}
			if end > 0 && l.src[l.pos+end-1] == '-' {
				dropLeading = true
			}
			l.advance(end + 2)
			l.afterComment = true
			continue
		case "{{":
			l.emit(tokVarStart, open, line, col)
		case "{%":
			l.emit(tokBlockStart, open, line, col)
		}
		closing := "}}"
		if open == "{%" {
			closing = "%}"
		}
		trim, err := l.code(closing)
		if err != nil {
			return err
		}
		dropLeading = trim
		if open == "{%" {
			if raw, ok := l.rawTag(); ok {
				// replace the raw block tokens by a single data token
				l.toks = l.toks[:len(l.toks)-3]
				// nunjucks' parseRaw: nested raw tags count; the end tag
				// takes no whitespace-control dashes.
				level, off := 1, 0
				re := rawTagRe.Get()[raw]
				var m []int
				for level > 0 {
					m = re.FindStringSubmatchIndex(l.src[l.pos+off:])
					if m == nil {
						return l.errf(line, col, "expected end%s, got end of file", raw)
					}
					if l.src[l.pos+off+m[2]:l.pos+off+m[3]] == raw {
						level++
					} else {
						level--
					}
					if level > 0 {
						off += m[1]
					}
				}
				body := l.src[l.pos : l.pos+off+m[0]]
				bl, bc := l.line, l.col
				l.advance(off + m[1])
				if body != "" {
					l.emit(tokData, body, bl, bc)
				}
				dropLeading = false
			}
		}
	}
	l.emit(tokEOF, "", l.line, l.col)
	return nil
}

// rawTag reports whether the tokens just lexed are `{% raw %}`/`{% verbatim %}`.
func (l *lexer) rawTag() (string, bool) {
	n := len(l.toks)
	if n < 3 || l.toks[n-3].kind != tokBlockStart || l.toks[n-2].kind != tokName || l.toks[n-1].kind != tokBlockEnd {
		return "", false
	}
	if v := l.toks[n-2].val; v == "raw" || v == "verbatim" {
		return v, true
	}
	return "", false
}

// indexTagStart finds the next `{{`, `{%` or `{#`.
func indexTagStart(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '{' && (s[i+1] == '{' || s[i+1] == '%' || s[i+1] == '#') {
			return i
		}
	}
	return -1
}

// code lexes expression tokens up to closing; it reports whether the closing
// delimiter had a whitespace-control dash.
func (l *lexer) code(closing string) (bool, error) {
	startLine, startCol := l.line, l.col
	for {
		if l.pos >= len(l.src) {
			return false, l.errf(startLine, startCol, "expected %q, got end of file", closing)
		}
		c := l.src[l.pos]
		rest := l.src[l.pos:]
		{
			if strings.HasPrefix(rest, "-"+closing) {
				line, col := l.line, l.col
				l.advance(3)
				l.emit(endKind(closing), closing, line, col)
				return true, nil
			}
			if strings.HasPrefix(rest, closing) {
				line, col := l.line, l.col
				l.advance(2)
				l.emit(endKind(closing), closing, line, col)
				return false, nil
			}
		}
		line, col := l.line, l.col
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			l.advance(1)
		case c == '"' || c == '\'':
			s, err := l.str(c)
			if err != nil {
				return false, err
			}
			l.emit(tokString, s, line, col)
		case strings.IndexByte(delimChars, c) >= 0:
			op := string(c)
			for _, cand := range []string{"===", "!==", "==", "!=", "<=", ">=", "//", "**"} {
				if strings.HasPrefix(rest, cand) {
					op = cand
					break
				}
			}
			l.advance(len(op))
			l.emit(tokOp, op, line, col)
		default:
			j := 0
			for j < len(rest) {
				ch := rest[j]
				if ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '"' || ch == '\'' || strings.IndexByte(delimChars, ch) >= 0 {
					break
				}
				j++
			}
			word := rest[:j]
			l.advance(j)
			if isDigits(word) {
				if l.pos < len(l.src) && l.src[l.pos] == '.' {
					k := l.pos + 1
					for k < len(l.src) && l.src[k] >= '0' && l.src[k] <= '9' {
						k++
					}
					frac := l.src[l.pos+1 : k]
					l.advance(k - l.pos)
					l.emit(tokFloat, word+"."+frac, line, col)
				} else {
					l.emit(tokInt, word, line, col)
				}
				continue
			}
			l.emit(tokName, word, line, col)
		}
	}
}

func endKind(closing string) tokKind {
	if closing == "}}" {
		return tokVarEnd
	}
	return tokBlockEnd
}

// str lexes a quoted string literal with nunjucks escapes.
func (l *lexer) str(q byte) (string, error) {
	line, col := l.line, l.col
	l.advance(1)
	var b strings.Builder
	for {
		if l.pos >= len(l.src) {
			return "", l.errf(line, col, "unterminated string")
		}
		c := l.src[l.pos]
		if c == q {
			l.advance(1)
			return b.String(), nil
		}
		if c == '\\' && l.pos+1 < len(l.src) {
			n := l.src[l.pos+1]
			switch n {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(n)
			}
			l.advance(2)
			continue
		}
		b.WriteByte(c)
		l.advance(1)
	}
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
