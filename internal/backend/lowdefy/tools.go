package lowdefy

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// Action types of interact.
var actionTypes = []string{"setValue", "triggerEvent", "setState", "setGlobal", "navigate", "callMethod", "callApi"}

// sessionTools describes the work-session tools. The descriptions teach the workflow in
// few words: the whole list is measured by TestToolListSize.
func sessionTools(l Limits, tz string) []*mcp.Tool {
	obj := func(props map[string]any, required ...string) map[string]any {
		s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	str := map[string]any{"type": "string"}
	sid := map[string]any{"sessionId": str}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	return []*mcp.Tool{
		{
			Name:        "session_create",
			Description: "Start a work session on this app (like opening it in a browser). Then: get_pages, navigate to a page, read it, interact with it.",
			InputSchema: obj(map[string]any{"name": str, "description": str}, "name"),
		},
		{
			Name:        "session_list",
			Description: "Your open work sessions.",
			InputSchema: obj(map[string]any{}),
			Annotations: readOnly,
		},
		{
			Name:        "session_close",
			Description: "Close a work session you are done with.",
			InputSchema: obj(sid, "sessionId"),
		},
		{
			Name: "navigate",
			Description: "Open a page as a link does: pageId may carry a URL query (profile?id=42), or give urlQuery and input as Lowdefy's Link does (the page reads them with _url_query and _input). " +
				"Returns the page as markdown: blocks with their ids, values and events, and a log.",
			InputSchema: obj(map[string]any{"sessionId": str, "pageId": str, "urlQuery": map[string]any{"type": "object"}, "input": map[string]any{"type": "object"}}, "sessionId", "pageId"),
		},
		{
			Name: "interact",
			Description: fmt.Sprintf("Act on the open page like a user, in order (at most %d actions): "+
				"setValue{blockId,value}, triggerEvent{blockId,event} (a button click is onClick; runs its actions to the end), "+
				"setState/setGlobal{key,value}, callMethod{blockId,method,args}, callApi{endpointId,payload}, navigate{pageId,urlQuery,input}. "+
				"Date blocks take ISO 8601: \"2026-03-01\", \"2026-03-01T09:30\" (no offset: %s time), a range [start, end]; null clears. "+
				"A page change skips the remaining actions; a failed action is logged and the rest run. Returns the page and a log per action.", l.MaxActionsPerCall, tz),
			InputSchema: obj(map[string]any{
				"sessionId": str,
				"actions": map[string]any{"type": "array", "items": obj(map[string]any{
					"type": map[string]any{"enum": actionTypes}, "blockId": str, "value": map[string]any{}, "event": str,
					"key": str, "values": map[string]any{"type": "object"}, "method": str, "args": map[string]any{},
					"pageId": str, "urlQuery": map[string]any{"type": "object"}, "input": map[string]any{"type": "object"}, "endpointId": str, "payload": map[string]any{},
				}, "type")},
			}, "sessionId", "actions"),
		},
		{
			Name:        "get_state",
			Description: "The open page's state, global, request results and validation, as JSON.",
			InputSchema: obj(sid, "sessionId"),
			Annotations: readOnly,
		},
		{
			Name:        "get_pages",
			Description: "The pages you may open: pageId, title, auth.",
			InputSchema: obj(sid, "sessionId"),
			Annotations: readOnly,
		},
	}
}

// args decodes a call's arguments into v.
func args(c *backend.Call, v any) error {
	if len(c.Arguments) == 0 {
		return nil
	}
	if err := json.Unmarshal(c.Arguments, v); err != nil {
		return toolErr("the arguments of %s do not fit its input schema: %v", c.Name, err)
	}
	return nil
}

// jsonResult is a generated tool's JSON answer: as text and as structured content.
func jsonResult(v any) *mcp.CallToolResult {
	s, _ := jsvalue.Stringify(v, "")
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, StructuredContent: json.RawMessage(s)}
}

