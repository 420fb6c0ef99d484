package lowdefy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
)

// MaxLogValue bounds the JSON of one response in the log; longer ones are cut with a note.
const MaxLogValue = 2000

// action is one interact action as the agent sends it.
type action struct {
	Type       string          `json:"type"`
	BlockID    string          `json:"blockId"`
	Value      json.RawMessage `json:"value"`
	Event      string          `json:"event"`
	Key        string          `json:"key"`
	Values     json.RawMessage `json:"values"`
	Method     string          `json:"method"`
	Args       json.RawMessage `json:"args"`
	PageID     string          `json:"pageId"`
	URLQuery   json.RawMessage `json:"urlQuery"`
	Input      json.RawMessage `json:"input"`
	EndpointID string          `json:"endpointId"`
	Payload    json.RawMessage `json:"payload"`
}

func (b *Backend) interact(ctx context.Context, c *backend.Call) (*mcp.CallToolResult, error) {
	var in struct {
		SessionID string            `json:"sessionId"`
		Actions   []json.RawMessage `json:"actions"`
	}
	if err := args(c, &in); err != nil {
		return toolResult(nil, err)
	}
	if len(in.Actions) == 0 {
		return backend.ErrorResult("actions is empty: give at least one, such as {\"type\": \"setValue\", \"blockId\": \"name\", \"value\": \"Ada\"}"), nil
	}
	if len(in.Actions) > b.limits.MaxActionsPerCall {
		return backend.ErrorResult("interact takes at most %d actions per call and got %d: split them over several calls", b.limits.MaxActionsPerCall, len(in.Actions)), nil
	}
	return b.withSession(ctx, c, in.SessionID, true, func(s *session) (*mcp.CallToolResult, error) {
		if s.e.Page() == nil {
			return nil, toolErr("no page is open in work session %q: navigate to a page first (get_pages lists them)", in.SessionID)
		}
		log := make([]any, 0, len(in.Actions))
		for i, raw := range in.Actions {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			var a action
			entry := jsvalue.NewObject(6)
			if err := json.Unmarshal(raw, &a); err != nil {
				entry.Set("action", "?")
				entry.Set("success", false)
				entry.Set("error", fmt.Sprintf("action %d is not an object of the shape {type, ...}: %v", i+1, err))
				log = append(log, entry)
				continue
			}
			before := s.e.Page()
			err := b.runAction(ctx, s.e, a, entry)
			log = append(log, entry)
			s.audit(auditEntry{At: b.now(), Tool: "interact", Action: raw, Page: pageID(s.e), OK: entry.Prop("success") == true, Error: errText(err)})
			if s.e.Page() != before || a.Type == "navigate" && err == nil {
				if rest := len(in.Actions) - i - 1; rest > 0 {
					log = append(log, jsvalue.ObjectOf("skipped", float64(rest),
						"reason", fmt.Sprintf("the page changed to %s, so the remaining actions did not run; read the page and send what is still needed", pageID(s.e))))
				}
				break
			}
		}
		return b.pageResult(s.e, log), nil
	})
}

