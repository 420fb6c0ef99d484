package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"
)

// rawStdio is a minimal MCP client over stdio: per worker, a child process of its own (as
// mcpbridge gives every session with isolation: per-session), initialize and
// notifications/initialized, then one tools/call at a time, one line each way. It is the
// "direct" baseline of a stdio upstream.
type rawStdio struct {
	tool string
	args json.RawMessage
	w    []*stdioWorker
}

type stdioWorker struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	next int64
	buf  []byte
}

func newRawStdio(argv []string, era, tool string, args json.RawMessage, workers int) (*rawStdio, error) {
	if len(argv) == 0 {
		return nil, errors.New("stdio target without a command")
	}
	c := &rawStdio{tool: tool, args: args}
	for range workers {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			c.close()
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			c.close()
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			c.close()
			return nil, err
		}
		w := &stdioWorker{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10), next: 2}
		c.w = append(c.w, w)
		init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"bench","version":"1"},"protocolVersion":"` + era + `","capabilities":{}}}` + "\n"
		if _, err := w.roundTrip([]byte(init), 1); err != nil {
			c.close()
			return nil, fmt.Errorf("initialize: %w", err)
		}
		if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`+"\n"); err != nil {
			c.close()
			return nil, err
		}
	}
	return c, nil
}

// callTool calls the tool once as worker i.
func (c *rawStdio) callTool(i int) error {
	w := c.w[i]
	id := w.next
	w.next++
	b := w.buf[:0]
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"tools/call","params":{"name":`...)
	b = strconv.AppendQuote(b, c.tool)
	b = append(b, `,"arguments":`...)
	b = append(b, c.args...)
	b = append(b, "}}\n"...)
	w.buf = b
	_, err := w.roundTrip(b, id)
	return err
}

// roundTrip writes one request line and reads lines until the answer with id, which it
// checks as rawMCP.post does.
func (w *stdioWorker) roundTrip(req []byte, id int64) ([]byte, error) {
	if _, err := w.in.Write(req); err != nil {
		return nil, err
	}
	want := []byte(`"id":` + strconv.FormatInt(id, 10) + `,`)
	for {
		line, err := w.out.ReadSlice('\n')
		if err != nil {
			return nil, fmt.Errorf("reading the answer: %w", err)
		}
		if !bytes.Contains(line, want) {
			continue // a notification or a request of the server's
		}
		if err := checkAnswer(line); err != nil {
			return nil, err
		}
		return line, nil
	}
}

// close ends the children: stdin closed, then killed if they linger.
func (c *rawStdio) close() {
	for _, w := range c.w {
		w.in.Close()
	}
	for _, w := range c.w {
		done := make(chan struct{})
		go func() { w.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			w.cmd.Process.Kill()
			<-done
		}
	}
	c.w = nil
}
