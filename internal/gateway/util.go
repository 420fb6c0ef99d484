package gateway

import (
	"io"
	"unicode/utf8"
)

func io_ReadFull(r io.Reader, b []byte) (int, error) { return io.ReadFull(r, b) }

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
