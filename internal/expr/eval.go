package expr

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"time"

	"github.com/dop251/goja"
)

// Default limits used when a field of [Limits] is zero.
const (
	DefaultTimeout   = time.Second
	DefaultMaxMemory = 32 << 20
)

// Limits bounds one evaluation. The zero value means the defaults.
type Limits struct {
	// Timeout bounds the wall-clock time of one evaluation. If zero, DefaultTimeout is used.
	// The context deadline, if earlier, applies too.
	Timeout time.Duration
	// MaxMemory bounds the heap growth during one evaluation, in bytes. If zero,
	// DefaultMaxMemory is used. See the package documentation for how it is enforced.
	MaxMemory int64
}

func (l Limits) withDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxMemory <= 0 {
		l.MaxMemory = DefaultMaxMemory
	}
	return l
}

// Eval runs the program with vars as its variables and returns the result as a JSON-like Go
// value (nil, bool, int64, float64, string, time.Time, []any, *jsvalue.Object).
//
// vars must hold JSON-like values (nil, bool, any Go integer or float, json.Number, string,
// time.Time, []any, map[string]any, other slices and string-keyed maps of those) or [Func]
// values; they are copied into plain JavaScript values, so the program cannot modify the
// caller's data. For a [Compile] program every key must be a JavaScript identifier; for a
// [CompileFunction] program every key must be one of its parameters.
//
// Every failure is an [*Error]. Eval is safe for concurrent use. A program whose memory use
// cannot be told apart from that of evaluations running beside it is re-run alone, so its
// [Func] variables may be called twice; they should not have side effects.
func (p *Program) Eval(ctx context.Context, vars map[string]any, lim Limits) (any, error) {
	lim = lim.withDefaults()
	if err := ctx.Err(); err != nil {
		return nil, p.contextError(err)
	}
	c, err := p.compiledFor(vars)
	if err != nil {
		return nil, err
	}
	res, deadline, err := p.attempt(ctx, c, vars, lim, time.Time{})
	if e, ok := err.(*Error); ok && e.Kind == kindRetry {
		// The live heap grew beyond the limit, but maybe because of other evaluations or
		// from a stale baseline: re-run alone, within the original deadline, so that only an
		// evaluation that really allocates fails.
		if cerr := ctx.Err(); cerr != nil {
			return nil, p.contextError(cerr)
		}
		res, _, err = p.attempt(ctx, c, vars, lim, deadline)
	}
	return res, err
}

// attempt runs one evaluation of c under the gate: shared for a first run (deadline zero;
// the time limit starts once the gate is held), exclusive for a re-run (which keeps the
// first run's deadline). It returns the deadline it ran under.
func (p *Program) attempt(ctx context.Context, c *compiled, vars map[string]any, lim Limits, deadline time.Time) (any, time.Time, error) {
	exclusive := !deadline.IsZero()
	if exclusive {
		gate.Lock()
		defer gate.Unlock()
		// A fresh live-heap figure for the watchdog's baseline: the first run's data is
		// garbage now.
		runtime.GC()
		if time.Until(deadline) <= 0 {
			return nil, deadline, &Error{Program: p.name, Kind: KindTimeout, Msg: fmt.Sprintf("exceeded the time limit of %v", lim.Timeout)}
		}
	} else {
		gate.RLock()
		defer gate.RUnlock()
		deadline = time.Now().Add(lim.Timeout)
	}
	e, err := getEnv()
	if err != nil {
		return nil, deadline, &Error{Program: p.name, Kind: KindRuntime, Msg: err.Error(), Err: err}
	}
	res, clean, err := p.run(ctx, e, c, vars, lim, deadline, exclusive)
	if clean {
		putEnv(e)
	}
	if err != nil {
		if _, ok := err.(*Error); !ok {
			err = &Error{Program: p.name, Kind: KindRuntime, Msg: err.Error(), Err: err}
		}
	}
	return res, deadline, err
}

