//go:build unix

package proc

import "syscall"

// sysJob is empty on Unix: the process group id is the job's pid.
type sysJob struct{}

// killGroup sends SIGKILL to the job's process group.
func (j *Job) killGroup() error { return syscall.Kill(-j.pid, syscall.SIGKILL) }

// release frees nothing on Unix.
func (j *Job) release() {}
