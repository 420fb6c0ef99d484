package command_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

// A tool's environment is PATH plus its env, whose secret references are resolved when the
// backend opens (they were passed literally). Their values are scrubbed from the output, so
// a placeholder naming the reference shows the value was there.
func TestEnvSecretReferences(t *testing.T) {
	t.Setenv("MCPBRIDGE_SECRET_ENV_TEST", "from-secret")
	t.Setenv("ENV_TEST_PLAIN", "from-env")
	t.Setenv("LEAK_ME", "leaked")
	b := open(t, `
servers:
  s:
    kind: command
    description: d
    tools:
      env:
        description: prints its environment
        inputSchema: {type: object, properties: {v: {type: string}}}
        argv: [cat, /proc/self/environ]
        env:
          A: secret:ENV_TEST
          B: env:ENV_TEST_PLAIN
          C: {direct: v}
          D: plain
`)
	got := strings.Split(strings.Trim(text(call(t, b, "env", `{"v": "secret:ENV_TEST"}`)), "\x00"), "\x00")
	slices.Sort(got)
	// The resolved values are in the environment, and scrubbed from the output.
	want := []string{"A=[secret ENV_TEST]", "B=[env ENV_TEST_PLAIN]", "C=secret:ENV_TEST", "D=plain", "PATH=" + os.Getenv("PATH")}
	if !slices.Equal(got, want) {
		t.Errorf("environment:\n got %q\nwant %q", got, want)
	}

	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tok"), []byte("from-file\n"), 0o600)
	cfg, err := config.Parse("test.yaml", dir, []byte(`
servers:
  s:
    kind: command
    description: d
    tools:
      f: {description: d, argv: [cat, /proc/self/environ], env: {F: file:tok}}
`), backend.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	fb, err := backend.Open(context.Background(), cfg.Servers["s"], backend.Deps{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(call(t, fb, "f", `{}`)); !strings.Contains(got, "F=[file tok]\x00") {
		t.Errorf("file: reference: %q", got)
	}

	cfg, err = config.Parse("test.yaml", dir, []byte(`
servers:
  s:
    kind: command
    description: d
    tools:
      m: {description: d, argv: [env], env: {M: secret:ENV_TEST_MISSING}}
`), backend.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	_, err = backend.Open(context.Background(), cfg.Servers["s"], backend.Deps{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "MCPBRIDGE_SECRET_ENV_TEST_MISSING") || !strings.Contains(err.Error(), "env M") {
		t.Errorf("missing secret: %v", err)
	}
}
