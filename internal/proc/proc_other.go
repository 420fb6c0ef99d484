//go:build unix && !linux

package proc

import (
	"os/exec"
	"syscall"
)

// Start starts cmd in a process group of its own (setting cmd.SysProcAttr.Setpgid).
// Call [Job.Done] after cmd.Wait returns.
func Start(cmd *exec.Cmd) (*Job, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Job{pid: cmd.Process.Pid}, nil
}

// Done kills what is left of the job's process group. Call it once, after cmd.Wait has
// returned.
func (j *Job) Done() { j.finish() }
