package operators

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// Parser evaluates operators in Lowdefy config with one operator set.
// A Parser is not safe for concurrent use when its Context changes; parsing
// itself does not modify the Context.
type Parser struct {
	ctx    *Context
	ops    map[string]operatorFunc
	server bool // node runtime: no state, no list indices
	build  bool // BuildParser: objects with a "~r" ref id are not evaluated, "~k" is kept
	rnd    func() float64
}

// Options are the per-call inputs of ParseWith.
type Options struct {
	// Location is where the input is (a block id, request id, …); "$" in it
	// is replaced by ArrayIndices.
	Location string
	// ArrayIndices are the list indices of the block being evaluated.
	ArrayIndices []int
	// Event is the event payload (_event); nil means none.
	Event any
	// Actions are the responses of the actions run so far (_actions).
	Actions *jsvalue.Object
	// Args are function arguments (_args).
	Args []any
	// OperatorPrefix defaults to "_"; "_build." style prefixes are allowed.
	OperatorPrefix string
}

// Error is one operator failure collected by Parse.
type Error struct {
	// Operator is the operator key, e.g. "_string.concat".
	Operator string
	// Location is the (index-substituted) location of the evaluation.
	Location string
	// Err is the cause.
	Err error
}

// Error returns the message.
func (e *Error) Error() string {
	msg := e.Err.Error()
	if strings.HasPrefix(msg, "Operator Error:") {
		return msg
	}
	return fmt.Sprintf("Operator Error: %s - %s at %s.", e.Operator, msg, e.Location)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// UnsupportedError is an operator that one of the app's plugins provides and mcpbridge
// does not run (Context.Plugins): the operator object evaluates to null.
type UnsupportedError struct {
	// Operator is the operator name, such as "_my_operator".
	Operator string
	// Location is where it was met.
	Location string
}

// Message says what is not supported, without the location.
func (e *UnsupportedError) Message() string {
	return fmt.Sprintf("`%s` is a plugin operator mcpbridge does not run (it evaluates to null)", e.Operator)
}

// Error returns the message with the location.
func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("Operator Error: %s at %s.", e.Message(), e.Location)
}

// NewClientParser returns the client (WebParser) parser: the client operator
// set, no _secret, _payload or _hash.
func NewClientParser(ctx *Context) *Parser {
	return newParser(ctx, sets.Get().client, false)
}

// NewServerParser returns the server (ServerParser) parser: the server
// operator set, no _state and no browser getters.
func NewServerParser(ctx *Context) *Parser {
	return newParser(ctx, sets.Get().server, true)
}

// NewRoutineParser returns the parser of API endpoint routines (Lowdefy 4.x):
// the server set plus _step (Context.Steps), _item (Context.Items) and _state
// (Context.State, the routine's state set by :set_state).
func NewRoutineParser(ctx *Context) *Parser {
	return newParser(ctx, sets.Get().routine, true)
}

// NewBuildParser returns the build-time parser (Lowdefy BuildParser) with the
// build operator set (operatorsBuild.js: the shared operators without _user
// and plugins, plus _base64 (Node), _hash and _env, which reads
// Context.Env). Its default operator prefix is "_build.", as Lowdefy's build
// uses it (`_build.env: HOME`).
func NewBuildParser(ctx *Context) *Parser {
	p := newParser(ctx, sets.Get().build, true)
	p.build = true
	return p
}

func newParser(ctx *Context, ops map[string]operatorFunc, server bool) *Parser {
	if ctx == nil {
		ctx = &Context{}
	}
	p := &Parser{ctx: ctx, ops: ops, server: server}
	if ctx.Random != nil {
		p.rnd = ctx.Random
	} else {
		p.rnd = rand.Float64
	}
	return p
}

// Context returns the parser's context.
func (p *Parser) Context() *Context { return p.ctx }

// Parse evaluates input at loc with the given list indices and event. It
// returns the evaluated value and the operator errors, in evaluation order
// (children before parents, object keys in their order). ctx bounds
// operators that run code (_js); it is not stored. Parse never modifies
// input; parts of input without operators are returned as they are (not
// copied), so callers must treat the output as read-only or copy it before
// changing it.
func (p *Parser) Parse(ctx context.Context, input any, loc string, arrayIndices []int, event any) (any, []error) {
	return p.ParseWith(ctx, input, Options{Location: loc, ArrayIndices: arrayIndices, Event: event})
}

// ParseWith is Parse with all options.
func (p *Parser) ParseWith(ctx context.Context, input any, opts Options) (out any, errs []error) {
	if jsvalue.IsUndefined(input) {
		return input, nil
	}
	if opts.OperatorPrefix == "" {
		opts.OperatorPrefix = "_"
		if p.build {
			opts.OperatorPrefix = "_build."
		}
	}
	st := &parseState{p: p, goCtx: ctx, loc: opts.Location}
	st.optsVal = opts
	st.opts = &st.optsVal
	if !p.server {
		st.loc = applyArrayIndices(opts.ArrayIndices, opts.Location)
	}
	defer func() {
		if r := recover(); r != nil {
			out = nil
			errs = append(st.errs, &panicError{fmt.Sprintf("operator evaluation failed at %s: %v", opts.Location, r)})
		}
	}()
	out = st.eval(input, 0)
	return out, st.errs
}

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 1000

// parseState is the state of one Parse call.
type parseState struct {
	p       *Parser
	goCtx   context.Context // the ctx argument of Parse, for the duration of the call
	optsVal Options
	opts    *Options
	loc     string
	errs    []error
}

func (st *parseState) eval(node any, depth int) any {
	v, _ := st.evalNode(node, depth)
	return v
}

