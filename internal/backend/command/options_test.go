package command_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A grep tool must not be turned into "grep -a -o -e PATTERN /proc/PID/environ": a value that
// starts with "-" is refused unless the argument allows options.
func TestOptionInjectionGrepEnviron(t *testing.T) {
	// The "gateway": a process started with a secret in its environment (/proc/PID/environ
	// is the environment a process was started with).
	gw := exec.Command("sleep", "60")
	gw.Env = []string{"MCPBRIDGE_SECRET_GREP_TEST=grep-secret-value-42"}
	if err := gw.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gw.Process.Kill(); gw.Wait() })
	b := open(t, `
servers:
  s:
    kind: command
    description: d
    tools:
      grep:
        description: search a file
        inputSchema: {type: object, properties: {pattern: {type: string}, file: {type: string}}, required: [pattern, file]}
        argv: [grep, {direct: pattern}, {direct: file}]
`)
	environ := fmt.Sprintf("/proc/%d/environ", gw.Process.Pid)
	r := call(t, b, "grep", fmt.Sprintf(`{"pattern": "-aoeMCPBRIDGE_SECRET_GREP_TEST=[a-z0-9-]*", "file": %q}`, environ))
	got := text(r)
	if strings.Contains(got, "grep-secret-value-42") {
		t.Fatalf("the option reached grep and the secret came back: %q", got)
	}
	if !r.IsError || !strings.Contains(got, `"pattern"`) || !strings.Contains(got, "allow_options") {
		t.Errorf("want an error naming the argument and allow_options, got %q (isError %v)", got, r.IsError)
	}
}

// A find tool must not run -exec smuggled in through an argument its schema does not declare
// as an array, nor through one that it does.
func TestOptionInjectionFindExecThroughArray(t *testing.T) {
	dir := t.TempDir()
	pwned := filepath.Join(dir, "pwned")
	b := open(t, `
servers:
  s:
    kind: command
    description: d
    tools:
      find:
        description: find files by name
        inputSchema: {type: object, properties: {dir: {description: where to look}, name: {type: string}}}
        argv: [find, {direct: dir}, -name, {direct: name}]
      findmany:
        description: find files in several directories
        inputSchema: {type: object, properties: {dirs: {type: array, items: {type: string}}}}
        argv: [find, {direct: dirs}, -maxdepth, "0"]
`)
	attack := fmt.Sprintf(`[%q, "-exec", "sh", "-c", "touch %s", ";"]`, dir, pwned)
	r := call(t, b, "find", `{"dir": `+attack+`, "name": "x"}`)
	if _, err := os.Stat(pwned); err == nil {
		t.Fatalf("find ran the smuggled -exec (result %q)", text(r))
	}
	r = call(t, b, "findmany", `{"dirs": `+attack+`}`)
	if _, err := os.Stat(pwned); err == nil {
		t.Fatalf("find ran the -exec of an array element (result %q)", text(r))
	}
	if !r.IsError || !strings.Contains(text(r), `"dirs"`) {
		t.Errorf("array element starting with -: want an error naming dirs, got %q", text(r))
	}
	// A declared array still expands into one element per item.
	r = call(t, b, "findmany", fmt.Sprintf(`{"dirs": [%q, %q]}`, dir, dir))
	if r.IsError || text(r) != dir+"\n"+dir+"\n" {
		t.Errorf("declared array: got %q (isError %v)", text(r), r.IsError)
	}
	// An undeclared one is one element: its JSON text.
	r = call(t, b, "find", `{"dir": ["a", "b"], "name": "x"}`)
	if !r.IsError || !strings.Contains(text(r), `["a","b"]`) {
		t.Errorf("undeclared array: want find to complain about the path [\"a\",\"b\"], got %q", text(r))
	}
}

// git log --output=FILE writes a file; a ref argument must not be able to say that.
func TestOptionInjectionGitLogOutput(t *testing.T) {
	repo := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("commit", "-q", "--allow-empty", "-m", "first")
	written := filepath.Join(t.TempDir(), "written")
	b := open(t, fmt.Sprintf(`
servers:
  s:
    kind: command
    description: d
    tools:
      log:
        description: git log of a ref
        inputSchema: {type: object, properties: {ref: {type: string}}, required: [ref]}
        argv: [git, log, --oneline, {direct: ref}]
        workdir: %s
        env: {HOME: /nonexistent}
`, repo))
	r := call(t, b, "log", fmt.Sprintf(`{"ref": "--output=%s"}`, written))
	if _, err := os.Stat(written); err == nil {
		t.Fatalf("git log wrote %s (result %q)", written, text(r))
	}
	if !r.IsError || !strings.Contains(text(r), `"ref"`) {
		t.Errorf("want an error naming ref, got %q", text(r))
	}
	r = call(t, b, "log", `{"ref": "HEAD"}`)
	if r.IsError || !strings.Contains(text(r), "first") {
		t.Errorf("git log HEAD: %q", text(r))
	}
}

// Expressions are held to the same rule; allow_options on an argument lifts it, and the
// auto_discover tool has a server-level switch.
func TestAllowOptions(t *testing.T) {
	b := open(t, `
servers:
  s:
    kind: command
    description: d
    tools:
      expr:
        description: echo through an expression
        inputSchema: {type: object, properties: {a: {type: string}}}
        argv: [printf, '%s\n', {expression: "args.a"}]
      allowed:
        description: head with options
        inputSchema: {type: object, properties: {opt: {type: string}, more: {type: array, items: {type: string}}}}
        argv: [printf, '%s\n', {direct: opt, allow_options: true}, {expression: "args.more", allow_options: true}]
      num:
        description: a number argument
        inputSchema: {type: object, properties: {n: {type: integer}}}
        argv: [printf, '%s\n', {direct: n}]
`)
	r := call(t, b, "expr", `{"a": "--help"}`)
	if !r.IsError || !strings.Contains(text(r), "argv[2]") || !strings.Contains(text(r), "allow_options") {
		t.Errorf("expression value starting with -: %q", text(r))
	}
	r = call(t, b, "allowed", `{"opt": "-n", "more": ["-x", "--y"]}`)
	if r.IsError || text(r) != "-n\n-x\n--y\n" {
		t.Errorf("allow_options: %q (isError %v)", text(r), r.IsError)
	}
	r = call(t, b, "num", `{"n": -5}`)
	if !r.IsError || !strings.Contains(text(r), `"n"`) {
		t.Errorf("negative number: %q", text(r))
	}
	r = call(t, b, "num", `{"n": 5}`)
	if r.IsError || text(r) != "5\n" {
		t.Errorf("positive number: %q", text(r))
	}

	strict := open(t, `
servers:
  s:
    kind: command
    description: uname
    auto_discover: true
    argv: [uname]
`)
	r = call(t, strict, "s", `{"args": ["-s"]}`)
	if !r.IsError || !strings.Contains(text(r), "args[0]") || !strings.Contains(text(r), "allow_options") {
		t.Errorf("auto_discover without allow_options: %q", text(r))
	}
	loose := open(t, `
servers:
  s:
    kind: command
    description: uname
    auto_discover: true
    allow_options: true
    argv: [uname]
`)
	r = call(t, loose, "s", `{"args": ["-s"]}`)
	if r.IsError || strings.TrimSpace(text(r)) != "Linux" {
		t.Errorf("auto_discover with allow_options: %q", text(r))
	}
}
