package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/operators"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// EndpointCall names an API endpoint to call, as the client's CallAPI action sends it.
type EndpointCall struct {
	// EndpointID names the endpoint; PageID and BlockID say where the call comes from.
	EndpointID, PageID, BlockID string
	// Payload is the call's payload as the client sends it (serialized: dates as
	// {"~d": ms}); Go maps from encoding/json are accepted.
	Payload any
}

// EndpointResult is the answer of an API endpoint, as Lowdefy 4.x's callEndpoint
// returns it.
type EndpointResult struct {
	// Status is "success", "error" (a step failed or `:throw`) or "reject" (`:reject`).
	Status string
	// Success is Status == "success".
	Success bool
	// Response is the value of `:return` (or of `:reject`), serialized for the client
	// (dates as {"~d": ms}); nil when the routine returned nothing.
	Response any
	// Error is the failure when Status is "error": its name (Error, RequestError,
	// ConfigurationError) and message, with secret values scrubbed.
	Error *jsvalue.Error
}

// CallEndpoint runs API endpoint call.EndpointID for user (nil when nobody is signed
// in) the way Lowdefy 4.x's callEndpoint does (reference/lowdefy.md §6.3): find the
// endpoint and authorise it (a user who may not call it is told it does not exist),
// then run its routine with `_payload`, `_secret`, `_user`, `_step`, `_item` and the
// routine's `_state`. An error is returned only when the routine cannot start; what
// happens inside it is in the result.
func (s *Server) CallEndpoint(ctx context.Context, user *jsvalue.Object, call EndpointCall) (*EndpointResult, error) {
	s.debug(ctx, "debug_endpoint", "endpointId", call.EndpointID, "pageId", call.PageID, "blockId", call.BlockID)
	ep := s.endpoints[call.EndpointID]
	notExist := s.newError("ConfigurationError", fmt.Sprintf("API Endpoint %q does not exist.", call.EndpointID), nil)
	if ep == nil {
		return nil, notExist
	}
	ok, err := authorize(user, ep.auth)
	if err != nil {
		return nil, err
	}
	s.debug(ctx, "debug_api_authorize", "authorized", ok)
	if !ok {
		return nil, notExist
	}
	if ep.problem != "" {
		return nil, s.newError("ConfigurationError", ep.problem, nil)
	}
	payload, _ := serial.Decode(call.Payload).(*jsvalue.Object)
	r := &routineRun{
		s:          s,
		ctx:        ctx,
		endpointID: ep.id,
		pageID:     call.PageID,
		blockID:    call.BlockID,
		user:       user,
		base: operators.Context{
			Payload: payload, Secrets: s.secrets, User: user, Logger: s.log, Now: s.now,
			Steps: &jsvalue.Object{}, State: &jsvalue.Object{}, Plugins: s.app.PluginOperators(),
		},
	}
	r.mu.Lock()
	res := r.routine(frame{items: &jsvalue.Object{}}, ep.routine)
	r.mu.Unlock()
	out := &EndpointResult{
		Status:   res.status,
		Success:  res.status != "error" && res.status != "reject",
		Response: serial.Encode(res.response, false),
	}
	if out.Success {
		out.Status = "success"
	}
	if res.err != nil {
		out.Error = s.jsError(res.err)
	}
	return out, nil
}

// jsError is the client's view of a routine error: a name and a scrubbed message.
func (s *Server) jsError(err error) *jsvalue.Error {
	var se *Error
	if errors.As(err, &se) {
		return &jsvalue.Error{Name: se.Kind, Message: se.Message}
	}
	return &jsvalue.Error{Name: "Error", Message: s.scrub(err.Error())}
}

// routineRun is one call of an endpoint. Like Lowdefy's single JavaScript thread, only
// one branch of the routine evaluates at a time: mu is held while evaluating and
// released while a connection runs or while :parallel branches are awaited.
type routineRun struct {
	s                           *Server
	ctx                         context.Context
	mu                          sync.Mutex
	endpointID, pageID, blockID string
	user                        *jsvalue.Object
	// base holds the shared operator context: payload, secrets, user, and the steps
	// and state that the routine fills in.
	base operators.Context
}

// frame is what a loop iteration changes: the list indices and the loop variables.
type frame struct {
	arrayIndices []int
	items        *jsvalue.Object
}

// result is the outcome of a routine: status continue, return, error or reject.
type result struct {
	status   string
	response any
	err      error
}

var cont = result{status: "continue"}

