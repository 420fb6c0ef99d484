// Package jsvalue is the JavaScript value model that mcpbridge's Lowdefy
// runtime and its sandboxed expressions share, with the semantics of the
// JavaScript operators that Lowdefy relies on.
//
// A JavaScript value is a Go value of one of these types:
//
//	nil          null
//	Undefined    undefined (UndefinedType)
//	bool         boolean
//	float64      number (int and int64 are accepted as numbers on input)
//	string       string (UTF-8; lengths and order are those of UTF-16)
//	[]any        array
//	*Object      plain object, keys in JavaScript property order
//	time.Time    Date
//	*Error       Error (name and message)
//	Func         function
//
// Object keeps JavaScript's key order: array-index keys ascending first,
// then the other keys in insertion order, so that Object.keys,
// JSON.stringify and every iteration agree with Lowdefy running in a
// browser or Node.
//
// The conversions and operators follow ECMAScript: Typeof, Truthy
// (ToBoolean), ToNumber, ToString, ToPrimitive, NumberToString
// (Number.prototype.toString), StrictEqual (===), LooseEqual (==), Compare
// (<, <=, >, >=, with strings compared by UTF-16 code units) and Add
// (binary +). Decode and Stringify read and write JSON like JSON.parse and
// JSON.stringify, keeping key order.
//
// The package imports only the standard library, so any package may use it.
package jsvalue
