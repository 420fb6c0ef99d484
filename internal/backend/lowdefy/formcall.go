package lowdefy

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/server"
)

var _ backend.ResourceReader = (*Backend)(nil)

// callGenerated runs a generated tool: a form's submit button or an API endpoint.
func (b *Backend) callGenerated(ctx context.Context, c *backend.Call, t *genTool) (*mcp.CallToolResult, error) {
	raw := []byte(c.Arguments)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	v, err := jsvalue.Decode(raw)
	if err != nil {
		return backend.ErrorResult("the arguments of %s are not valid JSON: %v", t.tool.Name, err), nil
	}
	in, ok := v.(*jsvalue.Object)
	if !ok {
		return backend.ErrorResult("the arguments of %s must be an object", t.tool.Name), nil
	}
	in = in.Clone()
	if t.confirm {
		if in.Prop("confirm") != true {
			return backend.ErrorResult("%s is destructive: call it again with confirm: true once you are sure (and the user agrees)", t.tool.Name), nil
		}
		in.Delete("confirm")
	}
	if t.form == nil {
		return b.callEndpointTool(ctx, c, t, in)
	}
	return b.submitForm(ctx, c, t, in)
}

// getPath reads a dotted path of an arguments object.
func getPath(o *jsvalue.Object, path string) (any, bool) {
	var cur any = o
	for _, k := range strings.Split(path, ".") {
		obj, ok := cur.(*jsvalue.Object)
		if !ok || !obj.Has(k) {
			return nil, false
		}
		cur = obj.Prop(k)
	}
	return cur, true
}

// submitForm fills a form on a fresh engine, as the caller, and clicks its submit button:
// the page opens (its onInit and onMount run), each argument is set on its input in block
// order (SetValue, as a person types; a list's items with SetState), then the button's
// onClick chain runs to the end. The outcome is what the chain did: the requests it ran
// with their results, or the validation errors and thrown errors, by field.
func (b *Backend) submitForm(ctx context.Context, c *backend.Call, t *genTool, in *jsvalue.Object) (*mcp.CallToolResult, error) {
	f := t.form
	pid := f.Page.ID
	if !b.srv.PageAllowed(b.user(c.Principal), pid) {
		return backend.ErrorResult("%s is not available to you: its page %s is not visible to your user (the app's auth.pages)", t.tool.Name, pid), nil
	}
	extra := func(name string, keys []string) (*jsvalue.Object, error) {
		if len(keys) == 0 {
			return nil, nil
		}
		for _, fl := range f.Fields {
			if fl.ID == name || strings.HasPrefix(fl.ID, name+".") {
				return nil, nil // an input of that name is an input, not the page's extra
			}
		}
		v := in.Prop(name)
		if jsvalue.IsUndefined(v) || v == nil {
			return nil, nil
		}
		o, ok := v.(*jsvalue.Object)
		if !ok {
			return nil, fmt.Errorf("%s must be an object", name)
		}
		return o, nil
	}
	urlQuery, err := extra("urlQuery", f.URLQuery)
	if err != nil {
		return backend.ErrorResult("%v", err), nil
	}
	input, err := extra("input", f.Input)
	if err != nil {
		return backend.ErrorResult("%v", err), nil
	}
	e := b.newEngine(c.Principal)
	if err := e.Navigate(ctx, pid, input, urlQuery); err != nil {
		return backend.ErrorResult("page %s of %s did not open: %v", pid, t.tool.Name, err), nil
	}
	if p := e.Page(); p == nil || p.ID() != pid {
		return backend.ErrorResult("page %s of %s moved on to page %s when it opened (a Link in its onInit or onMount), so the form could not be filled", pid, t.tool.Name, pageID(e)), nil
	}
	for _, r := range f.Records {
		v, ok := getPath(in, r.Path)
		if !ok {
			return backend.ErrorResult("%s needs %s: %s", t.tool.Name, r.Path, r.describe()), nil
		}
		if msg := b.pickRecord(ctx, e, r, v); msg != "" {
			return backend.ErrorResult("%s: %s", t.tool.Name, msg), nil
		}
	}
	var fillErrs []string
	for _, fl := range f.Fields {
		v, ok := getPath(in, fl.ID)
		if !ok {
			continue
		}
		if fl.List {
			// The items' date blocks get dates, as setValue gives them.
			err = e.SetStateFromAgent(ctx, jsvalue.ObjectOf(fl.ID, v))
		} else {
			err = e.SetValue(ctx, fl.ID, v)
		}
		if err != nil {
			fillErrs = append(fillErrs, fmt.Sprintf("%s: %v", fl.ID, err))
		}
		if p := e.Page(); p == nil || p.ID() != pid {
			return backend.ErrorResult("setting %s moved the app to another page (an onChange Link), so %s could not be submitted", fl.ID, t.tool.Name), nil
		}
	}
	if len(fillErrs) > 0 {
		return backend.ErrorResult("%s: these arguments could not be set on the form: %s", t.tool.Name, strings.Join(fillErrs, "; ")), nil
	}
	entry := jsvalue.NewObject(6)
	err = b.step(ctx, e, entry, func() error { return e.Trigger(ctx, f.Button, f.Event, nil) })
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return formOutcome(t, e.VisitedPage(pid), e, entry), nil
}

