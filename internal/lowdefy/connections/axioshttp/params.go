package axioshttp

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// serializeParams writes params the way axios 1.5's default params serializer does
// (helpers/toFormData.js with AxiosURLSearchParams, encoded by helpers/buildURL.js):
//
//   - null and undefined values are left out;
//   - a top-level array of primitives becomes repeated `key[]=v` pairs;
//   - nested objects and arrays become `key[sub]=v` and `key[sub][0]=v`;
//   - a key ending in `{}` sends its value as JSON;
//   - dates are sent as their ISO string, other values as JavaScript strings;
//   - names and values are percent-encoded like encodeURIComponent, then `:`, `$`,
//     `,`, `[`, `]` are put back and spaces become `+`.
func serializeParams(params *jsvalue.Object) string { return serialize(params, encodeParam) }

// serialize writes an object with axios's toFormData visitor, encoding names and values
// with enc: encodeParam for params, encodeForm for an urlencoded body.
func serialize(params *jsvalue.Object, enc func(string) string) string {
	var b strings.Builder
	appendPair := func(name string, v any) {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(enc(name))
		b.WriteByte('=')
		b.WriteString(enc(paramString(v)))
	}
	var build func(v any, path []string)
	visit := func(el any, key string, path []string) bool {
		if path == nil {
			switch x := el.(type) {
			case *jsvalue.Object, []any:
				if strings.HasSuffix(key, "{}") {
					s, _ := jsvalue.Stringify(el, "")
					appendPair(key, s)
					return false
				}
				if arr, ok := x.([]any); ok && (isFlatArray(arr) || strings.HasSuffix(key, "[]")) {
					name := strings.TrimSuffix(key, "[]") + "[]"
					for _, item := range arr {
						if !jsvalue.IsNullish(item) {
							appendPair(name, item)
						}
					}
					return false
				}
			}
		}
		switch el.(type) {
		case *jsvalue.Object, []any:
			return true
		}
		appendPair(renderKey(path, key), el)
		return false
	}
	build = func(v any, path []string) {
		each := func(el any, key string) {
			if jsvalue.IsNullish(el) {
				return
			}
			if visit(el, key, path) {
				build(el, append(append([]string(nil), path...), key))
			}
		}
		switch x := v.(type) {
		case *jsvalue.Object:
			for k, el := range x.Range {
				each(el, strings.TrimSpace(k))
			}
		case []any:
			for i, el := range x {
				each(el, strconv.Itoa(i))
			}
		}
	}
	build(params, nil)
	return b.String()
}

// isFlatArray reports whether arr holds no objects or arrays.
func isFlatArray(arr []any) bool {
	for _, v := range arr {
		switch v.(type) {
		case *jsvalue.Object, []any:
			return false
		}
	}
	return true
}

// renderKey joins a path as axios does: first token as is, the others in brackets, each
// without a trailing "[]".
func renderKey(path []string, key string) string {
	if path == nil {
		return key
	}
	var b strings.Builder
	for i, tok := range append(append([]string(nil), path...), key) {
		tok = strings.TrimSuffix(tok, "[]")
		if i > 0 {
			b.WriteString("[" + tok + "]")
		} else {
			b.WriteString(tok)
		}
	}
	return b.String()
}

// paramString converts a parameter value to the string axios sends.
func paramString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case time.Time:
		return jsvalue.ISOString(x)
	default:
		return jsvalue.ToString(v)
	}
}

// encodeParam is axios's buildURL encode: encodeURIComponent, then `:`, `$`, `,`, `[`,
// `]` unescaped and `%20` written as `+`.
func encodeParam(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ':
			b.WriteByte('+')
			i++
			continue
		case c < utf8.RuneSelf && (isUnreserved(c) || strings.IndexByte(":$,[]", c) >= 0):
			b.WriteByte(c)
			i++
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		for j := 0; j < n; j++ {
			b.WriteByte('%')
			b.WriteByte(hex[s[i+j]>>4])
			b.WriteByte(hex[s[i+j]&15])
		}
		i += n
	}
	return b.String()
}

// encodeForm is URLSearchParams' application/x-www-form-urlencoded serializer, which
// axios uses for an object body sent as a form: everything but *-._ and alphanumerics
// percent-encoded, spaces as `+`.
func encodeForm(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ':
			b.WriteByte('+')
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("*-._", c) >= 0:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// isUnreserved reports whether encodeURIComponent leaves c as is.
func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte("-_.!~*'()", c) >= 0
}
