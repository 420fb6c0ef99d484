package operators

import (
	"context"
	"fmt"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/expr"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// _js (Lowdefy 4.x): `_js: <function body>` or `_js: {fn: <body>, args: …}`.
// The body runs as a function whose parameters are accessors calling the
// getter operators — client: actions, args, event, input, location,
// lowdefyGlobal, request, state, urlQuery, user; server: args, payload,
// secret, user — e.g. `return state('count') + 1`. It runs in the sandbox of
// internal/expr (time and memory bounded, no I/O).

var (
	jsClientParams = []string{"actions", "args", "event", "input", "location", "lowdefyGlobal", "request", "state", "urlQuery", "user"}
	jsServerParams = []string{"args", "payload", "secret", "user"}
	jsAccessors    = lazy.Value[map[string]string]{New: func() map[string]string {
		return map[string]string{
			"actions": "_actions", "event": "_event", "input": "_input", "location": "_location",
			"lowdefyGlobal": "_global", "request": "_request", "state": "_state", "urlQuery": "_url_query",
			"user": "_user", "payload": "_payload", "secret": "_secret",
		}
	}}
	jsPrograms sync.Map // server bool + body → *expr.Program
)

type jsKey struct {
	server bool
	body   string
}

// forJS prepares a value for internal/expr: undefined becomes null and
// functions are dropped, like a JSON copy; dates stay dates and objects keep
// their key order.
func forJS(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = forJS(item)
		}
		return out
	case *jsvalue.Object:
		out := jsvalue.NewObject(x.Len())
		for k, item := range x.Range {
			if _, isFunc := item.(jsvalue.Func); isFunc || jsvalue.IsUndefined(item) {
				continue
			}
			out.Set(k, forJS(item))
		}
		return out
	case jsvalue.Func:
		return nil
	case *jsvalue.Error:
		return jsvalue.ObjectOf("name", x.Name, "message", x.Message)
	}
	if jsvalue.IsUndefined(v) {
		return nil
	}
	return v
}

// exprRunner runs _js on internal/expr.
type exprRunner struct{}

// jsLimits bounds one _js evaluation on internal/expr (the zero value: the engine's
// defaults). Tests that are not about the limit raise it, since it is wall-clock time.
var jsLimits expr.Limits

func (exprRunner) program(server bool, body string) (*expr.Program, error) {
	if p, ok := jsPrograms.Load(jsKey{server, body}); ok {
		return p.(*expr.Program), nil
	}
	params := jsClientParams
	if server {
		params = jsServerParams
	}
	p, err := expr.CompileFunction("_js", params, body)
	if err != nil {
		return nil, err
	}
	jsPrograms.Store(jsKey{server, body}, p)
	return p, nil
}

func opJS(c *call) (any, error) {
	body, ok := c.params.(string)
	var args any = jsvalue.Undefined
	if pm, isObj := c.params.(*jsvalue.Object); isObj {
		body, ok = pm.Prop("fn").(string)
		args = field(pm, "args")
	}
	if !ok {
		return nil, c.errorf("_js takes a function body string or {fn, args}.")
	}
	vars := map[string]any{"args": forJS(args)}
	names := jsClientParams
	if c.st.p.server {
		names = jsServerParams
	}
	for _, name := range names {
		opName, ok := jsAccessors.Get()[name]
		if !ok {
			continue
		}
		fn := c.st.p.ops[opName]
		if fn == nil {
			continue
		}
		vars[name] = func(a []any) (any, error) {
			inner := *c
			inner.op = opName
			inner.method, inner.hasMethod = "", false
			inner.params = true
			if len(a) > 0 {
				inner.params = a[0]
			}
			v, err := fn(&inner)
			if err != nil {
				return nil, err
			}
			return forJS(v), nil
		}
	}
	ctx := c.st.goCtx
	if ctx == nil {
		ctx = context.Background()
	}
	if r := c.ctx().JS; r != nil {
		return r.RunJS(ctx, body, vars)
	}
	p, err := exprRunner{}.program(c.st.p.server, body)
	if err != nil {
		return nil, fmt.Errorf("_js function execution error. %w", err)
	}
	res, err := p.Eval(ctx, vars, jsLimits)
	if err != nil {
		return nil, fmt.Errorf("_js function execution error. %w", err)
	}
	return serial.Decode(res), nil // objects come back from internal/expr in their JavaScript key order
}