// evalNode evaluates node bottom-up and reports whether the result differs
// from node; unchanged objects and arrays are returned as they are, so
// static config is not copied.
func (st *parseState) evalNode(node any, depth int) (any, bool) {
	if depth > maxDepth {
		st.errs = append(st.errs, fmt.Errorf("operator input nested deeper than %d levels at %s", maxDepth, st.loc))
		return nil, true
	}
	switch x := node.(type) {
	case *jsvalue.Object:
		return st.evalObject(x, depth)
	case []any:
		return jsvalue.MapItems(x, func(item any) (any, bool) { return st.evalNode(item, depth+1) })
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float32:
		return float64(x), true
	}
	return node, false
}

func (st *parseState) evalObject(x *jsvalue.Object, depth int) (any, bool) {
	if x.Len() == 1 {
		if k, v := x.At(0); !isMarkerKey(k) {
			val, changed := st.evalNode(v, depth+1)
			if jsvalue.IsUndefined(val) {
				return &jsvalue.Object{}, true
			}
			if res, isOp := st.callOperator(k, val); isOp {
				return res, true
			}
			if k == "~d" || k == "~e" {
				return serial.ReviveMarker(jsvalue.ObjectOf(k, val)), true
			}
			if !changed {
				return x, false
			}
			return jsvalue.ObjectOf(k, val), true
		}
	}
	build := st.p.build
	var out *jsvalue.Object
	copyFrom := func(upto int) {
		out = jsvalue.NewObject(x.Len())
		for i := range upto {
			if k, v := x.At(i); k != "~k" || build {
				out.Set(k, v)
			}
		}
	}
	for i := range x.Len() {
		k, item := x.At(i)
		if k == "~k" && !build {
			// WebParser and ServerParser delete "~k".
			if out == nil {
				copyFrom(i)
			}
			continue
		}
		v, changed := st.evalNode(item, depth+1)
		if (changed || jsvalue.IsUndefined(v)) && out == nil {
			copyFrom(i)
		}
		if out != nil && !jsvalue.IsUndefined(v) {
			out.Set(k, v)
		}
	}
	changed := out != nil
	if out == nil {
		out = x
	}
	// "~k" and "~r" are non-enumerable in Lowdefy, so they do not count as
	// keys; the build parser never evaluates an object carrying a "~r" ref.
	_, isRef := out.Prop("~r").(string)
	if !(build && isRef) {
		var opKey string
		var opParams any
		n := 0
		for k, v := range out.Range {
			if isMarkerKey(k) && jsvalue.Truthy(v) {
				continue
			}
			opKey, opParams = k, v
			n++
		}
		if n == 1 {
			if res, isOp := st.callOperator(opKey, opParams); isOp {
				return res, true
			}
		}
	}
	if out.Has("~d") || out.Has("~e") {
		return serial.ReviveMarker(out), true
	}
	return out, changed
}

func isMarkerKey(k string) bool { return k == "~k" || k == "~r" }

// callOperator runs the operator named by key with params, if key names one
// of the parser's operators.
func (st *parseState) callOperator(key string, params any) (any, bool) {
	prefix := st.opts.OperatorPrefix
	if !strings.HasPrefix(key, prefix) {
		return nil, false
	}
	name := key
	if prefix != "_" {
		name = "_" + key[len(prefix):]
	}
	op, method, hasMethod := name, "", false
	if i := strings.IndexByte(name, '.'); i >= 0 {
		op, method, hasMethod = name[:i], name[i+1:], true
		if j := strings.IndexByte(method, '.'); j >= 0 {
			method = method[:j]
		}
	}
	fn, ok := st.p.ops[op]
	if !ok {
		if st.p.ctx.Plugins[op] {
			st.errs = append(st.errs, &UnsupportedError{Operator: op, Location: st.loc})
			return nil, true
		}
		return nil, false
	}
	c := &call{
		st: st, op: op, params: params, method: method, hasMethod: hasMethod,
		location: st.loc, prefix: prefix,
	}
	res, err := st.run(fn, c)
	if err != nil {
		st.errs = append(st.errs, &Error{Operator: key, Location: st.loc, Err: err})
		return nil, true
	}
	if m, ok := res.(*jsvalue.Object); ok {
		return serial.ReviveMarker(m), true
	}
	return res, true
}

func (st *parseState) run(fn operatorFunc, c *call) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			res = nil
			err = &panicError{fmt.Sprintf("%s failed: %v", c.op, r)}
		}
	}()
	return fn(c)
}

// call is one operator invocation (the options object Lowdefy passes to an
// operator function).
type call struct {
	st        *parseState
	op        string
	params    any
	method    string
	hasMethod bool
	location  string
	prefix    string
}

func (c *call) ctx() *Context  { return c.st.p.ctx }
func (c *call) opts() *Options { return c.st.opts }
func (c *call) arrayIndicesOrNil() []int {
	if c.st.p.server {
		return nil
	}
	return c.st.opts.ArrayIndices
}

// errorf returns an operator error in Lowdefy's wording.
func (c *call) errorf(format string, args ...any) error {
	return fmt.Errorf("Operator Error: %s Received: %s at %s.", fmt.Sprintf(format, args...), jsonForError(c.params), c.location)
}

func jsonForError(v any) string {
	s, ok := serial.Stringify(v, "", false)
	if !ok {
		return "undefined"
	}
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}

type operatorFunc func(c *call) (any, error)

// panicError is an operator failure caused by a Go panic (a bug); it is
// reported like any operator error instead of crashing the caller.
type panicError struct{ msg string }

func (e *panicError) Error() string { return e.msg }
