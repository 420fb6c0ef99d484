package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The go-sdk client hands a response to the waiting caller as soon as it reads it, while
// the notifications read before it (progress, log messages) wait in a queue for the
// handler goroutine. A call that returned its result at once would lose the notifications
// still queued: the downstream request is over when they are handled. So mcpbridge counts
// the notifications an upstream session sends as their bytes are read, counts them again
// when they have been forwarded, and before a call returns waits (briefly) until every
// notification read so far has been forwarded.

// drainFor bounds that wait.
const drainFor = time.Second

// notes counts the forwardable notifications of one upstream session.
type notes struct {
	mu      sync.Mutex
	cond    *sync.Cond
	read    uint64
	handled uint64
	// line is how long the line being read is so far: a call whose time runs out while
	// its answer is still arriving says so (lineCounter sets it).
	line atomic.Int64
}

func newNotes() *notes {
	n := &notes{}
	n.cond = sync.NewCond(&n.mu)
	return n
}

func (n *notes) sawOne() {
	n.mu.Lock()
	n.read++
	n.mu.Unlock()
}

func (n *notes) handledOne() {
	n.mu.Lock()
	n.handled++
	n.cond.Broadcast()
	n.mu.Unlock()
}

// drain waits until the notifications read so far have been forwarded, at most
// drainFor. A notification that will never be handled (the client refused it) must not
// hold up every later call: after the wait, it is counted as handled.
func (n *notes) drain() {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	target := n.read
	if n.handled >= target {
		return
	}
	timer := time.AfterFunc(drainFor, func() {
		n.mu.Lock()
		n.handled = max(n.handled, target)
		n.cond.Broadcast()
		n.mu.Unlock()
	})
	defer timer.Stop()
	for n.handled < target {
		n.cond.Wait()
	}
}

// forwardable reports whether a notification method is one mcpbridge forwards to a call.
func forwardable(method string) bool {
	return method == "notifications/progress" || method == "notifications/message"
}

// countMessage counts msg, one JSON-RPC message, when it is a forwardable notification.
func (n *notes) countMessage(msg []byte) {
	if !bytes.Contains(msg, []byte(`notifications/`)) {
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(msg, &m) == nil && m.ID == nil && forwardable(m.Method) {
		n.sawOne()
	}
}

// maxCounted bounds the length of a message that is looked at: longer ones are results,
// not the notifications counted.
const maxCounted = 64 << 10

// lineCounter is an io.ReadCloser that counts the notifications in the newline-delimited
// JSON (stdio) or server-sent events (HTTP) read through it.
type lineCounter struct {
	r    io.ReadCloser
	n    *notes
	sse  bool
	line []byte
	skip bool // the current line is longer than maxCounted
	run  int  // the length of the current line, to bound one message (maxMessage)
	err  error
}

// maxMessage bounds one message from an upstream (a line on stdio, a data line of an HTTP
// or SSE stream): the SDK decodes a message whole, so an unbounded one would take the
// gateway's memory. A longer one breaks the connection (the reader fails with
// errMessageTooLarge) and the call fails; the next call connects again. (On stdio the
// SDK's own frame limit, lower than this, usually trips first.)
const maxMessage = 32 << 20

// errMessageTooLarge is why a connection that carried too long a message was broken.
var errMessageTooLarge = fmt.Errorf("the upstream sent a message longer than %d MiB, more than the gateway accepts; make the tool return less (page its results)", maxMessage>>20)

func (c *lineCounter) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	k, err := c.r.Read(p)
	if c.n != nil {
		defer func() { c.n.line.Store(int64(c.run)) }()
	}
	for i, b := range p[:k] {
		if b != '\n' {
			if c.run++; c.run > maxMessage {
				c.err = errMessageTooLarge
				return i, c.err
			}
		} else {
			c.run = 0
		}
		if b == '\n' {
			if !c.skip {
				c.take(c.line)
			}
			c.line, c.skip = c.line[:0], false
			continue
		}
		if c.skip {
			continue
		}
		if len(c.line) >= maxCounted {
			c.skip = true
			continue
		}
		c.line = append(c.line, b)
	}
	return k, err
}

func (c *lineCounter) take(line []byte) {
	if c.sse {
		rest, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			return
		}
		line = rest
	}
	c.n.countMessage(bytes.TrimSpace(line))
}

func (c *lineCounter) Close() error { return c.r.Close() }

type notesKey struct{}

// withNotes returns ctx carrying n, so that the HTTP responses of requests made with it
// are counted into n.
func withNotes(ctx context.Context, n *notes) context.Context {
	return context.WithValue(ctx, notesKey{}, n)
}

// countBody wraps the body of an event-stream response to a request whose context
// carries notes.
func countBody(r *http.Request, resp *http.Response) {
	n, _ := r.Context().Value(notesKey{}).(*notes)
	if n == nil || resp == nil || resp.Body == nil {
		return
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return
	}
	resp.Body = &lineCounter{r: resp.Body, n: n, sse: true}
}
