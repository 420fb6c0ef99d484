package jsvalue

import (
	"fmt"
	"strings"
)

// Object is a JavaScript object: string keys mapped to values, iterated in
// JavaScript's property order (OrdinaryOwnPropertyKeys) — keys that are
// array indices ("0" … "4294967294", see IsArrayIndex) first, in ascending
// numeric order, then the other keys in the order they were first set.
// Setting an existing key keeps its position; deleting a key and setting it
// again moves it to the end, as in JavaScript.
//
// The zero value is an empty object ready to use, and a nil *Object reads as
// an empty object (Get, Has, Len, Keys and Range work; Set panics). Objects
// with up to a dozen keys are a slice of pairs searched linearly; larger ones
// add a hash index. An Object is not safe for concurrent use when one
// goroutine modifies it; concurrent reads are safe.
type Object struct {
	entries []entry
	nIndex  int            // entries[:nIndex] have array-index keys, ascending
	index   map[string]int // key → position, built past indexThreshold keys
}

type entry struct {
	key string
	val any
}

// indexThreshold is the size past which an Object keeps a hash index.
const indexThreshold = 12

// NewObject returns an empty object with room for capacity keys.
func NewObject(capacity int) *Object {
	if capacity <= 0 {
		return &Object{}
	}
	return &Object{entries: make([]entry, 0, capacity)}
}

// ObjectOf returns an object holding the given key/value pairs in order:
// ObjectOf("b", 1.0, "a", 2.0) is {b: 1, a: 2}. It panics if a key is not a
// string or a value is missing, which is a programming error.
func ObjectOf(kv ...any) *Object {
	if len(kv)%2 != 0 {
		panic("jsvalue.ObjectOf: odd number of arguments")
	}
	o := NewObject(len(kv) / 2)
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			panic(fmt.Sprintf("jsvalue.ObjectOf: key %d is %T, not a string", i/2, kv[i]))
		}
		o.Set(k, kv[i+1])
	}
	return o
}

// Len returns the number of keys.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.entries)
}

// find returns the position of key, or -1.
func (o *Object) find(key string) int {
	if o == nil {
		return -1
	}
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range o.entries {
		if o.entries[i].key == key {
			return i
		}
	}
	return -1
}

// Get returns the value of key and whether the key is present.
func (o *Object) Get(key string) (any, bool) {
	if i := o.find(key); i >= 0 {
		return o.entries[i].val, true
	}
	return nil, false
}

// Prop returns the value of key, or Undefined when the key is absent, as
// reading a property in JavaScript does.
func (o *Object) Prop(key string) any {
	if i := o.find(key); i >= 0 {
		return o.entries[i].val
	}
	return Undefined
}

// Has reports whether key is present (JavaScript's Object.hasOwn).
func (o *Object) Has(key string) bool { return o.find(key) >= 0 }

