package gateway

import "github.com/modelcontextprotocol/go-sdk/mcp"

// eventStoreBytes bounds the payload of the server-sent events kept for legacy sessions to
// resume, for the whole process (every server and session share one store). Notifications on
// a session's GET stream and the messages of its POST response streams (tool results
// included) count. When an event would take the store past the bound, the oldest remaining
// event of every stream is dropped, round by round, until it fits; a client that resumes
// from before a dropped event gets 400 and opens a new stream, as it would without a store.
// Besides the payload, the store keeps about 100 bytes per POST of a session until the
// session ends (DELETE, or the idle session timeout).
const eventStoreBytes = 10 << 20

// newEventStore returns the store that gives the SSE events of the legacy eras (up to
// 2025-11-25) their ids, so a client whose GET stream (or POST response stream) breaks can
// reconnect with Last-Event-ID and receive what it missed. The 2026-07-28 era has no
// resumption and does not use it.
func newEventStore() *mcp.MemoryEventStore {
	s := mcp.NewMemoryEventStore(nil)
	s.SetMaxBytes(eventStoreBytes)
	return s
}
