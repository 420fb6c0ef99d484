package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

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
	// Round-trip through JSON so the parser sees Lowdefy's value model (dates, numbers).
	raw, err := json.Marshal(map[string]any{key: params})
	if err != nil {
		return nil, fmt.Errorf("%s: parameters are not JSON: %w", key, err)
	}
	input, err := serial.Unmarshal(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	envAny := make(map[string]any, len(env))
	for k, v := range env {
		envAny[k] = v
	}
	out, errs := operators.NewBuildParser(&operators.Context{Env: envAny}).Parse(input, "build", nil, nil)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	b, err := serial.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("%s: result: %w", key, err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("%s: result: %w", key, err)
	}
	return v, nil
}