// routine runs r (an array of routines, a request step or a control).
func (r *routineRun) routine(f frame, routine any) result {
	if err := r.ctx.Err(); err != nil {
		return result{status: "error", err: err}
	}
	switch v := routine.(type) {
	case *jsvalue.Object:
		if id, _ := v.Prop("id").(string); strings.HasPrefix(id, "request:") {
			if err := r.step(f, v); err != nil {
				return r.fail(err)
			}
			return cont
		}
		return r.control(f, v)
	case []any:
		for _, item := range v {
			res := r.routine(f, item)
			if res.status == "return" || res.status == "error" || res.status == "reject" {
				return res
			}
		}
		return cont
	}
	return r.fail(errors.New("Invalid routine."))
}

// fail logs a routine error and turns it into an error result.
func (r *routineRun) fail(err error) result {
	r.s.log.LogAttrs(r.ctx, slog.LevelError, "lowdefy endpoint error", slog.String("endpointId", r.endpointID), slog.String("err", r.s.scrub(err.Error())))
	return result{status: "error", err: err}
}

// eval evaluates input with the routine parser in frame f. The first operator error
// is returned as Lowdefy's `new Error(errors[0])` words it.
func (r *routineRun) eval(f frame, input any, loc string) (any, error) {
	out, errs := r.parse(f, input, loc)
	if len(errs) > 0 {
		return nil, &Error{Kind: "Error", Message: r.s.scrub("Error: " + errs[0].Error()), Err: errs[0]}
	}
	return out, nil
}

func (r *routineRun) parse(f frame, input any, loc string) (any, []error) {
	pc := r.base
	pc.Items = f.items
	return operators.NewRoutineParser(&pc).Parse(r.ctx, input, loc, nil, nil)
}

// step runs a request step and stores its response at steps[stepId(.index…)].
func (r *routineRun) step(f frame, step *jsvalue.Object) error {
	stepID, _ := step.Prop("stepId").(string)
	spec := requestSpec{
		requestID:    stepID,
		pageID:       r.pageID,
		blockID:      r.blockID,
		connectionID: jsvalue.ToString(orEmpty(step.Prop("connectionId"))),
		properties:   step.Prop("properties"),
		location:     stepID,
	}
	spec.typ, _ = step.Prop("type").(string)
	r.s.debug(r.ctx, "debug_start_request", "endpointId", r.endpointID, "stepId", stepID)
	resp, err := r.s.execRequest(r.ctx, spec, func(input any, loc string) (any, []error) {
		return r.parse(f, input, loc)
	}, r.user, &r.mu)
	if err != nil {
		return err
	}
	key := stepID
	for _, i := range f.arrayIndices {
		key += "." + strconv.Itoa(i)
	}
	setPath(r.base.Steps, key, resp)
	r.s.debug(r.ctx, "debug_end_request", "endpointId", r.endpointID, "stepId", stepID)
	return nil
}

func orEmpty(v any) any {
	if v == nil || jsvalue.IsUndefined(v) {
		return ""
	}
	return v
}

// controls returns the control keys in the order Lowdefy's handleControl looks for them (the
// first key present decides), each with what runs it; :while, with none, is not
// implemented in Lowdefy 4. The list is built on first use, by a function rather than a
// package-level initialiser, as the controls reach back here through routine.
func controls() []controlRun {
	controlsOnce.Do(func() {
		controlList = []controlRun{
			{":for", (*routineRun).controlFor},
			{":if", (*routineRun).controlIf},
			{":log", (*routineRun).controlLog},
			{":parallel_for", (*routineRun).controlParallelFor},
			{":parallel", (*routineRun).controlParallel},
			{":reject", (*routineRun).controlReject},
			{":return", (*routineRun).controlReturn},
			{":set_state", (*routineRun).controlSetState},
			{":switch", (*routineRun).controlSwitch},
			{":throw", (*routineRun).controlThrow},
			{":try", (*routineRun).controlTry},
			{":while", nil},
		}
	})
	return controlList
}

var (
	controlsOnce sync.Once
	controlList  []controlRun
)

type controlRun struct {
	key string
	run func(*routineRun, frame, *jsvalue.Object) (result, error)
}

func (r *routineRun) control(f frame, c *jsvalue.Object) result {
	for _, ctl := range controls() {
		if !c.Has(ctl.key) {
			continue
		}
		if ctl.run == nil {
			return r.fail(fmt.Errorf("Invalid %s in endpoint %q - %s is not implemented in Lowdefy 4.", ctl.key, r.endpointID, ctl.key))
		}
		res, err := ctl.run(r, f, c)
		if err != nil {
			return r.fail(err)
		}
		return res
	}
	return r.fail(fmt.Errorf("Unexpected control in endpoint %q. Received %s.", r.endpointID, jsonText(c)))
}

