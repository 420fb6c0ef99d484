package nunjucks

import (
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// filterFunc is a built-in filter: v is the piped value.
type filterFunc func(r *renderer, v any, args []any) (any, error)

// The built-in filters (filters_table.go) refer to functions that use them, so no
// package-level initialiser can build them; they are built on first use (filters), not by an
// init, so that a process that never renders a template never runs this code.
var (
	filtersOnce  sync.Once
	filtersTable map[string]filterFunc
)

// filters returns the built-in filters by name, building them on the first call.
func filters() map[string]filterFunc {
	filtersOnce.Do(func() { filtersTable = newFilters() })
	return filtersTable
}

// applyFilter evaluates the filter's arguments and applies it to v.
func (r *renderer) applyFilter(f *frame, fx *filterExpr, v any) (any, error) {
	fn, ok := filters()[fx.name]
	if !ok {
		return nil, newError(r.t.name, fx.line, fx.col, "filter not found: %s", fx.name)
	}
	args, err := r.evalList(f, fx.args)
	if err != nil {
		return nil, err
	}
	if len(fx.kwargs) > 0 {
		kw := map[string]any{}
		for _, k := range fx.kwargs {
			kv, err := r.eval(f, k.val)
			if err != nil {
				return nil, err
			}
			kw[k.name] = kv
		}
		args = applyKwargs(fx.name, args, kw)
	}
	out, err := fn(r, v, args)
	if err != nil {
		return nil, r.wrapErr(fx.pos, errorf("%s filter: %s", fx.name, err.Error()))
	}
	return out, nil
}

// filterParams names the parameters of filters that accept keyword arguments.
// The table is built on first use.
var filterParams = lazy.Value[map[string][]string]{New: func() map[string][]string {
	return map[string][]string{
		"sort":     {"reverse", "case_sensitive", "attribute"},
		"int":      {"default", "base"},
		"round":    {"precision", "method"},
		"truncate": {"length", "killwords", "end"},
		"indent":   {"width", "indentfirst"},
		"default":  {"default_value", "boolean"},
		"d":        {"default_value", "boolean"},
		"join":     {"d", "attribute"},
	}
}}

// applyKwargs places keyword arguments by parameter name; unknown ones are
// appended as a trailing object, as nunjucks does.
func applyKwargs(name string, args []any, kw map[string]any) []any {
	params := filterParams.Get()[name]
	var rest map[string]any
	for k, v := range kw {
		idx := -1
		for i, p := range params {
			if p == k {
				idx = i
			}
		}
		if idx < 0 {
			if rest == nil {
				rest = map[string]any{}
			}
			rest[k] = v
			continue
		}
		for len(args) <= idx {
			args = append(args, jsvalue.Undefined)
		}
		args[idx] = v
	}
	if rest != nil {
		args = append(args, rest)
	}
	return args
}

// normalize is nunjucks' normalize: null, undefined and false become def.
func normalize(v, def any) any {
	if jsvalue.IsNullish(v) || v == false {
		return def
	}
	return v
}

// keepSafe is nunjucks' copySafeness.
func keepSafe(in any, s string) any {
	if _, ok := in.(SafeString); ok {
		return SafeString(s)
	}
	return s
}

// needString returns v as a string or the TypeError JavaScript would raise
// when calling a string method on it.
func needString(v any, method string) (string, error) {
	if s, ok := asString(v); ok {
		return s, nil
	}
	return "", errorf("str.%s is not a function", method)
}

// needArray returns v as an array or a TypeError.
func needArray(v any) ([]any, error) {
	switch x := v.(type) {
	case []any:
		return x, nil
	case string, SafeString:
		return utf16Chars(recvString(x)), nil
	}
	return nil, errorf("expected an array, got %s", typeName(v))
}

// typeName names v's type for messages, a SafeString being a string.
func typeName(v any) string {
	if _, ok := v.(SafeString); ok {
		return "string"
	}
	return jsvalue.TypeName(v)
}

var (
	stripTagsRe   = lazy.Regexp{Expr: `(?i)</?([a-z][a-z0-9]*)\b[^>]*>|<!--[\s\S]*?-->`}
	spaceRunRe    = lazy.Regexp{Expr: `[\s\x{a0}\x{feff}\x{2028}\x{2029}]+`}
	lineEdgeSpRe  = lazy.Regexp{Expr: `(?m)^ +| +$`}
	multiSpaceRe  = lazy.Regexp{Expr: ` +`}
	manyNewlineRe = lazy.Regexp{Expr: `\n\n\n+`}
	wordRe        = lazy.Regexp{Expr: `[A-Za-z0-9_]+`}
)

func jsTrim(s string) string { return strings.TrimFunc(s, jsSpace) }

func jsSpace(r rune) bool { return unicode.IsSpace(r) || r == 0xFEFF }

func capitalize(v any) (any, error) {
	s, err := needString(normalize(v, ""), "toLowerCase")
	if err != nil {
		return nil, err
	}
	u := utf16Units(strings.ToLower(s))
	if len(u) == 0 {
		return keepSafe(v, ""), nil
	}
	return keepSafe(v, jsUpper(fromUnits(u[:1]))+fromUnits(u[1:])), nil
}

// attrOf reads item[attr] for the *attr filters.
func attrOf(item any, attr any) any { return memberLookup(item, attr) }

// attrPath follows a dotted attribute path like nunjucks' getAttrGetter.
func attrPath(item any, attr any) any {
	if _, ok := attr.(float64); ok {
		return memberLookup(item, attr)
	}
	cur := item
	for _, part := range strings.Split(jsvalue.ToString(attr), ".") {
		switch c := cur.(type) {
		case *jsvalue.Object:
			v, ok := c.Get(part)
			if !ok {
				return jsvalue.Undefined
			}
			cur = v
		case []any:
			i, ok := jsvalue.ArrayIndex(part)
			if !ok || int(i) >= len(c) {
				return jsvalue.Undefined
			}
			cur = c[i]
		default:
			return jsvalue.Undefined
		}
	}
	return cur
}

// encodeURIComponent matches JavaScript's encodeURIComponent.
func encodeURIComponent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + jsUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
		}
	}
	return b.String()
}

