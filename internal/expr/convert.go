package expr

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/dop251/goja"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// maxDepth bounds the nesting of values converted in either direction.
const maxDepth = 512

// maxArrayLen bounds the length of an array result (sparse arrays can claim huge lengths).
const maxArrayLen = 1 << 24

// Func is a Go function made callable from JavaScript when passed as a variable (or inside
// one). It receives the call's arguments as JSON-like Go values and returns a JSON-like
// value; a returned error is thrown as a JavaScript Error carrying its message. A Func must
// not block for long: Limits.Timeout cannot interrupt Go code. A Func may be called again
// when its evaluation is re-run (see [Program.Eval]), so it should have no side effects, and
// it must not call [Program.Eval] itself: evaluations hold a shared lock that a pending
// exclusive re-run would make the nested call wait for forever.
type Func func(args []any) (any, error)

// promiseType returns the export type of Promise objects (checked without exporting: Export
// copies arrays and maps). It is a function so that no code runs for it at init.
func promiseType() reflect.Type { return reflect.TypeFor[*goja.Promise]() }

// errStopped reports that a conversion loop noticed the evaluation was interrupted.
var errStopped = errors.New("evaluation interrupted")

// converter copies values between Go and one runtime.
type converter struct {
	e *env
}

// pathError is a conversion error located by a path such as `.items[2]`.
type pathError struct {
	path string
	msg  string
}

// Error returns the path followed by the message, e.g. `.items[2] is a function`; callers
// prefix it with "result" or "variable NAME".
func (p *pathError) Error() string {
	return p.path + " " + p.msg
}

func at(prefix string, err error) error {
	var pe *pathError
	if errors.As(err, &pe) {
		return &pathError{path: prefix + pe.path, msg: pe.msg}
	}
	return err
}

// toJS copies a JSON-like Go value into a plain JavaScript value.
func (c *converter) toJS(v any, depth int) (goja.Value, error) {
	if depth > maxDepth {
		return nil, &pathError{msg: fmt.Sprintf("is nested deeper than %d levels (is there a cycle?)", maxDepth)}
	}
	rt := c.e.rt
	switch x := v.(type) {
	case nil:
		return goja.Null(), nil
	case bool:
		return rt.ToValue(x), nil
	case string:
		return rt.ToValue(x), nil
	case float64:
		return rt.ToValue(x), nil
	case float32:
		return rt.ToValue(float64(x)), nil
	case int:
		return rt.ToValue(int64(x)), nil
	case int8, int16, int32, int64, uint8, uint16, uint32:
		return rt.ToValue(reflect.ValueOf(x).Convert(reflect.TypeFor[int64]()).Int()), nil
	case uint, uint64, uintptr:
		u := reflect.ValueOf(x).Uint()
		if u > math.MaxInt64 {
			return rt.ToValue(float64(u)), nil
		}
		return rt.ToValue(int64(u)), nil
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return rt.ToValue(i), nil
		}
		f, err := x.Float64()
		if err != nil {
			return nil, &pathError{msg: fmt.Sprintf("is an invalid json.Number %q", string(x))}
		}
		return rt.ToValue(f), nil
	case time.Time:
		obj, err := rt.New(c.e.date, rt.ToValue(x.UnixMilli()))
		if err != nil {
			return nil, &pathError{msg: fmt.Sprintf("cannot become a Date: %v", err)}
		}
		return obj, nil
	case []any:
		items := make([]any, len(x))
		for i, item := range x {
			jv, err := c.toJS(item, depth+1)
			if err != nil {
				return nil, at("["+strconv.Itoa(i)+"]", err)
			}
			items[i] = jv
		}
		return rt.NewArray(items...), nil
	case *jsvalue.Object:
		if x == nil {
			return goja.Null(), nil
		}
		// Keys in the object's order (JavaScript's property order), as the script would
		// have created them.
		obj := rt.NewObject()
		for k, item := range x.Range {
			jv, err := c.toJS(item, depth+1)
			if err != nil {
				return nil, at(fieldPath(k), err)
			}
			if err := obj.Set(k, jv); err != nil {
				return nil, at(fieldPath(k), &pathError{msg: err.Error()})
			}
		}
		return obj, nil
	case jsvalue.UndefinedType:
		return goja.Undefined(), nil
	case map[string]any:
		obj := rt.NewObject()
		for _, k := range slices.Sorted(maps.Keys(x)) {
			jv, err := c.toJS(x[k], depth+1)
			if err != nil {
				return nil, at(fieldPath(k), err)
			}
			if err := obj.Set(k, jv); err != nil {
				return nil, at(fieldPath(k), &pathError{msg: err.Error()})
			}
		}
		return obj, nil
	case Func:
		return rt.ToValue(c.goFunc(x)), nil
	case func(args []any) (any, error):
		return rt.ToValue(c.goFunc(x)), nil
	}
	return c.reflectToJS(v, depth)
}

