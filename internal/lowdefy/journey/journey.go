// Package journey runs a headless Lowdefy journey script against an
// engine and reports one JSON line per step.
//
// A script is a JSON array of steps:
//
//	{"navigate": "PAGE_ID", "input": {...}, "urlQuery": {...}}
//	{"setValue": "BLOCK_ID", "value": V}
//	{"trigger": "BLOCK_ID", "event": "onClick", "args": {...}}
//	{"callMethod": "BLOCK_ID", "method": "M", "args": [...]}
//	{"setState": {...}}
//
// A block id inside a list carries the item index ("items.0.name"). After
// every step the runner writes one line with the keys step, pageId, state,
// global, validation, requests, events and error (see Line). Values are
// written the way Lowdefy serializes them: dates as {"~d": millis}, object
// keys in Lowdefy's order. A step that fails (unknown page or block) reports
// its message in error; the journey goes on with the next step.
//
// navigate behaves like a Link action to the page: the page's input becomes
// the given input (an empty object when absent) and the URL query the given
// one (none when absent). A page id with a query string ("profile?id=42")
// opens the page as its URL would (engine.NavigateURL).
package journey

import (
	"context"
	"fmt"
	"io"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// Step is one journey step, as decoded from the script (keys in order).
type Step = *jsvalue.Object

// Parse reads a journey script: a JSON array of step objects. Dates may be
// given as {"~d": millis}.
func Parse(data []byte) ([]Step, error) {
	v, err := serial.Unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("journey script is not valid JSON: %w", err)
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("journey script must be a JSON array of steps, got %s", jsvalue.Typeof(v))
	}
	steps := make([]Step, len(arr))
	for i, s := range arr {
		o, ok := s.(*jsvalue.Object)
		if !ok {
			return nil, fmt.Errorf("journey step %d must be an object such as {\"navigate\": \"PAGE\"}", i+1)
		}
		if err := check(o); err != nil {
			return nil, fmt.Errorf("journey step %d: %w", i+1, err)
		}
		steps[i] = o
	}
	return steps, nil
}

func check(s Step) error {
	n := 0
	for _, k := range []string{"navigate", "setValue", "trigger", "callMethod", "setState"} {
		if s.Has(k) {
			n++
		}
	}
	switch {
	case n == 0:
		return fmt.Errorf("no action: use one of navigate, setValue, trigger, callMethod or setState")
	case n > 1:
		return fmt.Errorf("more than one action in one step: write each as its own step")
	}
	for _, k := range []string{"navigate", "setValue", "trigger", "callMethod"} {
		if v, ok := s.Get(k); ok {
			if _, isStr := v.(string); !isStr {
				return fmt.Errorf("%q must be a string (a page or block id)", k)
			}
		}
	}
	if v, ok := s.Get("setState"); ok {
		if _, isObj := v.(*jsvalue.Object); !isObj {
			return fmt.Errorf(`"setState" must be an object of state paths and values`)
		}
	}
	if s.Has("trigger") {
		if _, ok := s.Prop("event").(string); !ok {
			return fmt.Errorf(`a trigger step needs "event", such as "onClick"`)
		}
	}
	if s.Has("callMethod") {
		if _, ok := s.Prop("method").(string); !ok {
			return fmt.Errorf(`a callMethod step needs "method", such as "pushItem"`)
		}
		if a, ok := s.Get("args"); ok {
			if _, isArr := a.([]any); !isArr {
				return fmt.Errorf(`"args" of a callMethod step must be an array`)
			}
		}
	}
	return nil
}

// RunStep performs one step on the engine.
func RunStep(ctx context.Context, e *engine.Engine, s Step) error {
	obj := func(k string) *jsvalue.Object {
		o, _ := s.Prop(k).(*jsvalue.Object)
		return o
	}
	switch {
	case s.Has("navigate"):
		return e.NavigateURL(ctx, s.Prop("navigate").(string), obj("input"), obj("urlQuery"))
	case s.Has("setValue"):
		v := s.Prop("value")
		return e.SetValue(ctx, s.Prop("setValue").(string), v)
	case s.Has("trigger"):
		var args any
		if a, ok := s.Get("args"); ok {
			args = a
		}
		return e.Trigger(ctx, s.Prop("trigger").(string), s.Prop("event").(string), args)
	case s.Has("callMethod"):
		args, _ := s.Prop("args").([]any)
		return e.CallMethod(ctx, s.Prop("callMethod").(string), s.Prop("method").(string), args)
	case s.Has("setState"):
		return e.SetState(ctx, obj("setState"))
	}
	return check(s)
}

// Line builds the report line of step n (1-based) from the engine after the
// step, with the journal entries from index from on and the step's error.
func Line(e *engine.Engine, n int, from int, stepErr error) *jsvalue.Object {
	var pageID, state, validation, requests any = nil, jsvalue.NewObject(0), jsvalue.NewObject(0), jsvalue.NewObject(0)
	if p := e.Page(); p != nil {
		pageID, state, validation, requests = p.ID(), p.State(), p.Validation(), p.RequestResults()
	}
	journal := e.Journal()
	events := []any{}
	if from < len(journal) {
		for _, j := range journal[from:] {
			events = append(events, j)
		}
	}
	var errMsg any
	if stepErr != nil {
		errMsg = stepErr.Error()
	}
	return jsvalue.ObjectOf("step", float64(n), "pageId", pageID, "state", state, "global", e.Global(),
		"validation", validation, "requests", requests, "events", events, "error", errMsg)
}

// Run performs the steps in order and writes one JSON line per step to w.
// It stops early only when writing fails or ctx ends.
func Run(ctx context.Context, e *engine.Engine, steps []Step, w io.Writer) error {
	for i, s := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		from := len(e.Journal())
		err := RunStep(ctx, e, s)
		b, merr := serial.Marshal(Line(e, i+1, from, err))
		if merr != nil {
			return fmt.Errorf("journey step %d: encode the report: %w", i+1, merr)
		}
		if _, werr := w.Write(append(b, '\n')); werr != nil {
			return fmt.Errorf("journey: write the report: %w", werr)
		}
	}
	return nil
}
