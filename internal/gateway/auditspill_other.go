//go:build !unix

package gateway

import "os"

// lockFile reports true: files are not locked on this platform, so processes must not share
// a spill directory.
func lockFile(f *os.File) bool { return true }
