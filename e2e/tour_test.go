package e2e

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The README's tour lies between these marker comments.
const (
	tourStart = "<!-- tour:"
	tourEnd   = "<!-- /tour -->"
	// tourAddr is the address the README's commands and links name; the test serves on a free
	// port instead and puts its address in their place.
	tourAddr = "127.0.0.1:8080"
	// goRunMcpbridge is how the README runs mcpbridge; the test runs the binary it built.
	goRunMcpbridge = "go run ./cmd/mcpbridge"
)

// tourStep is one thing the tour tells a reader to do: run a command and see lines of its
// output, or open a link and see names on the page.
type tourStep struct {
	Line    int      // line of README.md where the step starts
	Command string   // a `$` line of an sh block, continuation lines included
	Expect  []string // the lines shown under the command (… stands for any text)
	Link    string   // a <http://127.0.0.1:8080/…> link of the text
	Names   []string // the names in backticks after the link in its sentence
}

var (
	tourLinkRe = regexp.MustCompile(`<(http://` + regexp.QuoteMeta(tourAddr) + `/[^>\s]*)>`)
	backtickRe = regexp.MustCompile("`([^`]+)`")
	sentenceRe = regexp.MustCompile(`\.(\s|$)`)
)

// parseTour reads the tour section of a README: the `$` commands of its ```sh blocks with the
// output lines below each, and its links to the gateway with the names that follow them.
func parseTour(readme string) ([]tourStep, error) {
	i := strings.Index(readme, tourStart)
	if i < 0 {
		return nil, fmt.Errorf("README.md has no %q marker before its tour", tourStart)
	}
	j := strings.Index(readme[i:], tourEnd)
	if j < 0 {
		return nil, fmt.Errorf("README.md's tour has no closing %q", tourEnd)
	}
	// The marker comment itself is not tour text.
	k := strings.Index(readme[i:], "-->")
	firstLine := strings.Count(readme[:i+k], "\n") + 1
	lines := strings.Split(readme[i+k+len("-->"):i+j], "\n")

	var steps []tourStep
	var text strings.Builder // text outside code blocks since the last block, for links
	textLine := firstLine
	flushText := func() {
		s := text.String()
		for _, m := range tourLinkRe.FindAllStringSubmatchIndex(s, -1) {
			rest := s[m[1]:]
			if e := sentenceRe.FindStringIndex(rest); e != nil {
				rest = rest[:e[0]]
			}
			st := tourStep{Line: textLine + strings.Count(s[:m[0]], "\n"), Link: s[m[2]:m[3]]}
			for _, b := range backtickRe.FindAllStringSubmatch(rest, -1) {
				st.Names = append(st.Names, b[1])
			}
			steps = append(steps, st)
		}
		text.Reset()
	}
	for n := 0; n < len(lines); n++ {
		line := lines[n]
		trimmed := strings.TrimSpace(line)
		if !strings.HasPrefix(trimmed, "```") {
			if text.Len() == 0 {
				textLine = firstLine + n
			}
			text.WriteString(line + "\n")
			continue
		}
		flushText()
		lang := strings.TrimPrefix(trimmed, "```")
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
		// Find the block's end.
		end := n + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("README.md:%d: a code block of the tour is not closed", firstLine+n)
		}
		if lang == "sh" {
			var cur *tourStep
			for m := n + 1; m < end; m++ {
				l := strings.TrimPrefix(lines[m], indent)
				if cmd, ok := strings.CutPrefix(l, "$ "); ok {
					steps = append(steps, tourStep{Line: firstLine + m, Command: cmd})
					cur = &steps[len(steps)-1]
					for strings.HasSuffix(cur.Command, "\\") && m+1 < end {
						m++
						cur.Command += "\n" + strings.TrimPrefix(lines[m], indent)
					}
					continue
				}
				if cur == nil {
					return nil, fmt.Errorf("README.md:%d: a tour sh block must start with a `$ ` command line", firstLine+m)
				}
				cur.Expect = append(cur.Expect, l)
			}
		}
		n = end
	}
	flushText()
	return steps, nil
}

