//go:build !linux

package proc

import "os"

// HasWriters reports whether some process still holds the write end of the pipe whose read
// end is r; elsewhere than on Linux it cannot tell, and reports true.
func HasWriters(r *os.File) bool { return true }