var _ = url.QueryEscape

// jsonStringify is JSON.stringify(v, null, indent): undefined (or a
// function) has no JSON form and stays undefined.
func jsonStringify(v any, indent string) (any, error) {
	s, ok := jsvalue.Stringify(v, indent)
	if !ok {
		return jsvalue.Undefined, nil
	}
	return s, nil
}

// jsParseFloat implements parseFloat: the longest numeric prefix.
func jsParseFloat(v any) float64 {
	s := strings.TrimLeftFunc(jsvalue.ToString(v), jsSpace)
	for _, p := range []string{"Infinity", "+Infinity", "-Infinity"} {
		if strings.HasPrefix(s, p) {
			if p[0] == '-' {
				return math.Inf(-1)
			}
			return math.Inf(1)
		}
	}
	m := floatPrefixRe.Get().FindString(s)
	if m == "" {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(m, 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

var floatPrefixRe = lazy.Regexp{Expr: `^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?`}

// jsRound is Math.round (half up toward +Infinity).
func jsRound(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	r := math.Floor(f)
	if f-r >= 0.5 {
		r++
	}
	return r
}

// sortValues sorts a copy of arr like nunjucks' sort filter.
func sortValues(arr []any, reversed, caseSens bool, attr any) []any {
	out := append([]any{}, arr...)
	key := func(v any) any {
		if jsvalue.Truthy(attr) {
			v = attrPath(v, attr)
		}
		return v
	}
	sort.SliceStable(out, func(i, j int) bool {
		x, y := key(out[i]), key(out[j])
		if !caseSens {
			xs, ok1 := asString(x)
			ys, ok2 := asString(y)
			if ok1 && ok2 {
				x, y = strings.ToLower(xs), strings.ToLower(ys)
			}
		}
		if reversed {
			return compareOp("<", y, x)
		}
		return compareOp("<", x, y)
	})
	return out
}
