// Command testlog reads the output of `go test -json` on stdin, keeps all of it in a file
// (every test's log, passing or not, for scripts/secrets-scan.sh), and prints what plain
// `go test` prints: a line per package, and the output of the tests that failed.
//
//	go test -json ./... | go run ./scripts/testlog -o run.json
//
// -show REGEX also prints the output lines of passing tests that match (a suite's figures).
//
// When anything failed, the output ends with a summary: every failed package, test and
// subtest by its full name with the last lines of its message (from a panic's first line
// when it panicked), the tests a crash or a -timeout left unfinished, a package's own output
// when it failed outside a test (build failure, panic in TestMain), and a last line naming
// them all. It exits 1 when a test or package failed (or the stream had no result), so a
// pipeline with pipefail fails as `go test` would.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

// maxLines bounds the message lines the summary shows of one failure.
const maxLines = 20

// event is one line of test2json output.
type event struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string // build-output and build-fail events
	FailedBuild string // a package's fail event when its build failed
}

func main() {
	out := flag.String("o", "", "file that keeps the whole JSON stream")
	show := flag.String("show", "", "print output lines of passing tests that match this regular expression")
	flag.Parse()
	var re *regexp.Regexp
	if *show != "" {
		var err error
		if re, err = regexp.Compile(*show); err != nil {
			fmt.Fprintf(os.Stderr, "testlog: -show: %v\n", err)
			os.Exit(2)
		}
	}
	os.Exit(run(os.Stdin, os.Stdout, *out, re))
}

// failure is one entry of the summary.
type failure struct {
	pkg, test string // test is empty for the package itself
	note      string // why it is listed, when not a plain failure
	lines     []string
}

func (f failure) name() string {
	if f.test == "" {
		return f.pkg
	}
	return f.pkg + " " + f.test
}

func run(in io.Reader, stdout io.Writer, keep string, show *regexp.Regexp) int {
	var kept io.Writer = io.Discard
	if keep != "" {
		f, err := os.Create(keep)
		if err != nil {
			fmt.Fprintf(os.Stderr, "testlog: %v\n", err)
			return 2
		}
		defer f.Close()
		kept = f
	}
	pending := map[string][]string{} // package/test → its output so far
	builds := map[string][]string{}  // import path → its build output
	var failures []failure
	failed, results := false, 0
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		fmt.Fprintf(kept, "%s\n", line)
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			fmt.Fprintf(stdout, "%s\n", line) // build errors and other text
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch e.Action {
		case "build-output":
			fmt.Fprint(stdout, e.Output) // compiler errors
			builds[e.ImportPath] = append(builds[e.ImportPath], e.Output)
		case "build-fail":
			failed = true
		case "output":
			if e.Test == "" {
				// Package lines: ok/FAIL summaries, build failures, panics outside tests.
				if s := strings.TrimRight(e.Output, "\n"); s != "PASS" && !strings.HasPrefix(s, "=== ") && !strings.HasPrefix(s, "--- PASS") {
					pending[key] = append(pending[key], e.Output)
				}
				continue
			}
			pending[key] = append(pending[key], e.Output)
			if show != nil && show.MatchString(e.Output) {
				fmt.Fprint(stdout, e.Output)
			}
		case "fail":
			failed = true
			if e.Test == "" {
				results++
				failures = append(failures, packageFailures(e, pending, builds, failures)...)
			} else {
				failures = append(failures, failure{pkg: e.Package, test: e.Test, lines: message(pending[key])})
			}
			fmt.Fprint(stdout, strings.Join(pending[key], ""))
			delete(pending, key)
		case "pass", "skip":
			if e.Test == "" {
				results++
				fmt.Fprint(stdout, strings.Join(pending[key], ""))
			}
			delete(pending, key)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(os.Stderr, "testlog: reading: %v\n", err)
		return 2
	}
	if results == 0 {
		failures = append(failures, failure{pkg: "(no package)", note: "the stream had no package result: did go test start at all?"})
	}
	if failed || results == 0 {
		summary(stdout, failures)
		return 1
	}
	return 0
}

