//go:build windows

package proc

import (
	"fmt"
	"os/exec"
	"unsafe"

	"golang.org/x/sys/windows"
)

// sysJob is the job object the process was assigned to.
type sysJob struct{ h windows.Handle }

// Start starts cmd and assigns it to a job object of its own that kills every process in it
// when it is closed. A process the child starts before the assignment (a few instructions
// after it begins) is not in the job: that is the weaker form of a process group Windows
// allows without suspending the child. Call [Job.Done] after cmd.Wait returns.
func Start(cmd *exec.Cmd) (*Job, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("create a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(h)
		return nil, fmt.Errorf("set up a job object: %w", err)
	}
	if err := cmd.Start(); err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	ph, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err == nil {
		err = windows.AssignProcessToJobObject(h, ph)
		windows.CloseHandle(ph)
	}
	if err != nil {
		// The process runs but cannot be put in the job: kill it rather than leave
		// something a call cannot stop.
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		windows.CloseHandle(h)
		return nil, fmt.Errorf("assign process %d to a job object: %w", cmd.Process.Pid, err)
	}
	return &Job{pid: cmd.Process.Pid, sys: sysJob{h: h}}, nil
}

// killGroup terminates every process in the job object.
func (j *Job) killGroup() error { return windows.TerminateJobObject(j.sys.h, 1) }

// release closes the job object.
func (j *Job) release() { windows.CloseHandle(j.sys.h) }

// Done kills what is left in the job object and closes it. Call it once, after cmd.Wait
// has returned.
func (j *Job) Done() { j.finish() }
