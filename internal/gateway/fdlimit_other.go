//go:build !unix

package gateway

// openFileLimit returns 0: the limit is not known on this platform.
func openFileLimit() int { return 0 }
