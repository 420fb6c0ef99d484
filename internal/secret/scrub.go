package secret

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// MinPiece is the length in bytes of the shortest piece of a secret that [Scrubber.Cut]
// removes at a cut edge. A shorter piece is left alone: three characters say little about a
// secret, and removing every text that ends like the first three bytes of a secret would
// eat into ordinary output.
const MinPiece = 4

// A Secret is a value to scrub and the label that names it in its place.
type Secret struct {
	// Value is the secret itself. An empty Value is ignored.
	Value string
	// Label names the secret in the placeholder "[Label]" that replaces it, such as
	// "secret USERS_API_KEY" (the label [Resolve] returns). If empty, "redacted" is used.
	Label string
}

// A Scrubber removes secret values from output before it leaves the gateway: tool results,
// error texts, logs. It replaces every whole occurrence of a secret, and of its common
// encodings, with a placeholder naming the secret, and at the edge of an output cut to a
// size limit it also removes what is left of a secret the cut went through.
//
// The encodings recognised for a value v are:
//
//   - v itself;
//   - v JSON-escaped (as Go writes it, with and without HTML escaping, with "/" written
//     as "\/", and with non-ASCII characters written as \uXXXX);
//   - v URL-escaped for a query (url.QueryEscape) or a path (url.PathEscape), with upper
//     or lower case hex digits;
//   - v in base64, standard and URL alphabets, with and without padding, including the
//     characters that do not depend on the neighbouring bytes when v sits inside a longer
//     base64-encoded text at any of the three byte alignments (so "Basic
//     base64(user:v)" is caught).
//
// [Scrubber.Bytes] and [Scrubber.Cut] also treat output as bytes that may be shown
// base64-encoded (MCP image and blob content): when v is itself made of base64
// characters, the bytes whose base64 encoding spells v are removed too.
//
// Secrets shorter than [MinPiece] bytes are replaced wherever they occur whole (raw, JSON-
// and URL-escaped; their base64 forms are too short to look for without destroying
// unrelated base64 text), which can replace unrelated text that happens to contain them;
// no piece of them is removed at a cut edge, since every piece is shorter than MinPiece.
// Such short values give little protection and should not be used as secrets.
//
// A Scrubber is immutable and safe for concurrent use. The zero value and a nil *Scrubber
// scrub nothing.
type Scrubber struct {
	text matcher // the text forms of every secret
	bin  matcher // text forms plus the bytes that base64-encode to a secret
}

// NewScrubber returns a Scrubber that replaces each of values with "[redacted]". Empty
// values are ignored.
func NewScrubber(values ...string) *Scrubber {
	secrets := make([]Secret, len(values))
	for i, v := range values {
		secrets[i] = Secret{Value: v}
	}
	return NewLabeledScrubber(secrets...)
}

// NewLabeledScrubber returns a Scrubber that replaces each secret with "[Label]". Secrets
// with an empty Value are ignored. When two secrets share a form (one value is another's
// encoding), the label of the first one given is used.
func NewLabeledScrubber(secrets ...Secret) *Scrubber {
	var text, bin []form
	for _, s := range secrets {
		if s.Value == "" {
			continue
		}
		label := s.Label
		if label == "" {
			label = "redacted"
		}
		mark := "[" + label + "]"
		for _, f := range textForms(s.Value) {
			text = append(text, form{f, mark})
		}
		for _, f := range decodedForms(s.Value) {
			bin = append(bin, form{f, mark})
		}
	}
	return &Scrubber{text: newMatcher(text), bin: newMatcher(append(text, bin...))}
}

// String returns s with every whole occurrence of a secret (in any form recognised)
// replaced by its placeholder. It returns s itself when there is nothing to replace.
func (sc *Scrubber) String(s string) string {
	if sc == nil {
		return s
	}
	return sc.text.replace(s)
}

// Contains reports whether s holds a whole occurrence of a secret, in any text form
// recognised by [Scrubber.String].
func (sc *Scrubber) Contains(s string) bool {
	if sc == nil {
		return false
	}
	m := &sc.text
	for i := m.next(s, 0); i < len(s); i = m.next(s, i+1) {
		if _, f := m.longestAt(s, i); f >= 0 {
			return true
		}
	}
	return false
}