// runAction performs one action as a step, filling in its log entry.
func (b *Backend) runAction(ctx context.Context, e *engine.Engine, a action, entry *jsvalue.Object) error {
	entry.Set("action", a.Type)
	need := func(field, v string) error {
		if v == "" {
			return fmt.Errorf("%s needs %s", a.Type, field)
		}
		return nil
	}
	var run func() error
	var err error
	switch a.Type {
	case "setValue":
		entry.Set("blockId", a.BlockID)
		if err = need("blockId", a.BlockID); err == nil {
			var v any
			if v, err = valueArg(a.Value); err == nil {
				if jsvalue.IsUndefined(v) {
					v = nil
				}
				run = func() error { return e.SetValue(ctx, a.BlockID, v) }
			}
		}
	case "triggerEvent":
		entry.Set("blockId", a.BlockID)
		entry.Set("event", a.Event)
		if err = need("blockId", a.BlockID); err == nil {
			if err = need("event (such as onClick)", a.Event); err == nil {
				var ev any
				if ev, err = valueArg(a.Args); err == nil {
					if jsvalue.IsUndefined(ev) {
						ev = nil
					}
					run = func() error { return e.Trigger(ctx, a.BlockID, a.Event, ev) }
				}
			}
		}
	case "setState", "setGlobal":
		var values *jsvalue.Object
		if values, err = keyValues(a); err == nil {
			if a.Type == "setState" {
				// Date blocks among the paths get dates, as setValue gives them.
				run = func() error { return e.SetStateFromAgent(ctx, values) }
			} else {
				run = func() error { return e.SetGlobal(ctx, values) }
			}
		}
	case "callMethod":
		entry.Set("blockId", a.BlockID)
		entry.Set("method", a.Method)
		if err = need("blockId", a.BlockID); err == nil {
			if err = need("method (such as pushItem)", a.Method); err == nil {
				var argv []any
				if argv, err = arrayArg(a.Args); err == nil {
					run = func() error { return e.CallMethod(ctx, a.BlockID, a.Method, argv) }
				}
			}
		}
	case "navigate":
		entry.Set("pageId", a.PageID)
		var input, urlQuery *jsvalue.Object
		if input, err = objectArg("input", a.Input); err == nil {
			if urlQuery, err = objectArg("urlQuery", a.URLQuery); err == nil {
				run = func() error { return e.NavigateURL(ctx, a.PageID, input, urlQuery) }
			}
		}
	case "callApi":
		entry.Set("endpointId", a.EndpointID)
		if err = need("endpointId", a.EndpointID); err == nil {
			var payload any
			if payload, err = valueArg(a.Payload); err == nil {
				if jsvalue.IsUndefined(payload) {
					payload = nil
				}
				run = func() error {
					call, err := e.CallAPI(ctx, a.EndpointID, payload)
					if call != nil {
						if call.Prop("success") == true {
							entry.Set("response", logValue(call.Prop("response")))
						} else if err == nil {
							err = fmt.Errorf("endpoint %s answered %s: %s", a.EndpointID, jsvalue.ToString(call.Prop("status")), stringify(call.Prop("error")))
						}
					}
					return err
				}
			}
		}
	default:
		err = fmt.Errorf("unknown action type %q: use one of setValue, triggerEvent, setState, setGlobal, navigate, callMethod, callApi", a.Type)
	}
	if err != nil {
		entry.Set("success", false)
		entry.Set("error", err.Error())
		return err
	}
	return b.step(ctx, e, entry, run)
}

// keyValues reads the {key, value} or {values} of setState and setGlobal.
func keyValues(a action) (*jsvalue.Object, error) {
	if a.Key != "" {
		v, err := valueArg(a.Value)
		if err != nil {
			return nil, err
		}
		if jsvalue.IsUndefined(v) {
			v = nil
		}
		return jsvalue.ObjectOf(a.Key, v), nil
	}
	o, err := objectArg("values", a.Values)
	if err != nil {
		return nil, err
	}
	if o == nil {
		return nil, fmt.Errorf("%s needs {key, value} or {values: {path: value, ...}}", a.Type)
	}
	return o, nil
}

func arrayArg(raw json.RawMessage) ([]any, error) {
	v, err := valueArg(raw)
	if err != nil || jsvalue.IsUndefined(v) || v == nil {
		return nil, err
	}
	if arr, ok := v.([]any); ok {
		return arr, nil
	}
	return []any{v}, nil
}

