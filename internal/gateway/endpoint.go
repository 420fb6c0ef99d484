package gateway

import (
	"encoding/json"
	"net/http"
)

// endpointRequest says what a request to /mcp/{server} (or /mcp/{server}/sse) needs: its
// transport and era, whether it is on, or opens, a session, and, for a POST, the JSON-RPC
// message it carries. serveEndpoint decides each step of a request from it.
type endpointRequest struct {
	sse    bool // the HTTP+SSE transport (/mcp/{server}/sse)
	modern bool // MCP-Protocol-Version 2026-07-28 or later: stateless, no session
	get    bool
	post   bool
	// session is the Mcp-Session-Id the client sent ("" for none).
	session string
	// The message of a POST, once read and checked (checkMessage): its body, id (empty for
	// a notification and a batch), method ("" for a batch or a response) and params.
	body, id, params json.RawMessage
	method           string
}

// newEndpointRequest reads what a request needs from its method and headers; sse is true
// on the HTTP+SSE transport's route. The message is filled in once read.
func newEndpointRequest(r *http.Request, sse bool) endpointRequest {
	return endpointRequest{
		sse:     sse,
		modern:  r.Header.Get("Mcp-Protocol-Version") >= modernVersion,
		get:     r.Method == http.MethodGet,
		post:    r.Method == http.MethodPost,
		session: r.Header.Get("Mcp-Session-Id"),
	}
}

// legacy reports whether the request is Streamable HTTP of the session era (up to
// 2025-11-25).
func (q *endpointRequest) legacy() bool { return !q.sse && !q.modern }

// isCall reports whether the message is one request: a method and an id.
func (q *endpointRequest) isCall() bool { return q.method != "" && len(q.id) > 0 }

// lacksSession reports whether the request is a legacy one, other than initialize, sent
// without a session.
func (q *endpointRequest) lacksSession() bool {
	return q.legacy() && q.isCall() && q.method != "initialize" && q.session == ""
}

// admittedAtEdge reports whether the edge charges the request's limits and holds its
// caller's call slot (admit): one request on Streamable HTTP.
func (q *endpointRequest) admittedAtEdge() bool { return !q.sse && q.isCall() }

// lean reports whether the lean path may answer the request: a 2026-07-28 tools/call.
func (q *endpointRequest) lean() bool { return q.modern && q.method == "tools/call" }

// onSession reports whether the request is a legacy POST on a session.
func (q *endpointRequest) onSession() bool { return q.legacy() && q.post && q.session != "" }

// opensSession reports whether the request opens a session: a legacy POST without one, or
// the GET of the HTTP+SSE transport.
func (q *endpointRequest) opensSession() bool {
	return (q.legacy() && q.post && q.session == "") || (q.sse && q.get)
}
