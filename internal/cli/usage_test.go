package cli

import (
	"context"
	"strings"
	"testing"
)

// A command that takes one positional argument exits 2 with its usage when
// it gets none or two, before it reads a config or a store.
func TestOnePositionalArgument(t *testing.T) {
	for _, cmd := range [][]string{
		{"tools"},
		{"stdio"},
		{"keys", "revoke"},
		{"cid", "add"},
		{"import", "openapi"},
	} {
		for _, extra := range [][]string{nil, {"a", "b"}} {
			args := append(append([]string{}, cmd...), extra...)
			var out, errs strings.Builder
			code := Run(context.Background(), args, strings.NewReader(""), &out, &errs)
			if code != 2 {
				t.Errorf("mcpbridge %s: exit %d, want 2 (stderr %q)", strings.Join(args, " "), code, errs.String())
			}
			if want := "Usage: mcpbridge " + strings.Join(cmd, " "); !strings.Contains(errs.String(), want) {
				t.Errorf("mcpbridge %s: stderr %q, want the usage %q", strings.Join(args, " "), errs.String(), want)
			}
		}
	}
}
