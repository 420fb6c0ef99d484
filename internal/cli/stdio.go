package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// stdioPipe sits between stdin/stdout and the MCP server's stdio transport so that closing
// stdin does not lose answers: a request read before end of input is answered, and the
// server sees the end of input only after every such answer has been written (or after
// grace, for a call that never ends).
//
// Messages are newline-delimited JSON-RPC, as the stdio transport specifies; batches
// (arrays) are tracked element by element.
type stdioPipe struct {
	in    *bufio.Reader
	out   io.Writer
	grace time.Duration

	mu      sync.Mutex
	pending map[string]bool // ids of requests read and not yet answered
	idle    *sync.Cond
	buf     []byte // the part of a line read but not yet handed to the transport
	eof     bool
	partial []byte // output written without its newline yet
}

func newStdioPipe(in io.Reader, out io.Writer, grace time.Duration) *stdioPipe {
	p := &stdioPipe{in: bufio.NewReaderSize(in, 64<<10), out: out, grace: grace, pending: map[string]bool{}}
	p.idle = sync.NewCond(&p.mu)
	return p
}

// Read hands the transport whole lines, noting the id of every request in them. At end of
// input it waits until the requests read have been answered.
func (p *stdioPipe) Read(b []byte) (int, error) {
	if len(p.buf) == 0 && !p.eof {
		line, err := p.in.ReadBytes('\n')
		if len(line) > 0 {
			p.track(line)
			p.buf = line
		}
		if err != nil {
			p.eof = true
		}
	}
	if len(p.buf) > 0 {
		n := copy(b, p.buf)
		p.buf = p.buf[n:]
		return n, nil
	}
	p.waitAnswered()
	return 0, io.EOF
}

// Close does nothing: stdin belongs to the process.
func (p *stdioPipe) Close() error { return nil }

func (p *stdioPipe) waitAnswered() {
	deadline := time.Now().Add(p.grace)
	timer := time.AfterFunc(p.grace, func() {
		p.mu.Lock()
		p.idle.Broadcast()
		p.mu.Unlock()
	})
	defer timer.Stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.pending) > 0 && time.Now().Before(deadline) {
		p.idle.Wait()
	}
}

// rpcMessage is the part of a JSON-RPC message that tells a request from a response.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func messages(line []byte) []rpcMessage {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	if line[0] == '[' {
		var ms []rpcMessage
		json.Unmarshal(line, &ms)
		return ms
	}
	var m rpcMessage
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	return []rpcMessage{m}
}

func (p *stdioPipe) track(line []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range messages(line) {
		if m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" {
			p.pending[string(m.ID)] = true
		}
	}
}

// Write passes the transport's output on, noting the answers.
func (p *stdioPipe) Write(b []byte) (int, error) {
	n, err := p.out.Write(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.partial = append(p.partial, b[:n]...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		for _, m := range messages(p.partial[:i]) {
			if m.Method == "" && len(m.ID) > 0 {
				delete(p.pending, string(m.ID))
			}
		}
		p.partial = p.partial[i+1:]
	}
	if len(p.pending) == 0 {
		p.idle.Broadcast()
	}
	return n, err
}
