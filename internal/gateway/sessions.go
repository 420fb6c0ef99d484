package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionTable counts legacy-era sessions — Streamable HTTP sessions (Mcp-Session-Id) and
// HTTP+SSE streams — in all and per caller (callerKey: an authenticated principal, else a
// client address), across servers, and remembers the protocol version each Streamable HTTP
// session negotiated. Both kinds live in this process's memory until they end or sit idle
// for limits.session_idle, so both are capped (limits.sessions, limits.sessions_per_client),
// and the last quarter of the total goes to callers that hold few (see reserve).
type sessionTable struct {
	total, perClient int

	mu       sync.Mutex
	open     int            // sessions open, or being opened under a reservation
	byClient map[string]int // the same, per caller
	byID     map[string]*sessionInfo
	// logging holds the sessions whose client set a log level, also before bind: a client
	// may send logging/setLevel as soon as it has read the initialize answer.
	logging map[string]time.Time
	// calls holds the cancel functions of the tools/calls the lean legacy path runs now, by
	// session and request id, for notifications/cancelled to find (the SDK cancels its own).
	calls map[callKey]context.CancelFunc
}

// callKey names one request on one session: the session id and the request id in
// canonical form (requestKey).
type callKey struct{ session, request string }

// sessionInfo is what the gateway knows of one Streamable HTTP session. The fields below
// mu's note change while the session lives.
type sessionInfo struct {
	ss      *mcp.ServerSession
	server  string
	version string // negotiated at initialize
	owner   string // the user that opened it with a bearer token, as the SDK binds it; "" for none

	// Guarded by the table's mu.
	logging  bool      // the client set a log level: calls may send log notifications
	lastUsed time.Time // end of the last request on it
	inflight int       // requests on it now
}

func newSessionTable(total, perClient int) *sessionTable {
	return &sessionTable{total: total, perClient: perClient, byClient: map[string]int{}, byID: map[string]*sessionInfo{}, logging: map[string]time.Time{}, calls: map[callKey]context.CancelFunc{}}
}

// requestKey returns a JSON-RPC request id in a canonical form, so that the id of a call
// and the requestId of its notifications/cancelled match however the number is written;
// ok is false for an id that is neither a string nor a number.
func requestKey(id json.RawMessage) (key string, ok bool) {
	var v any
	if err := json.Unmarshal(id, &v); err != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return "s" + v, true
	case float64:
		return "n" + strconv.FormatFloat(v, 'g', -1, 64), true
	}
	return "", false
}

// track records cancel as the way to stop request id on session sid, until the returned
// function is called (when the call ends).
func (t *sessionTable) track(sid string, id json.RawMessage, cancel context.CancelFunc) (untrack func()) {
	rk, ok := requestKey(id)
	if !ok {
		return func() {}
	}
	k := callKey{sid, rk}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, dup := t.calls[k]; dup {
		return func() {} // a client reusing an id in flight: the first call keeps it
	}
	t.calls[k] = cancel
	return func() {
		t.mu.Lock()
		delete(t.calls, k)
		t.mu.Unlock()
	}
}

// cancelCall cancels request id on session sid if the lean legacy path runs it, and reports
// whether it did.
func (t *sessionTable) cancelCall(sid string, id json.RawMessage) bool {
	rk, ok := requestKey(id)
	if !ok {
		return false
	}
	t.mu.Lock()
	cancel := t.calls[callKey{sid, rk}]
	t.mu.Unlock()
	if cancel == nil {
		return false
	}
	cancel()
	return true
}

// highWater is how many open sessions make the table nearly full (three quarters of total,
// rounded up): from there on, a new session goes only to a caller that holds fewer than
// share sessions.
func (t *sessionTable) highWater() int { return (3*t.total + 3) / 4 }

// share is what a caller may hold and still open a session once the table is nearly full: a
// quarter of sessions_per_client, at least 1.
func (t *sessionTable) share() int { return max(1, t.perClient/4) }

