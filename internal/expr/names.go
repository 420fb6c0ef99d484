package expr

import (
	"errors"
	"unicode"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// reserved is the words that cannot name a variable or parameter in strict-mode code.
// The map is built on first use, not at init.
var reserved = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"break": true, "case": true, "catch": true, "class": true, "const": true, "continue": true,
		"debugger": true, "default": true, "delete": true, "do": true, "else": true, "enum": true,
		"export": true, "extends": true, "false": true, "finally": true, "for": true, "function": true,
		"if": true, "import": true, "in": true, "instanceof": true, "new": true, "null": true,
		"return": true, "super": true, "switch": true, "this": true, "throw": true, "true": true,
		"try": true, "typeof": true, "var": true, "void": true, "while": true, "with": true,
		"yield": true, "let": true, "static": true, "implements": true, "interface": true,
		"package": true, "private": true, "protected": true, "public": true, "await": true,
		"eval": true, "arguments": true, "undefined": true, "NaN": true, "Infinity": true,
	}
}}

// checkIdentifier reports whether name can be bound as a variable in strict-mode code.
func checkIdentifier(name string) error {
	if name == "" {
		return errors.New("empty name")
	}
	for i, r := range name {
		ok := r == '_' || r == '$' || unicode.IsLetter(r) || (i > 0 && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)))
		if !ok {
			return errors.New("not a JavaScript identifier (use letters, digits, _ and $, not starting with a digit)")
		}
	}
	if reserved.Get()[name] {
		return errors.New("reserved word in JavaScript")
	}
	return nil
}
