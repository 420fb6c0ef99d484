package changecase

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf16"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// Options are the change-case options Lowdefy passes through from YAML
// (`_change_case.camelCase: {on, options}`). Regular expressions use Go RE2
// syntax and are applied globally, as JavaScript's /…/g would be.
type Options struct {
	// Delimiter between words; nil means the function's default.
	Delimiter *string
	// SplitRegexp replaces the default word-boundary split; the matches'
	// groups $1 and $2 become separate words.
	SplitRegexp *regexp.Regexp
	// StripRegexp replaces the default pattern of characters removed
	// between words (/[^A-Z0-9]+/gi).
	StripRegexp *regexp.Regexp
}

var (
	defaultSplit = lazy.Value[[]*regexp.Regexp]{New: func() []*regexp.Regexp {
		return []*regexp.Regexp{regexp.MustCompile(`([a-z0-9])([A-Z])`), regexp.MustCompile(`([A-Z])([A-Z][a-z])`)}
	}}
	defaultStrip = lazy.Regexp{Expr: `[^A-Za-z0-9]+`}
)

// replaceJS is String.prototype.replace(re /g, "$1\0$2").
func replaceJS(s string, re *regexp.Regexp) string {
	return re.ReplaceAllString(s, "${1}\x00${2}")
}

// words splits input like change-case's noCase.
func words(input string, o Options) []string {
	result := input
	if o.SplitRegexp != nil {
		result = replaceJS(result, o.SplitRegexp)
	} else {
		for _, re := range defaultSplit.Get() {
			result = replaceJS(result, re)
		}
	}
	strip := defaultStrip.Get()
	if o.StripRegexp != nil {
		strip = o.StripRegexp
	}
	result = strip.ReplaceAllString(result, "\x00")
	result = strings.Trim(result, "\x00")
	return strings.Split(result, "\x00")
}

// noCaseWith joins transformed words with the delimiter.
func noCaseWith(input string, o Options, delim string, transform func(w string, i int) string) string {
	if o.Delimiter != nil {
		delim = *o.Delimiter
	}
	ws := words(input, o)
	for i, w := range ws {
		ws[i] = transform(w, i)
	}
	return strings.Join(ws, delim)
}

// jsUpper is String.prototype.toUpperCase (ß → SS).
func jsUpper(s string) string {
	u := strings.ToUpper(s)
	if strings.ContainsRune(u, 'ß') {
		u = strings.ReplaceAll(u, "ß", "SS")
	}
	return u
}

// firstUnit splits s after its first UTF-16 code unit, as charAt(0)/substr(1).
func firstUnit(s string) (string, string) {
	if s == "" {
		return "", ""
	}
	u := utf16.Encode([]rune(s))
	return string(utf16.Decode(u[:1])), string(utf16.Decode(u[1:]))
}

func upperFirst(s string) string {
	f, rest := firstUnit(s)
	return jsUpper(f) + rest
}

func lower(w string, _ int) string { return strings.ToLower(w) }

func pascalTransform(w string, i int) string {
	f, rest := firstUnit(w)
	rest = strings.ToLower(rest)
	if i > 0 && f >= "0" && f <= "9" && len(f) == 1 {
		return "_" + f + rest
	}
	return jsUpper(f) + rest
}

// NoCase: "Hello World" → "hello world".
func NoCase(s string, o Options) string { return noCaseWith(s, o, " ", lower) }

// CamelCase: "hello world" → "helloWorld" (digits after the first word get "_").
func CamelCase(s string, o Options) string {
	return noCaseWith(s, o, "", func(w string, i int) string {
		if i == 0 {
			return strings.ToLower(w)
		}
		return pascalTransform(w, i)
	})
}

// PascalCase: "hello world" → "HelloWorld".
func PascalCase(s string, o Options) string { return noCaseWith(s, o, "", pascalTransform) }

// CapitalCase: "hello world" → "Hello World".
func CapitalCase(s string, o Options) string {
	return noCaseWith(s, o, " ", func(w string, _ int) string { return upperFirst(strings.ToLower(w)) })
}

