package command

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
)

// Bounds of the stderr lines a call sends as log notifications.
const (
	maxLogLine  = 4 << 10 // a longer line is sent cut, ending in "…"
	maxLogLines = 1000    // then one notice that the rest is not sent
)

// lineLogger sends each line a command writes on stderr to the caller as a log
// notification (the client's logging level applies), scrubbed of secrets like the rest of
// the output. It is written to by the goroutine that reads stderr.
type lineLogger struct {
	ctx    context.Context
	sess   backend.Session
	level  mcp.LoggingLevel
	logger string
	scrub  scrubber

	mu    sync.Mutex
	buf   []byte
	sent  int
	cut   bool // the line in buf was cut at maxLogLine
	muted bool
}

func (l *lineLogger) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.add(p)
			break
		}
		l.add(p[:i])
		l.sendLocked()
		p = p[i+1:]
	}
	return n, nil
}

// add appends to the current line, up to maxLogLine.
func (l *lineLogger) add(p []byte) {
	if room := maxLogLine - len(l.buf); len(p) > room {
		p, l.cut = p[:max(room, 0)], true
	}
	l.buf = append(l.buf, p...)
}

// flush sends a last line without a line break.
func (l *lineLogger) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 || l.cut {
		l.sendLocked()
	}
}

func (l *lineLogger) sendLocked() {
	line := string(bytes.TrimSuffix(l.buf, []byte("\r")))
	cut := l.cut
	l.buf, l.cut = l.buf[:0], false
	if l.muted {
		return
	}
	if l.sent == maxLogLines {
		l.muted = true
		line, cut = fmt.Sprintf("[more stderr lines are not sent as log messages: at most %d per call]", maxLogLines), false
	}
	l.sent++
	line = l.scrub.ScrubCut(line, false, cut)
	if cut {
		line += "…"
	}
	_ = l.sess.Log(l.ctx, &mcp.LoggingMessageParams{Level: l.level, Logger: l.logger, Data: line})
}
