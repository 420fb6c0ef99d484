package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// thrown is what Lowdefy's callAction throws: {error, type, index} (or
// {type, error, index} for a failing action function).
type thrown struct {
	obj *jsvalue.Object
	err *jsvalue.Error
}

func (t *thrown) Error() string { return t.err.Message }

func jsError(err error) *jsvalue.Error {
	var je *jsvalue.Error
	if errors.As(err, &je) {
		return je
	}
	var te *throwError
	if errors.As(err, &te) {
		return &jsvalue.Error{Name: "ThrowError", Message: te.message}
	}
	return &jsvalue.Error{Name: "Error", Message: err.Error()}
}

// throwError is the Throw action's ThrowActionError.
type throwError struct{ message string }

func (e *throwError) Error() string { return e.message }

// triggerEvent runs a block event (Events.triggerEvent without debounce) and
// returns the event result that goes to the page's event log.
func (p *Page) triggerEvent(ctx context.Context, b *block, name string, event any) *jsvalue.Object {
	now := p.e.opts.Now()
	desc, _ := b.events.Prop(name).(*jsvalue.Object)
	if desc == nil {
		if arr, ok := b.events.Prop(name).([]any); ok {
			desc = jsvalue.ObjectOf("try", arr, "catch", []any{})
		}
	}
	if desc == nil {
		return jsvalue.ObjectOf("blockId", b.blockID, "event", event, "eventName", name,
			"responses", jsvalue.NewObject(0), "endTimestamp", now, "startTimestamp", now,
			"success", true, "bounced", false)
	}
	tryActions, _ := desc.Prop("try").([]any)
	catchActions, _ := desc.Prop("catch").([]any)
	if b.eventLoading == nil {
		b.eventLoading = map[string]bool{}
	}
	b.eventLoading[name] = true
	p.update(ctx)
	res := p.callActions(ctx, b, name, event, tryActions, catchActions)
	p.eventLog = append([]any{res}, p.eventLog...)
	b.eventLoading[name] = false
	p.update(ctx)
	return res
}

// actionRun carries what the actions of one event share.
type actionRun struct {
	block     *block
	eventName string
	event     any
	ai        []int
	responses *jsvalue.Object
}

func (p *Page) callActions(ctx context.Context, b *block, name string, event any, tryActions, catchActions []any) *jsvalue.Object {
	start := p.e.opts.Now()
	run := &actionRun{block: b, eventName: name, event: event, ai: b.set.arrayIndices, responses: jsvalue.NewObject(0)}
	errObj := p.callActionLoop(ctx, run, tryActions)
	if errObj == nil {
		return jsvalue.ObjectOf("blockId", b.blockID, "bounced", false, "endTimestamp", p.e.opts.Now(),
			"event", event, "eventName", name, "responses", run.responses, "startTimestamp", start, "success", true)
	}
	errCatch := p.callActionLoop(ctx, run, catchActions)
	// The journal's error entries come after what the actions (and the catch actions) logged.
	p.recordFailure(run, errObj)
	if errCatch != nil {
		p.recordFailure(run, errCatch)
		return jsvalue.ObjectOf("blockId", b.blockID, "bounced", false, "endTimestamp", p.e.opts.Now(),
			"error", errObj, "errorCatch", errCatch, "event", event, "eventName", name,
			"responses", run.responses, "startTimestamp", start, "success", false)
	}
	return jsvalue.ObjectOf("blockId", b.blockID, "bounced", false, "endTimestamp", p.e.opts.Now(),
		"error", errObj, "event", event, "eventName", name, "responses", run.responses,
		"startTimestamp", start, "success", false)
}

// recordFailure logs a failed event's {error, action} as an "error" entry.
func (p *Page) recordFailure(run *actionRun, failure *jsvalue.Object) {
	action, _ := failure.Prop("action").(*jsvalue.Object)
	var id any
	if action != nil {
		id = orDefault(action.Prop("id"), nil)
	}
	var msg any
	if th, ok := failure.Prop("error").(*jsvalue.Object); ok {
		if e, ok := th.Prop("error").(*jsvalue.Error); ok {
			msg = e.Message
		}
	}
	p.e.record("type", "error", "event", run.block.blockID+"."+run.eventName, "action", id, "message", msg)
}