// reserve takes a slot for a session that caller (callerKey) is about to open. It returns a
// release function, to be called once when the session ends or was never opened, or, when
// a limit refuses it, the limit's name, the HTTP status to refuse with and a message:
//
//   - sessions_per_client (429): the caller holds sessions_per_client sessions;
//   - sessions_share (429): three quarters or more of limits.sessions are open and the
//     caller already holds a quarter of sessions_per_client (at least 1), so the rest is
//     kept for callers that hold fewer — a few addresses cannot take every session;
//   - sessions (503): limits.sessions are open.
func (t *sessionTable) reserve(caller string) (release func(), limit string, status int, msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	whose := "from your address"
	if strings.HasPrefix(caller, "user:") {
		whose = "for your credentials"
	}
	held := t.byClient[caller]
	switch {
	case held >= t.perClient:
		return nil, "sessions_per_client", http.StatusTooManyRequests, fmt.Sprintf("too many sessions %s (%d open; limits.sessions_per_client is %d): end sessions you no longer use (DELETE with their Mcp-Session-Id) or send MCP-Protocol-Version: %s for stateless requests", whose, held, t.perClient, modernVersion)
	case t.open >= t.highWater() && held >= t.share():
		fewer := fmt.Sprintf("fewer than %d", t.share())
		if t.share() == 1 {
			fewer = "none"
		}
		return nil, "sessions_share", http.StatusTooManyRequests, fmt.Sprintf("the gateway is nearly full (%d of %d sessions open; limits.sessions) and keeps the rest for callers that hold %s; you hold %d %s: end sessions you no longer use (DELETE with their Mcp-Session-Id), retry later, or send MCP-Protocol-Version: %s for stateless requests", t.open, t.total, fewer, held, whose, modernVersion)
	case t.open >= t.total:
		return nil, "sessions", http.StatusServiceUnavailable, fmt.Sprintf("the gateway holds as many sessions as it allows (limits.sessions is %d); retry shortly, or send MCP-Protocol-Version: %s for stateless requests", t.total, modernVersion)
	}
	client := caller
	t.open++
	t.byClient[client]++
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			t.open--
			if t.byClient[client]--; t.byClient[client] <= 0 {
				delete(t.byClient, client)
			}
		})
	}, "", 0, ""
}

// bind records a Streamable HTTP session opened under a reservation. The reservation is
// released, and the record dropped, when the session ends.
func (t *sessionTable) bind(ss *mcp.ServerSession, server, owner string, release func()) {
	id := ss.ID()
	t.mu.Lock()
	t.byID[id] = &sessionInfo{ss: ss, server: server, owner: owner, version: negotiatedVersion(ss.InitializeParams().ProtocolVersion), lastUsed: time.Now(), logging: !t.logging[id].IsZero()}
	t.mu.Unlock()
	go func() {
		ss.Wait()
		t.mu.Lock()
		delete(t.byID, id)
		delete(t.logging, id)
		t.mu.Unlock()
		release()
	}()
}

// lookup returns what is known of a Streamable HTTP session.
func (t *sessionTable) lookup(id string) (sessionInfo, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	info, ok := t.byID[id]
	if !ok {
		return sessionInfo{}, false
	}
	return *info, true
}

// use marks a request on session id as running until done is called, which keeps the
// session from expiring while the request runs and restarts its idle time when it ends, and
// returns what is known of the session. ok is false for a session the gateway does not know.
func (t *sessionTable) use(id string) (info sessionInfo, done func(), ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	in, ok := t.byID[id]
	if !ok {
		return sessionInfo{}, func() {}, false
	}
	in.inflight++
	return *in, func() {
		t.mu.Lock()
		in.inflight--
		in.lastUsed = time.Now()
		t.mu.Unlock()
	}, true
}

// setLogging records that the client of session id set a log level.
func (t *sessionTable) setLogging(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id == "" {
		return // a stateless request
	}
	t.logging[id] = time.Now()
	if info, ok := t.byID[id]; ok {
		info.logging = true
	}
}

// expireIdle closes the sessions without a request for idle or longer and reports how
// many. A session ends with its ServerSession (bind's goroutine drops its record).
func (t *sessionTable) expireIdle(now time.Time, idle time.Duration) int {
	var stale []*mcp.ServerSession
	t.mu.Lock()
	for _, info := range t.byID {
		if info.inflight == 0 && now.Sub(info.lastUsed) >= idle {
			stale = append(stale, info.ss)
		}
	}
	for id, at := range t.logging {
		if _, bound := t.byID[id]; !bound && now.Sub(at) > time.Minute {
			delete(t.logging, id) // an HTTP+SSE session, never bound
		}
	}
	t.mu.Unlock()
	for _, ss := range stale {
		ss.Close()
	}
	return len(stale)
}

// sweep closes idle sessions every so often until stop is closed.
func (t *sessionTable) sweep(idle time.Duration, stop <-chan struct{}) {
	every := min(max(idle/4, 10*time.Millisecond), time.Minute)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-tick.C:
			t.expireIdle(now, idle)
		}
	}
}

// negotiatedVersion is the version the go-sdk answers an initialize for version v with:
// v itself when it is a supported legacy-era version, else the newest legacy-era version.
// TestAttackProtocolVersionMismatch checks it against the SDK's answers.
func negotiatedVersion(v string) string {
	supported := mcp.SupportedProtocolVersions() // newest first
	if v < modernVersion && slices.Contains(supported, v) {
		return v
	}
	for _, s := range supported {
		if s < modernVersion {
			return s
		}
	}
	return "2025-11-25"
}

// findSession returns the live session with the given id on srv, or nil.
func findSession(srv *mcp.Server, id string) *mcp.ServerSession {
	for ss := range srv.Sessions() {
		if ss.ID() == id {
			return ss
		}
	}
	return nil
}
