package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
)

// The 2026-07-28 wire is stateless: every request stands alone. The SDK serves it by
// building a temporary session per request and decoding the message several times on the
// way; for the call agents make most, a tools/call, the gateway answers on its own lean
// path instead: decode once, dispatch to the same tool handler (validation, limits,
// metrics, audit), encode once, one application/json body. Anything the lean path does not
// handle exactly as the SDK would — a batch, a progress token, a header or _meta the SDK
// would refuse, a tool that is not served — goes to the SDK's handler, which stays the
// reference: TestLeanPathMatchesSDK compares the two answers.

// leanParams decodes the params of a tools/call whose envelope checkMessage accepted (a
// JSON-RPC 2.0 request object; body is the whole message), or returns nil when the SDK
// must answer it.
func leanParams(body, id, params json.RawMessage) *mcp.CallToolParamsRaw {
	if len(id) == 0 || len(params) == 0 || !nestedWithin(body, sdkMaxDepth) {
		return nil
	}
	var p *mcp.CallToolParamsRaw
	if json.Unmarshal(params, &p) != nil {
		return nil
	}
	return p
}

// serveLean answers a stateless tools/call and returns the HTTP status it answered with,
// or returns 0 having written nothing, when the request is one the SDK must answer. id and
// params are the request body's, as checkMessage returned them.
func (g *Gateway) serveLean(w http.ResponseWriter, r *http.Request, e *Entry, body, id, params json.RawMessage) int {
	if g.leanOff || r.Header.Get("Mcp-Method") != "tools/call" || !acceptsJSON(r.Header.Get("Accept")) {
		return 0
	}
	p := leanParams(body, id, params)
	if p == nil || p.Name == "" || r.Header.Get("Mcp-Name") != p.Name || !leanMeta(p.Meta) || p.GetProgressToken() != nil {
		return 0
	}
	st := e.state.Load()
	if _, served := st.schemas[p.Name]; !served {
		return 0 // the SDK words "unknown tool"
	}
	if t := st.paramHeaders[p.Name]; t != nil {
		// The arguments mirrored in Mcp-Param-* headers must agree with them, as the
		// SDK's handler checks before it dispatches.
		if err := mcp.CheckParamHeaders(r.Header, params, t); err != nil {
			b, _ := json.Marshal(&jsonrpc.Error{Code: mcp.CodeHeaderMismatch, Message: err.Error()})
			g.writeLeanStatus(w, http.StatusBadRequest, leanEnvelope(id, "error", b))
			return http.StatusBadRequest
		}
	}
	call := &mcp.CallToolRequest{Params: p, Extra: &mcp.RequestExtra{Header: r.Header}}
	res, rec, err := g.runTool(r.Context(), e, p.Name, call)
	status := g.writeLean(w, id, e, res, err, true)
	g.report(r.Context(), e, p.Name, call, rec, res, err)
	return status
}

// serveLeanLegacy answers a tools/call on a legacy Streamable HTTP session with one
// application/json body, as the SDK would over an event stream, and reports true; or
// reports false having written nothing. It serves only calls that send the client nothing
// but their result: a quiet backend (backend.Quiet, or backend.QuietFor the capabilities
// the session's client declared), no progress token, no _meta, and a
// session whose client has not set a log level; and only the session's own user (the SDK
// answers the others, with 403).
func (g *Gateway) serveLeanLegacy(w http.ResponseWriter, r *http.Request, e *Entry, body, id, params json.RawMessage, info sessionInfo) bool {
	if g.leanOff || !acceptsJSON(r.Header.Get("Accept")) {
		return false
	}
	if info.server != e.Name || info.logging || info.owner != bearerUser(r) {
		return false
	}
	st := e.state.Load()
	qf, quietFor := st.backend.(backend.QuietFor)
	if q, ok := st.backend.(backend.Quiet); !quietFor && (!ok || !q.Quiet()) {
		return false
	}
	p := leanParams(body, id, params)
	if p == nil || p.Name == "" || len(p.Meta) != 0 {
		return false
	}
	if _, served := st.schemas[p.Name]; !served {
		return false
	}
	call := &mcp.CallToolRequest{Session: info.ss, Params: p, Extra: &mcp.RequestExtra{Header: r.Header}}
	if _, caps := backend.DeclaredBy(call); quietFor && !qf.QuietFor(caps) {
		return false // its calls may ask this client something: the SDK's event stream
	}
	// A notifications/cancelled for this id on this session stops the call (cancelLean).
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer g.sessions.track(info.ss.ID(), id, cancel)()
	res, rec, err := g.runTool(ctx, e, p.Name, call)
	g.writeLean(w, id, e, res, err, false)
	g.report(r.Context(), e, p.Name, call, rec, res, err)
	return true
}

