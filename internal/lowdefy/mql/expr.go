package mql

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// opts carries the evaluation context (mingo ComputeOptions).
type opts struct {
	root  any
	vars  map[string]any
	now   time.Time
	depth *int // shared nesting counter (deep recursion guard)
}

func newOpts(root any) *opts { return &opts{root: root, now: time.Now().UTC(), depth: new(int)} }

func (o *opts) withVars(vars map[string]any) *opts {
	merged := map[string]any{}
	for k, v := range o.vars {
		merged[k] = v
	}
	for k, v := range vars {
		merged[k] = v
	}
	return &opts{root: o.root, vars: merged, now: o.now, depth: o.depth}
}

func (o *opts) withRoot(root any) *opts {
	return &opts{root: root, vars: o.vars, now: o.now, depth: o.depth}
}

type exprOp func(obj, expr any, o *opts) (any, error)
type accumOp func(coll []any, expr any, o *opts) (any, error)

// opTables are the operator tables: expression operators, accumulators and pipeline stages.
// They refer to functions that use them, so no package-level initialiser can build them; and
// they are built on first use (tables), not by an init, so that a process that never runs a
// query never runs this code.
type opTables struct {
	exprOps  map[string]exprOp
	accumOps map[string]accumOp
	stages   map[string]stageFunc
}

var (
	tablesOnce sync.Once
	tablesVal  opTables
)

// tables returns the operator tables, building them on the first call.
func tables() *opTables {
	tablesOnce.Do(func() {
		tablesVal = opTables{exprOps: newExprOps(), accumOps: newAccumOps(), stages: newStages()}
	})
	return &tablesVal
}

const maxDepth = 1000

// computeValue is mingo's computeValue.
func computeValue(obj, expr any, operator string, o *opts) (any, error) {
	*o.depth++
	defer func() { *o.depth-- }()
	if *o.depth > maxDepth {
		return nil, fmt.Errorf("expression nested more than %d levels deep", maxDepth)
	}
	if isOperator(operator) {
		if fn, ok := tables().exprOps[operator]; ok {
			return fn(obj, expr, o)
		}
		if fn, ok := tables().accumOps[operator]; ok {
			if _, isArr := obj.([]any); !isArr {
				v, err := computeValue(obj, expr, "", o)
				if err != nil {
					return nil, err
				}
				obj, expr = v, nil
			}
			coll, ok := obj.([]any)
			if !ok {
				return nil, fmt.Errorf("'%s' target must be an array", operator)
			}
			return fn(coll, expr, o.withRoot(nil))
		}
		return nil, fmt.Errorf("operator '%s' is not registered", operator)
	}
	switch x := expr.(type) {
	case string:
		if len(x) > 0 && x[0] == '$' {
			return resolveVariable(obj, x, o)
		}
		return x, nil
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			v, err := computeValue(obj, item, "", o)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *jsvalue.Object:
		result := jsvalue.NewObject(x.Len())
		for k, item := range x.Range {
			_, isExpr := tables().exprOps[k]
			_, isAcc := tables().accumOps[k]
			if (isExpr || isAcc) && x.Len() != 1 {
				return nil, fmt.Errorf("Invalid aggregation expression '%s'", jsonish(x))
			}
			v, err := computeValue(obj, item, k, o)
			if err != nil {
				return nil, err
			}
			if isExpr || isAcc {
				return v, nil
			}
			result.Set(k, v)
		}
		return result, nil
	}
	return expr, nil
}

// redactVars are the $redact system variables, built on first use.
var redactVars = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"$$KEEP": true, "$$PRUNE": true, "$$DESCEND": true}
}}

// resolveVariable evaluates "$path", "$$ROOT.path", "$$var.path".
func resolveVariable(obj any, x string, o *opts) (any, error) {
	if redactVars.Get()[x] {
		return x, nil
	}
	context := o.root
	head, _, _ := strings.Cut(x, ".")
	path := ""
	switch head {
	case "$$ROOT":
		context = o.root
		path = strings.TrimPrefix(x[len(head):], ".")
	case "$$CURRENT":
		context = obj
		path = strings.TrimPrefix(x[len(head):], ".")
	case "$$REMOVE":
		context = missing
		path = strings.TrimPrefix(x[len(head):], ".")
	case "$$NOW":
		context = o.now
		path = strings.TrimPrefix(x[len(head):], ".")
	default:
		if strings.HasPrefix(head, "$$") {
			name := head[2:]
			ctx := jsvalue.ObjectOf("this", obj)
			for k, v := range o.vars {
				ctx.Set(k, v)
			}
			if !ctx.Has(name) {
				return nil, fmt.Errorf("Use of undefined variable: %s", name)
			}
			context = ctx
			path = x[2:]
		} else {
			path = x[1:]
		}
	}
	if path == "" {
		return context, nil
	}
	return resolve(context, path, false), nil
}

// args evaluates expr and requires an array result.
func args(obj, expr any, o *opts, op string) ([]any, error) {
	v, err := computeValue(obj, expr, "", o)
	if err != nil {
		return nil, err
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: expression must resolve to an array, got %s", op, jsonish(v))
	}
	return arr, nil
}

func argN(a []any, i int) any {
	if i < len(a) {
		return a[i]
	}
	return missing
}
