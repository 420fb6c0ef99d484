package operators

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// _json

var jsonMeta = lazy.Value[map[string]*method]{New: func() map[string]*method {
	return map[string]*method{
		"stringify": {namedArgs: []string{"on", "options"}, validTypes: []string{"object", "array"}},
		"parse":     {singleArg: true, validTypes: []string{"string"}},
	}
}}

var jsonFuncs = lazy.Value[map[string]classFunc]{New: func() map[string]classFunc {
	return map[string]classFunc{
		"parse": func(c *call, args []any) (any, error) {
			s, _ := arg(args, 0).(string)
			if s == "undefined" {
				return jsvalue.Undefined, nil
			}
			return parseJSON(s)
		},
		"stringify": func(c *call, args []any) (any, error) {
			indent := "  "
			iso := true
			if opts, ok := arg(args, 1).(*jsvalue.Object); ok {
				if sp, ok := opts.Get("space"); ok {
					indent = jsvalue.Indent(sp)
				}
				if v, ok := opts.Get("isoStringDates"); ok {
					iso = jsvalue.Truthy(v)
				}
			}
			s, ok := serial.Stringify(arg(args, 0), indent, iso)
			if !ok {
				return jsvalue.Undefined, nil
			}
			return s, nil
		},
	}
}}

// parseJSON is JSON.parse with Lowdefy's marker reviver: keys keep their
// order, numbers out of range become ±Infinity or 0.
func parseJSON(s string) (any, error) {
	v, err := jsvalue.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("SyntaxError: %v", err)
	}
	return serial.Decode(v), nil
}

func opJSON(c *call) (any, error) { return runClass(c, jsonMeta.Get(), jsonFuncs.Get(), "") }

// _base64, _uri, _hash

var singleStringMeta = &method{singleArg: true, validTypes: []string{"string"}}

var codecMeta = lazy.Value[map[string]*method]{New: func() map[string]*method {
	return map[string]*method{"encode": singleStringMeta, "decode": singleStringMeta}
}}

func stringFunc(f func(string) (string, error)) classFunc {
	return func(c *call, args []any) (any, error) {
		s, _ := arg(args, 0).(string)
		return f(s)
	}
}

var base64ClientFuncs = lazy.Value[map[string]classFunc]{New: func() map[string]classFunc {
	return map[string]classFunc{
		"encode": stringFunc(btoa),
		"decode": stringFunc(atob),
	}
}}

var base64ServerFuncs = lazy.Value[map[string]classFunc]{New: func() map[string]classFunc {
	return map[string]classFunc{
		"encode": stringFunc(func(s string) (string, error) { return base64.StdEncoding.EncodeToString([]byte(s)), nil }),
		"decode": stringFunc(func(s string) (string, error) { return nodeBase64Decode(s), nil }),
	}
}}

func opBase64Client(c *call) (any, error) {
	return runClass(c, codecMeta.Get(), base64ClientFuncs.Get(), "")
}
func opBase64Server(c *call) (any, error) {
	return runClass(c, codecMeta.Get(), base64ServerFuncs.Get(), "")
}

var errInvalidCharacter = errors.New("Invalid character")

// btoa is the browser's btoa: Latin-1 code units only.
func btoa(s string) (string, error) {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xff {
			return "", errInvalidCharacter
		}
		b = append(b, byte(r))
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// atob is the browser's atob (forgiving base64 decode) returning a Latin-1
// string.
func atob(s string) (string, error) {
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\f', '\r':
			return -1
		}
		return r
	}, s)
	if len(s)%4 == 0 {
		s = strings.TrimSuffix(s, "=")
		s = strings.TrimSuffix(s, "=")
	}
	if len(s)%4 == 1 {
		return "", errInvalidCharacter
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/') {
			return "", errInvalidCharacter
		}
	}
	b, err := base64.RawStdEncoding.Strict().DecodeString(s)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(s)
		if err != nil {
			return "", errInvalidCharacter
		}
	}
	runes := make([]rune, len(b))
	for i, c := range b {
		runes[i] = rune(c)
	}
	return string(runes), nil
}

// nodeBase64Decode is Buffer.from(s, 'base64').toString('utf8').
func nodeBase64Decode(s string) string {
	var clean []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '=':
			i = len(s)
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
			clean = append(clean, c)
		case c == '-':
			clean = append(clean, '+')
		case c == '_':
			clean = append(clean, '/')
		}
	}
	if len(clean)%4 == 1 {
		clean = clean[:len(clean)-1]
	}
	b, _ := base64.RawStdEncoding.DecodeString(string(clean))
	var out strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			out.WriteRune(utf8.RuneError)
			b = b[1:]
			continue
		}
		out.WriteRune(r)
		b = b[size:]
	}
	return out.String()
}

func callGlobalString(name string) classFunc {
	return func(c *call, args []any) (any, error) {
		return withJS(func(e *jsEngine) (any, error) {
			f, _ := goja.AssertFunction(e.rt.Get(name))
			res, err := f(goja.Undefined(), e.toJS(arg(args, 0)))
			if err != nil {
				return nil, err
			}
			return e.fromJS(res), nil
		})
	}
}

var uriFuncs = lazy.Value[map[string]classFunc]{New: func() map[string]classFunc {
	return map[string]classFunc{
		"encode": callGlobalString("encodeURIComponent"),
		"decode": callGlobalString("decodeURIComponent"),
	}
}}

func opURI(c *call) (any, error) { return runClass(c, codecMeta.Get(), uriFuncs.Get(), "") }

var hashMeta = lazy.Value[map[string]*method]{New: func() map[string]*method {
	return map[string]*method{
		"md5": singleStringMeta, "sha1": singleStringMeta, "sha256": singleStringMeta,
		"sha512": singleStringMeta, "ripemd160": singleStringMeta,
	}
}}

func hashFunc(h func() hash.Hash) classFunc {
	return stringFunc(func(s string) (string, error) {
		d := h()
		d.Write(utf8Bytes(s))
		return hex.EncodeToString(d.Sum(nil)), nil
	})
}

// utf8Bytes encodes s as Node does for hashing (lone surrogates become
// U+FFFD, which a Go string already has).
func utf8Bytes(s string) []byte {
	if utf8.ValidString(s) {
		return []byte(s)
	}
	return []byte(string(utf16.Decode(utf16.Encode([]rune(s)))))
}

var hashFuncs = lazy.Value[map[string]classFunc]{New: func() map[string]classFunc {
	return map[string]classFunc{
		"md5":       hashFunc(md5.New),
		"sha1":      hashFunc(sha1.New),
		"sha256":    hashFunc(sha256.New),
		"sha512":    hashFunc(sha512.New),
		"ripemd160": hashFunc(newRipemd160),
	}
}}

func opHash(c *call) (any, error) { return runClass(c, hashMeta.Get(), hashFuncs.Get(), "") }