// cancelLean stops the call a notifications/cancelled (params) names if the lean legacy
// path runs it on the session described by info, sent by the session's own user. The
// notification goes on to the SDK all the same, which cancels the requests it serves.
func (g *Gateway) cancelLean(r *http.Request, e *Entry, params json.RawMessage, info sessionInfo) {
	if info.server != e.Name || info.owner != bearerUser(r) {
		return
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	g.sessions.cancelCall(info.ss.ID(), p.RequestID)
}

// writeLean writes the answer of a tools/call as one JSON-RPC message in an
// application/json body, sends it and returns its HTTP status. A 2026-07-28 answer
// (modern) carries the server's info in _meta, its result type, and the HTTP status of its
// error; a legacy one is the bare result or error, with 200.
func (g *Gateway) writeLean(w http.ResponseWriter, id json.RawMessage, e *Entry, res *mcp.CallToolResult, err error, modern bool) int {
	var out []byte
	status := http.StatusOK
	if err != nil {
		je, ok := err.(*jsonrpc.Error)
		if !ok {
			je = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		if modern {
			status = errorStatus(je.Code)
		}
		b, _ := json.Marshal(je)
		out = leanEnvelope(id, "error", b)
	} else {
		var b []byte
		var merr error
		fast := false
		switch {
		case len(res.Meta) != 0: // the backend's _meta: the SDK's way
		case !modern:
			b, fast = appendResult(make([]byte, 0, 512), res, nil)
		case e.infoMeta != nil:
			b, fast = appendResult(make([]byte, 0, 512), res, e.infoMeta)
		}
		if !fast {
			if modern {
				m := res.Meta
				if m == nil {
					m = mcp.Meta{}
				}
				if _, ok := m[mcp.MetaKeyServerInfo]; !ok {
					m[mcp.MetaKeyServerInfo] = e.impl
				}
				res.Meta = m
			}
			b, merr = json.Marshal(res)
		}
		switch {
		case merr != nil:
			b, _ = json.Marshal(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the result cannot be written as JSON: " + merr.Error()})
			out = leanEnvelope(id, "error", b)
		case modern:
			resultType := "complete"
			if res.InputRequests != nil {
				resultType = "input_required"
			}
			// The SDK's result type is unexported; it is the last key of the object.
			sep := ","
			if len(b) == 2 {
				sep = ""
			}
			b = append(b[:len(b)-1], sep+`"resultType":"`+resultType+`"}`...)
			out = leanEnvelope(id, "result", b)
		default:
			out = leanEnvelope(id, "result", b)
		}
	}
	g.writeLeanStatus(w, status, out)
	return status
}

// writeLeanStatus sends out, one JSON-RPC message, as an application/json body with
// HTTP status.
func (g *Gateway) writeLeanStatus(w http.ResponseWriter, status int, out []byte) {
	g.leanServed.Add(1)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(status)
	w.Write(out)
	// Send it now: the log line and audit row come after (report), not before the client
	// has its answer.
	http.NewResponseController(w).Flush()
}

// errorStatus is the HTTP status of a 2026-07-28 JSON-RPC error response, as the SDK
// writes it (SEP-2575): 404 for an unknown method, 400 for invalid params, an unsupported
// protocol version or a client capability the request needs and the client did not
// declare; 200 for the others.
func errorStatus(code int64) int {
	switch code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, mcp.CodeUnsupportedProtocolVersion, mcp.CodeMissingRequiredClientCapabilities:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// sdkMaxDepth is the deepest nesting of a message the go-sdk decodes; it refuses deeper ones
// (internal/json defaultMaxDepth), and so the lean paths leave those to it.
const sdkMaxDepth = 1000

// nestedWithin reports whether the JSON in b nests objects and arrays at most max deep.
func nestedWithin(b []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > max {
				return false
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return true
}

// leanEnvelope writes {"jsonrpc":"2.0","id":ID,"KEY":VALUE} in one allocation.
func leanEnvelope(id json.RawMessage, key string, value []byte) []byte {
	out := make([]byte, 0, len(value)+len(id)+32)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"`...)
	out = append(out, key...)
	out = append(out, `":`...)
	out = append(out, value...)
	return append(out, '}')
}

// leanMeta reports whether a request's _meta is one the SDK accepts without a word and the
// lean path can serve: the 2026-07-28 triple (protocol version, client capabilities as an
// object, client info absent or an object with a name). A progress token sends the
// request to the SDK, whose event stream carries progress, and so does a log level: the
// backend may send log notifications before the result.
func leanMeta(m mcp.Meta) bool {
	if m == nil {
		return false
	}
	if _, ok := m[mcp.MetaKeyLogLevel]; ok {
		return false
	}
	if v, ok := m[mcp.MetaKeyProtocolVersion].(string); !ok || v < modernVersion {
		return false
	}
	if _, ok := m[mcp.MetaKeyClientCapabilities].(map[string]any); !ok {
		return false
	}
	if ci, present := m[mcp.MetaKeyClientInfo]; present {
		info, ok := ci.(map[string]any)
		if !ok {
			return false
		}
		if name, _ := info["name"].(string); name == "" {
			return false
		}
	}
	return true
}

// acceptsJSON reports whether an Accept header allows an application/json answer.
func acceptsJSON(accept string) bool {
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch strings.TrimSpace(mt) {
		case "application/json", "application/*", "*/*":
			return true
		}
	}
	return false
}
