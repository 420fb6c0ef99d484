package expr

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"
	"golang.org/x/text/unicode/norm"
)

// Built-ins whose result can be many times longer than their input, in one native call:
// String.prototype.normalize (NFKD of U+FDFA is 18 characters: a string at the size limit
// took a minute and half a gigabyte), the case mappings (up to 3 times: "ΐ" upper-cases to
// three characters) and the URI encoders (up to 9 times: "\uFFFF" becomes "%EF%BF%BF").
// guardText refuses a result over the string limit before it is built, and normalizes long
// strings with an interruptible loop.

// guardText installs the guards of the text built-ins.
func (e *env) guardText(*goja.Object) error {
	rt := e.rt
	proto := rt.Get("String").ToObject(rt).Get("prototype").ToObject(rt)

	e.nativeCase = make(map[string]goja.Callable, 2)
	var origNormalize goja.Callable
	var err error
	origNormalize, err = e.method(proto, "normalize", func(c goja.FunctionCall) goja.Value {
		e.checkStop()
		e.requireObjectCoercible(c.This, "String.prototype.normalize")
		s := e.toStr(c.This)
		form := c.Argument(0)
		if !goja.IsUndefined(form) {
			form = e.toStr(form) // one conversion, passed on as a string
		}
		if int64(s.Length()) <= e.fastChars() {
			return call(origNormalize, s, form)
		}
		f, ok := normForms[formName(form)]
		if !ok {
			return call(origNormalize, s, form) // the native throws the RangeError
		}
		return e.normalize(s, f)
	})
	if err != nil {
		return err
	}

	// The case mappings, which goja runs on the whole string at once: refuse a result over
	// the string limit. Only a string of non-ASCII characters can grow, and by at most 3.
	for _, name := range []string{"toUpperCase", "toLowerCase", "toLocaleUpperCase", "toLocaleLowerCase"} {
		what := "String.prototype." + name
		upper := strings.Contains(name, "Upper")
		var orig goja.Callable
		orig, err = e.method(proto, name, func(c goja.FunctionCall) goja.Value {
			e.checkStop()
			e.requireObjectCoercible(c.This, what)
			s := e.toStr(c.This)
			if 3*int64(s.Length()) > e.maxChars {
				if n := e.caseMappedLength(s, upper); n > e.maxChars {
					panic(e.tooLarge(what, n, "characters", false))
				}
			}
			return call(orig, s, c.Arguments...)
		})
		if err != nil {
			return err
		}
		if name == "toUpperCase" || name == "toLowerCase" {
			e.nativeCase[name] = orig
		}
	}

	// The URI encoders, which compute their result's length before building it: so does
	// the guard, and refuses one over the string limit.
	global := rt.GlobalObject()
	for _, g := range []struct {
		name      string
		unescaped func(uint16) bool
	}{
		{"encodeURI", func(c uint16) bool { return uriUnescaped(c) || strings.ContainsRune(";/?:@&=+$,#", rune(c)) }},
		{"encodeURIComponent", uriUnescaped},
		{"escape", nil},
	} {
		var orig goja.Callable
		orig, err = e.method(global, g.name, func(c goja.FunctionCall) goja.Value {
			e.checkStop()
			s := e.toStr(c.Argument(0))
			if 3*int64(s.Length()) > e.maxChars {
				if n := e.encodedLength(s, g.unescaped); n > e.maxChars {
					panic(e.tooLarge(g.name, n, "characters", false))
				}
			}
			return call(orig, goja.Undefined(), s)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

var normForms = map[string]norm.Form{"NFC": norm.NFC, "NFD": norm.NFD, "NFKC": norm.NFKC, "NFKD": norm.NFKD}

// formName is the normalization form named by v (already a string, or undefined: NFC).
func formName(v goja.Value) string {
	if goja.IsUndefined(v) {
		return "NFC"
	}
	return v.String()
}

// normalizeChunk is how many code units normalize reads at a time.
const normalizeChunk = 1 << 14

// normalize is String.prototype.normalize of a long string: the same normalization as
// goja's (golang.org/x/text/unicode/norm of the string as UTF-8, a lone surrogate read as
// U+FFFD), streamed through a norm.Writer a chunk at a time, checking for interrupts
// between chunks and stopping as soon as the result passes the string limit, so neither the
// whole string as UTF-8 nor a result over the limit is ever held.
func (e *env) normalize(s goja.String, f norm.Form) goja.Value {
	n := s.Length()
	ascii := true
	for i := 0; i < n && ascii; i++ {
		ascii = s.CharAt(i) < utf8.RuneSelf
	}
	if ascii {
		return s // every form leaves ASCII as it is
	}
	out := &limitedText{e: e}
	w := f.Writer(out)
	units := make([]uint16, 0, normalizeChunk)
	var buf []byte
	for start := 0; start < n; {
		e.checkStop()
		end := min(start+normalizeChunk, n)
		if end < n && utf16.IsSurrogate(rune(s.CharAt(end))) && end > start+1 {
			end-- // keep a surrogate pair together
		}
		units = units[:0]
		for i := start; i < end; i++ {
			units = append(units, s.CharAt(i))
		}
		buf = buf[:0]
		for _, r := range utf16.Decode(units) {
			buf = utf8.AppendRune(buf, r)
		}
		if _, err := w.Write(buf); err != nil {
			panic(e.rt.NewGoError(err))
		}
		start = end
	}
	if err := w.Close(); err != nil {
		panic(e.rt.NewGoError(err))
	}
	return e.rt.ToValue(out.b.String())
}

// limitedText collects the output of normalize, throwing the size error once it passes the
// string limit.
type limitedText struct {
	e    *env
	b    strings.Builder
	size int64
}

func (t *limitedText) Write(p []byte) (int, error) {
	t.size += utf16Length(p)
	if t.size > t.e.maxChars {
		panic(t.e.tooLarge("String.prototype.normalize", t.size, "characters", true))
	}
	return t.b.Write(p)
}

// utf16Length is the length in UTF-16 code units of the UTF-8 text p.
func utf16Length(p []byte) int64 {
	n := int64(0)
	for len(p) > 0 {
		r, size := utf8.DecodeRune(p)
		p = p[size:]
		n += int64(utf16.RuneLen(r))
	}
	return n
}

// caseMapChunk is how many code units caseMappedLength maps at a time.
const caseMapChunk = 1 << 14

// caseMappedLength is about the length s has once upper- or lower-cased: s mapped by the
// String.prototype methods themselves, in chunks (cut between characters; a chunk's end
// can change at most the case of a final sigma, never a length), checking for interrupts
// between chunks and stopping as soon as the count passes the string limit.
func (e *env) caseMappedLength(s goja.String, upper bool) int64 {
	method := "toLowerCase"
	if upper {
		method = "toUpperCase"
	}
	n, total := s.Length(), int64(0)
	for start := 0; start < n && total <= e.maxChars; {
		e.checkStop()
		end := min(start+caseMapChunk, n)
		if end < n && utf16.IsSurrogate(rune(s.CharAt(end))) && end > start+1 {
			end-- // keep a surrogate pair together
		}
		chunk := s.Substring(start, end)
		// The original methods: this guard runs on the receiver only after its own
		// checks, and a chunk is far below the limit, so the guard calls them directly.
		mapped := call(e.nativeCase[method], chunk)
		total += int64(e.toStr(mapped).Length())
		start = end
	}
	return total
}

// uriUnescaped reports whether encodeURIComponent leaves c as it is.
func uriUnescaped(c uint16) bool {
	return c < utf8.RuneSelf && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.!~*'()", rune(c)))
}

// encodedLength is the length of s once encoded by encodeURI or encodeURIComponent (those
// that unescaped leaves as they are; %XX for each UTF-8 byte of the others), or by escape
// (unescaped nil), counted with interrupt checks. At a lone surrogate, which the encoders
// refuse with a URIError as soon as they meet it, it returns 0 to let them.
func (e *env) encodedLength(s goja.String, unescaped func(uint16) bool) int64 {
	n, total := s.Length(), int64(0)
	for i := 0; i < n; i++ {
		if i&0xffff == 0 {
			e.checkStop()
		}
		c := s.CharAt(i)
		switch {
		case unescaped == nil: // escape
			switch {
			case c < utf8.RuneSelf && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("@*_+-./", rune(c))):
				total++
			case c <= 0xff:
				total += 3
			default:
				total += 6
			}
		case c < utf8.RuneSelf:
			if unescaped(c) {
				total++
			} else {
				total += 3
			}
		case c < 0x800:
			total += 6
		case utf16.IsSurrogate(rune(c)):
			if c >= 0xdc00 || i+1 == n || s.CharAt(i+1) < 0xdc00 || s.CharAt(i+1) > 0xdfff {
				return 0 // a lone surrogate
			}
			total += 12
			i++
		default:
			total += 9
		}
	}
	return total
}
