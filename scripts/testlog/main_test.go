package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The streams in testdata are real `go test -json` output of small packages (recorded with
// go1.25): a failing subtest among passing ones, a panic in a subtest, a -timeout 2s hang,
// a build failure, a panic in TestMain, and a passing run.

// tail runs testlog on a recorded stream and returns its exit code and the lines from the
// summary's heading on (the whole output when there is no summary).
func tail(t *testing.T, name string) (int, []string, string) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	code := run(f, &out, filepath.Join(t.TempDir(), "kept.json"), nil)
	all := out.String()
	i := strings.LastIndex(all, "\n==== testlog: ")
	if i < 0 {
		return code, nil, all
	}
	return code, strings.Split(strings.TrimRight(all[i+1:], "\n"), "\n"), all
}

// last returns the final line of the summary.
func last(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return lines[len(lines)-1]
}

// has reports whether want appears, in order, among lines (each a substring of one line).
func has(lines []string, want ...string) bool {
	i := 0
	for _, l := range lines {
		if i < len(want) && strings.Contains(l, want[i]) {
			i++
		}
	}
	return i == len(want)
}

func TestFailingSubtestAmongPassing(t *testing.T) {
	code, sum, all := tail(t, "subfail")
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if got, want := last(sum), "==== FAILED: example.com/rec/subfail TestTable/second_case"; got != want {
		t.Errorf("last line %q, want %q\n%s", got, want, all)
	}
	if !has(sum, "FAIL example.com/rec/subfail TestTable/second_case",
		"a_test.go:12: got 240ms, want an error from the 250ms limit",
		"a_test.go:13: the attack was not stopped") {
		t.Errorf("the summary lacks the failed subtest's messages:\n%s", strings.Join(sum, "\n"))
	}
	for _, l := range sum {
		// Passing tests' logs and the parent that only failed through its subtest stay out.
		if strings.Contains(l, "passes") || strings.Contains(l, "running first") || strings.HasSuffix(l, " TestTable") {
			t.Errorf("summary line %q is not about the failure", l)
		}
	}
}

func TestPanicInASubtest(t *testing.T) {
	code, sum, all := tail(t, "panic")
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if got := last(sum); !strings.HasPrefix(got, "==== FAILED: ") || !strings.Contains(got, "example.com/rec/panic TestBoom/inner") {
		t.Errorf("last line %q does not name the panicking subtest\n%s", got, all)
	}
	// test2json puts the panic under the parent test: the summary shows its first line and
	// the test's own frame, not 20 lines of the testing package's frames.
	if !has(sum, "FAIL example.com/rec/panic TestBoom/inner", "about to index",
		"FAIL example.com/rec/panic TestBoom", "panic: assignment to entry in nil map", "panic/a_test.go:11") {
		t.Errorf("the summary lacks the panic and where it happened:\n%s", strings.Join(sum, "\n"))
	}
	for _, l := range sum {
		if strings.Contains(l, "/src/testing/") {
			t.Errorf("summary keeps a testing package frame: %q", l)
		}
	}
}

func TestTimeout(t *testing.T) {
	code, sum, all := tail(t, "timeout")
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	// test2json gives the tests a timeout stops no result: they must still be named.
	if got, want := last(sum), "==== FAILED: example.com/rec/timeout TestHang/waits; example.com/rec/timeout"; got != want {
		t.Errorf("last line %q, want %q\n%s", got, want, all)
	}
	if !has(sum, "FAIL example.com/rec/timeout TestHang/waits (did not finish", "panic: test timed out after 2s",
		"timeout/a_test.go:13", "FAIL example.com/rec/timeout (stopped with tests unfinished)", "left unfinished: TestHang") {
		t.Errorf("the summary lacks the timed-out test:\n%s", strings.Join(sum, "\n"))
	}
}

func TestBuildFailure(t *testing.T) {
	code, sum, all := tail(t, "buildfail")
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if got, want := last(sum), "==== FAILED: example.com/rec/buildfail"; got != want {
		t.Errorf("last line %q, want %q\n%s", got, want, all)
	}
	if !has(sum, "FAIL example.com/rec/buildfail (build failed)", `a_test.go:5:40: cannot use "no"`) {
		t.Errorf("the summary lacks the compiler's message:\n%s", strings.Join(sum, "\n"))
	}
}

func TestPassingRunHasNoSummary(t *testing.T) {
	code, sum, all := tail(t, "pass")
	if code != 0 || sum != nil {
		t.Errorf("exit code %d, summary %q; want 0 and none\n%s", code, sum, all)
	}
}

func TestEmptyStreamFails(t *testing.T) {
	var out strings.Builder
	if code := run(strings.NewReader(""), &out, "", nil); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if !strings.Contains(out.String(), "no package result") {
		t.Errorf("output %q does not say the stream had no result", out.String())
	}
}

// A long message keeps its first lines (the assertion) and its last (the cause), and says
// how many were left out between them.
func TestMessageIsBounded(t *testing.T) {
	var in []string
	for i := range 50 {
		in = append(in, "    x_test.go:1: line "+strings.Repeat("i", i%3)+"\n")
	}
	in[0] = "    x_test.go:1: the assertion\n"
	in[49] = "    x_test.go:1: the cause\n"
	got := message(in)
	if len(got) != maxLines+1 || !strings.Contains(got[0], "the assertion") || !strings.Contains(got[3], "30 lines between") || !strings.Contains(got[maxLines], "the cause") {
		t.Errorf("message = %q", got)
	}
}

// A panic outside any test (here in TestMain) is the package's own output: it is shown.
func TestPanicOutsideATest(t *testing.T) {
	code, sum, all := tail(t, "mainpanic")
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if got, want := last(sum), "==== FAILED: example.com/rec/mainpanic"; got != want {
		t.Errorf("last line %q, want %q\n%s", got, want, all)
	}
	if !has(sum, "FAIL example.com/rec/mainpanic (failed outside a test)", "panic: TestMain could not start the server: no port", "mainpanic/a_test.go:10") {
		t.Errorf("the summary lacks the package's panic:\n%s", strings.Join(sum, "\n"))
	}
}
