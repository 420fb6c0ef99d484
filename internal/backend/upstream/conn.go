package upstream

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
)

// Backoff bounds: a connection that fails to start, or whose child exits, is started
// again after a delay that doubles from minBackoff with each failure in a row, up to
// maxBackoff. A connection that stayed up for stableAfter starts the count again.
const (
	minBackoff   = 250 * time.Millisecond
	maxBackoff   = 30 * time.Second
	stableAfter  = 10 * time.Second
	terminateFor = 2 * time.Second // how long a closed child has to exit before SIGTERM
)

// errClosed is returned by a connection that was closed (the backend closed, the session
// ended, or it was reaped).
var errClosed = errors.New("the upstream connection was closed")

// A conn is one MCP session with an upstream server: a child process over stdio, or a
// Streamable HTTP or SSE session. It starts on first use, and again after it ended
// (the child crashed, the HTTP session was lost), no sooner than its backoff allows. The
// shared connection of an upstream is also started again eagerly, to keep its catalog
// and its list_changed notifications.
type conn struct {
	u       *upstream
	key     string // the downstream session (or stateless caller) it serves; "" when shared
	version string // the protocol version to ask for ("" for the newest)
	// info and caps are what the one downstream legacy session this connection serves
	// declared at initialize; nil for a connection of several callers (see present).
	info *mcp.Implementation
	caps *mcp.ClientCapabilities

	life   context.Context // ends when the connection is closed
	cancel context.CancelFunc

	mu          sync.Mutex
	cs          *mcp.ClientSession
	notes       *notes        // counts cs's forwardable notifications
	proc        *process      // the child of a stdio connection
	ended       chan struct{} // closed when cs ended (nil while there is none)
	endReason   string        // why the previous session ended, for the next call's error
	starting    chan struct{} // closed when the start under way ends; nil when none is
	startErr    error         // the last start's failure
	failures    int           // failures in a row, for the backoff
	retryAt     time.Time
	connectedAt time.Time
	closed      bool
	calls       []*inflight // calls in flight, oldest first
	tokens      map[string]*inflight
	reserved    int // calls that looked the connection up and have not ended (see reserve)
	lastUsed    time.Time
	modern      bool // the session speaks 2026-07-28 or later
	logs        bool // the upstream offers logging
}

// inflight is one call running on a connection: where its notifications and the
// upstream's requests go.
type inflight struct {
	// ctx and sess are the downstream request's: ctx carries what the gateway needs to
	// route to the caller. A call waiting for a stateless client's input moves to the
	// client's next request (see parked); they change under the conn's lock.
	c      *conn
	ctx    context.Context
	sess   backend.Session
	token  string  // the progress token sent upstream
	parked *parked // the call's input requests to a stateless client (nil for others)
	// caps is what the caller declared it can be asked (nil: nothing); refused says what
	// the upstream asked that it cannot give ("" when nothing), for the call's error.
	caps    *mcp.ClientCapabilities
	refused string
}

// target is where a notification or request of the upstream goes: a snapshot of an
// inflight.
type target struct {
	ctx    context.Context
	sess   backend.Session
	parked *parked
	caps   *mcp.ClientCapabilities
	f      *inflight
}

// refuse notes that the upstream asked the call's client for what it cannot give.
func (c *conn) refuse(f *inflight, why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.refused == "" {
		f.refused = why
	}
}

// refusal says what the upstream asked of the call that its client cannot give ("" when
// nothing).
func (f *inflight) refusal() string {
	if f == nil {
		return ""
	}
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	return f.refused
}

// moveTo points the call at the downstream request ctx of session s, whose client
// declared caps.
func (c *conn) moveTo(f *inflight, ctx context.Context, s backend.Session, caps *mcp.ClientCapabilities) {
	c.mu.Lock()
	f.ctx, f.sess, f.caps = ctx, s, caps
	c.mu.Unlock()
}

func newConn(u *upstream, key string) *conn {
	life, cancel := context.WithCancel(u.b.ctx)
	return &conn{u: u, key: key, life: life, cancel: cancel, tokens: map[string]*inflight{}, lastUsed: u.b.now()}
}

// session returns the connection's MCP session, starting it when there is none. It waits
// for a start under way, or for the backoff of the previous failure when ctx allows; one
// call makes at most one start attempt.
func (c *conn) session(ctx context.Context) (*mcp.ClientSession, *notes, error) {
	tried := false
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, nil, errClosed
		}
		if c.cs != nil {
			cs, n := c.cs, c.notes
			c.mu.Unlock()
			return cs, n, nil
		}
		if tried && c.starting == nil {
			err := c.startErr
			c.mu.Unlock()
			return nil, nil, err
		}
		if c.starting == nil {
			if wait := c.retryAt.Sub(c.u.b.now()); wait > 0 {
				if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
					err := c.startErr
					c.mu.Unlock()
					if err == nil {
						err = errors.New("it stopped")
					}
					return nil, nil, fmt.Errorf("%w; the next attempt is in %s", err, wait.Round(100*time.Millisecond))
				}
				c.mu.Unlock()
				t := time.NewTimer(wait)
				select {
				case <-t.C:
				case <-ctx.Done():
					t.Stop()
					return nil, nil, ctx.Err()
				}
				continue
			}
			c.starting = make(chan struct{})
			c.u.b.goBackground(c.start)
		}
		ch := c.starting
		c.mu.Unlock()
		tried = true
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
}

