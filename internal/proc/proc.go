// Package proc supervises the processes the gateway starts for tool calls, so that a call
// leaves nothing behind: each process runs in a session of its own, and when its call ends
// everything left from it is killed and reaped — its process group, and on Linux also the
// descendants that left the group or the session (setsid, double fork).
//
// On Linux the first [Start] makes the gateway a child subreaper (prctl
// PR_SET_CHILD_SUBREAPER): a descendant whose parent exits is re-parented to the gateway
// instead of to init, so every leftover of a call is either a child of the gateway or below
// one. When a call ends ([Job.Done]), its process group is killed at once; then, in the
// background and shared by the calls that end together, the gateway kills the children it
// did not start itself that come from ended calls, waits for them, and repeats for what was
// re-parented to it meanwhile, until nothing is left. A child comes from a call when it is in
// the call's session; a child that made a session of its own cannot name its call, so it is
// killed once no call that could have started it (no call that started before it) is still
// running. The gateway also reaps, on SIGCHLD, the zombies of such re-parented children.
//
// Every child of the process that runs in a session of its own must be started through
// [Start]: a child in another session that the package does not know would be taken for a
// leftover. Children that stay in the gateway's own session are never touched.
//
// Elsewhere (other Unix systems) only the process group is killed. On Windows each process
// is put in a job object right after it starts, and the job object is terminated: a
// descendant the process started before it was assigned, or one created with
// CREATE_BREAKAWAY_FROM_JOB, escapes (the weaker form, documented in docs/deployment.md).
//
// [HideEnv] keeps the gateway's secrets out of the environment it was started with, which
// its children could read in /proc/PID/environ.
package proc

import "sync"

// A Job is a process started by [Start]. Its methods are safe for concurrent use.
type Job struct {
	pid int

	startOnce sync.Once
	start     uint64 // start time in clock ticks after boot (Linux), see startTicks

	mu   sync.Mutex
	done bool // Done was called: the group id may be reused

	sys sysJob // what the operating system needs to kill the job
}

// Pid returns the process id of the job's process, which is also its process group id.
func (j *Job) Pid() int { return j.pid }

// Kill kills the job's process group with SIGKILL (on Windows, its job object): the process
// and every descendant that did not leave the group. Use it to stop a call (timeout,
// cancellation); it is a no-op after [Job.Done].
func (j *Job) Kill() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done {
		return nil
	}
	return j.killGroup()
}

// finish kills the job's process group a last time and marks the job done.
func (j *Job) finish() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.done {
		_ = j.killGroup()
		j.release()
		j.done = true
	}
}
