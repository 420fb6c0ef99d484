package gateway

import (
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionTable counts legacy-era sessions — Streamable HTTP sessions (Mcp-Session-Id) and
// HTTP+SSE streams — in all and per client, across servers, and remembers the protocol
// version each Streamable HTTP session negotiated. Both kinds live in this process's memory
// until they end or sit idle for limits.session_idle, so both are capped
// (limits.sessions, limits.sessions_per_client).
type sessionTable struct {
	total, perClient int

	mu       sync.Mutex
	open     int            // sessions open, or being opened under a reservation
	byClient map[string]int // the same, per client
	byID     map[string]sessionInfo
}

type sessionInfo struct {
	server  string
	version string // negotiated at initialize
}

func newSessionTable(total, perClient int) *sessionTable {
	return &sessionTable{total: total, perClient: perClient, byClient: map[string]int{}, byID: map[string]sessionInfo{}}
}

// reserve takes a slot for a session that client is about to open. It returns a release
// function, to be called once when the session ends or was never opened, or, when a cap is
// reached, the HTTP status to refuse with and a message: 429 for the client's cap, 503 for
// the total.
func (t *sessionTable) reserve(client string) (release func(), status int, msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.byClient[client] >= t.perClient:
		return nil, http.StatusTooManyRequests, fmt.Sprintf("too many sessions from your address (%d open; limits.sessions_per_client is %d): end sessions you no longer use (DELETE with their Mcp-Session-Id) or send MCP-Protocol-Version: %s for stateless requests", t.byClient[client], t.perClient, modernVersion)
	case t.open >= t.total:
		return nil, http.StatusServiceUnavailable, fmt.Sprintf("the gateway holds as many sessions as it allows (limits.sessions is %d); retry shortly, or send MCP-Protocol-Version: %s for stateless requests", t.total, modernVersion)
	}
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
	}, 0, ""
}

// bind records a Streamable HTTP session opened under a reservation. The reservation is
// released, and the record dropped, when the session ends.
func (t *sessionTable) bind(ss *mcp.ServerSession, server string, release func()) {
	id := ss.ID()
	t.mu.Lock()
	t.byID[id] = sessionInfo{server: server, version: negotiatedVersion(ss.InitializeParams().ProtocolVersion)}
	t.mu.Unlock()
	go func() {
		ss.Wait()
		t.mu.Lock()
		delete(t.byID, id)
		t.mu.Unlock()
		release()
	}()
}

// lookup returns what is known of a Streamable HTTP session.
func (t *sessionTable) lookup(id string) (sessionInfo, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	info, ok := t.byID[id]
	return info, ok
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
