package proc

import (
	"os"
	"syscall"
	"unsafe"
)

// HasWriters reports whether some process still holds the write end of the pipe whose read
// end is r, or true when that cannot be told. It does not read from r.
func HasWriters(r *os.File) bool {
	rc, err := r.SyscallConn()
	if err != nil {
		return true
	}
	writers := true
	rc.Control(func(fd uintptr) {
		// ppoll with a zero timeout: POLLHUP on a pipe's read end means no writer is left.
		pfd := struct {
			fd      int32
			events  int16
			revents int16
		}{fd: int32(fd), events: pollIn}
		var ts syscall.Timespec
		n, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		if e == 0 && n == 1 && pfd.revents&pollHup != 0 {
			writers = false
		}
	})
	return writers
}

// poll(2) events.
const (
	pollIn  = 0x1
	pollHup = 0x10
)
