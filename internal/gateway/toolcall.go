package gateway

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/admission"
	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// toolHandler validates arguments, calls the backend and records the outcome.
func (g *Gateway) toolHandler(e *Entry, name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, rec, err := g.runTool(ctx, e, name, req)
		g.report(ctx, e, name, req, rec, res, err)
		return res, err
	}
}

// callRecord is what a tool call leaves for its log line and audit row.
type callRecord struct {
	start    time.Time
	duration time.Duration
	outcome  string
}

// runTool calls a tool and counts it in the metrics; report logs and audits it. The SDK's
// handler does both before answering; the lean paths write the answer first and report
// after, so the client does not wait for the log line.
func (g *Gateway) runTool(ctx context.Context, e *Entry, name string, req *mcp.CallToolRequest) (*mcp.CallToolResult, callRecord, error) {
	start := time.Now()
	res, outcome, err := g.callTool(ctx, e, name, req)
	if outcome == "busy" {
		var je *jsonrpc.Error
		errors.As(err, &je)
		limit, _ := admission.LimitOf(je)
		g.metrics.refused(cmp.Or(limit, "concurrent_calls"))
	}
	d := time.Since(start)
	g.metrics.observe(e.Name, name, outcome, d)
	return res, callRecord{start: start, duration: d, outcome: outcome}, err
}

// report writes a call's log line and audit row.
func (g *Gateway) report(ctx context.Context, e *Entry, name string, req *mcp.CallToolRequest, rec callRecord, res *mcp.CallToolResult, err error) {
	server, outcome, d := e.Name, rec.outcome, rec.duration
	// One line per call answers "what happened to my call?"; argument values are never
	// logged, a failure's reason is (secrets are scrubbed from results by the kinds).
	attrs := []any{"server", server, "tool", name, "outcome", outcome, "duration", d.Round(time.Microsecond), "request_id", requestID(ctx)}
	reason := ""
	if res != nil && res.IsError {
		reason = resultText(res)
		if outcome == "invalid_arguments" {
			reason = withoutArgumentValues(reason)
		}
	}
	switch {
	case res != nil && res.IsError:
		g.log.InfoContext(ctx, "tool call", append(attrs, "reason", truncate(reason, 300))...)
	case err != nil:
		g.log.WarnContext(ctx, "tool call", append(attrs, "error", err.Error())...)
	default:
		g.log.InfoContext(ctx, "tool call", attrs...)
	}
	if g.audit != nil {
		p := auth.FromContext(ctx)
		entry := store.Entry{Time: rec.start, Server: server, Tool: name, Principal: p.User, Via: p.Via,
			Client: clientAddr(ctx, requestHeader(req)), Outcome: outcome, Duration: d}
		if a := e.Config().Audit; a != nil && a.Arguments && req.Params != nil {
			entry.Arguments = auditArguments(req.Params.Arguments)
		}
		if res != nil && res.IsError {
			entry.Error = truncate(reason, 200)
		} else if err != nil {
			entry.Error = "gateway error (request id " + requestID(ctx) + ")"
		}
		g.audit.record(entry)
	}
}

func (g *Gateway) callTool(ctx context.Context, e *Entry, name string, req *mcp.CallToolRequest) (*mcp.CallToolResult, string, error) {
	st, ok := e.enter()
	if !ok {
		return nil, "unknown_tool", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
	}
	defer st.live.exit()
	schema, ok := st.schemas[name]
	if !ok {
		return nil, "unknown_tool", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
	}
	if p := auth.FromContext(ctx); !mayCall(p, st, name) {
		// Answered as for a tool that does not exist: tools/list does not show it either.
		g.log.InfoContext(ctx, "tool call refused: not for this principal (roles or the backend's rules)", "server", e.Name, "tool", name, "user", p.User, "via", p.Via)
		return nil, "forbidden", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
	}
	raw := req.Params.Arguments
	args, msg := validateArgs(schema, raw)
	if msg != "" {
		return backend.ErrorResult("invalid arguments for tool %s: %s", name, msg), "invalid_arguments", nil
	}
	if why := g.audit.refusal(); why != "" {
		return nil, "audit_unavailable", auditRefusalError(name, why)
	}
	if !admitted(req) { // the edge holds the slot of a request it admitted
		mine := g.callers.Acquire(callerOf(ctx, requestHeader(req)))
		if mine == nil {
			return nil, "busy", g.principalSlotError()
		}
		defer mine()
	}
	release, err := e.calls.Acquire(ctx, e.Name, g.cfg.Limits.CallQueueWait)
	if err != nil {
		return nil, "busy", err
	}
	defer release()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(g.calls, func() { cancel(context.Cause(g.calls)) })()
	timeout := g.cfg.CallTimeoutFor(st.cfg)
	if timeout > 0 {
		stop := time.AfterFunc(timeout, func() { cancel(errCallTimeout) })
		defer stop.Stop()
	}
	res, err := g.scrubCall(st.backend.CallTool(ctx, &backend.Call{
		Name: name, Arguments: args, Principal: auth.FromContext(ctx), Session: g.scrubbedSession(newCallSession(req)),
		InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState,
		Client: req,
	}))
	if errors.Is(context.Cause(ctx), errShuttingDown) {
		return nil, "shutdown", &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the gateway is shutting down and stopped %s before it finished; retry the call", name)}
	}
	if errors.Is(context.Cause(ctx), errCallTimeout) {
		// Whatever the backend made of its cancelled context, the agent learns why.
		return backend.ErrorResult("the call to %s took longer than %s (limits.call_timeout of server %s) and was stopped; "+
			"ask for less at once (narrower arguments, a smaller range or page), or ask the operator to raise limits.call_timeout", name, timeout, e.Name), "timeout", nil
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		// A protocol error of the client's (a refused retry, an undeclared capability)
		// reaches it as it is.
		return nil, "refused", rpcErr
	}
	if err != nil && errors.Is(err, store.ErrUnavailable) {
		// The store is down or restarting: say so, so the agent retries instead of giving up.
		id := requestID(ctx)
		g.log.WarnContext(ctx, "tool call failed: store unavailable", "server", e.Name, "tool", name, "error", err, "request_id", id)
		return nil, "store_unavailable", storeUnavailableError("store_unavailable", fmt.Sprintf(
			"%s did not finish: the gateway's store (its database) cannot be reached right now; retry in a few seconds (request id %s)", name, id))
	}
	if err != nil {
		id := requestID(ctx)
		g.log.ErrorContext(ctx, "tool call failed", "server", e.Name, "tool", name, "error", err, "request_id", id)
		return nil, "gateway_error", &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error while calling %s (request id %s); the gateway log has the details", name, id)}
	}
	if res == nil {
		res = backend.TextResult("")
	}
	if res.IsError {
		return res, "tool_error", nil
	}
	return res, "ok", nil
}

