package engine

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// roundTrip is Lowdefy's serialize on the client and deserialize on the
// server: undefined values dropped, dates and errors kept.
func roundTrip(v any) any { return serial.Decode(serial.Encode(v, false)) }

func actRequest(ctx context.Context, p *Page, run *actionRun, params any) (any, error) {
	return p.callRequests(ctx, run, params)
}

type preparedRequest struct {
	call *jsvalue.Object
	err  error
}

// callRequests is Requests.callRequests: every request is prepared (payload
// evaluated, call recorded as loading), the page updated, then the calls run
// in order. The result is the array of responses; the first error wins.
func (p *Page) callRequests(ctx context.Context, run *actionRun, params any) (any, error) {
	var ids []string
	withActions := true
	switch v := params.(type) {
	case string:
		ids = []string{v}
	case []any:
		for _, x := range v {
			ids = append(ids, jsvalue.ToString(x))
		}
	case *jsvalue.Object:
		if v.Prop("all") == true {
			withActions = false
			ids = p.requestIDs()
		}
	}
	prepared := make([]preparedRequest, len(ids))
	for i, id := range ids {
		call, err := p.prepareRequest(ctx, run, id, withActions)
		prepared[i] = preparedRequest{call, err}
	}
	p.update(ctx)
	responses := make([]any, len(ids))
	var first error
	for i, pr := range prepared {
		if pr.err != nil {
			if first == nil {
				first = pr.err
			} else {
				// Lowdefy's Promise.all reports the first failure only; the others are
				// not recorded anywhere (a payload that fails is not a call), so say them.
				p.e.notice(Notice{Kind: NoticeRequest, PageID: p.id, Where: ids[i],
					Message: fmt.Sprintf("request %s was not called: %s", ids[i], pr.err.Error())})
			}
			continue
		}
		resp, err := p.fetch(ctx, pr.call)
		if err != nil && first == nil {
			first = err
		}
		responses[i] = resp
	}
	if first != nil {
		return nil, first
	}
	return responses, nil
}

