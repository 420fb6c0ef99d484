package operators

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// method describes one method of a class or instance operator (the meta
// tables of @lowdefy/operators runClass and runInstance).
type method struct {
	namedArgs      []string
	validTypes     []string
	singleArg      bool
	property       bool
	noArgs         bool
	spreadArgs     string // key of the spread array in object params ("true" for `spreadArgs: true`)
	returnInstance bool
	prep           func(c *call, args []any) ([]any, error)
}

// classFunc is the implementation of a class method.
type classFunc func(c *call, args []any) (any, error)

func metaNames[T any](m map[string]T) string {
	names := slices.Sorted(maps.Keys(m))
	return strings.Join(names, ", ")
}

func (c *call) methodError(format string, args ...any) error {
	return fmt.Errorf("Operator Error: %s Received: {\"%s.%s\":%s} at %s.", fmt.Sprintf(format, args...), c.op, c.method, jsonForError(c.params), c.location)
}

// runClass is @lowdefy/operators runClass.
func runClass(c *call, meta map[string]*method, fns map[string]classFunc, defaultFunc string) (any, error) {
	name := c.method
	if name == "" {
		key := ""
		switch c.params.(type) {
		case *jsvalue.Object:
			key = "[object Object]"
		default:
			key = jsvalue.ToString(c.params)
		}
		if _, ok := meta[key]; ok && !jsvalue.IsUndefined(c.params) {
			name = key
		} else if defaultFunc != "" {
			name = defaultFunc
		} else {
			return nil, c.methodError("%s requires a valid method name, use one of the following: %s.", c.op, metaNames(meta))
		}
	}
	m, ok := meta[name]
	if !ok {
		return nil, fmt.Errorf("Operator Error: %s.%s is not supported, use one of the following: %s. Received: %s at %s.", c.op, name, metaNames(meta), jsonForError(c.params), c.location)
	}
	c.method = name
	if m.validTypes != nil && !slices.Contains(m.validTypes, typeOf(c.params)) {
		return nil, c.methodError("%s.%s accepts one of the following types: %s.", c.op, name, strings.Join(m.validTypes, ", "))
	}
	fn := fns[name]
	if m.noArgs {
		res, err := fn(c, nil)
		if err != nil {
			return nil, c.methodError("%s: - %s", c.op, err.Error())
		}
		return res, nil
	}
	var args []any
	if m.singleArg || m.property {
		args = []any{c.params}
	} else {
		switch p := c.params.(type) {
		case []any:
			args = p
		case *jsvalue.Object:
			args = namedArgs(p, m.namedArgs)
			if m.spreadArgs != "" {
				spread, ok := p.Prop(m.spreadArgs).([]any)
				if !ok {
					return nil, c.methodError("%s.%s takes an array as input argument for %s.", c.op, name, m.spreadArgs)
				}
				args = append(args, spread...)
			}
		}
	}
	if m.prep != nil {
		var err error
		if args, err = m.prep(c, args); err != nil {
			return nil, err
		}
	}
	res, err := fn(c, args)
	if err != nil {
		return nil, c.methodError("%s.%s - %s", c.op, name, err.Error())
	}
	return res, nil
}

func namedArgs(p *jsvalue.Object, names []string) []any {
	args := make([]any, len(names))
	for i, k := range names {
		args[i] = p.Prop(k)
	}
	return args
}

// instanceFunc is the implementation of an instance method: it gets the
// instance and the arguments.
type instanceFunc func(c *call, instance any, args []any) (any, error)

// runInstance is @lowdefy/operators runInstance.
func runInstance(c *call, meta map[string]*method, instanceType string, fn instanceFunc) (any, error) {
	m, ok := meta[c.method]
	if !ok {
		return nil, c.methodError("%s.%s is not supported, use one of the following: %s.", c.op, c.method, metaNames(meta))
	}
	if m.validTypes != nil && !slices.Contains(m.validTypes, typeOf(c.params)) {
		return nil, c.methodError("%s.%s accepts one of the following types: %s.", c.op, c.method, strings.Join(m.validTypes, ", "))
	}
	var instance any = jsvalue.Undefined
	var args []any
	if m.singleArg || m.property {
		instance = c.params
	} else {
		switch p := c.params.(type) {
		case []any:
			if len(p) > 0 {
				instance = p[0]
				args = append([]any(nil), p[1:]...)
			}
		case *jsvalue.Object:
			if len(m.namedArgs) > 0 {
				all := namedArgs(p, m.namedArgs)
				instance, args = all[0], all[1:]
			}
			if m.spreadArgs != "" {
				spread, ok := p.Prop(m.spreadArgs).([]any)
				if !ok {
					return nil, c.methodError("%s.%s takes an array as input argument for %s.", c.op, c.method, m.spreadArgs)
				}
				args = append(args, spread...)
			}
		}
	}
	if m.prep != nil {
		all, err := m.prep(c, append([]any{instance}, args...))
		if err != nil {
			return nil, err
		}
		instance, args = all[0], all[1:]
	}
	if typeOf(instance) != instanceType {
		return nil, c.methodError("%s.%s must be evaluated on an %s instance. For named args provide an %s instance to the \"on\" property, for listed args provide and %s instance as the first element in the operator argument array.", c.op, c.method, instanceType, instanceType, instanceType)
	}
	res, err := fn(c, instance, args)
	if err != nil {
		return nil, c.methodError("%s.%s - %s", c.op, c.method, err.Error())
	}
	return res, nil
}

// prepDefault is the common work of the prep functions prepArrayArg, prepObject,
// prepString and prepDate: it replaces a null or undefined first argument with def(c).
func prepDefault(c *call, args []any, def func(c *call) any) ([]any, error) {
	if len(args) == 0 {
		args = []any{jsvalue.Undefined}
	}
	if jsvalue.IsNullish(args[0]) {
		args[0] = def(c)
	}
	return args, nil
}

// arg returns args[i] or undefined.
func arg(args []any, i int) any {
	if i < len(args) {
		return args[i]
	}
	return jsvalue.Undefined
}