// storeRetryAfter is the Retry-After (seconds) of answers that failed because the store
// cannot be reached: tool calls, the admin API and calls refused under audit.required.
const storeRetryAfter = 5

// storeUnavailableError is the JSON-RPC error of a call the store's outage stopped: data
// {"retryAfterSeconds", "reason"}; the REST routes answer it 503 with Retry-After.
func storeUnavailableError(reason, msg string) *jsonrpc.Error {
	data, _ := json.Marshal(map[string]any{"retryAfterSeconds": storeRetryAfter, "reason": reason})
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Data: data, Message: msg}
}

// auditRefusalError is the error of a call refused under audit.required.
func auditRefusalError(tool, why string) *jsonrpc.Error {
	return storeUnavailableError("audit_unavailable", fmt.Sprintf("%s was not run: its audit row cannot be recorded now (%s); retry in a few seconds", tool, why))
}

// unavailableReason returns the reason of a storeUnavailableError ("" for other errors).
func unavailableReason(e *jsonrpc.Error) string {
	var d struct {
		Reason string `json:"reason"`
	}
	if e.Code != jsonrpc.CodeInternalError || json.Unmarshal(e.Data, &d) != nil {
		return ""
	}
	switch d.Reason {
	case "store_unavailable", "audit_unavailable":
		return d.Reason
	}
	return ""
}

// validateArgs checks raw arguments against the tool's schema. It returns the normalised
// arguments (an object) or a message that says what to fix.
func validateArgs(rs *jsonschema.Resolved, raw json.RawMessage) (json.RawMessage, string) {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, "arguments are not valid JSON: " + err.Error()
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, "arguments must be a JSON object"
	}
	if rs != nil {
		if err := rs.Validate(v); err != nil {
			return nil, elide(strings.TrimPrefix(err.Error(), "validating root: "), 600) + "; check the tool's inputSchema"
		}
	}
	return raw, ""
}

// promptHandler gets a prompt from the source that offers it.
func (g *Gateway) promptHandler(e *Entry, name string) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		st, entered := e.enter()
		if entered {
			defer st.live.exit()
		}
		pg := st.prompts[name]
		if p := auth.FromContext(ctx); pg == nil || !mayGetPrompt(p, st, name) {
			// A prompt the principal may not get is answered as one that does not exist:
			// prompts/list does not show it either.
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", name)}
		}
		return g.scrubPrompt(pg.GetPrompt(ctx, &backend.PromptRequest{
			Name: name, Arguments: req.Params.Arguments, Principal: auth.FromContext(ctx), Session: g.scrubbedSession(newPromptSession(req)),
			InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState,
			Client: req,
		}))
	}
}

// elide shortens s to about n bytes by cutting out its middle, on rune boundaries: a
// message that quotes a long value keeps its start (what is wrong, where) and its end (what
// was wanted).
func elide(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i, j := n/2, len(s)-n/2
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	for j < len(s) && !utf8.RuneStart(s[j]) {
		j++
	}
	return s[:i] + " … " + s[j:]
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// errCallTimeout is the cause of the cancellation of a tool call that ran past
// limits.call_timeout.
var errCallTimeout = errors.New("gateway: call timeout")
