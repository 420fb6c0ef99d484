package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// fSetPipeSz is F_SETPIPE_SZ of fcntl(2).
const fSetPipeSz = 1031

// HideEnv takes the variables for which hide reports true out of the environment the
// process was started with — /proc/PID/environ, which every process of the same user (and
// root) can read, children included — while keeping them in the process's own environment
// (os.Getenv, os.LookupEnv).
//
// It re-executes the running binary (/proc/self/exe, same arguments, same pid) with those
// variables removed from the environment, passing their values through a pipe the new
// image inherits; [SecretsFDEnv] holds the pipe's descriptor number. In the new image,
// HideEnv reads the pipe, closes it, removes SecretsFDEnv and sets the variables with
// os.Setenv, which changes the process's environment but not /proc/PID/environ: that is
// always the environment given to execve.
//
// It returns nil at once when there is nothing to hide. In the first image it returns only
// when re-executing failed. Call it first thing in main.
func HideEnv(hide func(name string) bool) error {
	if fd, ok := os.LookupEnv(SecretsFDEnv); ok {
		os.Unsetenv(SecretsFDEnv)
		return restoreEnv(fd)
	}
	var keep, hidden []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); name != "" && hide(name) {
			hidden = append(hidden, kv)
		} else {
			keep = append(keep, kv)
		}
	}
	if len(hidden) == 0 {
		return nil
	}
	// Environment entries cannot hold NUL, so NUL separates them.
	payload := []byte(strings.Join(hidden, "\x00"))
	r, err := fillPipe(payload)
	if err != nil {
		return fmt.Errorf("hiding secrets from child processes: %w", err)
	}
	keep = append(keep, SecretsFDEnv+"="+strconv.Itoa(r))
	err = syscall.Exec("/proc/self/exe", os.Args, keep)
	syscall.Close(r)
	return fmt.Errorf("hiding secrets from child processes: re-executing /proc/self/exe: %w", err)
}

// fillPipe returns the read end of a pipe holding data, to be inherited across exec.
func fillPipe(data []byte) (int, error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return -1, fmt.Errorf("creating a pipe: %w", err)
	}
	r, w := p[0], p[1]
	defer syscall.Close(w)
	fail := func(err error) (int, error) {
		syscall.Close(r)
		return -1, err
	}
	if len(data) > 4096 {
		// Room for all of it: nobody reads before the exec. Pipes hold 64 KiB by default.
		syscall.Syscall(syscall.SYS_FCNTL, uintptr(w), fSetPipeSz, uintptr(len(data)))
	}
	if err := syscall.SetNonblock(w, true); err != nil {
		return fail(err)
	}
	for len(data) > 0 {
		n, err := syscall.Write(w, data)
		if err != nil {
			if errors.Is(err, syscall.EAGAIN) {
				err = fmt.Errorf("the hidden variables (%d bytes) do not fit in a pipe", len(data))
			}
			return fail(err)
		}
		data = data[n:]
	}
	// The read end must survive the exec.
	if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(r), syscall.F_SETFD, 0); e != 0 {
		return fail(fmt.Errorf("clearing close-on-exec: %w", e))
	}
	return r, nil
}

// restoreEnv reads the hidden variables from the pipe numbered fdText and sets them.
func restoreEnv(fdText string) error {
	fd, err := strconv.Atoi(fdText)
	if err != nil || fd < 3 {
		return fmt.Errorf("%s=%q is not an inherited file descriptor", SecretsFDEnv, fdText)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return fmt.Errorf("%s=%d is not a pipe", SecretsFDEnv, fd)
	}
	syscall.CloseOnExec(fd)
	f := os.NewFile(uintptr(fd), "hidden environment")
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("reading the hidden environment: %w", err)
	}
	for kv := range strings.SplitSeq(string(data), "\x00") {
		if name, value, ok := strings.Cut(kv, "="); ok && name != "" {
			os.Setenv(name, value)
		}
	}
	return nil
}