// Bytes returns b with every whole occurrence of a secret replaced, like [Scrubber.String],
// and also with every run of bytes whose base64 encoding spells a secret replaced: use it
// for binary content before it is base64-encoded, and for text kept as bytes. It returns b
// itself when there is nothing to replace, else a new slice.
func (sc *Scrubber) Bytes(b []byte) []byte {
	if sc == nil || len(sc.bin.forms) == 0 {
		return b
	}
	s := string(b)
	out := sc.bin.replace(s)
	if len(out) == len(s) && out == s {
		return b
	}
	return []byte(out)
}

// Edge says which ends of an output were cut off; see [Scrubber.Cut].
type Edge uint8

const (
	// CutEnd means the output is the beginning of a longer one: its end was cut off (the
	// head was kept).
	CutEnd Edge = 1 << iota
	// CutStart means the output is the end of a longer one: its start was cut off (the
	// tail was kept).
	CutStart
)

// Cut scrubs b, an output cut to a size limit at the edges given: at a cut end it removes
// any trailing piece of [MinPiece] or more bytes that begins a secret (or one of its
// forms), at a cut start any leading piece of MinPiece or more bytes that ends one, and then
// it replaces whole occurrences like [Scrubber.Bytes]. When both edges were cut and
// all of b lies inside a secret, nothing is left. The result may share memory with b.
//
// Cut the raw output first and scrub it after: a cut made after scrubbing cannot reach
// into a secret, but the size limit then applies to the scrubbed text.
func (sc *Scrubber) Cut(b []byte, edges Edge) []byte {
	if sc == nil || len(sc.bin.forms) == 0 {
		return b
	}
	// The edges are trimmed on the output as it is, before whole secrets are replaced: a
	// secret that begins with another one (s3cr3t, s3cr3t-token) must go whole at the edge,
	// not leave the rest of the longer one behind the shorter one's placeholder.
	if edges&(CutEnd|CutStart) == CutEnd|CutStart && sc.bin.inside(b) {
		return b[:0]
	}
	if edges&CutEnd != 0 {
		b = b[:len(b)-sc.bin.trailing(b)]
	}
	if edges&CutStart != 0 {
		b = b[sc.bin.leading(b):]
	}
	return sc.Bytes(b)
}

// form is one spelling of a secret and the placeholder that replaces it.
type form struct {
	s    string
	mark string
}

// matcher finds forms in a text. Forms are sorted longest first, so the first match at a
// position is the longest one there.
type matcher struct {
	forms   []form
	byFirst [256][]int32    // indexes into forms by first byte
	pairs   [1 << 10]uint64 // bit set of the first two bytes of forms, to skip most positions fast
}

func newMatcher(forms []form) matcher {
	slices.SortStableFunc(forms, func(a, b form) int { return len(b.s) - len(a.s) })
	var m matcher
	seen := map[string]bool{}
	for _, f := range forms {
		if f.s == "" || seen[f.s] {
			continue
		}
		seen[f.s] = true
		m.byFirst[f.s[0]] = append(m.byFirst[f.s[0]], int32(len(m.forms)))
		m.forms = append(m.forms, f)
		if len(f.s) == 1 {
			for c := range 256 {
				m.setPair(f.s[0], byte(c))
			}
		} else {
			m.setPair(f.s[0], f.s[1])
		}
	}
	return m
}

func (m *matcher) setPair(a, b byte) {
	p := uint16(a)<<8 | uint16(b)
	m.pairs[p>>6] |= 1 << (p & 63)
}

// next returns the first position from i on where a form may start (len(s) if none): the
// last byte, or one whose pair with the next byte begins a form.
func (m *matcher) next(s string, i int) int {
	for ; i+1 < len(s); i++ {
		if p := uint16(s[i])<<8 | uint16(s[i+1]); m.pairs[p>>6]&(1<<(p&63)) != 0 {
			return i
		}
	}
	return min(i, len(s))
}

// longestAt returns the end and index of the longest form at s[i:], or -1, -1.
func (m *matcher) longestAt(s string, i int) (end, idx int) {
	for _, k := range m.byFirst[s[i]] {
		f := m.forms[k].s
		if len(s)-i >= len(f) && s[i:i+len(f)] == f {
			return i + len(f), int(k)
		}
	}
	return -1, -1
}

