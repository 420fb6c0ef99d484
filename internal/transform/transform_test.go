package transform_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/transform"
)

func run(t *testing.T, src string) ([]any, error) {
	t.Helper()
	p, err := transform.Compile("m.js", src)
	if err != nil {
		return nil, err
	}
	return transform.Run(context.Background(), "m.js", p, "srv", map[string]any{"n": 2})
}

// Modules: the default export is called with the server's name and the context; named
// exports are plain functions; an async default's result is awaited; errors name the
// module and the line in it.
func TestModules(t *testing.T) {
	got, err := run(t, `export const twice = x => [x, x];
export async function helper(n) { return n }
export default async function (serverName, context) {
  return twice(serverName + await helper(context.n));
}`)
	if err != nil || len(got) != 2 || got[0] != "srv2" {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, c := range []struct{ src, want string }{
		{"export default () => []\nexport default () => []", "more than one `export default`"},
		{"function f() { return [] }", "no `export default"},
		{"export default 42", "the default export is not a function"},
		{"\n\nexport default () => { null.x }", "m.js: threw TypeError"},
		{"export default () => {\n  throw new Error('at line 2')\n}", "(line 2, column"},
		{"export default () => {", "does not compile"},
		{"export default () => { for (;;) {} }", "time limit of 2s"},
	} {
		_, err := run(t, c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.src, err, c.want)
		}
	}
	// Only the memory limit may end this one: a time limit no machine reaches first (with
	// the 2 s one, a busy machine ended it by time).
	limits := transform.Limits
	defer func() { transform.Limits = limits }()
	transform.Limits.Timeout = 10 * time.Minute
	src := "export default () => { let a = []; for (;;) a.push('x'.repeat(1 << 20) + a.length) }"
	if _, err := run(t, src); err == nil || !strings.Contains(err.Error(), "memory limit of 64.0 MiB") {
		t.Errorf("%q: err = %v, want the memory limit", src, err)
	}
}
