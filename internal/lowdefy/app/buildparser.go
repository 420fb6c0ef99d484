package app

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/operators"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// evalBuildOperator evaluates a `_build.*` operator: the loader's own subset first (checked
// against Lowdefy's build), then the full build operator set of internal/lowdefy/operators
// (Lowdefy's BuildParser) for everything else.
func evalBuildOperator(op, method string, params any, env map[string]string) (any, error) {
	res, err := EvalBuildOperator(op, method, params, env)
	if !errors.Is(err, ErrUnsupportedOperator) {
		return res, err
	}
	return evalWithBuildParser(op, method, params, env)
}

// evalWithBuildParser runs one operator through the operators package's build parser.
func evalWithBuildParser(op, method string, params any, env map[string]string) (any, error) {
	key := "_build." + strings.TrimPrefix(op, "_")
	if method != "" {
		key += "." + method
	}
	// Revive serializer markers so the parser sees Lowdefy's value model (dates), as the
	// build's JSON round trip does.
	input := serial.Decode(jsvalue.ObjectOf(key, params))
	envObj := jsvalue.NewObject(len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		envObj.Set(k, env[k])
	}
	out, errs := operators.NewBuildParser(&operators.Context{Env: envObj}).Parse(context.Background(), input, "build", nil, nil)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return serial.Encode(out, false), nil
}
