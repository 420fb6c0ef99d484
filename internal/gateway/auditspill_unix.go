//go:build unix

package gateway

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f without waiting; it reports false when another
// process holds one. The lock ends with the process.
func lockFile(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}