func (r *routineRun) controlIf(f frame, c *jsvalue.Object) (result, error) {
	test, err := r.eval(f, c.Prop(":if"), ":if")
	if err != nil {
		return result{}, err
	}
	if jsvalue.Truthy(test) {
		then, ok := c.Get(":then")
		if !ok || !jsvalue.Truthy(then) {
			return result{}, errors.New("Invalid :if - missing :then.")
		}
		return r.routine(f, then), nil
	}
	if els, ok := c.Get(":else"); ok && jsvalue.Truthy(els) {
		return r.routine(f, els), nil
	}
	return cont, nil
}

func (r *routineRun) controlSwitch(f frame, c *jsvalue.Object) (result, error) {
	cases, ok := c.Prop(":switch").([]any)
	if !ok {
		return result{}, fmt.Errorf("Invalid :switch in endpoint %q - :switch must be an array of {:case, :then}.", r.endpointID)
	}
	for _, cs := range cases {
		m, _ := cs.(*jsvalue.Object)
		test, err := r.eval(f, m.Prop(":case"), ":switch")
		if err != nil {
			return result{}, err
		}
		if jsvalue.Truthy(test) {
			then, ok := m.Get(":then")
			if !ok || !jsvalue.Truthy(then) {
				return result{}, fmt.Errorf("Invalid :switch :case in endpoint %q - missing :then.", r.endpointID)
			}
			return r.routine(f, then), nil
		}
	}
	if def, ok := c.Get(":default"); ok && jsvalue.Truthy(def) {
		return r.routine(f, def), nil
	}
	return cont, nil
}

// loopItems returns the variable name and the evaluated :in array of a loop control.
func (r *routineRun) loopItems(f frame, c *jsvalue.Object, key string) (string, []any, error) {
	name := c.Prop(key)
	if !jsvalue.Truthy(name) {
		return "", nil, fmt.Errorf("Invalid %s in endpoint %q - missing variable name in %s.", key, r.endpointID, key)
	}
	in, err := r.eval(f, c.Prop(":in"), key)
	if err != nil {
		return "", nil, err
	}
	list, ok := in.([]any)
	if !ok {
		return "", nil, fmt.Errorf("Invalid %s in endpoint %q - :in must evaluate to an array. Received %s.", key, r.endpointID, jsonText(in))
	}
	if do, ok := c.Get(":do"); !ok || !jsvalue.Truthy(do) {
		return "", nil, fmt.Errorf("Invalid %s in endpoint %q - missing :do.", key, r.endpointID)
	}
	return jsvalue.ToString(name), list, nil
}

// iteration is frame f for item i of a loop over name.
func iteration(f frame, name string, i int, item any) frame {
	items := f.items.Clone()
	items.Set(name, item)
	idx := make([]int, len(f.arrayIndices), len(f.arrayIndices)+1)
	copy(idx, f.arrayIndices)
	return frame{arrayIndices: append(idx, i), items: items}
}

func (r *routineRun) controlFor(f frame, c *jsvalue.Object) (result, error) {
	name, list, err := r.loopItems(f, c, ":for")
	if err != nil {
		return result{}, err
	}
	do := c.Prop(":do")
	for i, item := range list {
		res := r.routine(iteration(f, name, i, item), do)
		if res.status != "continue" {
			return res, nil
		}
	}
	return cont, nil
}

func (r *routineRun) controlParallelFor(f frame, c *jsvalue.Object) (result, error) {
	name, list, err := r.loopItems(f, c, ":parallel_for")
	if err != nil {
		return result{}, err
	}
	do := c.Prop(":do")
	frames := make([]frame, len(list))
	routines := make([]any, len(list))
	for i, item := range list {
		frames[i] = iteration(f, name, i, item)
		routines[i] = do
	}
	return r.parallel(frames, routines), nil
}

func (r *routineRun) controlParallel(f frame, c *jsvalue.Object) (result, error) {
	list, ok := c.Prop(":parallel").([]any)
	if !ok {
		return result{}, fmt.Errorf("Invalid :parallel in endpoint %q - :parallel must be an array of routines.", r.endpointID)
	}
	frames := make([]frame, len(list))
	for i := range frames {
		frames[i] = f
	}
	return r.parallel(frames, list), nil
}