// start connects to the upstream, bounded by start_timeout, and records the outcome.
func (c *conn) start() {
	u := c.u
	ctx, cancel := context.WithTimeout(u.b.ctx, u.src.StartTimeout)
	defer cancel()
	begun := u.b.now()
	n := newNotes()
	cs, proc, err := u.dial(ctx, c, n)
	if err != nil && ctx.Err() != nil && len(u.argv) == 0 {
		err = u.slowStart()
	}
	c.mu.Lock()
	discard := err == nil && c.closed
	if discard {
		err = errClosed
	}
	var ended chan struct{}
	if err != nil {
		c.startErr = err
		c.failures++
		c.retryAt = u.b.now().Add(backoff(c.failures))
	} else {
		c.cs, c.proc, c.notes, c.startErr = cs, proc, n, nil
		ended = make(chan struct{})
		c.ended = ended
		c.connectedAt = u.b.now()
		res := cs.InitializeResult()
		c.modern = res != nil && res.ProtocolVersion >= "2026-07-28"
		c.logs = res != nil && res.Capabilities != nil && res.Capabilities.Logging != nil
	}
	close(c.starting)
	c.starting = nil
	c.mu.Unlock()
	took := u.b.now().Sub(begun).Round(time.Millisecond)
	switch {
	case discard:
		closeSession(cs, proc)
	case err != nil:
		u.log.Warn("upstream failed to start", "session", c.logKey(), "error", err, "duration", took)
		if c.key == "" {
			u.restartLater(c)
		}
	default:
		u.log.Debug("upstream started", "session", c.logKey(), "protocol", cs.InitializeResult().ProtocolVersion, "duration", took)
		u.b.goBackground(func() { c.watch(cs, proc, ended) })
	}
}

// watch waits for the session to end and, unless the connection was closed on purpose,
// records why, so the next call starts it again after the backoff; the shared
// connection is started again at once (after its backoff).
func (c *conn) watch(cs *mcp.ClientSession, proc *process, ended chan struct{}) {
	err := cs.Wait()
	broken := err != nil && !isEOF(err)
	var reason string
	switch {
	case broken && errors.Is(err, mcp.ErrMessageTooLarge):
		// The SDK's bounds: a JSON body, an SSE event or a stdio line over max_response_bytes.
		n := c.u.src.MaxResponseBytes
		reason = fmt.Sprintf("it sent a message longer than the gateway accepts (more than %d bytes, %.4g MiB: the server's max_response_bytes) and was stopped; make the tool return less (page its results) or raise max_response_bytes", n, float64(n)/(1<<20))
	case broken && errors.Is(err, errMessageTooLarge):
		reason = err.Error()
	case broken && proc != nil:
		reason = fmt.Sprintf("it sent a malformed message (%v) and was stopped", err)
	case broken:
		reason = "the connection broke: " + err.Error()
	case proc != nil:
		reason = proc.exitReason()
	default:
		reason = "the connection closed"
	}
	c.mu.Lock()
	current := c.cs == cs
	if current {
		c.cs, c.proc = nil, nil
		c.endReason = c.u.b.scrubString(reason)
		if c.u.b.now().Sub(c.connectedAt) > stableAfter {
			c.failures = 0
		}
		c.failures++
		c.retryAt = c.u.b.now().Add(backoff(c.failures))
	}
	closed := c.closed
	close(ended)
	c.mu.Unlock()
	_ = cs.Close()
	proc.stop() // a child that sent something malformed is still running
	if !current || closed {
		return
	}
	c.u.log.Warn("upstream stopped; it is started again on demand", "session", c.logKey(), "reason", c.u.b.scrubString(reason), "stderr", c.u.b.scrubString(proc.tailText()))
	if c.key == "" {
		c.u.restartLater(c)
	}
}

// whyEnded waits briefly for the session cs to be known as ended, and says why it ended
// ("" when it is still up).
func (c *conn) whyEnded(cs *mcp.ClientSession) string {
	c.mu.Lock()
	if c.cs != cs {
		r := c.endReason
		c.mu.Unlock()
		return r
	}
	ended := c.ended
	c.mu.Unlock()
	select {
	case <-ended:
	case <-time.After(500 * time.Millisecond):
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.endReason
}

// close ends the connection for good: its session is closed (a child is asked to exit,
// then terminated) and its calls in flight fail.
func (c *conn) close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.cancel()
	cs, proc := c.cs, c.proc
	c.cs, c.proc = nil, nil
	c.mu.Unlock()
	if cs != nil {
		closeSession(cs, proc)
	}
}

