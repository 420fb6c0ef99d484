package safehttp

import "strings"

// ValidToken reports whether s is an HTTP token (RFC 9110 5.6.2): what a method, a header
// name or a cookie name may be.
func ValidToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= 0x20 || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?={}`, c) >= 0 {
			return false
		}
	}
	return true
}

// ValidHeaderValue reports whether s can be sent as an HTTP header value: no control
// characters other than tab.
func ValidHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}
