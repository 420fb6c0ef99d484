package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpbridge/mcpbridge/internal/admission"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// modernVersion is the first protocol version served statelessly.
const modernVersion = "2026-07-28"

// JSON-RPC error codes used at the HTTP boundary.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInternalError  = -32603
	// codeBusy answers a request refused by a limit (sessions, concurrent calls): the
	// message says which and when to retry.
	codeBusy = admission.CodeBusy
)

// writeRPCError writes a JSON-RPC error object with HTTP status code.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string) {
	writeRPCErrorObject(w, status, id, map[string]any{"code": code, "message": msg})
}

// writeRPCErrorObject writes the JSON-RPC answer to id (null when empty) whose error object
// is e (a *jsonrpc.Error, data included), with HTTP status code.
func writeRPCErrorObject(w http.ResponseWriter, status int, id json.RawMessage, e any) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
	h := w.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(body)
	w.Write([]byte("\n"))
}

// admit checks the per-caller limits of a POST that carries one JSON-RPC request, before
// MCP handles it, so that a refusal is an HTTP 429 with Retry-After: it charges the rate
// limits and, for tools/call, takes one of the caller's call slots until the request has
// been answered. The request is marked admitted (admittedHeader), so that the method
// handlers do not charge it again. A batch, and the messages of the HTTP+SSE transport,
// are charged message by message by the handlers instead (principalMiddleware, callTool).
// It reports whether the request may go on.
func (g *Gateway) admit(w http.ResponseWriter, r *http.Request, e *Entry, id json.RawMessage, method string) bool {
	fail := func(status int, _ string, je *jsonrpc.Error) { writeRPCErrorObject(w, status, id, je) }
	if !g.checkRate(w, r, e, fail) {
		return false
	}
	if method == "tools/call" {
		if why := g.audit.refusal(); why != "" {
			g.metrics.refused("audit")
			w.Header().Set("Retry-After", fmt.Sprint(storeRetryAfter))
			writeRPCErrorObject(w, http.StatusServiceUnavailable, id, auditRefusalError("the tool", why))
			return false
		}
	}
	if method == "tools/call" && g.callers.Max() > 0 {
		release := g.callers.Acquire(callerOf(r.Context(), r.Header))
		if release == nil {
			g.metrics.refused("concurrent_calls_per_principal")
			w.Header().Set("Retry-After", "1")
			writeRPCErrorObject(w, http.StatusTooManyRequests, id, g.principalSlotError())
			return false
		}
		// Given back when the request has been answered: the handler of this request
		// returns after the response (the HTTP+SSE transport, which answers on its stream,
		// never comes here).
		context.AfterFunc(r.Context(), release)
	}
	r.Header.Set(admittedHeader, "1")
	return true
}

// usableEntry returns the server named name when the caller may use it and it is served,
// or answers with fail (404 unknown or disabled, 503 unavailable) or the authentication
// challenge, and returns nil. It is the check of /mcp/{server} and /api/mcp/{server}.
func (g *Gateway) usableEntry(w http.ResponseWriter, r *http.Request, name string, fail func(w http.ResponseWriter, status int, msg string)) *Entry {
	e := g.reg.get(name)
	if !config.NamePattern.Get().MatchString(name) || e == nil {
		fail(w, http.StatusNotFound, fmt.Sprintf("no server named %q; GET /mcp lists the servers", name))
		return nil
	}
	if r.Method != http.MethodOptions && !g.authorizeServer(w, r, e) {
		return nil
	}
	if !e.Config().IsEnabled() {
		fail(w, http.StatusNotFound, fmt.Sprintf("server %q is disabled (enabled: false in its definition)", name))
		return nil
	}
	if e = g.openedFor(w, r, e, fail); e == nil {
		return nil
	}
	if reason := e.Unavailable(); reason != "" {
		w.Header().Set("Retry-After", "30")
		fail(w, http.StatusServiceUnavailable, fmt.Sprintf("server %q is unavailable: it could not be opened: %s; fix its definition or what it depends on", name, reason))
		return nil
	}
	return e
}