// textJSON is a work-session tool's JSON answer, as text only. The session tools declare
// no output schema, so a result carries its content once: a client that would pass both
// the text and a structured copy to the model would pay for it twice.
func textJSON(v any) *mcp.CallToolResult {
	s, _ := jsvalue.Stringify(v, "")
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func toolResult(res *mcp.CallToolResult, err error) (*mcp.CallToolResult, error) {
	if te, ok := err.(*errTool); ok {
		return backend.ErrorResult("%s", te.msg), nil
	}
	return res, err
}

func (b *Backend) sessionCreate(ctx context.Context, c *backend.Call) (*mcp.CallToolResult, error) {
	var in struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	if err := args(c, &in); err != nil {
		return toolResult(nil, err)
	}
	if strings.TrimSpace(in.Name) == "" {
		return backend.ErrorResult("name is required: a few words saying what the session is for"), nil
	}
	now := b.now()
	if n, err := b.sessions.Expire(ctx, now); err != nil {
		b.log.Warn("expire work sessions", "err", err)
	} else if n > 0 {
		b.log.Info("expired work sessions", "count", n)
	}
	who := owner(c.Principal)
	open, err := b.mySessions(ctx, who)
	if err != nil {
		return nil, err
	}
	if len(open) >= b.limits.MaxSessionsPerUser {
		return backend.ErrorResult("you have %d open work sessions on this app, the most allowed: close one with session_close (session_list lists them)", len(open)), nil
	}
	sd := sessionData{Name: in.Name, Description: in.Description, Audit: []json.RawMessage{encodeAudit(auditEntry{At: now, Tool: "session_create", OK: true})}}
	data, err := sd.encode()
	if err != nil {
		return nil, err
	}
	ws, err := b.sessions.Create(ctx, store.WorkSession{App: b.name, Owner: who, Data: data, ExpiresAt: now.Add(b.limits.SessionExpiry)})
	if err != nil {
		return nil, fmt.Errorf("create work session: %w", err)
	}
	return textJSON(jsvalue.ObjectOf("sessionId", ws.ID, "name", in.Name)), nil
}

// mySessions lists the open sessions of owner on this app.
func (b *Backend) mySessions(ctx context.Context, who string) ([]store.WorkSession, error) {
	all, err := b.sessions.List(ctx, who)
	if err != nil {
		return nil, fmt.Errorf("list work sessions: %w", err)
	}
	return slices.DeleteFunc(all, func(ws store.WorkSession) bool { return ws.App != b.name || ws.Closed }), nil
}

func (b *Backend) sessionList(ctx context.Context, c *backend.Call) (*mcp.CallToolResult, error) {
	list, err := b.mySessions(ctx, owner(c.Principal))
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(list))
	for _, ws := range list {
		var h sessionHeader
		_ = json.Unmarshal(ws.Data, &h)
		o := jsvalue.ObjectOf("sessionId", ws.ID, "name", h.Name)
		if h.Description != "" {
			o.Set("description", h.Description)
		}
		o.Set("status", "open")
		if h.PageID != "" {
			o.Set("pageId", h.PageID)
		}
		o.Set("updatedAt", ws.UpdatedAt.UTC().Format("2006-01-02T15:04:05Z"))
		out = append(out, o)
	}
	return textJSON(out), nil
}

func (b *Backend) sessionClose(ctx context.Context, c *backend.Call) (*mcp.CallToolResult, error) {
	var in struct {
		SessionID string `json:"sessionId"`
	}
	if err := args(c, &in); err != nil {
		return toolResult(nil, err)
	}
	// Not a writing call for withSession: it saves the session itself, before closing it.
	return b.withSession(ctx, c, in.SessionID, false, func(s *session) (*mcp.CallToolResult, error) {
		s.audit(auditEntry{At: b.now(), Tool: "session_close", Page: s.data.PageID, OK: true})
		// The closing save records the audit entry; Close then marks the session closed.
		if err := b.save(ctx, s); err != nil {
			return nil, err
		}
		if err := b.sessions.Close(ctx, s.ws.ID); err != nil {
			return nil, fmt.Errorf("close work session %s: %w", s.ws.ID, err)
		}
		b.locks.Delete(s.ws.ID)
		return textJSON(jsvalue.ObjectOf("success", true)), nil
	})
}

