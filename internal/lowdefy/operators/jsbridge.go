package operators

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/dop251/goja"

	"github.com/mcpbridge/mcpbridge/internal/expr"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// The built-in JavaScript methods behind _string, _array, _number, _math and
// _date (String.prototype.replace, Array.prototype.splice, Date setters, …)
// run on goja, so their corner cases follow ECMAScript exactly. No user code
// is compiled here: only built-in methods are called, on values converted
// from Go, with _function callbacks converted to JavaScript functions.

// jsRegExp is a RegExp argument to build inside the engine
// (new RegExp(pattern, flags)).
type jsRegExp struct{ pattern, flags any }

// ToPrimitive is the RegExp's source form, /pattern/flags
// (jsvalue.HostObject).
func (r jsRegExp) ToPrimitive(jsvalue.Hint) any {
	return "/" + jsvalue.ToString(r.pattern) + "/" + jsvalue.ToString(r.flags)
}

// jsCallLimit bounds one built-in call (for example a pathological regular
// expression).
const jsCallLimit = 2 * time.Second

type jsEngine struct {
	rt     *goja.Runtime
	date   goja.Value
	regexp goja.Value
	errCtr goja.Value
	funcs  map[*goja.Object]jsvalue.Func
	// deadline ends the current call (jsCallLimit from its start).
	deadline time.Time
}

var enginePool = sync.Pool{New: func() any {
	// goja runs regular expressions that RE2 cannot (backreferences,
	// lookaround) on regexp2, which backtracks and does not see goja's
	// interrupt. Bound every match (by expr.RegexpMatchTimeout, 2 s like
	// jsCallLimit) so a hostile pattern in config cannot hang the process; a
	// timed-out match counts as no match. This is process-wide, only replaces regexp2's
	// "forever" default, and is done before the first engine compiles a
	// pattern.
	expr.LimitRegexpMatches()
	rt := goja.New()
	e := &jsEngine{
		rt:     rt,
		date:   rt.Get("Date"),
		regexp: rt.Get("RegExp"),
		errCtr: rt.Get("Error"),
		funcs:  map[*goja.Object]jsvalue.Func{},
	}
	// A match on the backtracking engine gets the time left to the call, and one that
	// does not finish is an error, never a silent "no match".
	rt.SetRegexpMatchLimit(goja.RegexpMatchLimit{
		Left: func() time.Duration { return time.Until(e.deadline) },
		Failed: func(err error) {
			if errors.Is(err, goja.ErrRegexpMatchTimeout) {
				panic(rt.NewGoError(fmt.Errorf("regular expression did not finish within the %s limit of one call: simplify the pattern or match a shorter string", jsCallLimit)))
			}
			panic(rt.NewGoError(fmt.Errorf("regular expression too complex: %v; simplify the pattern or match a shorter string", err)))
		},
	})
	return e
}}

// withJS runs fn on a pooled engine, turning JavaScript exceptions and
// interrupts into errors.
func withJS(fn func(e *jsEngine) (any, error)) (res any, err error) {
	e := enginePool.Get().(*jsEngine)
	e.deadline = time.Now().Add(jsCallLimit)
	timer := time.AfterFunc(jsCallLimit, func() { e.rt.Interrupt("time limit exceeded") })
	defer func() {
		timer.Stop()
		e.rt.ClearInterrupt()
		clear(e.funcs)
		if r := recover(); r != nil {
			res, err = nil, jsPanicError(r)
			return // do not reuse an engine that panicked
		}
		enginePool.Put(e)
	}()
	res, err = fn(e)
	if err != nil {
		err = jsError(err)
	}
	return res, err
}

func jsPanicError(r any) error {
	switch x := r.(type) {
	case *goja.Exception:
		return jsError(x)
	case goja.Value:
		return errors.New(x.String())
	case error:
		return x
	}
	return fmt.Errorf("%v", r)
}

// jsError converts a goja exception to an error with the JavaScript message.
func jsError(err error) error {
	var ex *goja.Exception
	if errors.As(err, &ex) {
		if obj, ok := ex.Value().(*goja.Object); ok {
			name, msg := obj.Get("name"), obj.Get("message")
			if name != nil && msg != nil && !goja.IsUndefined(msg) {
				return errors.New(name.String() + ": " + msg.String())
			}
		}
		return errors.New(ex.Value().String())
	}
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		return fmt.Errorf("evaluation stopped: %v", ie.Value())
	}
	return err
}