// expectLine matches one output line the README shows against a line of real output: the same
// text, leading and trailing space aside, where … in the README stands for any text.
func expectLine(want, got string) bool {
	parts := strings.Split(strings.TrimSpace(want), "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(`^` + strings.Join(parts, ".*") + `$`).MatchString(strings.TrimSpace(got))
}

// missingLines returns the first line of want (in order, lines of only … skipped) that the
// output does not show after the lines before it, or "" when all are there.
func missingLines(want []string, output string) string {
	got := strings.Split(output, "\n")
	at := 0
	for _, w := range want {
		if strings.TrimSpace(w) == "…" || strings.TrimSpace(w) == "" {
			continue
		}
		for at < len(got) && !expectLine(w, got[at]) {
			at++
		}
		if at == len(got) {
			return w
		}
		at++
	}
	return ""
}

// tourRunner runs the tour's commands the way a reader would, in one working directory.
type tourRunner struct {
	t      *testing.T
	dir    string // the reader's working directory (and HOME)
	listen string // the address serve listens on instead of 127.0.0.1:8080
	bin    string // the mcpbridge binary
	gw     *gateway
}

// shellCommand turns a README command into the shell command the test runs: the built binary
// for `go run ./cmd/mcpbridge`, the e2e Node tools for the pinned Inspector, the free port for
// 8080. A command the test does not know fails the test, so the tour cannot grow a step that
// nothing runs.
func (r *tourRunner) shellCommand(cmd string) string {
	r.t.Helper()
	cmd = strings.ReplaceAll(cmd, tourAddr, r.listen)
	switch {
	case strings.HasPrefix(cmd, goRunMcpbridge+" "):
		return shellQuote(r.bin) + strings.TrimPrefix(cmd, goRunMcpbridge)
	case strings.HasPrefix(cmd, pinnedInspector):
		tools := requireNodeTools(r.t)
		return shellQuote(tools.Node) + " " + shellQuote(tools.Inspector) + " " + strings.TrimPrefix(cmd, pinnedInspector)
	case strings.HasPrefix(cmd, "cp "):
		return cmd
	}
	r.t.Fatalf("the tour test does not know how to run %q: teach e2e/tour_test.go (shellCommand) or change the README", cmd)
	return ""
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// run runs one command of the tour and checks it exits 0 and shows the lines the README shows.
func (r *tourRunner) run(st tourStep) {
	r.t.Helper()
	if rest, ok := strings.CutPrefix(st.Command, goRunMcpbridge+" serve"); ok && (rest == "" || rest[0] == ' ') {
		r.serve(st, rest)
		return
	}
	sh := r.shellCommand(st.Command)
	stdout, stderr, err := runLogged(context.Background(), 90*time.Second, r.dir, []string{"HOME=" + r.dir, "NO_COLOR=1"}, "sh", "-c", sh)
	r.t.Logf("README.md:%d: $ %s\n%s", st.Line, st.Command, stdout)
	if err != nil {
		r.t.Fatalf("README.md:%d: %s: %v\nstdout:\n%s\nstderr:\n%s", st.Line, st.Command, err, tail(stdout, 40), tail(stderr, 40))
	}
	if miss := missingLines(st.Expect, string(stdout)); miss != "" {
		r.t.Errorf("README.md:%d: %s: the README shows %q, the output has no such line (after the lines before it):\n%s\nstderr:\n%s",
			st.Line, st.Command, strings.TrimSpace(miss), stdout, tail(stderr, 20))
	}
}

// serve starts `mcpbridge serve` as the tour's first step does, in the background (the reader
// leaves it running in a terminal), on the free port, and waits until it answers.
func (r *tourRunner) serve(st tourStep, args string) {
	r.t.Helper()
	if r.gw != nil {
		r.t.Fatalf("README.md:%d: the tour starts serve twice", st.Line)
	}
	logPath := filepath.Join(serveLogDir(r.t, r.dir), "tour-serve.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		r.t.Fatal(err)
	}
	argv := append(strings.Fields(args), "--listen", r.listen)
	cmd := exec.Command(r.bin, append([]string{"serve"}, argv...)...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "HOME="+r.dir)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		r.t.Fatalf("README.md:%d: starting %s: %v", st.Line, st.Command, err)
	}
	g := &gateway{Base: "http://" + r.listen, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		g.waitErr = cmd.Wait()
		logFile.Close()
		close(g.done)
	}()
	r.t.Cleanup(g.stop)
	if err := g.waitReady(30 * time.Second); err != nil {
		r.t.Fatalf("README.md:%d: %s: %v; its log:\n%s", st.Line, st.Command, err, g.LogTail())
	}
	r.gw = g
}

// open fetches a link of the tour as a browser does and checks the page shows the names the
// README lists after the link. On a server page it also runs the Inspector command the page
// prints, as printed.
func (r *tourRunner) open(st tourStep) {
	r.t.Helper()
	if r.gw == nil {
		r.t.Fatalf("README.md:%d: the tour links %s before it starts serve", st.Line, st.Link)
	}
	if len(st.Names) == 0 {
		r.t.Errorf("README.md:%d: say in backticks what %s shows (the sentence after the link names nothing)", st.Line, st.Link)
	}
	u := strings.Replace(st.Link, tourAddr, r.listen, 1)
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Accept", "text/html")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatalf("README.md:%d: GET %s: %v", st.Line, u, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		r.t.Fatalf("README.md:%d: reading %s: %v", st.Line, u, err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		r.t.Fatalf("README.md:%d: GET %s: %s, %s; want 200 and an HTML page\n%s", st.Line, u, resp.Status, resp.Header.Get("Content-Type"), tail(body, 20))
	}
	page := html.UnescapeString(string(body))
	for _, name := range st.Names {
		if !strings.Contains(page, name) {
			r.t.Errorf("README.md:%d: the README says %s shows %q; the page does not", st.Line, st.Link, name)
		}
	}
	if strings.Contains(st.Link, "/mcp/meta/") {
		r.runPageInspector(st, page)
	}
}

