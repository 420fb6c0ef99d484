package proc

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER of prctl(2).
const prSetChildSubreaper = 36

// sup is the process's supervisor: there is one set of children per process.
var sup supervisor

type supervisor struct {
	once      sync.Once
	subreaper bool // prctl succeeded: leftovers become our children
	self      int  // our pid
	selfSid   int  // our session id

	// starting is held (read) while a job is being started and (write) while children are
	// reaped, so that a child is never reaped between its fork and its registration.
	starting sync.RWMutex
	mu       sync.Mutex
	jobs     map[int]*Job // running jobs by pid (= pgid = sid)
}

func (s *supervisor) init() {
	s.once.Do(func() {
		s.self = os.Getpid()
		s.selfSid = getsid(0)
		s.jobs = map[int]*Job{}
		_, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
		s.subreaper = e == 0
		if s.subreaper {
			ch := make(chan os.Signal, 1)
			signal.Notify(ch, syscall.SIGCHLD)
			go func() {
				for range ch {
					s.reapZombies()
				}
			}()
		}
	})
}

// Start starts cmd in a new session (setting cmd.SysProcAttr.Setsid) and registers it.
// Call [Job.Done] after cmd.Wait returns.
func Start(cmd *exec.Cmd) (*Job, error) {
	sup.init()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setpgid = false
	sup.starting.RLock()
	defer sup.starting.RUnlock()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	j := &Job{pid: cmd.Process.Pid}
	if st, err := readStat(j.pid); err == nil {
		j.start = st.start
	}
	sup.mu.Lock()
	sup.jobs[j.pid] = j
	sup.mu.Unlock()
	return j, nil
}

// Done kills and reaps what is left of the job: its process group, and the re-parented
// descendants that come from it. Call it once, after cmd.Wait has returned.
func (j *Job) Done() {
	j.finish()
	sup.mu.Lock()
	delete(sup.jobs, j.pid)
	sup.mu.Unlock()
	if sup.subreaper {
		sup.sweep(j)
	}
}

// sweep kills the children that are leftovers of ended jobs (ended being the job that has
// just ended), waits for them, and repeats with what was re-parented to us meanwhile, until
// no leftover remains.
func (s *supervisor) sweep(ended *Job) {
	s.starting.Lock()
	defer s.starting.Unlock()
	for range 100 {
		var killed []int
		for _, pid := range s.children() {
			if s.running(pid) {
				continue
			}
			st, err := readStat(pid)
			if err != nil || !s.isLeftover(pid, st, ended) {
				continue
			}
			if st.state != 'Z' {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			killed = append(killed, pid)
		}
		if len(killed) == 0 {
			return
		}
		reap(killed, 200*time.Millisecond)
	}
}

// running reports whether pid is a running job.
func (s *supervisor) running(pid int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.jobs[pid] != nil
}

// isLeftover reports whether our child pid is a leftover of an ended job.
func (s *supervisor) isLeftover(pid int, st stat, ended *Job) bool {
	if st.sid == s.selfSid {
		return false // in our own session: not started by a job
	}
	if st.sid == ended.pid {
		return true // in the session of the job that has just ended
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.jobs[pid] != nil || s.jobs[st.sid] != nil {
		return false // a running job, or in the session of one
	}
	// In a session of its own (or of an older ended job): it may come from any running job
	// that started before it. It is a leftover when there is none.
	for _, j := range s.jobs {
		if j.start <= st.start {
			return false
		}
	}
	return true
}

// reapZombies reaps the zombies of children that are not running jobs (re-parented
// leftovers that ended by themselves).
func (s *supervisor) reapZombies() {
	s.starting.Lock()
	defer s.starting.Unlock()
	for _, pid := range s.children() {
		if s.running(pid) {
			continue
		}
		if st, err := readStat(pid); err == nil && st.state == 'Z' && st.sid != s.selfSid {
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
	}
}

// reap waits up to d for the given children to exit and reaps them; the rest is left to
// reapZombies.
func reap(pids []int, d time.Duration) {
	deadline := time.Now().Add(d)
	for len(pids) > 0 {
		rest := pids[:0]
		for _, pid := range pids {
			var ws syscall.WaitStatus
			got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			if got == 0 && err == nil {
				rest = append(rest, pid)
			}
		}
		pids = rest
		if len(pids) == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// children returns the pids of our children, from /proc/self/task/*/children, or by
// scanning /proc when the kernel does not provide those files.
func (s *supervisor) children() []int {
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	if len(tasks) == 0 {
		return s.scanChildren()
	}
	var pids []int
	for _, f := range tasks {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, w := range bytes.Fields(data) {
			if pid, err := strconv.Atoi(string(w)); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

func (s *supervisor) scanChildren() []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := readStat(pid); err == nil && st.ppid == s.self {
			pids = append(pids, pid)
		}
	}
	return pids
}

// stat is what we use of /proc/PID/stat.
type stat struct {
	state byte
	ppid  int
	sid   int
	start uint64 // clock ticks after boot
}

func readStat(pid int) (stat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, err
	}
	// The command name (field 2) is in parentheses and may contain anything.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 || i+2 > len(data) {
		return stat{}, errors.New("malformed stat")
	}
	f := bytes.Fields(data[i+2:]) // f[0] is field 3 (state)
	if len(f) < 20 {
		return stat{}, errors.New("malformed stat")
	}
	var st stat
	st.state = f[0][0]
	st.ppid, _ = strconv.Atoi(string(f[1]))
	st.sid, _ = strconv.Atoi(string(f[3]))
	st.start, _ = strconv.ParseUint(string(f[19]), 10, 64)
	return st, nil
}

func getsid(pid int) int {
	sid, _, e := syscall.RawSyscall(syscall.SYS_GETSID, uintptr(pid), 0, 0)
	if e != 0 {
		return -1
	}
	return int(sid)
}
