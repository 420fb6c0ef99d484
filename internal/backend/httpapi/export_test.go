package httpapi

import (
	"testing"
	"time"
)

// GenerousExpressionLimit raises the expression time limit for the rest of t. The limit is
// wall-clock time; a test that is not about it must not fail because the machine is busy.
// Tests of this package do not run in parallel, so the package variable is safe to set.
func GenerousExpressionLimit(t *testing.T) {
	old := exprLimits
	exprLimits.Timeout = 30 * time.Second
	t.Cleanup(func() { exprLimits = old })
}