func (p *Page) requestIDs() []string {
	reqs, _ := p.cfg.Config.Prop("requests").([]any)
	var ids []string
	for _, r := range reqs {
		if ro, ok := r.(*jsvalue.Object); ok {
			if id, ok := ro.Prop("requestId").(string); ok && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

func (p *Page) calls(id string) []any {
	c, _ := p.requests.Prop(id).([]any)
	return c
}

func (p *Page) unshiftCall(id string, call *jsvalue.Object) {
	p.requests.Set(id, append([]any{call}, p.calls(id)...))
}

func (p *Page) prepareRequest(ctx context.Context, run *actionRun, id string, withActions bool) (*jsvalue.Object, error) {
	cfg := p.requestConfig[id]
	if !p.requests.Has(id) {
		p.requests.Set(id, []any{})
	}
	if cfg == nil {
		err := &jsvalue.Error{Name: "Error", Message: fmt.Sprintf("Configuration Error: Request %s not defined on page.", id)}
		p.unshiftCall(id, jsvalue.ObjectOf("blockId", "block_id", "error", err, "loading", false, "requestId", id, "response", nil))
		return nil, err
	}
	var actions *jsvalue.Object
	var event any = jsvalue.Undefined
	var ai []int
	blockID := any(jsvalue.Undefined)
	if run != nil {
		if withActions {
			actions = run.responses
		}
		event, ai, blockID = run.event, run.ai, run.block.blockID
	}
	payload, errs := p.parse(ctx, cfg.Prop("payload"), id, ai, event, actions)
	if len(errs) > 0 {
		return nil, jsError(errs[0])
	}
	call := jsvalue.ObjectOf("blockId", blockID, "loading", true, "payload", deepCopy(payload), "requestId", id, "response", nil)
	p.unshiftCall(id, call)
	return call, nil
}

// fetch runs one prepared call on the server.
func (p *Page) fetch(ctx context.Context, call *jsvalue.Object) (any, error) {
	if p.e.opts.Server == nil {
		err := errors.New("Request failed: the engine has no server to run requests.")
		call.Set("error", jsError(err))
		call.Set("loading", false)
		p.update(ctx)
		return nil, err
	}
	blockID, _ := call.Prop("blockId").(string)
	requestID := call.Prop("requestId").(string)
	resp, err := p.e.opts.Server.Request(ctx, RequestCall{
		PageID:    p.id,
		RequestID: requestID,
		BlockID:   blockID,
		Payload:   roundTrip(call.Prop("payload")),
		Note: func(msg string) {
			p.e.notice(Notice{Kind: NoticeRequest, PageID: p.id, Where: requestID, Message: msg, Call: call})
		},
	})
	if err != nil {
		call.Set("error", jsError(err))
		call.Set("loading", false)
		p.update(ctx)
		return nil, err
	}
	v := deepCopy(serial.Decode(resp))
	if jsvalue.IsUndefined(v) {
		v = nil
	}
	call.Set("response", v)
	call.Set("loading", false)
	p.update(ctx)
	return v, nil
}

// actCallAPI is the late-v4 CallAPI action (callAPIHandler): the call is
// kept newest first per endpoint and returned.
func actCallAPI(ctx context.Context, p *Page, run *actionRun, params any) (any, error) {
	o, _ := params.(*jsvalue.Object)
	endpointID, ok := o.Prop("endpointId").(string)
	if !ok || endpointID == "" {
		return nil, fmt.Errorf("CallAPI requires an endpointId string. Received \"%s\".", stringify(params))
	}
	if p.e.opts.Server == nil {
		return nil, errors.New("CallAPI failed: the engine has no server to run endpoints.")
	}
	payload := o.Prop("payload")
	call := jsvalue.NewObject(10)
	for k, v := range o.Range {
		call.Set(k, v)
	}
	call.Set("blockId", run.block.blockID)
	call.Set("loading", true)
	call.Set("pageId", p.id)
	list, _ := p.e.apiResponses.Prop(endpointID).([]any)
	p.e.apiResponses.Set(endpointID, append([]any{call}, list...))
	start := p.e.opts.Now()
	res, err := p.e.opts.Server.Endpoint(ctx, EndpointCall{EndpointID: endpointID, PageID: p.id, BlockID: run.block.blockID, Payload: roundTrip(payload)})
	call.Set("loading", false)
	if err != nil {
		call.Set("success", false)
		call.Set("error", jsError(err))
		p.update(ctx)
		return nil, err
	}
	call.Set("success", res.Success)
	call.Set("error", orDefault(deepCopy(serial.Decode(res.Error)), nil))
	call.Set("response", orDefault(deepCopy(serial.Decode(res.Response)), nil))
	call.Set("status", res.Status)
	call.Set("responseTime", float64(p.e.opts.Now().Sub(start).Milliseconds()))
	p.update(ctx)
	return call, nil
}

// stringifyQuery is Lowdefy's urlQuery.stringify: each value serialized to
// JSON, keys sorted, values encoded strictly (query-string's defaults).
func stringifyQuery(o *jsvalue.Object) string {
	keys := o.Keys()
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		s, ok := serial.Stringify(o.Prop(k), "", false)
		if !ok {
			continue
		}
		parts = append(parts, strictEncode(k)+"="+strictEncode(s))
	}
	return strings.Join(parts, "&")
}

func strictEncode(s string) string {
	e := url.QueryEscape(s)
	e = strings.ReplaceAll(e, "+", "%20")
	for _, c := range []string{"!", "'", "(", ")", "*"} {
		e = strings.ReplaceAll(e, c, fmt.Sprintf("%%%02X", c[0]))
	}
	// encodeURIComponent leaves ~ alone; QueryEscape does too.
	return e
}