// replace replaces every region of s covered by forms with their placeholders. Overlapping
// and touching-inside matches (two secrets sharing characters) form one region, so no part
// of either is left; the region is replaced by the placeholder of each distinct secret in it.
func (m *matcher) replace(s string) string {
	if len(m.forms) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	var marks []string
	for i := m.next(s, 0); i < len(s); i = m.next(s, i) {
		end, k := m.longestAt(s, i)
		if k < 0 {
			i++
			continue
		}
		marks = append(marks[:0], m.forms[k].mark)
		for j := i + 1; j < end; j++ {
			if e, k := m.longestAt(s, j); k >= 0 {
				end = max(end, e)
				if !slices.Contains(marks, m.forms[k].mark) {
					marks = append(marks, m.forms[k].mark)
				}
			}
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:i])
		for _, mk := range marks {
			b.WriteString(mk)
		}
		last, i = end, end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// trailing returns the length of the longest tail of b that begins a form (at least
// MinPiece bytes, shorter than the form), repeated while the rest still ends that way.
func (m *matcher) trailing(b []byte) int {
	total := 0
	for {
		cut := 0
		for _, f := range m.forms {
			for k := min(len(f.s)-1, len(b)); k >= MinPiece && k > cut; k-- {
				if string(b[len(b)-k:]) == f.s[:k] {
					cut = k
					break
				}
			}
		}
		if cut == 0 {
			return total
		}
		b = b[:len(b)-cut]
		total += cut
	}
}

// leading returns the length of the longest head of b that ends a form (at least MinPiece
// bytes, shorter than the form), repeated while the rest still starts that way.
func (m *matcher) leading(b []byte) int {
	total := 0
	for {
		cut := 0
		for _, f := range m.forms {
			for k := min(len(f.s)-1, len(b)); k >= MinPiece && k > cut; k-- {
				if string(b[:k]) == f.s[len(f.s)-k:] {
					cut = k
					break
				}
			}
		}
		if cut == 0 {
			return total
		}
		b = b[cut:]
		total += cut
	}
}

// inside reports whether b, of at least MinPiece bytes, lies inside a form.
func (m *matcher) inside(b []byte) bool {
	if len(b) < MinPiece {
		return false
	}
	for _, f := range m.forms {
		if len(b) <= len(f.s) && strings.Contains(f.s, string(b)) {
			return true
		}
	}
	return false
}

// textForms returns the spellings of v looked for in text.
func textForms(v string) []string {
	forms := []string{v}
	for _, html := range []bool{true, false} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(html)
		if err := enc.Encode(v); err != nil {
			continue
		}
		j := strings.TrimSuffix(buf.String(), "\n")
		j = j[1 : len(j)-1]
		forms = append(forms, j, strings.ReplaceAll(j, "/", `\/`))
		if a := asciiJSON(j); a != j {
			forms = append(forms, a, strings.ReplaceAll(a, "/", `\/`))
		}
	}
	for _, e := range []string{url.QueryEscape(v), url.PathEscape(v)} {
		forms = append(forms, e, lowerHex(e))
	}
	if len(v) >= MinPiece {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			forms = append(forms, enc.EncodeToString([]byte(v)), enc.WithPadding(base64.NoPadding).EncodeToString([]byte(v)))
			for off := range 3 {
				forms = append(forms, base64Core(enc, v, off))
			}
		}
	}
	return forms
}

// asciiJSON rewrites the non-ASCII characters of JSON string content as \uXXXX escapes
// (surrogate pairs above U+FFFF), as ASCII-only JSON encoders write them.
func asciiJSON(j string) string {
	var b strings.Builder
	for _, r := range j {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// lowerHex rewrites the %XX escapes of s with lower case hex digits.
func lowerHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lowerASCII(b[i+1]), lowerASCII(b[i+2])
			i += 2
		}
	}
	return string(b)
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// base64Core returns the base64 characters of v that are the same whatever bytes surround
// it, when v starts off bytes after a multiple of three in the encoded data.
func base64Core(enc *base64.Encoding, v string, off int) string {
	data := make([]byte, off+len(v))
	copy(data[off:], v)
	e := enc.WithPadding(base64.NoPadding).EncodeToString(data)
	first := (8*off + 5) / 6         // first character made only of v's bits
	last := (8 * (off + len(v))) / 6 // characters before this one are made only of v's bits
	if last <= first {
		return ""
	}
	return e[first:last]
}

// decodedForms returns, when v is made of base64 characters, the bytes whose base64
// encoding spells v (or v from its second, third or fourth character, for the other
// alignments), at least 6 bytes long.
func decodedForms(v string) []string {
	v = strings.TrimRight(v, "=")
	var forms []string
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for j := range 4 {
			if j >= len(v) {
				break
			}
			t := v[j:]
			t = t[:len(t)/4*4]
			if len(t) < 8 {
				continue
			}
			if d, err := enc.DecodeString(t); err == nil {
				forms = append(forms, string(d))
			}
		}
	}
	return forms
}