// serveEndpoint serves POST/GET/DELETE on /mcp/{server} (and /mcp/{server}/sse when sse).
func (g *Gateway) serveEndpoint(w http.ResponseWriter, r *http.Request, name string, sse bool) {
	e := g.usableEntry(w, r, name, func(w http.ResponseWriter, status int, msg string) {
		code := codeInvalidRequest
		if status == http.StatusServiceUnavailable {
			code = codeInternalError
		}
		writeRPCError(w, status, nil, code, msg)
	})
	if e == nil {
		return
	}
	if o := r.Header.Get("Origin"); o != "" {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", o)
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version, X-Request-Id")
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
			h.Set("Access-Control-Allow-Headers", "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	q := newEndpointRequest(r, sse)
	if q.sse && q.post && !g.sseMessageAllowed(w, r, name) {
		return
	}
	if q.get && !q.sse && wantsHTML(r) {
		http.Redirect(w, r, "/mcp/meta/"+name, http.StatusSeeOther)
		return
	}
	if q.post {
		ct := r.Header.Get("Content-Type")
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" {
			writeRPCError(w, http.StatusUnsupportedMediaType, nil, codeInvalidRequest, fmt.Sprintf("Content-Type must be application/json, got %q", ct))
			return
		}
		q.body, err = readBody(w, r, g.cfg.Limits.MaxBody)
		if err != nil {
			g.bodyError(w, err)
			return
		}
		var ok bool
		q.id, q.method, q.params, ok = checkMessage(w, q.body)
		if !ok {
			return
		}
		if q.lacksSession() {
			writeRPCError(w, http.StatusBadRequest, q.id, codeInvalidRequest, "missing Mcp-Session-Id header: send initialize first, or send MCP-Protocol-Version: "+modernVersion+" for a stateless request")
			return
		}
		if q.admittedAtEdge() && !g.admit(w, r, e, q.id, q.method) {
			return
		}
		if q.lean() {
			if status := g.serveLean(w, r, e, q.body, q.id, q.params); status != 0 {
				g.metrics.requests.WithLabelValues(name, strconv.Itoa(status)).Inc()
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(q.body))
		r.ContentLength = int64(len(q.body))
	}
	if q.legacy() && !g.checkSessionVersion(w, r, e, q.id) {
		return
	}
	if q.onSession() {
		// The session does not expire while this request runs; its idle time restarts
		// when it ends (sessionTable.sweep).
		info, done, known := g.sessions.use(q.session)
		defer done()
		if known && q.method == "tools/call" && g.serveLeanLegacy(w, r, e, q.body, q.id, q.params, info) {
			g.metrics.requests.WithLabelValues(name, "200").Inc()
			return
		}
		if known && q.method == "notifications/cancelled" && len(q.id) == 0 {
			g.cancelLean(r, e, q.params, info)
		}
	}
	// A legacy POST without a session opens one; so does a GET of the HTTP+SSE transport.
	var release func()
	if q.opensSession() {
		var status int
		var limit, msg string
		// Counted per principal when the caller is authenticated, else per client address
		// (a trusted proxy's client's).
		release, limit, status, msg = g.sessions.reserve(callerOf(r.Context(), r.Header))
		if status != 0 {
			g.metrics.refused(limit)
			w.Header().Set("Retry-After", "5")
			writeRPCError(w, status, q.id, codeBusy, msg)
			return
		}
		defer func() {
			if release != nil { // not bound to a session below, or the handler panicked
				release()
			}
		}()
	}
	rw := &rpcErrorWriter{ResponseWriter: w, id: q.id, method: q.method}
	defer rw.finish()
	switch {
	case q.sse && q.get:
		g.serveSSEStream(e.sse, rw, r)
	case q.sse:
		e.sse.ServeHTTP(rw, r)
	case q.modern:
		withTokenInfo(e.modern, r).ServeHTTP(rw, r)
	default:
		withTokenInfo(e.legacy, r).ServeHTTP(rw, r)
	}
	if release != nil {
		// A Streamable HTTP session lives on after this request: keep its slot until it ends.
		// An HTTP+SSE session ended with its stream, which is this request.
		if sid := w.Header().Get("Mcp-Session-Id"); sid != "" && !q.sse {
			if ss := findSession(e.Server, sid); ss != nil {
				if ss.InitializeParams() != nil {
					g.sessions.bind(ss, e.Name, bearerUser(r), release)
					release = nil
				} else {
					ss.Close() // never initialized: nothing would expire it
				}
			}
		}
	}
	g.metrics.requests.WithLabelValues(name, strconv.Itoa(rw.status())).Inc()
}

// bodyError answers a request whose body could not be read: too large (413) or too slow
// (408, limits.read_timeout).
func (g *Gateway) bodyError(w http.ResponseWriter, err error) {
	var mbe *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &mbe):
		writeRPCError(w, http.StatusRequestEntityTooLarge, nil, codeInvalidRequest, fmt.Sprintf("request body is larger than %d bytes (limits.max_body)", g.cfg.Limits.MaxBody))
	case errors.As(err, &ne) && ne.Timeout():
		w.Header().Set("Connection", "close")
		writeRPCError(w, http.StatusRequestTimeout, nil, codeInvalidRequest, fmt.Sprintf("the request body did not arrive within %s (limits.read_timeout)", g.cfg.Limits.ReadTimeout))
	default:
		writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest, "reading request body: "+err.Error())
	}
}

