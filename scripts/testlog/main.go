// Command testlog reads the output of `go test -json` on stdin, keeps all of it in a file
// (every test's log, passing or not, for scripts/secrets-scan.sh), and prints what plain
// `go test` prints: a line per package, and the output of the tests that failed.
//
//	go test -json ./... | go run ./scripts/testlog -o run.json
//
// -show REGEX also prints the output lines of passing tests that match (a suite's figures).
//
// It exits 1 when a test or package failed (or the stream had no result), so a pipeline with
// pipefail fails as `go test` would.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// event is one line of test2json output.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
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
	if failed || results == 0 {
		return 1
	}
	return 0
}