// pickRecord sets the record a form works on, as a person picks it on the page: for a
// record a list row's click copies into state, the row of the list whose value at the
// record's path is v is copied the same way (so the form holds the row's values); else the
// value is set as it is. It returns what went wrong ("" when it worked).
func (b *Backend) pickRecord(ctx context.Context, e *engine.Engine, r *recordKey, v any) string {
	if r.List == "" {
		if err := e.SetState(ctx, jsvalue.ObjectOf(r.Path, v)); err != nil {
			return fmt.Sprintf("setting %s: %v", r.Path, err)
		}
		return ""
	}
	rows, _ := getPath(e.Page().State(), r.List)
	list, _ := rows.([]any)
	var seen []string
	for _, row := range list {
		item := row
		if r.Item != "" {
			o, _ := row.(*jsvalue.Object)
			item, _ = getPath(o, r.Item)
		}
		val := item
		if rest := r.rest(); rest != "" {
			o, _ := item.(*jsvalue.Object)
			val, _ = getPath(o, rest)
		}
		if sameValue(val, v) {
			if err := e.SetState(ctx, jsvalue.ObjectOf(r.Set, item)); err != nil {
				return fmt.Sprintf("picking the row: %v", err)
			}
			return ""
		}
		if len(seen) < 20 {
			seen = append(seen, stringify(val))
		}
	}
	if len(list) == 0 {
		return fmt.Sprintf("list %s on page %s has no rows when the page opens, so no record %s = %s can be picked", r.List, e.Page().ID(), r.Path, stringify(v))
	}
	return fmt.Sprintf("no row of list %s has %s = %s (the rows have: %s)", r.List, r.Path, stringify(v), strings.Join(seen, ", "))
}

// sameValue compares a value of the page with an argument: equal as JSON, or an ObjectId
// ({_oid: hex}) given as its hex string.
func sameValue(pageVal, arg any) bool {
	a, _ := jsvalue.Stringify(pageVal, "")
	b, _ := jsvalue.Stringify(arg, "")
	if a == b {
		return true
	}
	if o, ok := pageVal.(*jsvalue.Object); ok && o.Len() == 1 {
		if hex, ok := o.Prop("_oid").(string); ok {
			s, isStr := arg.(string)
			return isStr && s == hex
		}
	}
	return false
}

