// Package serial is the Lowdefy value model in Go and Lowdefy's serializer
// markers (@lowdefy/helpers serializer.js, 4.0.0-rc.11).
//
// Lowdefy values are JSON-like. In Go they are:
//
//	nil                 JavaScript null
//	Undefined           JavaScript undefined (never appears in JSON output)
//	bool, float64, string
//	[]any               array
//	map[string]any      plain object
//	time.Time           Date
//	*Error              Error (name and message)
//	Func                function (the result of the _function operator)
//
// In JSON, dates travel as {"~d": <milliseconds or ISO string>} and errors as
// {"~e": {"name", "message", "value"}}. Decode turns those markers into
// time.Time and *Error; Encode does the reverse. Go maps have no key order:
// wherever Lowdefy's output depends on object key order, this module uses
// JavaScript's order for integer-like keys (ascending) followed by the other
// keys in sorted order (see Keys).
package serial