// checkSessionVersion holds a legacy-era request on a session to the protocol version the
// session negotiated at initialize: a different MCP-Protocol-Version is refused (400), and a
// missing one is taken to be the negotiated version (not 2025-03-26, the spec's fallback
// for servers that cannot tell), so version-dependent rules such as "no batches after
// 2025-03-26" hold. It reports whether the request may go on.
func (g *Gateway) checkSessionVersion(w http.ResponseWriter, r *http.Request, e *Entry, id json.RawMessage) bool {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		return true
	}
	info, ok := g.sessions.lookup(sid)
	if !ok || info.server != e.Name {
		return true // the SDK answers for unknown sessions
	}
	switch v := r.Header.Get("Mcp-Protocol-Version"); v {
	case "":
		r.Header.Set("Mcp-Protocol-Version", info.version)
	case info.version:
	default:
		writeRPCError(w, http.StatusBadRequest, id, codeInvalidRequest, fmt.Sprintf("MCP-Protocol-Version %q does not match the version this session negotiated at initialize (%s): send MCP-Protocol-Version: %s, or initialize a new session", truncate(v, 32), info.version, info.version))
		return false
	}
	return true
}

// checkMessage validates the JSON-RPC envelope and returns its id, method and params (the
// params of a message object only, undecoded); on failure it writes the error and returns
// false.
func checkMessage(w http.ResponseWriter, body []byte) (id json.RawMessage, method string, params json.RawMessage, ok bool) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		writeRPCError(w, http.StatusBadRequest, nil, codeParseError, "parse error: the request body is empty; send one JSON-RPC message")
		return nil, "", nil, false
	}
	if trimmed[0] == '[' {
		if !json.Valid(trimmed) {
			writeRPCError(w, http.StatusBadRequest, nil, codeParseError, "parse error: the request body is not valid JSON")
			return nil, "", nil, false
		}
		// A batch: the SDK accepts it at 2025-03-26 and refuses it later, by version.
		var msgs []json.RawMessage
		if json.Unmarshal(trimmed, &msgs) != nil || len(msgs) == 0 {
			writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest, "invalid request: a batch must be a non-empty array of JSON-RPC messages")
			return nil, "", nil, false
		}
		for i, m := range msgs {
			var item struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(m, &item) != nil {
				continue // the SDK answers for malformed items
			}
			if problem := checkID(item.ID); problem != "" {
				writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest, fmt.Sprintf("invalid request: batch item %d: %s", i+1, problem))
				return nil, "", nil, false
			}
		}
		return nil, "", nil, true
	}
	var m struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Params  json.RawMessage `json:"params"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(trimmed, &m); err != nil || trimmed[0] != '{' {
		var se *json.SyntaxError
		if errors.As(err, &se) || (err != nil && !json.Valid(trimmed)) {
			writeRPCError(w, http.StatusBadRequest, nil, codeParseError, "parse error: the request body is not valid JSON")
			return nil, "", nil, false
		}
		writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest, "invalid request: expected a JSON-RPC 2.0 message object")
		return nil, "", nil, false
	}
	id = m.ID
	if problem := checkID(id); problem != "" {
		// The answer carries the id exactly as sent: the one thing the gateway can echo
		// without changing it.
		if !isNumber(id) {
			id = nil
		}
		writeRPCError(w, http.StatusBadRequest, id, codeInvalidRequest, "invalid request: "+problem)
		return nil, "", nil, false
	}
	if m.JSONRPC == nil || *m.JSONRPC != "2.0" {
		writeRPCError(w, http.StatusBadRequest, id, codeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
		return nil, "", nil, false
	}
	if m.Method == nil && m.Result == nil && m.Error == nil {
		writeRPCError(w, http.StatusBadRequest, id, codeInvalidRequest, `invalid request: missing "method"`)
		return nil, "", nil, false
	}
	if m.Method != nil && *m.Method == "" {
		writeRPCError(w, http.StatusBadRequest, id, codeInvalidRequest, `invalid request: "method" is empty`)
		return nil, "", nil, false
	}
	if m.Method != nil {
		method = *m.Method
	}
	return id, method, m.Params, true
}

// maxSafeID is the largest integer id that survives the SDK, which reads numeric ids as
// float64 (2^53-1, JavaScript's Number.MAX_SAFE_INTEGER).
const maxSafeID = 1<<53 - 1

// plainInteger matches an integer written without fraction, exponent or leading zeros.
var plainInteger = lazy.Regexp{Expr: `^-?(0|[1-9][0-9]*)$`}

// checkID says what is wrong with a JSON-RPC id, or returns "". Ids are strings, or
// integers from -(2^53-1) to 2^53-1 written plainly: the SDK reads numeric ids as float64
// and writes them back as integers, so 1.5 would come back as 1, 1e2 as 100,
// 9007199254740993 as 9007199254740992 and -0 as 0. Such ids are refused rather than
// answered under another id.
func checkID(id json.RawMessage) string {
	switch {
	case len(id) == 0, string(id) == "null", id[0] == '"':
		return ""
	case !isNumber(id):
		return "id must be a string or an integer"
	}
	const rule = "; ids must be strings, or integers from -9007199254740991 to 9007199254740991 written without a fraction or exponent"
	s := string(id)
	if !plainInteger.Get().MatchString(s) {
		return fmt.Sprintf("id %s is not a plain integer", truncate(s, 40)) + rule
	}
	if s == "-0" {
		return "id -0 is negative zero, which would come back as 0" + rule
	}
	if n, err := strconv.ParseInt(s, 10, 64); err != nil || n > maxSafeID || n < -maxSafeID {
		return fmt.Sprintf("id %s is too large to come back unchanged", truncate(s, 40)) + rule
	}
	return ""
}

func isNumber(id json.RawMessage) bool {
	return len(id) > 0 && (id[0] == '-' || (id[0] >= '0' && id[0] <= '9'))
}

// rpcErrorWriter turns the SDK's plain-text HTTP errors into JSON-RPC error objects, so
// clients always get a well-formed JSON-RPC answer. Other responses pass through untouched.
type rpcErrorWriter struct {
	http.ResponseWriter
	id       json.RawMessage
	method   string
	code     int
	capture  bool
	buf      bytes.Buffer
	finished bool
}

func (w *rpcErrorWriter) WriteHeader(code int) {
	if w.code != 0 {
		return
	}
	w.code = code
	ct := w.Header().Get("Content-Type")
	if code >= 400 && (ct == "" || strings.HasPrefix(ct, "text/plain")) {
		w.capture = true
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *rpcErrorWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.capture {
		if w.buf.Len() < 4096 {
			w.buf.Write(p)
		}
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Flush supports streaming (SSE) responses.
func (w *rpcErrorWriter) Flush() {
	if w.capture {
		return
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *rpcErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *rpcErrorWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

func (w *rpcErrorWriter) finish() {
	if !w.capture || w.finished {
		return
	}
	w.finished = true
	msg := strings.TrimSpace(w.buf.String())
	if msg == "" {
		msg = http.StatusText(w.code)
	}
	code := codeInvalidRequest
	if w.method != "" && !knownMethods[w.method] {
		code = codeMethodNotFound
		msg = fmt.Sprintf("method not found: %q", w.method)
	}
	if w.code >= 500 {
		code = codeInternalError
	}
	writeRPCError(w.ResponseWriter, w.code, w.id, code, msg)
}

// wantsHTML reports whether a GET comes from a browser rather than an MCP client.
func wantsHTML(r *http.Request) bool {
	acc := r.Header.Get("Accept")
	return strings.Contains(acc, "text/html") && !strings.Contains(acc, "text/event-stream")
}

// originAllowed implements the Origin check: no Origin (non-browser clients) is allowed; a
// present Origin must be in the configured list, or be the same origin as the request when
// the request's Host is a loopback name (the gateway's own pages on a local machine).
func (g *Gateway) originAllowed(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	if g.origins[strings.ToLower(strings.TrimSuffix(o, "/"))] {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" {
		return false
	}
	if !strings.EqualFold(u.Host, r.Host) {
		return false
	}
	return isLoopbackHost(u.Hostname())
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// knownMethods are the MCP methods of every protocol era; an SDK refusal of any other method
// is reported as -32601 (method not found).
var knownMethods = map[string]bool{
	"initialize": true, "ping": true, "server/discover": true,
	"tools/list": true, "tools/call": true,
	"resources/list": true, "resources/read": true, "resources/templates/list": true,
	"resources/subscribe": true, "resources/unsubscribe": true, "subscriptions/listen": true,
	"prompts/list": true, "prompts/get": true, "completion/complete": true, "logging/setLevel": true,
	"tasks/get": true, "tasks/result": true, "tasks/list": true, "tasks/cancel": true, "tasks/update": true,
}

// readBody reads a request body of at most limit bytes, in one allocation when the length
// is known.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	body := http.MaxBytesReader(w, r.Body, limit)
	if n := r.ContentLength; n > 0 && n <= limit {
		buf := make([]byte, n)
		if _, err := io.ReadFull(body, buf); err != nil {
			return nil, err
		}
		// The declared length was honest only if nothing follows.
		var one [1]byte
		if m, _ := body.Read(one[:]); m > 0 {
			return nil, errors.New("body longer than its Content-Length")
		}
		return buf, nil
	}
	return io.ReadAll(body)
}