// reflectToJS handles named and typed containers ([]string, map[string]int, ...).
func (c *converter) reflectToJS(v any, depth int) (goja.Value, error) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Bool:
		return c.toJS(rv.Bool(), depth)
	case reflect.String:
		return c.toJS(rv.String(), depth)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return c.toJS(rv.Int(), depth)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return c.toJS(rv.Uint(), depth)
	case reflect.Float32, reflect.Float64:
		return c.toJS(rv.Float(), depth)
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return goja.Null(), nil
		}
		return c.toJS(rv.Elem().Interface(), depth+1)
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return goja.Null(), nil
		}
		items := make([]any, rv.Len())
		for i := range items {
			jv, err := c.toJS(rv.Index(i).Interface(), depth+1)
			if err != nil {
				return nil, at("["+strconv.Itoa(i)+"]", err)
			}
			items[i] = jv
		}
		return c.e.rt.NewArray(items...), nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		if rv.IsNil() {
			return goja.Null(), nil
		}
		m := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			m[it.Key().String()] = it.Value().Interface()
		}
		return c.toJS(m, depth)
	}
	return nil, &pathError{msg: fmt.Sprintf("has unsupported Go type %T (pass JSON-like values: nil, bool, numbers, string, time.Time, []any, map[string]any, *jsvalue.Object)", v)}
}

func fieldPath(k string) string {
	if checkIdentifier(k) == nil {
		return "." + k
	}
	return "[" + strconv.Quote(k) + "]"
}

// goFunc adapts a Func to a JavaScript function.
func (c *converter) goFunc(f Func) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		args := make([]any, len(call.Arguments))
		for i, a := range call.Arguments {
			v, err := c.fromJS(a, 0, nil)
			if err != nil {
				panic(c.e.rt.NewTypeError("argument %d%v", i+1, err))
			}
			args[i] = v
		}
		out, err := f(args)
		if err != nil {
			panic(c.e.rt.NewGoError(err))
		}
		jv, err := c.toJS(out, 0)
		if err != nil {
			panic(c.e.rt.NewTypeError("Go function result%v", err))
		}
		return jv
	}
}

// fromJS copies a JavaScript value into a JSON-like Go value. stack holds the objects being
// converted, to detect cycles.
func (c *converter) fromJS(v goja.Value, depth int, stack []*goja.Object) (any, error) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil, nil
	}
	if depth > maxDepth {
		return nil, &pathError{msg: fmt.Sprintf("is nested deeper than %d levels", maxDepth)}
	}
	obj, isObj := v.(*goja.Object)
	if !isObj {
		return primitive(v)
	}
	if slices.Contains(stack, obj) {
		return nil, &pathError{msg: "contains a cycle"}
	}
	stack = append(stack, obj)
	if _, ok := goja.AssertFunction(obj); ok {
		return nil, &pathError{msg: "is a function, not a value (call it, or return data)"}
	}
	if obj.ExportType() == promiseType() {
		pr := obj.Export().(*goja.Promise)
		switch pr.State() {
		case goja.PromiseStateFulfilled:
			return c.fromJS(pr.Result(), depth+1, stack)
		case goja.PromiseStateRejected:
			name, msg := describeThrown(pr.Result())
			if name != "" {
				msg = name + ": " + msg
			}
			return nil, &pathError{msg: "is a Promise that was rejected: " + msg}
		default:
			return nil, &pathError{msg: "is a Promise still pending when the evaluation ended (only settled promises can be results)"}
		}
	}
	switch obj.ClassName() {
	case "Array":
		n := obj.Get("length").ToInteger()
		if n > maxArrayLen {
			return nil, &pathError{msg: fmt.Sprintf("is an array of length %d, too long (at most %d)", n, maxArrayLen)}
		}
		out := make([]any, n)
		for i := range out {
			if i&1023 == 1023 && c.e.stopped() {
				return nil, errStopped
			}
			item, err := c.fromJS(obj.Get(strconv.Itoa(i)), depth+1, stack)
			if err != nil {
				return nil, at("["+strconv.Itoa(i)+"]", err)
			}
			out[i] = item
		}
		return out, nil
	case "Date":
		if t, ok := obj.Export().(time.Time); ok {
			if ms := obj.ToFloat(); math.IsNaN(ms) {
				return nil, nil // an invalid Date, like JSON.stringify
			}
			return t.UTC(), nil
		}
		return nil, nil
	}
	keys := obj.Keys()
	out := jsvalue.NewObject(len(keys))
	for i, k := range keys {
		if i&1023 == 1023 && c.e.stopped() {
			return nil, errStopped
		}
		item, err := c.fromJS(obj.Get(k), depth+1, stack)
		if err != nil {
			return nil, at(fieldPath(k), err)
		}
		out.Set(k, item)
	}
	return out, nil
}

// primitive converts a non-object JavaScript value.
func primitive(v goja.Value) (any, error) {
	if _, ok := v.(*goja.Symbol); ok {
		return nil, &pathError{msg: "is a Symbol, which has no JSON form"}
	}
	switch x := v.Export().(type) {
	case bool, string:
		return x, nil
	case int64:
		return x, nil
	case float64:
		return number(x), nil
	case *big.Int:
		return nil, &pathError{msg: "is a BigInt, which has no JSON form (convert it with Number() or String())"}
	default:
		return nil, &pathError{msg: fmt.Sprintf("has unsupported type %T", x)}
	}
}

// number normalises a JavaScript number: integral values within ±2^53 become int64, NaN and
// ±Infinity become nil (as JSON.stringify does), other values stay float64.
func number(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	if f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		return int64(f)
	}
	return f
}

// stopped reports whether the current evaluation was interrupted.
func (e *env) stopped() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cause != nil
}