// callActionLoop runs actions in order; on the first failure it returns
// {error, action}. An `async: true` action runs to completion at once (its
// side effects happen in order) but, as its promise settles only after the
// chain has moved on, its response (or error) is stored in the responses
// when the loop ends; its failure does not stop the chain.
func (p *Page) callActionLoop(ctx context.Context, run *actionRun, actions []any) *jsvalue.Object {
	var settled []func()
	defer func() {
		for _, f := range settled {
			f()
		}
	}()
	for i, a := range actions {
		action, _ := a.(*jsvalue.Object)
		if action == nil {
			continue
		}
		id, _ := action.Prop("id").(string)
		resp, th := p.callAction(ctx, run, action, i)
		if action.Prop("async") == true {
			var v any = resp
			if th != nil {
				v = th.obj
				// Lowdefy does not stop on it nor log it as the event's error: say it.
				p.e.notice(Notice{Kind: NoticeAction, PageID: p.id, Where: id,
					Message: fmt.Sprintf("%s (async action %s of %s.%s)", th.err.Message, id, run.block.blockID, run.eventName)})
			}
			settled = append(settled, func() { run.responses.Set(id, v) })
			continue
		}
		if th != nil {
			run.responses.Set(id, th.obj)
			return jsvalue.ObjectOf("error", th.obj, "action", action)
		}
		run.responses.Set(id, resp)
	}
	return nil
}

// callAction is Actions.callAction.
func (p *Page) callAction(ctx context.Context, run *actionRun, action *jsvalue.Object, index int) (*jsvalue.Object, *thrown) {
	typ, _ := action.Prop("type").(string)
	fn, ok := actionFuncs()[typ]
	if !ok {
		e := &jsvalue.Error{Name: "Error", Message: fmt.Sprintf("Invalid action type %q at %q.", typ, run.block.blockID)}
		return nil, &thrown{obj: jsvalue.ObjectOf("error", e, "type", typ, "index", float64(index)), err: e}
	}
	out, errs := p.parse(ctx, action, run.block.blockID, run.ai, run.event, run.responses)
	if len(errs) > 0 {
		e := jsError(errs[0])
		return nil, &thrown{obj: jsvalue.ObjectOf("error", e, "type", typ, "index", float64(index)), err: e}
	}
	parsed, _ := out.(*jsvalue.Object)
	if parsed.Prop("skip") == true {
		return jsvalue.ObjectOf("type", typ, "skipped", true, "index", float64(index)), nil
	}
	messages, _ := parsed.Prop("messages").(*jsvalue.Object)
	p.displayMessage("Loading", 0.0, false, messages.Prop("loading"), "loading")
	params := deepCopy(parsed.Prop("params"))
	resp, err := fn(ctx, p, run, params)
	if err != nil {
		je := jsError(err)
		run.responses.Set(idOf(action), jsvalue.ObjectOf("error", je, "index", float64(index), "type", typ))
		mout, merrs := p.parse(ctx, orDefault(action.Prop("messages"), jsvalue.Undefined), run.block.blockID, run.ai, run.event, run.responses)
		if len(merrs) > 0 {
			e := jsError(merrs[0])
			return nil, &thrown{obj: jsvalue.ObjectOf("error", e, "type", typ, "index", float64(index)), err: e}
		}
		pm, _ := mout.(*jsvalue.Object)
		p.displayMessage(je.Message, 6.0, true, pm.Prop("error"), "error")
		return nil, &thrown{obj: jsvalue.ObjectOf("type", typ, "error", je, "index", float64(index)), err: je}
	}
	p.displayMessage("Success", jsvalue.Undefined, false, messages.Prop("success"), "success")
	return jsvalue.ObjectOf("type", typ, "response", resp, "index", float64(index)), nil
}

func idOf(action *jsvalue.Object) string {
	s, _ := action.Prop("id").(string)
	return s
}

// displayMessage is Actions.displayMessage: it shows (records) a message
// when one is configured.
func (p *Page) displayMessage(def string, duration any, hideExplicitly bool, message any, status string) {
	if (hideExplicitly && message != false) || (!hideExplicitly && !jsvalue.IsNullish(message)) {
		content := any(def)
		if s, ok := message.(string); ok {
			content = s
		}
		params := jsvalue.ObjectOf("content", content)
		if !jsvalue.IsUndefined(duration) {
			params.Set("duration", duration)
		}
		params.Set("status", status)
		p.e.record("type", "DisplayMessage", "params", params)
	}
}
