package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// readStat finds the fields after a command name that holds spaces and parentheses.
func TestReadStat(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip(err)
	}
	data, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(t.TempDir(), "a) 1 2 (b")
	if err := os.WriteFile(odd, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(odd, "10")
	cmd.SysProcAttr = nil
	j, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { j.Kill(); cmd.Wait(); j.Done() }()
	st, err := readStat(j.Pid())
	if err != nil {
		t.Fatal(err)
	}
	if st.ppid != os.Getpid() || st.sid != j.Pid() || st.start == 0 || st.start != j.startTicks() {
		t.Errorf("stat of %d = %+v (job start %d), want parent %d and session %d", j.Pid(), st, j.start, os.Getpid(), j.Pid())
	}
	// Our own session: getsid and /proc agree (0 when its leader lives in a parent pid
	// namespace, as in some CI containers), and it is not the job's.
	self, err := readStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if got := getsid(0); got < 0 || got != self.sid || got == j.Pid() {
		t.Errorf("getsid(0) = %d, /proc says %d, job %d", got, self.sid, j.Pid())
	}
}

// HasWriters tells a pipe whose writer is open from one whose writers are all gone.
func TestHasWriters(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.Write([]byte("unread"))
	if !HasWriters(r) {
		t.Error("HasWriters = false with the write end open")
	}
	w.Close()
	if HasWriters(r) {
		t.Error("HasWriters = true with the write end closed")
	}
	buf := make([]byte, 10)
	if n, _ := r.Read(buf); string(buf[:n]) != "unread" {
		t.Errorf("HasWriters read from the pipe: %q left", buf[:n])
	}
}