// Set sets key to val. An existing key keeps its position; a new key goes
// where JavaScript would put it (among the array indices in numeric order, or
// after all other keys).
func (o *Object) Set(key string, val any) {
	if i := o.find(key); i >= 0 {
		o.entries[i].val = val
		return
	}
	pos := len(o.entries)
	if IsArrayIndex(key) {
		// Binary search among the array-index keys.
		lo, hi := 0, o.nIndex
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if lessIndex(o.entries[mid].key, key) {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		pos = lo
		o.nIndex++
	}
	if pos == len(o.entries) {
		o.entries = append(o.entries, entry{key, val})
	} else {
		o.entries = append(o.entries, entry{})
		copy(o.entries[pos+1:], o.entries[pos:])
		o.entries[pos] = entry{key, val}
	}
	switch {
	case o.index != nil:
		o.reindex(pos)
	case len(o.entries) > indexThreshold:
		o.index = make(map[string]int, 2*len(o.entries))
		o.reindex(0)
	}
}

// reindex refreshes the hash index from position from on.
func (o *Object) reindex(from int) {
	for i := from; i < len(o.entries); i++ {
		o.index[o.entries[i].key] = i
	}
}

// lessIndex compares two array-index keys numerically: canonical numerals
// without leading zeros order by length, then digit by digit.
func lessIndex(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// Delete removes key and reports whether it was present.
func (o *Object) Delete(key string) bool {
	i := o.find(key)
	if i < 0 {
		return false
	}
	if i < o.nIndex {
		o.nIndex--
	}
	copy(o.entries[i:], o.entries[i+1:])
	o.entries[len(o.entries)-1] = entry{}
	o.entries = o.entries[:len(o.entries)-1]
	if o.index != nil {
		delete(o.index, key)
		o.reindex(i)
	}
	return true
}

// Keys returns a new slice of the keys in property order (Object.keys).
func (o *Object) Keys() []string {
	return o.AppendKeys(nil)
}

// AppendKeys appends the keys in property order to dst and returns the
// extended slice.
func (o *Object) AppendKeys(dst []string) []string {
	if o == nil {
		return dst
	}
	for _, e := range o.entries {
		dst = append(dst, e.key)
	}
	return dst
}

// Values returns a new slice of the values in property order
// (Object.values).
func (o *Object) Values() []any {
	if o == nil {
		return nil
	}
	out := make([]any, len(o.entries))
	for i, e := range o.entries {
		out[i] = e.val
	}
	return out
}

// Range calls yield for each key and value in property order until yield
// returns false. It has the shape of an iter.Seq2, so `for k, v := range
// o.Range` works. Setting the value of an existing key during Range is
// allowed; adding or deleting keys during Range makes the iteration skip or
// repeat keys (it never panics).
func (o *Object) Range(yield func(key string, val any) bool) {
	if o == nil {
		return
	}
	for i := 0; i < len(o.entries); i++ {
		e := o.entries[i]
		if !yield(e.key, e.val) {
			return
		}
	}
}

// At returns the key and value at position i of the property order
// (0 <= i < Len()).
func (o *Object) At(i int) (key string, val any) {
	e := o.entries[i]
	return e.key, e.val
}

// Clone returns a shallow copy of o: the same keys in the same order with
// the same values. Clone of nil is an empty object.
func (o *Object) Clone() *Object {
	if o == nil {
		return &Object{}
	}
	c := &Object{entries: make([]entry, len(o.entries), len(o.entries)+1), nIndex: o.nIndex}
	copy(c.entries, o.entries)
	if o.index != nil {
		c.index = make(map[string]int, len(o.index))
		for k, v := range o.index {
			c.index[k] = v
		}
	}
	return c
}

// Equal reports whether o and p have the same keys in the same order with
// equal values (compared with DeepEqual). It makes *Object comparable with
// github.com/google/go-cmp.
func (o *Object) Equal(p *Object) bool {
	if o.Len() != p.Len() {
		return false
	}
	for i := 0; i < o.Len(); i++ {
		a, b := o.entries[i], p.entries[i]
		if a.key != b.key || !DeepEqual(a.val, b.val) {
			return false
		}
	}
	return true
}

// String returns the object as compact JSON (for debugging and test
// failure messages).
func (o *Object) String() string {
	b, _ := AppendJSON(nil, o, "")
	return string(b)
}

// MarshalJSON encodes the object as JSON.stringify does, keys in property
// order.
func (o *Object) MarshalJSON() ([]byte, error) {
	b, ok := AppendJSON(nil, o, "")
	if !ok {
		return nil, errTooDeep
	}
	return b, nil
}

// UnmarshalJSON decodes a JSON object into o, replacing its contents and
// keeping the source key order (see Decode).
func (o *Object) UnmarshalJSON(data []byte) error {
	v, err := Decode(data)
	if err != nil {
		return err
	}
	src, ok := v.(*Object)
	if !ok {
		return &SyntaxError{msg: "JSON value is " + describeJSON(v) + ", not an object"}
	}
	*o = *src
	return nil
}

func describeJSON(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// IsArrayIndex reports whether key is a canonical array index: the decimal
// form of an integer from 0 to 4294967294 (2^32 − 2) without sign or leading
// zeros. JavaScript orders such keys first.
func IsArrayIndex(key string) bool {
	n := len(key)
	if n == 0 || n > 10 || (n > 1 && key[0] == '0') {
		return false
	}
	for i := 0; i < n; i++ {
		if key[i] < '0' || key[i] > '9' {
			return false
		}
	}
	return n < 10 || strings.Compare(key, "4294967294") <= 0
}

// ArrayIndex parses key as an array index (see IsArrayIndex).
func ArrayIndex(key string) (uint32, bool) {
	if !IsArrayIndex(key) {
		return 0, false
	}
	var n uint32
	for i := 0; i < len(key); i++ {
		n = n*10 + uint32(key[i]-'0')
	}
	return n, true
}
