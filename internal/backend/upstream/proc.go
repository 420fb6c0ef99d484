package upstream

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// process is the child of a stdio connection. mcpbridge starts it, reaps it and stops it
// itself (rather than through mcp.CommandTransport) so that it knows how the child ended,
// can stop a child that is still running after its connection broke, and can end what
// the child started (its process group).
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File // the write end of the child's stdin
	stdout *os.File // the read end of the child's stdout
	stderr *tailWriter
	done   chan struct{} // closed once the child has been reaped
	once   sync.Once
}

// startProcess starts cmd with its stdin and stdout on pipes and returns the process and
// the MCP transport over those pipes.
func startProcess(cmd *exec.Cmd, stderr *tailWriter, n *notes, maxLine int) (*process, mcp.Transport, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, stderr
	cmd.WaitDelay = time.Second // a grandchild holding stderr open does not hold up Wait
	setProcessGroup(cmd)
	err = cmd.Start()
	inR.Close() // the child's ends
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, nil, err
	}
	p := &process{cmd: cmd, stdin: inW, stdout: outR, stderr: stderr, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	return p, &mcp.IOTransport{Reader: &lineCounter{r: outR, n: n}, Writer: inW, MaxLineLength: maxLine}, nil
}

// stop ends the child the way the MCP stdio transport says: close its stdin, wait, send
// SIGTERM, wait, send SIGKILL; then it kills what is left of its process group. It
// returns once the child has been reaped. It is safe to call more than once.
func (p *process) stop() {
	if p == nil {
		return
	}
	p.once.Do(func() {
		p.stdin.Close()
		if !p.waitFor(terminateFor) {
			signalGroup(p.cmd, terminate)
			if !p.waitFor(terminateFor) {
				signalGroup(p.cmd, kill)
				<-p.done
			}
		}
		signalGroup(p.cmd, kill) // grandchildren that outlived the child
		p.stdout.Close()
	})
}

// kill ends a child that never finished its handshake: there is nothing to shut down
// gracefully.
func (p *process) kill() {
	p.once.Do(func() {
		p.stdin.Close()
		signalGroup(p.cmd, terminate)
		if !p.waitFor(terminateFor / 4) {
			signalGroup(p.cmd, kill)
			<-p.done
		}
		signalGroup(p.cmd, kill)
		p.stdout.Close()
	})
}

func (p *process) waitFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

// exitReason describes how the child ended.
func (p *process) exitReason() string {
	if p == nil {
		return "the connection closed"
	}
	select {
	case <-p.done:
	case <-time.After(terminateFor):
		return "its output closed"
	}
	st := p.cmd.ProcessState
	if st == nil {
		return "the process ended"
	}
	if st.Exited() {
		return fmt.Sprintf("the process exited with status %d", st.ExitCode())
	}
	return "the process ended: " + st.String()
}

// tailText returns the last lines the child wrote on stderr.
func (p *process) tailText() string {
	if p == nil || p.stderr == nil {
		return ""
	}
	return p.stderr.String()
}

// tailWriter keeps the last bytes written to it and logs each line at debug level.
type tailWriter struct {
	mu    sync.Mutex
	buf   []byte
	line  []byte
	max   int
	log   *slog.Logger
	scrub func(string) string
}

var _ io.Writer = (*tailWriter)(nil)

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if len(w.buf) > w.max {
		w.buf = append(w.buf[:0], w.buf[len(w.buf)-w.max:]...)
	}
	for _, c := range p {
		if c == '\n' {
			if len(w.line) > 0 {
				w.log.Debug("upstream stderr", "line", w.scrub(string(w.line)))
			}
			w.line = w.line[:0]
			continue
		}
		if len(w.line) < 500 {
			w.line = append(w.line, c)
		}
	}
	return len(p), nil
}

// String returns the kept tail, from the start of a line.
func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := string(w.buf)
	if len(w.buf) >= w.max {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	return strings.TrimSpace(s)
}

// lastLine returns the last non-empty line of stderr, cut to n bytes.
func (w *tailWriter) lastLine(n int) string {
	s := w.String()
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
