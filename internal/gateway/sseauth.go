package gateway

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/auth"
)

// An HTTP+SSE session (protocol 2024-11-05: GET /mcp/{server}/sse opens the event stream,
// POST …/sse?sessionid=ID sends messages) runs every message as the principal that opened
// the stream. Its session id is therefore bound to that principal: a POST with another
// principal's credentials, or with none, is refused with 403. Streamable HTTP sessions are
// bound the same way by the go-sdk (see withTokenInfo).

// sseOwner is who opened an HTTP+SSE session.
type sseOwner struct {
	user, via string
}

// sseOwners maps the ids of the open HTTP+SSE sessions to their owners.
type sseOwners struct {
	mu sync.Mutex
	m  map[string]sseOwner
}

func (o *sseOwners) add(id string, owner sseOwner) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = map[string]sseOwner{}
	}
	o.m[id] = owner
}

func (o *sseOwners) remove(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.m, id)
}

func (o *sseOwners) get(id string) (sseOwner, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	owner, ok := o.m[id]
	return owner, ok
}

// serveSSEStream serves the GET of an HTTP+SSE session through h, binding the session id
// that its endpoint event announces to the request's principal until the stream ends. The
// id is bound before the event reaches the client, so no message can come first.
func (g *Gateway) serveSSEStream(h http.Handler, w http.ResponseWriter, r *http.Request) {
	p := auth.FromContext(r.Context())
	sw := &endpointSniffer{ResponseWriter: w}
	sw.found = func(id string) { g.sseOwners.add(id, sseOwner{user: p.User, via: p.Via}) }
	defer func() {
		if sw.id != "" {
			g.sseOwners.remove(sw.id)
		}
	}()
	h.ServeHTTP(sw, r)
}

// sseMessageAllowed reports whether the POST r may send a message to the HTTP+SSE session
// it names, or answers 403 and reports false: the session was opened by an authenticated
// principal and r comes from another one, or from none. Unknown ids pass (the SDK answers
// 404).
func (g *Gateway) sseMessageAllowed(w http.ResponseWriter, r *http.Request, server string) bool {
	owner, ok := g.sseOwners.get(r.URL.Query().Get("sessionid"))
	if !ok || owner.user == "" {
		return true
	}
	p := auth.FromContext(r.Context())
	if p.User == owner.user && p.Via == owner.via {
		return true
	}
	g.log.InfoContext(r.Context(), "request refused: an HTTP+SSE session of another principal", "server", server,
		"user", p.User, "via", p.Via, "request_id", requestID(r.Context()))
	writeRPCError(w, http.StatusForbidden, nil, codeInvalidRequest, fmt.Sprintf(
		"this session belongs to the principal that opened it; open your own with GET /mcp/%s/sse, sending your credentials on every request", server))
	return false
}

// endpointSniffer passes a response through and calls found with the session id of the
// first endpoint event written (event: endpoint, data: URI?sessionid=ID).
type endpointSniffer struct {
	http.ResponseWriter
	found func(id string)
	id    string
	seen  int // bytes looked at for the endpoint event
}

// maxEndpointScan is how far into a stream the endpoint event is looked for: it is the
// stream's first event.
const maxEndpointScan = 4096

func (s *endpointSniffer) Write(p []byte) (int, error) {
	if s.id == "" && s.seen < maxEndpointScan {
		s.seen += len(p)
		if id := endpointSessionID(p); id != "" {
			s.id = id
			s.found(id)
		}
	}
	return s.ResponseWriter.Write(p)
}

// Flush supports streaming.
func (s *endpointSniffer) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *endpointSniffer) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// endpointSessionID returns the session id of an endpoint event in p, or "".
func endpointSessionID(p []byte) string {
	_, rest, ok := bytes.Cut(p, []byte("event: endpoint\n"))
	if !ok {
		return ""
	}
	_, rest, ok = bytes.Cut(rest, []byte("data: "))
	if !ok {
		return ""
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	u, err := url.Parse(string(bytes.TrimSpace(line)))
	if err != nil {
		return ""
	}
	return u.Query().Get("sessionid")
}
