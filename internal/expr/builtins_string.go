package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// guardStrings wraps the String built-ins that build a result in one native call.
func (e *env) guardStrings(slow *goja.Object) error {
	rt := e.rt
	proto := rt.Get("String").ToObject(rt).Get("prototype").ToObject(rt)
	split, err := slowFunc(slow, "string", "split")
	if err != nil {
		return err
	}
	replace, err := slowFunc(slow, "string", "replace")
	if err != nil {
		return err
	}

	// Methods whose result size is known from the receiver and the arguments.
	sized := map[string]func(s goja.String, args []goja.Value) (size float64, newArgs []goja.Value){
		"concat": func(s goja.String, args []goja.Value) (float64, []goja.Value) {
			size := float64(s.Length())
			strs := make([]goja.Value, len(args))
			for i, a := range args {
				str := e.toStr(a)
				strs[i] = str
				size += float64(str.Length())
			}
			return size, strs
		},
		"repeat": func(s goja.String, args []goja.Value) (float64, []goja.Value) {
			n, ok := primitiveInt(arg(args, 0))
			if !ok {
				f := arg(args, 0).ToFloat() // a single conversion, passed on as a number
				n, args = f, []goja.Value{rt.ToValue(f)}
			}
			if n <= 0 || math.IsInf(n, 0) || s.Length() == 0 {
				return 0, args // the native throws the RangeError of a bad count
			}
			return float64(s.Length()) * n, args
		},
		"padStart": e.padSize,
		"padEnd":   e.padSize,
	}
	for name, size := range sized {
		what := "String.prototype." + name
		var orig goja.Callable
		orig, err = e.method(proto, name, func(c goja.FunctionCall) goja.Value {
			e.checkStop()
			e.requireObjectCoercible(c.This, what)
			s := e.toStr(c.This)
			n, args := size(s, c.Arguments)
			if n > float64(e.maxChars) {
				panic(e.tooLarge(what, int64(min(n, 1<<62)), "characters", false))
			}
			return call(orig, s, args...)
		})
		if err != nil {
			return err
		}
	}

	for _, name := range []string{"replace", "replaceAll"} {
		what := "String.prototype." + name
		all := name == "replaceAll"
		var orig goja.Callable
		orig, err = e.method(proto, name, func(c goja.FunctionCall) goja.Value {
			e.checkStop()
			e.requireObjectCoercible(c.This, what)
			pattern, replaceValue := c.Argument(0), c.Argument(1)
			if hasMethod(pattern, goja.SymReplace) {
				// A RegExp, or another object with Symbol.replace: the native dispatches
				// to it.
				return call(orig, c.This, c.Arguments...)
			}
			s := e.toStr(c.This)
			search := e.toStr(pattern)
			if int64(s.Length()) > e.fastChars() {
				if _, ok := goja.AssertFunction(replaceValue); !ok {
					templ := e.toStr(replaceValue)
					replaceValue = templ
					if n, ok := asciiCount(s, search); ok && countDollars(templ) == 0 {
						if !all {
							n = min(n, 1)
						}
						if size := int64(s.Length()) + n*int64(templ.Length()-search.Length()); size > e.maxChars {
							panic(e.tooLarge(what, size, "characters", false))
						}
					}
				}
				return call(replace, goja.Undefined(), s, search, replaceValue, rt.ToValue(all), rt.ToValue(what))
			}
			return call(orig, s, search, e.boundedReplacement(what, s, replaceValue))
		})
		if err != nil {
			return err
		}
	}

	if err := e.guardStringRaw(); err != nil {
		return err
	}

	var origSplit goja.Callable
	origSplit, err = e.method(proto, "split", func(c goja.FunctionCall) goja.Value {
		e.checkStop()
		e.requireObjectCoercible(c.This, "String.prototype.split")
		sep, limit := c.Argument(0), c.Argument(1)
		if goja.IsUndefined(sep) || hasMethod(sep, goja.SymSplit) {
			// Undefined gives [S]; a RegExp (or another object with Symbol.split) is
			// dispatched to.
			return call(origSplit, c.This, c.Arguments...)
		}
		s := e.toStr(c.This)
		lim := float64(1<<32 - 1)
		if !goja.IsUndefined(limit) {
			lim = toUint32(limit.ToFloat()) // one conversion, passed on as a number
			limit = rt.ToValue(lim)
		}
		r := e.toStr(sep)
		pieces := float64(s.Length()) + 1
		if r.Length() == 0 {
			pieces = float64(s.Length())
		}
		if n, ok := asciiCount(s, r); ok && pieces > float64(e.fastLen()) {
			pieces = float64(n + 1)
		}
		pieces = min(pieces, lim)
		if (r.Length() == 0 || pieces < float64(s.Length())+1) && pieces > float64(e.maxElems) {
			panic(e.tooLarge("String.prototype.split", int64(pieces), "elements", false))
		}
		if pieces <= float64(e.fastLen()) {
			return call(origSplit, s, r, limit)
		}
		return call(split, goja.Undefined(), s, r, rt.ToValue(lim))
	})
	return err
}