// compiledFor returns the compilation matching the variable names of vars.
func (p *Program) compiledFor(vars map[string]any) (*compiled, error) {
	if p.mode == modeFunction {
		for k := range vars {
			if !slices.Contains(p.params, k) {
				return nil, &Error{Program: p.name, Kind: KindInput, Msg: fmt.Sprintf("variable %q is not a parameter of this function (parameters: %v)", k, p.params)}
			}
		}
		return p.fixed, nil
	}
	if c := p.last.Load(); c != nil && sameNames(c.names, vars) {
		return c, nil
	}
	names := slices.Sorted(maps.Keys(vars))
	c, err := p.forNames(names)
	if err != nil {
		return nil, err
	}
	p.last.Store(c)
	return c, nil
}

func sameNames(names []string, vars map[string]any) bool {
	if len(names) != len(vars) {
		return false
	}
	for _, n := range names {
		if _, ok := vars[n]; !ok {
			return false
		}
	}
	return true
}

// run evaluates c on e until deadline. clean reports whether e can go back to the pool.
func (p *Program) run(ctx context.Context, e *env, c *compiled, vars map[string]any, lim Limits, deadline time.Time, exclusive bool) (res any, clean bool, err error) {
	fn, ferr := e.function(c)
	if ferr != nil {
		return nil, false, &Error{Program: p.name, Kind: KindRuntime, Msg: ferr.Error(), Err: ferr}
	}
	conv := converter{e: e}
	args := make([]goja.Value, len(c.names))
	for i, n := range c.names {
		v, ok := vars[n]
		if !ok {
			args[i] = goja.Undefined()
			continue
		}
		jv, cerr := conv.toJS(v, 0)
		if cerr != nil {
			return nil, true, &Error{Program: p.name, Kind: KindInput, Msg: "variable " + n + cerr.Error(), Err: cerr}
		}
		args[i] = jv
	}

	// Arm the guards: the timer, the context and the memory watchdog.
	e.mu.Lock()
	e.done, e.cause = false, nil
	e.stop.Store(false)
	e.mu.Unlock()
	e.setSizeLimits(lim.MaxMemory)
	e.deadline, e.ctxDeadline, e.stopStack = deadline, false, nil
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		e.deadline, e.ctxDeadline = d, true
	}
	e.timer.Reset(time.Until(deadline))
	stopCtx := func() bool { return true }
	if ctx.Done() != nil {
		stopCtx = context.AfterFunc(ctx, func() { e.interrupt(p.contextError(ctx.Err())) })
	}
	watch.add(e, lim.MaxMemory, exclusive)

	res, err, panicked := p.safeCall(e, fn, args)

	// Disarm. Once done is set no guard can interrupt any more, so ClearInterrupt (in
	// putEnv) cannot race with a late Interrupt.
	watch.remove(e)
	timerStopped := e.timer.Stop()
	ctxStopped := stopCtx()
	e.mu.Lock()
	e.done = true
	cause := e.cause
	e.mu.Unlock()
	clean = cause == nil && timerStopped && ctxStopped && !panicked
	if cause != nil {
		if cause.Kind == KindTimeout && cause.Err == nil {
			cause.Msg = fmt.Sprintf("exceeded the time limit of %v", lim.Timeout)
		}
		var ie *goja.InterruptedError
		errors.As(err, &ie)
		res, err = nil, p.withStackPosition(cause, ie, e.stopStack)
	}
	return res, clean, err
}

// safeCall is call with panics turned into errors; a runtime that panicked is not reused.
func (p *Program) safeCall(e *env, fn goja.Callable, args []goja.Value) (res any, err error, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			res, err, panicked = nil, &Error{Program: p.name, Kind: KindRuntime, Msg: fmt.Sprintf("internal error: %v", r)}, true
		}
	}()
	res, err = p.call(e, fn, args)
	return res, err, false
}