// ConstantCase: "hello world" → "HELLO_WORLD".
func ConstantCase(s string, o Options) string {
	return noCaseWith(s, o, "_", func(w string, _ int) string { return jsUpper(w) })
}

// DotCase: "hello world" → "hello.world".
func DotCase(s string, o Options) string { return noCaseWith(s, o, ".", lower) }

// HeaderCase: "hello world" → "Hello-World".
func HeaderCase(s string, o Options) string {
	return noCaseWith(s, o, "-", func(w string, _ int) string { return upperFirst(strings.ToLower(w)) })
}

// ParamCase: "hello world" → "hello-world".
func ParamCase(s string, o Options) string { return noCaseWith(s, o, "-", lower) }

// PathCase: "hello world" → "hello/world".
func PathCase(s string, o Options) string { return noCaseWith(s, o, "/", lower) }

// SentenceCase: "hello world" → "Hello world".
func SentenceCase(s string, o Options) string {
	return noCaseWith(s, o, " ", func(w string, i int) string {
		r := strings.ToLower(w)
		if i == 0 {
			return upperFirst(r)
		}
		return r
	})
}

// SnakeCase: "hello world" → "hello_world".
func SnakeCase(s string, o Options) string { return noCaseWith(s, o, "_", lower) }

// Funcs maps the change-case function names used by `_change_case.<name>`
// to their implementations. The table is built on first use.
var Funcs = lazy.Value[map[string]func(string, Options) string]{New: func() map[string]func(string, Options) string {
	return map[string]func(string, Options) string{
		"camelCase": CamelCase, "capitalCase": CapitalCase, "constantCase": ConstantCase, "dotCase": DotCase,
		"headerCase": HeaderCase, "noCase": NoCase, "paramCase": ParamCase, "pascalCase": PascalCase,
		"pathCase": PathCase, "sentenceCase": SentenceCase, "snakeCase": SnakeCase,
	}
}}

// OptionsFromValue decodes Lowdefy's options object: {delimiter,
// splitRegexp, stripRegexp} where a regexp is a pattern string or
// {pattern, flags} (flags i, m, s; g is implied).
func OptionsFromValue(v any) (Options, error) {
	var o Options
	v = jsvalue.FromGo(v)
	if jsvalue.IsNullish(v) {
		return o, nil
	}
	m, ok := v.(*jsvalue.Object)
	if !ok {
		return o, fmt.Errorf("options must be an object, got %T", v)
	}
	if d := m.Prop("delimiter"); !jsvalue.IsNullish(d) {
		s, ok := d.(string)
		if !ok {
			return o, fmt.Errorf("options.delimiter must be a string, got %T", d)
		}
		o.Delimiter = &s
	}
	var err error
	if o.SplitRegexp, err = regexOption(m.Prop("splitRegexp"), "splitRegexp"); err != nil {
		return o, err
	}
	if o.StripRegexp, err = regexOption(m.Prop("stripRegexp"), "stripRegexp"); err != nil {
		return o, err
	}
	return o, nil
}

func regexOption(v any, name string) (*regexp.Regexp, error) {
	if jsvalue.IsNullish(v) {
		return nil, nil
	}
	pattern, flags := "", "gm"
	switch x := v.(type) {
	case string:
		pattern = x
	case *jsvalue.Object:
		p, ok := x.Prop("pattern").(string)
		if !ok {
			return nil, fmt.Errorf("options.%s.pattern must be a string", name)
		}
		pattern = p
		if f, ok := x.Prop("flags").(string); ok && f != "" {
			flags = f
		}
	default:
		return nil, fmt.Errorf("options.%s must be string or an object, got %T", name, v)
	}
	prefix := ""
	for _, f := range flags {
		switch f {
		case 'i', 's':
			prefix += string(f)
		case 'm':
			prefix += "m"
		case 'g', 'u', 'y':
		default:
			return nil, fmt.Errorf("options.%s: invalid flag %q", name, f)
		}
	}
	if prefix != "" {
		pattern = "(?" + prefix + ")" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("options.%s: %w (Go RE2 syntax: no lookaround or backreferences)", name, err)
	}
	return re, nil
}