// hasMethod reports whether v is an object with a method sym (as GetMethod finds it).
func hasMethod(v goja.Value, sym *goja.Symbol) bool {
	o, ok := v.(*goja.Object)
	if !ok {
		return false
	}
	m := o.GetSymbol(sym)
	return m != nil && !goja.IsUndefined(m) && !goja.IsNull(m)
}

// padSize is the result size of padStart and padEnd.
func (e *env) padSize(s goja.String, args []goja.Value) (float64, []goja.Value) {
	n, ok := primitiveInt(arg(args, 0))
	if !ok { // an object: convert it once, and pass the number on
		n = arg(args, 0).ToFloat()
		args = append([]goja.Value{e.rt.ToValue(n)}, args[min(1, len(args)):]...)
	}
	if n <= float64(s.Length()) {
		return 0, args
	}
	if len(args) > 1 && !goja.IsUndefined(args[1]) {
		filler := e.toStr(args[1])
		if filler.Length() == 0 {
			return 0, args
		}
		args = []goja.Value{args[0], filler}
	}
	return n, args
}

// toUint32 is ToUint32 of ECMA-262 for a number.
func toUint32(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	f = math.Mod(math.Trunc(f), 1<<32)
	if f < 0 {
		f += 1 << 32
	}
	return f
}

// arg returns args[i], or undefined.
func arg(args []goja.Value, i int) goja.Value {
	if i < len(args) {
		return args[i]
	}
	return goja.Undefined()
}

// boundedReplacement returns the replacement to hand to a native replace of s: the value
// itself when the result cannot exceed the size limit (or a function wrapper that counts
// what a function returns), or else a function doing the template substitution that stops
// at the limit.
func (e *env) boundedReplacement(what string, s goja.String, replaceValue goja.Value) goja.Value {
	if fn, ok := goja.AssertFunction(replaceValue); ok {
		return e.countingReplacer(what, s, func(args []goja.Value) goja.String {
			return e.toStr(call(fn, goja.Undefined(), args...))
		})
	}
	templ := e.toStr(replaceValue)
	// Every match (at most len+1) is replaced by the template, in which every $ can expand
	// to at most the whole string.
	n := float64(s.Length())
	dollars := float64(countDollars(templ))
	if n+(n+1)*(float64(templ.Length())+dollars*n) <= float64(e.maxChars) {
		return templ
	}
	return e.countingReplacer(what, s, func(args []goja.Value) goja.String {
		matched, str, position, caps, groups := e.replacerArgs(args)
		return e.substitute(matched, str, position, caps, groups, templ)
	})
}

// countingReplacer returns a replacer function that calls replace for each match and stops
// when the result of replacing in s would exceed the size limit.
func (e *env) countingReplacer(what string, s goja.String, replace func(args []goja.Value) goja.String) goja.Value {
	total := int64(s.Length())
	return e.rt.ToValue(func(c goja.FunctionCall) goja.Value {
		e.checkStop()
		r := replace(c.Arguments)
		total += int64(r.Length()) - int64(e.toStr(c.Argument(0)).Length())
		if total > e.maxChars {
			panic(e.tooLarge(what, total, "characters", true))
		}
		return r
	})
}

// replacerArgs splits the arguments of a replacer function: the match, the captures, the
// position, the string, and the named groups when present.
func (e *env) replacerArgs(args []goja.Value) (matched, str goja.String, position int, caps []goja.Value, groups *goja.Object) {
	n := len(args)
	if n > 0 {
		if g, ok := args[n-1].(*goja.Object); ok {
			groups = g
			n--
		}
	}
	if n < 3 {
		return e.toStr(arg(args, 0)), e.toStr(arg(args, 1)), 0, nil, groups
	}
	return e.toStr(args[0]), e.toStr(args[n-1]), int(args[n-2].ToInteger()), args[1 : n-2], groups
}

// asciiCount returns how many times search (not empty) occurs in s without overlaps, when
// both are ASCII (their Go and JavaScript lengths agree); ok is false otherwise.
func asciiCount(s, search goja.String) (n int64, ok bool) {
	gs, gsearch := s.String(), search.String()
	if len(gs) != s.Length() || len(gsearch) != search.Length() || gsearch == "" {
		return 0, false
	}
	return int64(strings.Count(gs, gsearch)), true
}

// countDollars counts the $ signs of a replacement template.
func countDollars(s goja.String) int {
	n := 0
	for i := range s.Length() {
		if s.CharAt(i) == '$' {
			n++
		}
	}
	return n
}

