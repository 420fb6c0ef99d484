//go:build unix

package gateway

import "syscall"

// openFileLimit returns the process's soft limit on open files, or 0 when unknown.
func openFileLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 0
	}
	return int(rl.Cur)
}