// parallel runs routines[i] in frames[i] at once and picks the outcome as Lowdefy
// does: the first error, else the first reject, else the first return, else continue.
// The caller holds r.mu; it is released while the branches run.
func (r *routineRun) parallel(frames []frame, routines []any) result {
	results := make([]result, len(routines))
	var wg sync.WaitGroup
	r.mu.Unlock()
	for i := range routines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.mu.Lock()
			defer r.mu.Unlock()
			results[i] = r.routine(frames[i], routines[i])
		}()
	}
	wg.Wait()
	r.mu.Lock()
	for _, status := range []string{"error", "reject", "return"} {
		for _, res := range results {
			if res.status == status {
				return res
			}
		}
	}
	return cont
}

func (r *routineRun) controlTry(f frame, c *jsvalue.Object) (result, error) {
	r.s.debug(r.ctx, "debug_control_try", "endpointId", r.endpointID)
	res := r.routine(f, c.Prop(":try"))
	if res.status == "error" {
		if catch, ok := c.Get(":catch"); ok && jsvalue.Truthy(catch) {
			res = r.routine(f, catch)
		}
	}
	if fin, ok := c.Get(":finally"); ok && jsvalue.Truthy(fin) {
		if fr := r.routine(f, fin); fr.status != "continue" {
			res = fr
		}
	}
	return res, nil
}

func (r *routineRun) controlReturn(f frame, c *jsvalue.Object) (result, error) {
	v, err := r.eval(f, c.Prop(":return"), ":return")
	if err != nil {
		return result{}, err
	}
	return result{status: "return", response: v}, nil
}

// controlReject ends the routine with status reject; as in Lowdefy 4.x the evaluated
// value is the response.
func (r *routineRun) controlReject(f frame, c *jsvalue.Object) (result, error) {
	v, err := r.eval(f, c.Prop(":reject"), ":reject")
	if err != nil {
		return result{}, err
	}
	r.s.debug(r.ctx, "debug_control_reject", "endpointId", r.endpointID)
	return result{status: "reject", response: v}, nil
}

// controlThrow ends the routine with an error whose message is the evaluated value
// (`new Error(value)`).
func (r *routineRun) controlThrow(f frame, c *jsvalue.Object) (result, error) {
	v, err := r.eval(f, c.Prop(":throw"), ":throw")
	if err != nil {
		return result{}, err
	}
	return result{}, &Error{Kind: "Error", Message: r.s.scrub(jsvalue.ToString(v))}
}

func (r *routineRun) controlSetState(f frame, c *jsvalue.Object) (result, error) {
	v, err := r.eval(f, c.Prop(":set_state"), ":set_state")
	if err != nil {
		return result{}, err
	}
	m, ok := v.(*jsvalue.Object)
	if !ok {
		if v == nil || jsvalue.IsUndefined(v) {
			return result{}, fmt.Errorf("Invalid :set_state in endpoint %q - it must evaluate to an object. Received %s.", r.endpointID, jsonText(v))
		}
		return cont, nil
	}
	for k, val := range m.Range {
		setPath(r.base.State, k, val)
	}
	return cont, nil
}

// logLevels are pino's levels as `:level` names them, built on first use.
var logLevels = lazy.Value[map[string]slog.Level]{New: func() map[string]slog.Level {
	return map[string]slog.Level{
		"trace": slog.LevelDebug - 4, "debug": slog.LevelDebug, "info": slog.LevelInfo,
		"warn": slog.LevelWarn, "error": slog.LevelError, "fatal": slog.LevelError + 4,
	}
}}

func (r *routineRun) controlLog(f frame, c *jsvalue.Object) (result, error) {
	msg, err := r.eval(f, c.Prop(":log"), ":log")
	if err != nil {
		return result{}, err
	}
	lv, err := r.eval(f, c.Prop(":level"), ":log")
	if err != nil {
		return result{}, err
	}
	if lv == nil || jsvalue.IsUndefined(lv) {
		lv = "info"
	}
	name, ok := lv.(string)
	if !ok {
		return result{}, fmt.Errorf("Invalid :log in endpoint %q - :level must be a string. Received %s.", r.endpointID, jsonText(lv))
	}
	level, ok := logLevels.Get()[name]
	if !ok {
		return result{}, fmt.Errorf("Invalid :log in endpoint %q - unrecognised log level. Received %q.", r.endpointID, name)
	}
	text, _ := serial.Stringify(msg, "", true)
	r.s.log.Log(r.ctx, level, "lowdefy :log", "endpointId", r.endpointID, "log", text)
	return cont, nil
}
