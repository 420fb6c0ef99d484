//go:build !unix

package upstream

import (
	"os"
	"os/exec"
)

type signal int

const (
	terminate signal = iota
	kill
)

func setProcessGroup(*exec.Cmd) {}

// signalGroup kills the child (there are no process groups to signal here).
func signalGroup(cmd *exec.Cmd, _ signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Signal(os.Kill)
	}
}