// pageInspectorRe finds the Inspector command a server page prints in a copy block.
var pageInspectorRe = regexp.MustCompile(`<pre class="copy">(npx [^<]*)</pre>`)

// runPageInspector runs the Inspector command a server page prints and checks it lists the
// server's tools.
func (r *tourRunner) runPageInspector(st tourStep, page string) {
	r.t.Helper()
	m := pageInspectorRe.FindStringSubmatch(page)
	if m == nil {
		r.t.Errorf("README.md:%d: %s prints no Inspector command", st.Line, st.Link)
		return
	}
	cmd := strings.ReplaceAll(m[1], r.listen, tourAddr) // as a reader of the README would see it
	if !strings.HasPrefix(cmd, pinnedInspector) {
		r.t.Errorf("%s prints the Inspector command %q; want it to start %q", st.Link, cmd, pinnedInspector)
		return
	}
	stdout, stderr, err := runLogged(context.Background(), 90*time.Second, r.dir, []string{"HOME=" + r.dir, "NO_COLOR=1"}, "sh", "-c", r.shellCommand(cmd))
	if err != nil {
		r.t.Fatalf("%s prints %q; run as printed: %v\nstdout:\n%s\nstderr:\n%s", st.Link, cmd, err, tail(stdout, 40), tail(stderr, 40))
	}
	for _, name := range st.Names {
		if !strings.Contains(string(stdout), `"name": "`+name+`"`) {
			r.t.Errorf("%s prints %q; run as printed, its tools/list does not list %q:\n%s", st.Link, cmd, name, tail(stdout, 60))
		}
	}
}

// TestReadmeTour runs the README's five-minute tour against a real `mcpbridge serve`: its
// commands (serve with no config, tools, call, the Inspector, check) as written, with the
// built binary for `go run ./cmd/mcpbridge` and a free port for 8080, in a temporary working
// directory (so the store lands there, not in the repository); its links (the server list and
// a server page) as a browser opens them. Each step must show what the README says it shows.
func TestReadmeTour(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	steps, err := parseTour(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// The reader runs the tour from a checkout: examples/ is there.
	if err := os.MkdirAll(filepath.Join(dir, "examples"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := copyConfig(filepath.Join(repoRoot, "examples", "quickstart.yaml"), filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	r := &tourRunner{t: t, dir: dir, listen: fmt.Sprintf("127.0.0.1:%d", port), bin: mcpbridgeBinary(t)}
	ran := map[string]bool{}
	for _, st := range steps {
		if st.Link != "" {
			r.open(st)
			ran["link "+strings.TrimPrefix(st.Link, "http://"+tourAddr)] = true
			continue
		}
		r.run(st)
		if f := strings.Fields(st.Command); len(f) > 3 && strings.HasPrefix(st.Command, goRunMcpbridge) {
			ran[f[3]] = true
		} else if strings.HasPrefix(st.Command, pinnedInspector) {
			ran["inspector"] = true
		}
		if t.Failed() {
			return
		}
	}
	// The tour keeps the steps it has today; a README that drops one must drop it here too.
	for _, want := range []string{"serve", "link /mcp", "link /mcp/meta/tools-demo", "tools", "call", "inspector", "check"} {
		if !ran[want] {
			t.Errorf("the README's tour has no %s step (ran: %v)", want, ran)
		}
	}
}