// substitute is GetSubstitution of ECMA-262: the replacement template templ expanded for
// matched found at position in str, with the captures caps ($1 to $99) and the named
// groups ($<name>, when groups is not nil). It throws when the expansion alone is larger
// than the size limit.
func (e *env) substitute(matched, str goja.String, position int, caps []goja.Value, groups *goja.Object, templ goja.String) goja.String {
	var b goja.StringBuilder
	size := int64(0)
	write := func(s goja.String, start, end int) {
		if end <= start {
			return
		}
		size += int64(end - start)
		if size > e.maxChars {
			panic(e.tooLarge("the replacement pattern", size, "characters", true))
		}
		b.WriteSubstring(s, start, end)
	}
	writeAll := func(s goja.String) { write(s, 0, s.Length()) }
	writeCapture := func(k int) {
		if v := caps[k-1]; v != nil && !goja.IsUndefined(v) {
			writeAll(e.toStr(v))
		}
	}
	isDigit := func(c uint16) bool { return c >= '0' && c <= '9' }
	n, m := templ.Length(), len(caps)
	tail := min(position+matched.Length(), str.Length())
	dollar := e.toStr(e.rt.ToValue("$"))
	for i := 0; i < n; {
		start := i
		for i < n && templ.CharAt(i) != '$' {
			i++
		}
		write(templ, start, i)
		if i >= n {
			break
		}
		if i+1 == n {
			writeAll(dollar)
			break
		}
		switch c := templ.CharAt(i + 1); {
		case c == '$':
			writeAll(dollar)
			i += 2
		case c == '&':
			writeAll(matched)
			i += 2
		case c == '`':
			write(str, 0, min(position, str.Length()))
			i += 2
		case c == '\'':
			write(str, tail, str.Length())
			i += 2
		case isDigit(c):
			d := int(c - '0')
			if i+2 < n && isDigit(templ.CharAt(i+2)) {
				if dd := d*10 + int(templ.CharAt(i+2)-'0'); dd >= 1 && dd <= m {
					writeCapture(dd)
					i += 3
					continue
				}
			}
			if d >= 1 && d <= m {
				writeCapture(d)
				i += 2
				continue
			}
			writeAll(dollar)
			i++
		case c == '<' && groups != nil:
			end := -1
			for j := i + 2; j < n; j++ {
				if templ.CharAt(j) == '>' {
					end = j
					break
				}
			}
			if end < 0 {
				write(templ, i, i+2)
				i += 2
				continue
			}
			if v := groups.Get(templ.Substring(i+2, end).String()); v != nil && !goja.IsUndefined(v) {
				writeAll(e.toStr(v))
			}
			i = end + 1
		default:
			writeAll(dollar)
			i++
		}
	}
	return b.String()
}

// guardRegExps wraps the RegExp methods that find every match of a global pattern, or
// split at every match, in one native call: past fastChars characters they run the
// interruptible implementations of builtins.js.
func (e *env) guardRegExps(slow *goja.Object) error {
	rt := e.rt
	proto := rt.Get("RegExp").ToObject(rt).Get("prototype").ToObject(rt)
	for _, g := range []struct {
		name string
		sym  *goja.Symbol
	}{{"match", goja.SymMatch}, {"replace", goja.SymReplace}, {"split", goja.SymSplit}} {
		what := fmt.Sprintf("RegExp.prototype[Symbol.%s]", g.name)
		impl, err := slowFunc(slow, "regexp", g.name)
		if err != nil {
			return err
		}
		var orig goja.Callable
		orig, err = e.method(proto, g.sym, func(c goja.FunctionCall) goja.Value {
			e.checkStop()
			rx, ok := c.This.(*goja.Object)
			if !ok {
				panic(rt.NewTypeError("%s called on a non-object", what))
			}
			s := e.toStr(c.Argument(0))
			args := append([]goja.Value{s}, c.Arguments[min(1, len(c.Arguments)):]...)
			if int64(s.Length()) > e.fastChars() {
				return call(impl, goja.Undefined(), append([]goja.Value{rx}, args...)...)
			}
			if g.name == "replace" {
				args = []goja.Value{s, e.boundedReplacement(what, s, c.Argument(1))}
			}
			return call(orig, rx, args...)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// guardStringRaw replaces String.raw, whose native loop runs over the length of the raw
// strings' array-like without a bound (String.raw({raw: {length: 2**40}}) built
// "undefined" until the process ran out of memory), with the same algorithm that checks
// for interrupts at every segment and stops when the result passes the string limit.
func (e *env) guardStringRaw() error {
	rt := e.rt
	ctor := rt.Get("String").ToObject(rt)
	const what = "String.raw"
	_, err := e.method(ctor, "raw", func(c goja.FunctionCall) goja.Value {
		e.checkStop()
		cooked := c.Argument(0).ToObject(rt)
		raw := orUndefined(cooked.Get("raw")).ToObject(rt)
		n := lengthOf(raw)
		if n <= 0 {
			return rt.ToValue("")
		}
		subs := c.Arguments[min(1, len(c.Arguments)):]
		var b goja.StringBuilder
		size := int64(0)
		add := func(v goja.Value) {
			s := e.toStr(orUndefined(v))
			size += int64(s.Length())
			if size > e.maxChars {
				panic(e.tooLarge(what, size, "characters", true))
			}
			b.WriteString(s)
		}
		for i := int64(0); ; i++ {
			e.checkStop()
			add(raw.Get(strconv.FormatInt(i, 10)))
			if i+1 == n {
				return b.String()
			}
			if i < int64(len(subs)) {
				add(subs[i])
			}
		}
	})
	return err
}

// orUndefined returns v, or undefined for a property that is not there.
func orUndefined(v goja.Value) goja.Value {
	if v == nil {
		return goja.Undefined()
	}
	return v
}
