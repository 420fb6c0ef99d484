// Package serial is Lowdefy's serializer (@lowdefy/helpers serializer.js,
// 4.0.0-rc.11) over the JavaScript value model of package jsvalue.
//
// Lowdefy values are jsvalue values: nil, jsvalue.Undefined, bool, float64,
// string, []any, *jsvalue.Object (keys in JavaScript order), time.Time
// (Date), *jsvalue.Error and jsvalue.Func. In JSON, dates travel as
// {"~d": <milliseconds or ISO string>} and errors as
// {"~e": {"name", "message", "value"}}. Decode turns those markers into
// time.Time and *jsvalue.Error; Encode does the reverse. Both keep the key
// order of objects.
package serial