func (b *Backend) navigate(ctx context.Context, c *backend.Call) (*mcp.CallToolResult, error) {
	var in struct {
		SessionID string          `json:"sessionId"`
		PageID    string          `json:"pageId"`
		URLQuery  json.RawMessage `json:"urlQuery"`
		Input     json.RawMessage `json:"input"`
	}
	if err := args(c, &in); err != nil {
		return toolResult(nil, err)
	}
	input, err := objectArg("input", in.Input)
	if err != nil {
		return toolResult(nil, err)
	}
	urlQuery, err := objectArg("urlQuery", in.URLQuery)
	if err != nil {
		return toolResult(nil, err)
	}
	return b.withSession(ctx, c, in.SessionID, true, func(s *session) (*mcp.CallToolResult, error) {
		entry := jsvalue.ObjectOf("action", "navigate", "pageId", in.PageID)
		err := b.step(ctx, s.e, entry, func() error { return s.e.NavigateURL(ctx, in.PageID, input, urlQuery) })
		s.audit(auditEntry{At: b.now(), Tool: "navigate", Action: auditArgs(c.Arguments), Page: pageID(s.e), OK: err == nil, Error: errText(err)})
		if s.e.Page() == nil {
			return nil, toolErr("%v. get_pages lists the pages you may open", err)
		}
		return b.pageResult(s.e, []any{entry}), nil
	})
}

func (b *Backend) getState(ctx context.Context, c *backend.Call) (*mcp.CallToolResult, error) {
	var in struct {
		SessionID string `json:"sessionId"`
	}
	if err := args(c, &in); err != nil {
		return toolResult(nil, err)
	}
	return b.withSession(ctx, c, in.SessionID, false, func(s *session) (*mcp.CallToolResult, error) {
		p := s.e.Page()
		if p == nil {
			return textJSON(jsvalue.ObjectOf("pageId", nil, "global", s.e.Global())), nil
		}
		return textJSON(jsvalue.ObjectOf("pageId", p.ID(), "state", p.State(), "global", s.e.Global(),
			"requests", p.RequestResults(), "validation", p.Validation())), nil
	})
}

func (b *Backend) getPages(ctx context.Context, c *backend.Call) (*mcp.CallToolResult, error) {
	var in struct {
		SessionID string `json:"sessionId"`
	}
	if err := args(c, &in); err != nil {
		return toolResult(nil, err)
	}
	return b.withSession(ctx, c, in.SessionID, false, func(s *session) (*mcp.CallToolResult, error) {
		out := []any{}
		for _, id := range b.srv.Pages(b.user(c.Principal)) {
			p := b.app.Page(id)
			if p == nil || id == "404" {
				continue
			}
			o := jsvalue.ObjectOf("pageId", id)
			if props, ok := p.Config.Prop("properties").(*jsvalue.Object); ok {
				if t, ok := props.Prop("title").(string); ok {
					o.Set("title", t)
				}
			}
			o.Set("auth", p.Auth.String())
			out = append(out, o)
		}
		return textJSON(out), nil
	})
}

// objectArg decodes an optional object argument (Lowdefy values, key order kept).
func objectArg(name string, raw json.RawMessage) (*jsvalue.Object, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	v, err := jsvalue.Decode(raw)
	if err != nil {
		return nil, toolErr("%s is not valid JSON: %v", name, err)
	}
	o, ok := v.(*jsvalue.Object)
	if !ok {
		return nil, toolErr("%s must be an object", name)
	}
	return o, nil
}

// valueArg decodes an optional value argument; absent is undefined.
func valueArg(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return jsvalue.Undefined, nil
	}
	return jsvalue.Decode(raw)
}

func pageID(e *engine.Engine) string {
	if p := e.Page(); p != nil {
		return p.ID()
	}
	return ""
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// auditArgs is a call's arguments for the audit trail, without the session id.
func auditArgs(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	delete(m, "sessionId")
	out, _ := json.Marshal(m)
	return out
}