func closeSession(cs *mcp.ClientSession, proc *process) {
	_ = cs.Close()
	proc.stop()
}

// begin registers a call in flight of a caller that declared caps; end removes it.
func (c *conn) begin(ctx context.Context, s backend.Session, caps *mcp.ClientCapabilities) *inflight {
	f := &inflight{ctx: ctx, sess: s, token: c.u.b.newToken(), caps: caps, c: c}
	c.mu.Lock()
	c.calls = append(c.calls, f)
	c.tokens[f.token] = f
	c.lastUsed = c.u.b.now()
	c.mu.Unlock()
	return f
}

func (c *conn) end(f *inflight) {
	c.mu.Lock()
	for i, g := range c.calls {
		if g == f {
			c.calls = append(c.calls[:i], c.calls[i+1:]...)
			break
		}
	}
	delete(c.tokens, f.token)
	c.lastUsed = c.u.b.now()
	c.mu.Unlock()
}

// caller returns where an upstream notification or request without a progress token
// goes. The protocol does not say which call a log message or a sampling, elicitation or
// roots request is for, so it is the connection's only caller: the one call in flight, or
// the latest of several calls that come from one client session. A call parked for its
// stateless client's retry (see parked) is not a candidate while another call runs: its
// upstream request waits for the answer to what it asked, so what the upstream sends
// meanwhile is another call's — and a call its client abandoned holds up no one until
// its timeout. Otherwise it says why there is none.
func (c *conn) caller() (*target, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	calls := c.calls
	if len(calls) > 1 {
		running := make([]*inflight, 0, len(calls))
		for _, f := range calls {
			if f.parked == nil || !f.parked.asking() {
				running = append(running, f)
			}
		}
		if len(running) > 0 {
			calls = running
		}
	}
	switch len(calls) {
	case 0:
		return nil, "no call is running on this upstream session, so there is no client to ask"
	case 1:
		return calls[0].target(), ""
	}
	id := calls[0].sess.ID()
	for _, f := range calls[1:] {
		if id == "" || f.sess.ID() != id {
			if c.key == "" || c.key == sharedLegacyKey {
				return nil, "calls of several clients are running on this shared upstream session, so mcpbridge cannot tell which client to ask; use isolation: per-session"
			}
			// Stateless calls share a session only when it speaks 2026-07-28 (see connFor),
			// where input is asked for in results.
			return nil, "several stateless (2026-07-28) calls are running on this upstream session, which speaks 2026-07-28, so mcpbridge cannot tell which to ask; the upstream should ask for input in its result (input_required), not with a request"
		}
	}
	return calls[len(calls)-1].target(), ""
}

func (f *inflight) target() *target {
	return &target{ctx: f.ctx, sess: f.sess, parked: f.parked, caps: f.caps, f: f}
}

// busy reports whether a call runs on the connection or is about to (see reserve).
func (c *conn) busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.calls) > 0 || c.reserved > 0
}

// byToken returns where the progress of the call with a progress token goes.
func (c *conn) byToken(tok any) *target {
	s, ok := tok.(string)
	if !ok {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if f := c.tokens[s]; f != nil {
		return f.target()
	}
	return nil
}

// idle reports whether the connection has no calls and was last used before t.
func (c *conn) idle(t time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.calls) == 0 && c.reserved == 0 && c.starting == nil && c.lastUsed.Before(t)
}

// reserve marks the connection used by a call from its lookup to its end (release): the
// idle reaper and max_sessions, which look for idle connections under u.mu as the lookup
// does, never close it in between, however long the call's goroutine waits to run.
func (c *conn) reserve() {
	c.mu.Lock()
	c.reserved++
	c.lastUsed = c.u.b.now()
	c.mu.Unlock()
}

// release ends a reservation of reserve.
func (c *conn) release() {
	c.mu.Lock()
	c.reserved--
	c.lastUsed = c.u.b.now()
	c.mu.Unlock()
}

// used returns when the connection was last used.
func (c *conn) used() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastUsed
}

func (c *conn) logKey() string {
	switch c.key {
	case "":
		return "shared"
	case sharedLegacyKey:
		return "shared, legacy clients"
	}
	if strings.HasPrefix(c.key, statelessKey) {
		return "stateless"
	}
	return c.key
}

func backoff(failures int) time.Duration {
	d := minBackoff
	for i := 1; i < failures && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

func isEOF(err error) bool {
	return err == nil || strings.Contains(err.Error(), "EOF") || errors.Is(err, mcp.ErrConnectionClosed)
}