// toJS converts a Lowdefy value to a goja value.
func (e *jsEngine) toJS(v any) goja.Value {
	rt := e.rt
	switch x := v.(type) {
	case nil:
		return goja.Null()
	case bool, string:
		return rt.ToValue(x)
	case float64:
		return rt.ToValue(x)
	case int:
		return rt.ToValue(float64(x))
	case []any:
		items := make([]any, len(x))
		for i, item := range x {
			items[i] = e.toJS(item)
		}
		return rt.NewArray(items...)
	case *jsvalue.Object:
		obj := rt.NewObject()
		for k, v := range x.Range {
			_ = obj.Set(k, e.toJS(v))
		}
		return obj
	case time.Time:
		obj, err := rt.New(e.date, rt.ToValue(jsvalue.Millis(x)))
		if err != nil {
			panic(err)
		}
		return obj
	case *jsvalue.Error:
		obj, err := rt.New(e.errCtr, rt.ToValue(x.Message))
		if err != nil {
			panic(err)
		}
		_ = obj.Set("name", x.Name)
		return obj
	case jsvalue.Func:
		f := x
		val := rt.ToValue(func(fc goja.FunctionCall) goja.Value {
			args := make([]any, len(fc.Arguments))
			for i, a := range fc.Arguments {
				args[i] = e.fromJS(a)
			}
			res, err := f(args...)
			if err != nil {
				panic(rt.NewGoError(err))
			}
			return e.toJS(res)
		})
		e.funcs[val.(*goja.Object)] = f
		return val
	case jsRegExp:
		obj, err := rt.New(e.regexp, e.toJS(x.pattern), e.toJS(x.flags))
		if err != nil {
			panic(err)
		}
		return obj
	}
	return goja.Undefined()
}

// fromJS converts a goja value back to a Lowdefy value.
func (e *jsEngine) fromJS(v goja.Value) any {
	if v == nil || goja.IsUndefined(v) {
		return jsvalue.Undefined
	}
	if goja.IsNull(v) {
		return nil
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		switch x := v.Export().(type) {
		case int64:
			return float64(x)
		case float64:
			return x
		case bool:
			return x
		case string:
			return x
		}
		return v.String()
	}
	switch obj.ClassName() {
	case "Array":
		n := int(obj.Get("length").ToInteger())
		out := make([]any, n)
		for i := 0; i < n; i++ {
			out[i] = e.fromJS(obj.Get(fmt.Sprint(i)))
		}
		return out
	case "Date":
		ms := obj.Get("getTime")
		if f, ok := goja.AssertFunction(ms); ok {
			r, err := f(obj)
			if err == nil {
				n := r.ToFloat()
				if math.IsNaN(n) {
					return nil
				}
				return jsvalue.DateFromMillis(n)
			}
		}
		return nil
	case "Error":
		return &jsvalue.Error{Name: obj.Get("name").String(), Message: obj.Get("message").String()}
	case "Function":
		if f, ok := e.funcs[obj]; ok {
			return f
		}
		return jsvalue.Func(func(args ...any) (any, error) {
			return nil, errors.New("a JavaScript built-in function cannot be called here")
		})
	case "RegExp":
		return &jsvalue.Object{}
	}
	keys := obj.Keys()
	out := jsvalue.NewObject(len(keys))
	for _, k := range keys {
		out.Set(k, e.fromJS(obj.Get(k)))
	}
	return out
}

// callMethod calls instance[name](...args) and converts the result.
func callMethod(instance any, name string, args []any) (any, error) {
	return withJS(func(e *jsEngine) (any, error) {
		obj := e.toJS(instance).ToObject(e.rt)
		f, ok := goja.AssertFunction(obj.Get(name))
		if !ok {
			return nil, fmt.Errorf("%s is not a function", name)
		}
		jsArgs := make([]goja.Value, len(args))
		for i, a := range args {
			jsArgs[i] = e.toJS(a)
		}
		res, err := f(obj, jsArgs...)
		if err != nil {
			return nil, err
		}
		return e.fromJS(res), nil
	})
}

// callMethodInstance is callMethod that returns the (possibly mutated)
// instance instead of the result.
func callMethodInstance(instance any, name string, args []any) (any, error) {
	return withJS(func(e *jsEngine) (any, error) {
		obj := e.toJS(instance).ToObject(e.rt)
		f, ok := goja.AssertFunction(obj.Get(name))
		if !ok {
			return nil, fmt.Errorf("%s is not a function", name)
		}
		jsArgs := make([]goja.Value, len(args))
		for i, a := range args {
			jsArgs[i] = e.toJS(a)
		}
		if _, err := f(obj, jsArgs...); err != nil {
			return nil, err
		}
		return e.fromJS(obj), nil
	})
}

// callStatic calls globalName.name(...args), e.g. Math.max.
func callStatic(globalName, name string, args []any) (any, error) {
	return withJS(func(e *jsEngine) (any, error) {
		g := e.rt.Get(globalName).ToObject(e.rt)
		f, ok := goja.AssertFunction(g.Get(name))
		if !ok {
			return nil, fmt.Errorf("%s.%s is not a function", globalName, name)
		}
		jsArgs := make([]goja.Value, len(args))
		for i, a := range args {
			jsArgs[i] = e.toJS(a)
		}
		res, err := f(g, jsArgs...)
		if err != nil {
			return nil, err
		}
		return e.fromJS(res), nil
	})
}

// staticProperty reads globalName.name, e.g. Math.PI.
func staticProperty(globalName, name string) (any, error) {
	return withJS(func(e *jsEngine) (any, error) {
		return e.fromJS(e.rt.Get(globalName).ToObject(e.rt).Get(name)), nil
	})
}

// newJSDate is `new Date(v)` with JavaScript's parsing rules.
func newJSDate(v any) (any, error) {
	return withJS(func(e *jsEngine) (any, error) {
		obj, err := e.rt.New(e.date, e.toJS(v))
		if err != nil {
			return nil, err
		}
		return e.fromJS(obj), nil
	})
}