// call invokes the wrapper function and converts its result inside the guarded region.
func (p *Program) call(e *env, fn goja.Callable, args []goja.Value) (any, error) {
	v, err := fn(goja.Undefined(), args...)
	if err != nil {
		jerr := p.jsError(err)
		var ex *goja.Exception
		if je, ok := jerr.(*Error); ok && je.Kind == KindRuntime && errors.As(err, &ex) && e.isSizeError(ex.Value()) {
			// A result over the size limits that the program did not catch.
			je.Kind = KindMemory
		}
		return nil, jerr
	}
	var out any
	var cerr error
	if ex := e.rt.Try(func() { out, cerr = (&converter{e: e}).fromJS(v, 0, nil) }); ex != nil {
		return nil, p.jsError(ex)
	}
	if cerr != nil {
		var ie *goja.InterruptedError
		if errors.As(cerr, &ie) {
			return nil, cerr
		}
		return nil, &Error{Program: p.name, Kind: KindResult, Msg: "result" + cerr.Error(), Err: cerr}
	}
	return out, nil
}

// onTimeout is the timer callback of env.
func (e *env) onTimeout() {
	e.interrupt(&Error{Kind: KindTimeout, Msg: "exceeded the time limit"})
}

// deadlineCause is the cause of stopping the current evaluation at e.deadline: the time
// limit, or the context's deadline. (Eval fills in the program and the limit.)
func (e *env) deadlineCause() *Error {
	if e.ctxDeadline {
		return &Error{Kind: KindTimeout, Msg: "exceeded the context deadline", Err: context.DeadlineExceeded}
	}
	return &Error{Kind: KindTimeout, Msg: "exceeded the time limit"}
}

// interrupt stops the current evaluation with cause, unless it already finished or was
// already interrupted.
func (e *env) interrupt(cause *Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done || e.cause != nil {
		return
	}
	e.cause = cause
	e.rt.Interrupt(cause)
	e.stop.Store(true) // after Interrupt: a built-in that sees stop can rely on the VM stopping
}

func (p *Program) contextError(err error) *Error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Program: p.name, Kind: KindTimeout, Msg: "exceeded the context deadline", Err: err}
	}
	return &Error{Program: p.name, Kind: KindCanceled, Msg: "evaluation canceled", Err: err}
}

// withStackPosition returns a copy of cause with the program name and the position where
// the evaluation was interrupted: where a native call that threw to stop it was called from
// (stopped, see env.stopStack), or else where the VM stopped. (After such a throw the VM
// stops only once it has unwound the frames that had no handler.)
func (p *Program) withStackPosition(cause *Error, ie *goja.InterruptedError, stopped []goja.StackFrame) *Error {
	out := *cause
	out.Program = p.name
	switch {
	case stopped != nil:
		out.Line, out.Column, out.SourceLine = p.stackPosition(stopped)
	case ie != nil:
		out.Line, out.Column, out.SourceLine = p.stackPosition(ie.Stack())
	}
	return &out
}

// stackPosition returns the position of the innermost frame inside this program.
func (p *Program) stackPosition(frames []goja.StackFrame) (int, int, string) {
	for _, f := range frames {
		if f.SrcName() != p.name {
			continue
		}
		pos := f.Position()
		if pos.Line > 0 {
			return p.position(pos.Line, pos.Column)
		}
	}
	return 0, 0, ""
}

// jsError converts an error returned by goja into an *Error.
func (p *Program) jsError(err error) error {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		return ie // the caller replaces it with the recorded cause
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		e := &Error{Program: p.name, Kind: KindRuntime, Name: "RangeError", Msg: "Maximum call stack size exceeded", Err: err}
		e.Line, e.Column, e.SourceLine = p.stackPosition(so.Stack())
		return e
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		e := &Error{Program: p.name, Kind: KindRuntime}
		e.Name, e.Msg = describeThrown(ex.Value())
		e.Line, e.Column, e.SourceLine = p.stackPosition(ex.Stack())
		return e
	}
	return &Error{Program: p.name, Kind: KindRuntime, Msg: err.Error(), Err: err}
}

// describeThrown returns the name and message of a thrown value.
func describeThrown(v goja.Value) (name, msg string) {
	defer func() {
		if recover() != nil {
			name, msg = "", "uncaught exception"
		}
	}()
	if v == nil {
		return "", "undefined"
	}
	if obj, ok := v.(*goja.Object); ok {
		n, m := obj.Get("name"), obj.Get("message")
		if n != nil && !goja.IsUndefined(n) && m != nil && !goja.IsUndefined(m) {
			return n.String(), m.String()
		}
	}
	return "", "uncaught " + v.String()
}
