package proc

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
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

	// starting counts the jobs between fork and registration: while there are any, a child
	// we do not know may be one of them, so it is neither killed nor reaped.
	starting atomic.Int64
	mu       sync.Mutex
	jobs     map[int]*Job // running jobs by pid (= pgid = sid)
	ended    map[int]bool // sessions of jobs that ended since the last sweep
	kick     chan struct{}
}

func (s *supervisor) init() {
	s.once.Do(func() {
		s.self = os.Getpid()
		s.selfSid = getsid(0)
		s.jobs = map[int]*Job{}
		s.ended = map[int]bool{}
		s.kick = make(chan struct{}, 1)
		_, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
		s.subreaper = e == 0
		if !s.subreaper {
			return
		}
		go func() {
			for range s.kick {
				// Let the jobs ending about now share one sweep.
				time.Sleep(sweepDelay)
				s.sweep()
			}
		}()
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGCHLD)
		go func() {
			for range ch {
				s.reapZombies()
			}
		}()
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
	sup.starting.Add(1)
	defer sup.starting.Add(-1)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	j := &Job{pid: cmd.Process.Pid}
	sup.mu.Lock()
	sup.jobs[j.pid] = j
	sup.mu.Unlock()
	return j, nil
}

// Done kills the job's process group and has what else is left of the job killed and
// reaped: the re-parented descendants that come from it. That happens in the background,
// shortly after, together for the jobs that ended meanwhile. Call Done once, after cmd.Wait
// has returned.
func (j *Job) Done() {
	j.finish()
	sup.mu.Lock()
	delete(sup.jobs, j.pid)
	if sup.subreaper {
		sup.ended[j.pid] = true
	}
	sup.mu.Unlock()
	if sup.subreaper {
		select {
		case sup.kick <- struct{}{}:
		default: // a sweep is due already
		}
	}
}

// sweepDelay is how long a sweep waits after a job ended, so that jobs ending together
// are swept together.
const sweepDelay = 10 * time.Millisecond

// again asks for another sweep a little later: a child could not be judged now.
func (s *supervisor) again() {
	time.AfterFunc(50*time.Millisecond, func() {
		select {
		case s.kick <- struct{}{}:
		default:
		}
	})
}

// sweep kills the children that are leftovers of ended jobs, waits for them, and repeats
// with what was re-parented to us meanwhile, until no leftover remains.
func (s *supervisor) sweep() {
	s.mu.Lock()
	ended := s.ended
	s.ended = map[int]bool{}
	s.mu.Unlock()
	deferred := false
	defer func() {
		if deferred {
			s.mu.Lock()
			maps.Copy(s.ended, ended)
			s.mu.Unlock()
			s.again()
		}
	}()
	for range 100 {
		children := s.children()
		// Read after listing and before looking at the jobs: a job forked before the
		// listing is then either still being started, or registered.
		starting := s.starting.Load() > 0
		var killed []int
		for _, pid := range children {
			if s.running(pid) {
				continue
			}
			st, err := readStat(pid)
			if err != nil {
				continue
			}
			switch s.judge(pid, st, ended, starting) {
			case keep:
				continue
			case unsure:
				deferred = true
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

// The verdicts on a child that is not a running job.
const (
	keep     = iota // not a leftover (yet)
	leftover        // kill and reap it
	unsure          // it may be a job being started: look again later
)

// running reports whether pid is a running job.
func (s *supervisor) running(pid int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.jobs[pid] != nil
}

// judge decides on a child of ours that is not a registered job. ended holds the sessions
// of the jobs this sweep is for; starting says whether a job was being started after the
// children were listed.
func (s *supervisor) judge(pid int, st stat, ended map[int]bool, starting bool) int {
	if st.sid == s.selfSid {
		return keep // in our own session: not started by a job
	}
	if ended[st.sid] && st.sid != pid {
		// In the session of a job that has ended. (The session's leader, the job's
		// process, has been reaped: a process leading a session of that number is new.)
		return leftover
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.jobs[st.sid] != nil {
		return keep // in the session of a running job
	}
	if starting {
		return unsure
	}
	// In a session of its own (or of a job swept before): it may come from any running job
	// that started before it. It is a leftover when there is none.
	for _, j := range s.jobs {
		if j.startTicks() <= st.start {
			return keep
		}
	}
	return leftover
}

// startTicks returns when the job's process started, in clock ticks after boot, read from
// /proc the first time it is needed (the process is running, hence not reaped); 0 when it
// cannot be read, which makes the job older than any other process.
func (j *Job) startTicks() uint64 {
	j.startOnce.Do(func() {
		if st, err := readStat(j.pid); err == nil {
			j.start = st.start
		}
	})
	return j.start
}

// reapZombies reaps the zombies of children that are not jobs (re-parented leftovers that
// ended by themselves). It peeks at one zombie at a time with waitid(WNOWAIT), and stops at
// the first that is a job's or not in a session of a job: cmd.Wait reaps those.
func (s *supervisor) reapZombies() {
	for range 1000 {
		pid := peekZombie()
		starting := s.starting.Load() > 0 // after peeking, before looking at the jobs, as in sweep
		if pid <= 0 || s.running(pid) {
			return
		}
		if st, err := readStat(pid); err != nil || st.sid == s.selfSid {
			return
		}
		if starting {
			// It may be a job that exited before it was registered; look again later.
			time.AfterFunc(50*time.Millisecond, s.reapZombies)
			return
		}
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	}
}

// waitid(2) constants.
const (
	pAll        = 0
	wExited     = 4
	wNoWait     = 0x1000000
	wNoHang     = 1
	sigInfoSize = 128
)

// peekZombie returns the pid of a child that has exited and is not reaped yet, without
// reaping it, or 0.
func peekZombie() int {
	var info [sigInfoSize]byte
	_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pAll, 0, uintptr(unsafe.Pointer(&info)), wExited|wNoHang|wNoWait, 0, 0)
	if e != 0 {
		return 0
	}
	// siginfo_t: si_signo, si_errno, si_code (int32 each), then on 64-bit systems padding
	// to 8 bytes, then si_pid (int32).
	off := 12
	if unsafe.Sizeof(uintptr(0)) == 8 {
		off = 16
	}
	return int(*(*int32)(unsafe.Pointer(&info[off])))
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

// children returns the pids of our children, from /proc/self/task/TID/children (a thread's
// children), or by scanning /proc when the kernel does not provide those files.
func (s *supervisor) children() []int {
	d, err := os.Open("/proc/self/task")
	if err != nil {
		return s.scanChildren()
	}
	tids, _ := d.Readdirnames(-1)
	d.Close()
	var pids []int
	for _, tid := range tids {
		data, err := os.ReadFile("/proc/self/task/" + tid + "/children")
		if err != nil {
			if os.IsNotExist(err) && len(pids) == 0 {
				if _, err := os.Stat("/proc/self/task/" + tid); err == nil {
					return s.scanChildren() // CONFIG_PROC_CHILDREN is off
				}
			}
			continue // the thread has exited
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
