package expr

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/dop251/goja"
)

// guardJSON wraps JSON.stringify so that it keeps a running count of the text it produces
// and checks for interrupts at every value. The native serializer is kept: it is given a
// replacer function (wrapping the caller's replacer, or emulating a replacer array) that
// counts each value before the native writes it, and throws once the count passes the
// size limit.
func (e *env) guardJSON(*goja.Object) error {
	rt := e.rt
	json := rt.Get("JSON").ToObject(rt)
	var orig goja.Callable
	var err error
	orig, err = e.method(json, "stringify", func(c goja.FunctionCall) goja.Value {
		e.checkStop()
		value, replacer, space := c.Argument(0), c.Argument(1), c.Argument(2)
		b := &jsonBudget{e: e, objects: make(map[*goja.Object]jsonObject)}
		var user goja.Callable
		var list []string
		if f, ok := goja.AssertFunction(replacer); ok {
			user = f
		} else if r, ok := replacer.(*goja.Object); ok && b.isArray(r) {
			list = b.propertyList(r)
		}
		b.gap = gapLength(space)
		counting := rt.ToValue(func(c goja.FunctionCall) goja.Value {
			e.checkStop()
			holder, _ := c.This.(*goja.Object)
			key, v := c.Argument(0), c.Argument(1)
			if user != nil {
				v = call(user, c.This, key, v)
			} else if list != nil {
				v = b.filter(holder, v, list)
			}
			b.add(holder, key, v)
			return v
		})
		return call(orig, json, value, counting, rt.ToValue(space))
	})
	return err
}

// jsonBudget counts the output of one JSON.stringify call.
type jsonBudget struct {
	e       *env
	gap     int64 // length of the indentation step
	used    int64 // characters counted so far
	objects map[*goja.Object]jsonObject
}

// jsonObject is what the budget knows of an object value being serialized.
type jsonObject struct {
	depth  int64        // 1 for the top-level value
	array  bool         //
	parent *goja.Object // the holder it was last found in
	orig   *goja.Object // for a filtered copy (replacer arrays), the object it copies
}

func (b *jsonBudget) isArray(o *goja.Object) bool {
	return call(b.e.isArray, goja.Undefined(), o).ToBoolean()
}

// charge adds n characters and throws past the limit.
func (b *jsonBudget) charge(n int64) {
	b.used += n
	if b.used > b.e.maxChars {
		panic(b.e.tooLarge("JSON.stringify", b.used, "characters", true))
	}
}

// add counts the text of v as the property key of holder (the top-level value when holder
// is the serializer's wrapper, which the budget has not seen).
func (b *jsonBudget) add(holder *goja.Object, key, v goja.Value) {
	parent, inside := b.objects[holder]
	size, serializable := b.valueSize(v, parent.depth+1, holder)
	if !inside {
		b.charge(size)
		return
	}
	if !serializable {
		if parent.array {
			b.charge(5) // null,
		}
		return
	}
	member := int64(1) // the comma
	if b.gap > 0 {
		member += 1 + parent.depth*b.gap // newline and indentation
	}
	if !parent.array {
		member += quotedLength(b.e.toStr(key)) + 1 // "key":
		if b.gap > 0 {
			member++ // the space after the colon
		}
	}
	b.charge(member + size)
}

// valueSize returns the length of v's own text (brackets only for objects, whose members
// are counted as the serializer reaches them), and false for values the serializer skips.
// An object found at depth in holder is recorded.
func (b *jsonBudget) valueSize(v goja.Value, depth int64, holder *goja.Object) (int64, bool) {
	if v == nil || goja.IsUndefined(v) {
		return 0, false
	}
	if goja.IsNull(v) {
		return 4, true
	}
	o, isObj := v.(*goja.Object)
	if !isObj {
		if s, ok := v.(goja.String); ok {
			return b.stringSize(s), true
		}
		if _, isSym := v.(*goja.Symbol); isSym {
			return 0, false
		}
		return int64(len(v.String())), true // numbers (NaN and Infinity become null), booleans
	}
	if _, callable := goja.AssertFunction(o); callable {
		return 0, false
	}
	switch o.ClassName() {
	case "String":
		return b.stringSize(b.e.toStr(o)), true
	case "Number", "Boolean", "BigInt":
		return int64(len(v.String())), true
	case "RawJSON":
		return int64(b.e.toStr(o.Get("rawJSON")).Length()), true
	}
	info := b.objects[o]
	info.depth, info.array, info.parent = depth, b.isArray(o), holder
	b.objects[o] = info
	size := int64(2)
	if b.gap > 0 {
		size += 1 + (depth-1)*b.gap // the closing bracket's line
	}
	if info.array {
		// Every element takes at least a character and a comma: refuse a huge (sparse)
		// array before the serializer walks it.
		if n := lengthOf(o); float64(b.used)+2*float64(n) > float64(b.e.maxChars) {
			panic(b.e.tooLarge("JSON.stringify", b.used+2*n, "characters", false))
		}
	}
	return size, true
}

