// Package changecase re-implements change-case 4.1.2 (used by Lowdefy's
// `_change_case` operator, @lowdefy/operators-change-case@4.0.0-rc.11):
// CamelCase, CapitalCase, ConstantCase, DotCase, HeaderCase, NoCase,
// ParamCase, PascalCase, PathCase, SentenceCase and SnakeCase, with the same
// word splitting (lower/digit→upper and acronym→word boundaries, everything
// outside [A-Za-z0-9] stripped, "_" before digits in camel/pascal case).
//
// Options (delimiter, splitRegexp, stripRegexp) mirror what Lowdefy passes
// from YAML; OptionsFromValue decodes them and Convert implements the
// operator's string/array/object handling (convertKeys, convertValues).
// Custom regular expressions use Go RE2 syntax and always replace globally.
package changecase