// step runs fn on the engine and writes into entry what it did: success, the error, the
// requests it called (with their results), the messages shown, the errors and warnings of
// its action chains, and the page it led to.
func (b *Backend) step(ctx context.Context, e *engine.Engine, entry *jsvalue.Object, fn func() error) error {
	before := e.Page()
	counts := map[string]map[string]int{}
	for _, id := range e.Visited() {
		counts[id] = requestCounts(e.VisitedPage(id))
	}
	from := len(e.Journal())
	fromNotice := len(e.Notices())
	err := fn()
	// Notices (engine.Notice) say what Lowdefy's journal does not: what a request did
	// beyond its response (by call), failures the chain does not report, what the page
	// uses that mcpbridge does not run.
	notes := map[*jsvalue.Object][]any{}
	var noticeErrs, noticeWarnings []any
	for _, n := range e.Notices()[fromNotice:] {
		switch {
		case n.Call != nil:
			notes[n.Call] = append(notes[n.Call], n.Message)
		case n.Kind == engine.NoticeUnsupported:
			noticeWarnings = append(noticeWarnings, n.Message)
		default:
			noticeErrs = append(noticeErrs, n.Message)
		}
	}
	var results []any
	if before != nil {
		results = newCalls(before, counts[before.ID()], notes)
	}
	if cur := e.Page(); cur != nil && cur != before {
		results = append(results, newCalls(cur, counts[cur.ID()], notes)...)
		entry.Set("page", cur.ID())
	}
	var messages, errs, warnings, links []any
	for _, j := range e.Journal()[from:] {
		switch j.Prop("type") {
		case "DisplayMessage":
			if p, ok := j.Prop("params").(*jsvalue.Object); ok {
				messages = append(messages, stringify(p.Prop("content")))
			} else {
				messages = append(messages, stringify(j.Prop("params")))
			}
		case "error":
			errs = append(errs, fmt.Sprintf("%s (action %s of %s)", stringify(j.Prop("message")), stringify(j.Prop("action")), stringify(j.Prop("event"))))
		case "warning":
			warnings = append(warnings, stringify(j.Prop("message")))
		case "Link":
			if u, ok := j.Prop("url").(string); ok {
				links = append(links, u)
			}
		}
	}
	errs = append(errs, noticeErrs...)
	warnings = append(warnings, noticeWarnings...)
	entry.Set("success", err == nil && len(errs) == 0)
	if err != nil {
		entry.Set("error", err.Error())
	}
	for _, kv := range []struct {
		k string
		v []any
	}{{"requestResults", results}, {"messages", messages}, {"errors", errs}, {"warnings", warnings}, {"links", links}} {
		if len(kv.v) > 0 {
			entry.Set(kv.k, kv.v)
		}
	}
	return err
}

// requestCounts counts the calls of each request of a page.
func requestCounts(p *engine.Page) map[string]int {
	out := map[string]int{}
	if p == nil {
		return out
	}
	for id, calls := range p.Requests().Range {
		list, _ := calls.([]any)
		out[id] = len(list)
	}
	return out
}

// newCalls returns the results of the request calls a page made beyond counts, oldest
// first, each with the notes the server side gave on it (such as a write that matched
// nothing) as "notes".
func newCalls(p *engine.Page, counts map[string]int, notes map[*jsvalue.Object][]any) []any {
	var out []any
	for id, calls := range p.Requests().Range {
		list, _ := calls.([]any)
		n := len(list) - counts[id]
		for i := n - 1; i >= 0; i-- { // calls are kept newest first
			call, _ := list[i].(*jsvalue.Object)
			if call == nil {
				continue
			}
			r := jsvalue.ObjectOf("requestId", id)
			if e := call.Prop("error"); !jsvalue.IsNullish(e) {
				r.Set("success", false)
				r.Set("error", stringify(e))
			} else {
				r.Set("success", true)
				r.Set("response", logValue(call.Prop("response")))
			}
			if n := notes[call]; len(n) > 0 {
				r.Set("notes", n)
			}
			out = append(out, r)
		}
	}
	return out
}

// stringify is a value as text for the agent: a string as it is, an error's or an error
// object's message, else JSON (an object is never "[object Object]", as JavaScript's
// String would write it).
func stringify(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case *jsvalue.Error:
		if x.Message == "" {
			return x.Name
		}
		return x.Message
	case error:
		return x.Error()
	case *jsvalue.Object:
		if m, ok := x.Prop("message").(string); ok {
			return m
		}
	}
	s, _ := jsvalue.Stringify(v, "")
	return s
}

// logValue is v for the log, cut to MaxLogValue characters of JSON.
func logValue(v any) any {
	s, ok := jsvalue.Stringify(v, "")
	if !ok || len(s) <= MaxLogValue {
		return v
	}
	return fmt.Sprintf("%s… (cut at %d of %d characters; the page shows the data, get_state all of it)", strings.ToValidUTF8(s[:MaxLogValue], ""), MaxLogValue, len(s))
}

// pageResult is the result of navigate and interact: the page rendered for the agent,
// then a line "log: " with the log as JSON — as text only, so the page is paid for once
// (get_state is the way to the page's data as JSON).
func (b *Backend) pageResult(e *engine.Engine, log []any) *mcp.CallToolResult {
	page := ""
	if p := e.Page(); p != nil {
		page = b.render(p)
	}
	logJSON, _ := jsvalue.Stringify(log, "")
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: page + "\n\nlog: " + logJSON}}}
}
