package proc

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMain runs the hideEnvChild helper when the test binary is started as one.
func TestMain(m *testing.M) {
	if os.Getenv("PROC_TEST_HIDE_ENV") == "1" {
		hideEnvChild()
		return
	}
	os.Exit(m.Run())
}

// hideEnvChild hides PROC_TEST_SECRET_*, then reports what os.Getenv and /proc/self/environ
// hold.
func hideEnvChild() {
	if err := HideEnv(func(name string) bool { return strings.HasPrefix(name, "PROC_TEST_SECRET_") }); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	environ, _ := os.ReadFile("/proc/self/environ")
	fmt.Printf("big=%d small=%q fd=%q environ-has-secret=%v pid=%d\n", len(os.Getenv("PROC_TEST_SECRET_BIG")), os.Getenv("PROC_TEST_SECRET_SMALL"),
		os.Getenv(SecretsFDEnv), strings.Contains(string(environ), "PROC_TEST_SECRET_"), os.Getpid())
	os.Exit(0)
}

// HideEnv re-executes the binary (same pid) with the secrets out of its exec-time
// environment and in its Go environment, even when they do not fit a default pipe.
func TestHideEnv(t *testing.T) {
	big := strings.Repeat("b", 100<<10) // more than a pipe holds by default (64 KiB)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "PROC_TEST_HIDE_ENV=1", "PROC_TEST_SECRET_BIG="+big, "PROC_TEST_SECRET_SMALL=a=b c")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := fmt.Sprintf(`big=%d small="a=b c" fd="" environ-has-secret=false pid=%d`, len(big), cmd.Process.Pid)
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