// packageFailures lists what a package's fail event adds to the summary: the tests it left
// unfinished (a panic or -timeout ends the binary without a result for the tests running),
// and the package itself when its build failed, it printed something of its own, or no test
// explains the failure.
func packageFailures(e event, pending, builds map[string][]string, before []failure) []failure {
	var out []failure
	var idle []string
	var tests []string
	for k := range pending {
		if pkg, test, _ := strings.Cut(k, "\x00"); pkg == e.Package && test != "" {
			tests = append(tests, test)
		}
	}
	slices.Sort(tests)
	for _, test := range tests {
		k := e.Package + "\x00" + test
		if msg := message(pending[k]); len(msg) > 0 {
			out = append(out, failure{pkg: e.Package, test: test, note: "did not finish: the test binary crashed or timed out", lines: msg})
		} else {
			idle = append(idle, test)
		}
		delete(pending, k)
	}
	explained := len(out) > 0
	for _, f := range before {
		explained = explained || f.pkg == e.Package
	}
	var own []string
	for _, l := range pending[e.Package+"\x00"] {
		if s := strings.TrimRight(l, "\n"); s != "FAIL" && !strings.HasPrefix(s, "FAIL\t"+e.Package) && !strings.HasPrefix(s, "ok  \t") {
			own = append(own, l)
		}
	}
	pf := failure{pkg: e.Package, lines: message(own)}
	switch {
	case e.FailedBuild != "":
		pf.note = "build failed"
		pf.lines = message(append(builds[e.FailedBuild], own...))
	case len(own) > 0:
		pf.note = "failed outside a test"
	case !explained:
		pf.note = "failed, and no test failed (TestMain, os.Exit, or a crash before any test)"
	}
	if len(idle) > 0 {
		const most = 10
		list := idle
		if len(list) > most {
			list = append(slices.Clone(list[:most]), fmt.Sprintf("and %d more", len(idle)-most))
		}
		pf.lines = append(pf.lines, "tests started and left unfinished: "+strings.Join(list, ", "))
		if pf.note == "" {
			pf.note = "stopped with tests unfinished"
		}
	}
	if pf.note != "" {
		out = append(out, pf)
	}
	return out
}

// message is the part of a test's output that says what went wrong: its lines without the
// framework's === and --- lines, bounded to maxLines — from the first line of a panic when
// there is one (its message and the top of its stack), else the first and the last lines.
func message(output []string) []string {
	var lines []string
	for _, l := range output {
		s := strings.TrimRight(l, "\n")
		t := strings.TrimLeft(s, " ")
		if strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- PASS: ") || strings.HasPrefix(t, "--- FAIL: ") || strings.HasPrefix(t, "--- SKIP: ") {
			continue
		}
		lines = append(lines, s)
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			lines = append(lines[:i:i], ownFrames(lines[i:])...)
			if len(lines)-i > maxLines {
				return append(lines[i:i+maxLines:i+maxLines], fmt.Sprintf("… (%d more lines in the log)", len(lines)-i-maxLines))
			}
			return lines[i:]
		}
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > maxLines {
		// The first lines name the assertion (file:line and what it checks), the last ones
		// usually hold the cause: keep both, and say how many in between were left out.
		const head = 3
		tail := lines[len(lines)-(maxLines-head):]
		out := append(lines[:head:head], fmt.Sprintf("… (%d lines between in the log)", len(lines)-maxLines))
		return append(out, tail...)
	}
	return lines
}

// stdFrame matches the file line of a stack frame in the standard library's runtime,
// testing and other packages a test's own code runs under.
var stdFrame = regexp.MustCompile(`^\t(\S*/src/(runtime|testing|time|sync|reflect|internal|os|syscall|io|net|bufio|context)/\S+|_testmain)\.go:\d+`)

// ownFrames drops the standard library's frames (function line and file line) from a panic's
// stack dumps, and the goroutines left with no frame, so the bounded message shows the
// panic and the test's own code.
func ownFrames(lines []string) []string {
	var kept []string
	for i := 0; i < len(lines); i++ {
		if i+1 < len(lines) && !strings.HasPrefix(lines[i], "\t") && stdFrame.MatchString(lines[i+1]) {
			i++
			continue
		}
		kept = append(kept, lines[i])
	}
	var out []string
	for i, l := range kept {
		if strings.HasPrefix(l, "goroutine ") && (i+1 == len(kept) || strings.TrimSpace(kept[i+1]) == "") {
			continue
		}
		if strings.TrimSpace(l) == "" && len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
			continue
		}
		out = append(out, l)
	}
	return out
}

// summary prints the failures, a parent test left out when it only failed because a subtest
// did and said nothing itself, and ends with a line naming every failure.
func summary(w io.Writer, failures []failure) {
	var shown []failure
	for i, f := range failures {
		if f.test != "" && f.note == "" && len(f.lines) == 0 && slices.ContainsFunc(failures[:i], func(g failure) bool {
			return g.pkg == f.pkg && strings.HasPrefix(g.test, f.test+"/")
		}) {
			continue
		}
		shown = append(shown, f)
	}
	if len(shown) == 0 {
		shown = failures
	}
	fmt.Fprintf(w, "\n==== testlog: %d failed (package, test, message; the whole log is in the -o file)\n", len(shown))
	var names []string
	for _, f := range shown {
		head := "FAIL " + f.name()
		if f.note != "" {
			head += " (" + f.note + ")"
		}
		fmt.Fprintln(w, head)
		for _, l := range f.lines {
			fmt.Fprintln(w, "    "+strings.TrimLeft(l, " "))
		}
		names = append(names, f.name())
	}
	fmt.Fprintf(w, "==== FAILED: %s\n", strings.Join(names, "; "))
}
