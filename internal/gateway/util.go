package gateway

import "unicode/utf8"

// isText reports whether data is UTF-8 text without NUL bytes.
func isText(data []byte) bool {
	if !utf8.Valid(data) {
		return false
	}
	for _, c := range data {
		if c == 0 {
			return false
		}
	}
	return true
}