// stringSize is the length of s as a JSON string, quotes and escapes included.
func (b *jsonBudget) stringSize(s goja.String) int64 {
	if n := int64(s.Length()) + 2; b.used+n > b.e.maxChars {
		b.charge(n) // a lower bound is already too much
	}
	return quotedLength(s)
}

// quotedLength is the length of s quoted as JSON.stringify does: control characters and
// lone surrogates take up to six characters.
func quotedLength(s goja.String) int64 {
	n := int64(2)
	l := s.Length()
	for i := 0; i < l; i++ {
		switch c := s.CharAt(i); {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			n += 2
		case c < 0x20:
			n += 6
		case c >= 0xd800 && c <= 0xdbff && i+1 < l && s.CharAt(i+1) >= 0xdc00 && s.CharAt(i+1) <= 0xdfff:
			n += 2
			i++
		case c >= 0xd800 && c <= 0xdfff:
			n += 6
		default:
			n++
		}
	}
	return n
}

// gapLength is the length of the indentation step given by JSON.stringify's space
// argument (at most 10).
func gapLength(space goja.Value) int64 {
	if o, ok := space.(*goja.Object); ok {
		switch o.ClassName() {
		case "Number":
			space = o.ToNumber()
		case "String":
			space = o.ToString()
		}
	}
	if s, ok := space.(goja.String); ok {
		return int64(min(s.Length(), 10))
	}
	if goja.IsNumber(space) {
		return min(max(toLength(space), 0), 10)
	}
	return 0
}

// propertyList is the PropertyList of a replacer array: its string and number elements
// (and String and Number objects) as strings, without duplicates.
func (b *jsonBudget) propertyList(r *goja.Object) []string {
	list := []string{}
	n := lengthOf(r)
	for k := range n {
		if k&1023 == 0 {
			b.e.checkStop()
		}
		v := r.Get(strconv.FormatInt(k, 10))
		var item string
		switch {
		case goja.IsString(v) || goja.IsNumber(v):
			item = v.String()
		default:
			o, ok := v.(*goja.Object)
			if !ok || (o.ClassName() != "String" && o.ClassName() != "Number") {
				continue
			}
			item = o.String()
		}
		if !slices.Contains(list, item) {
			list = append(list, item)
		}
	}
	return list
}

// filter applies a replacer array: an object value to be serialized as an object is
// replaced by a copy of its listed properties, in list order. Copies are new objects, so
// the native cannot detect cycles through them: filter does, along the chain of holders.
func (b *jsonBudget) filter(holder *goja.Object, v goja.Value, list []string) goja.Value {
	o, ok := v.(*goja.Object)
	if !ok {
		return v
	}
	if _, callable := goja.AssertFunction(o); callable || b.isArray(o) {
		return v
	}
	switch o.ClassName() {
	case "String", "Number", "Boolean", "BigInt", "RawJSON":
		return v
	}
	// The holders from here up are the objects being serialized around this value.
	for h, steps := holder, 0; h != nil && steps <= len(b.objects); h, steps = b.objects[h].parent, steps+1 {
		orig := b.objects[h].orig
		if orig == nil {
			orig = h
		}
		if orig.SameAs(o) {
			panic(b.e.rt.NewTypeError("Converting circular structure to JSON"))
		}
	}
	cp := b.e.rt.NewObject()
	for _, k := range list {
		if x := o.Get(k); x != nil && !goja.IsUndefined(x) {
			if err := cp.DefineDataProperty(k, x, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
				panic(b.e.rt.NewTypeError(fmt.Sprintf("JSON.stringify: copying %q: %v", k, err)))
			}
		}
	}
	b.objects[cp] = jsonObject{parent: holder, orig: o}
	return cp
}