// formOutcome turns what the submit did into the tool's result.
func formOutcome(t *genTool, p *engine.Page, e *engine.Engine, entry *jsvalue.Object) *mcp.CallToolResult {
	out := jsvalue.ObjectOf("success", entry.Prop("success") == true, "pageId", t.form.Page.ID)
	fields := jsvalue.NewObject(0)
	var fixes []string
	if p != nil {
		for id, v := range p.Validation().Range {
			vo, _ := v.(*jsvalue.Object)
			errs, _ := vo.Prop("errors").([]any)
			warns, _ := vo.Prop("warnings").([]any)
			if len(errs)+len(warns) == 0 {
				continue
			}
			fields.Set(id, vo)
			for _, m := range errs {
				fixes = append(fixes, fmt.Sprintf("%s: %s", id, stringify(m)))
			}
		}
	}
	for _, k := range []string{"requestResults", "messages", "errors", "warnings", "links"} {
		if v, ok := entry.Get(k); ok {
			out.Set(k, v)
		}
	}
	if msg, ok := entry.Prop("error").(string); ok {
		out.Set("error", msg)
	}
	if fields.Len() > 0 {
		out.Set("validation", fields)
	}
	if cur := e.Page(); cur != nil && cur.ID() != t.form.Page.ID {
		out.Set("page", cur.ID())
	}
	// A write that matched nothing is not a success, whatever the chain did after it.
	var unchanged []string
	if rr, ok := out.Prop("requestResults").([]any); ok {
		for _, r := range rr {
			ro, _ := r.(*jsvalue.Object)
			id, _ := ro.Prop("requestId").(string)
			notes, _ := ro.Prop("notes").([]any)
			if len(notes) == 0 || !slices.Contains(t.form.Writes, id) {
				continue
			}
			for _, n := range notes {
				unchanged = append(unchanged, stringify(n))
			}
		}
	}
	if len(unchanged) > 0 && out.Prop("success") == true {
		out.Set("success", false)
		out.Set("error", "nothing was written: "+strings.Join(unchanged, "; "))
	}
	s, _ := jsvalue.Stringify(out, "")
	if out.Prop("success") == true {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, StructuredContent: json.RawMessage(s)}
	}
	var sb strings.Builder
	if len(unchanged) > 0 {
		fmt.Fprintf(&sb, "The form on page %s was submitted, but nothing was written: %s. Check which record the arguments name (such as its id).", t.form.Page.ID, strings.Join(unchanged, "; "))
	} else {
		fmt.Fprintf(&sb, "The form on page %s was not submitted.", t.form.Page.ID)
	}
	if len(fixes) > 0 {
		sb.WriteString(" Fix these arguments and call again:")
		for _, f := range fixes {
			sb.WriteString("\n- " + f)
		}
	}
	if errs, ok := out.Prop("errors").([]any); ok && len(errs) > 0 {
		sb.WriteString("\nErrors:")
		for _, x := range errs {
			sb.WriteString("\n- " + stringify(x))
		}
	}
	if msg, ok := out.Prop("error").(string); ok && len(unchanged) == 0 {
		sb.WriteString("\nError: " + msg)
	}
	sb.WriteString("\n\n" + s)
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: sb.String()}}, StructuredContent: json.RawMessage(s)}
}

// callEndpointTool calls an API endpoint with the arguments as its payload, as the caller,
// through the app's server side (the one CallAPI goes through).
func (b *Backend) callEndpointTool(ctx context.Context, c *backend.Call, t *genTool, payload *jsvalue.Object) (*mcp.CallToolResult, error) {
	res, err := b.runner.CallEndpoint(ctx, b.user(c.Principal), server.EndpointCall{EndpointID: t.endpoint, BlockID: t.tool.Name, Payload: payload})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return backend.ErrorResult("endpoint %s: %v", t.endpoint, err), nil
	}
	resp := serial.Decode(res.Response)
	if !res.Success {
		msg := ""
		if res.Error != nil {
			msg = res.Error.Message
		} else {
			msg = stringify(resp)
		}
		return backend.ErrorResult("endpoint %s answered %s: %s", t.endpoint, res.Status, msg), nil
	}
	if resp == nil || jsvalue.IsUndefined(resp) {
		resp = nil
	}
	return jsonResult(jsvalue.ObjectOf("response", resp)), nil
}

// ReadResource reads a query page's resource: the page opens on a fresh engine as the
// caller (its onInit and onMount run) and the responses of its requests are returned as
// a JSON object by request id (seed 000's resources). A page the caller may not see reads
// as a resource that does not exist.
func (b *Backend) ReadResource(ctx context.Context, p auth.Principal, uri string) (*mcp.ReadResourceResult, error) {
	r := b.gen.byURI[uri]
	if r == nil || b.toolset == ToolsetSession || !b.srv.PageAllowed(b.user(p), r.page.ID) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	e := b.newEngine(p)
	if err := e.Navigate(ctx, r.page.ID, nil, nil); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("reading %s: page %s did not open: %v", uri, r.page.ID, err)}
	}
	pg := e.VisitedPage(r.page.ID)
	if pg == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("reading %s: page %s did not open", uri, r.page.ID)}
	}
	results := pg.RequestResults()
	out := jsvalue.NewObject(len(r.requests))
	for _, id := range r.requests {
		rr, _ := results.Prop(id).(*jsvalue.Object)
		if rr == nil {
			out.Set(id, nil)
			continue
		}
		if msg := rr.Prop("error"); msg != nil && !jsvalue.IsUndefined(msg) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("reading %s: request %s failed: %s", uri, id, stringify(msg))}
		}
		out.Set(id, rr.Prop("response"))
	}
	text, _ := jsvalue.Stringify(out, "")
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: text}}}, nil
}
