//go:build unix

package upstream

import (
	"os/exec"
	"syscall"
)

type signal = syscall.Signal

const (
	terminate = syscall.SIGTERM
	kill      = syscall.SIGKILL
)

// setProcessGroup starts the child in a process group of its own, so that stopping it
// also stops what it started (npx starts node, a shell script starts its program).
func setProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// signalGroup sends sig to the child's process group.
func signalGroup(cmd *exec.Cmd, sig signal) {
	if cmd.Process == nil || cmd.Process.Pid <= 0 {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
