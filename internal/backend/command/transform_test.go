package command_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/transform"
)

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// withModule writes module as gen.js in a new directory, parses the config yaml there and
// opens server s with a logger into the returned buffer.
func withModule(t *testing.T, module, yaml string) (backend.Backend, *syncBuffer, *config.Server, backend.Deps) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "gen.js"), []byte(module), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse("test.yaml", dir, []byte(yaml), backend.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	deps := backend.Deps{Dir: dir, Variables: cfg.Variables, Logger: slog.New(slog.NewTextHandler(logs, nil))}
	b, err := backend.Open(context.Background(), cfg.Servers["s"], deps)
	if err != nil {
		t.Fatal(err)
	}
	return b, logs, cfg.Servers["s"], deps
}

func toolNames(t *testing.T, b backend.Backend) []string {
	t.Helper()
	cat, err := b.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range cat.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

const staticTool = `
    tools:
      static:
        description: A configured tool
        argv: [echo, static]
`

// The seed's minimal shape on a server with a server-level argv: the generated tool runs
// argv with its args appended, as auto_discover does, and is marked generated.
func TestTransformMinimalShape(t *testing.T) {
	b, _, _, _ := withModule(t, `
export default function (serverName, context) {
  return [{name: serverName + "_say", description: "Say " + context.variables.word, inputSchema: {type: "object", properties: {args: {type: "array", items: {type: "string"}}}}}];
}`, `
variables: {word: hello}
servers:
  s:
    kind: command
    argv: [echo, hi]
    tools_transform: gen.js
`+staticTool)
	if got := toolNames(t, b); !slices.Equal(got, []string{"s_say", "static"}) {
		t.Fatalf("tools = %v, want [s_say static]", got)
	}
	cat, _ := b.Catalog(context.Background())
	for _, tl := range cat.Tools {
		_, gen := tl.Meta[transform.MetaGenerated]
		if gen != (tl.Name == "s_say") {
			t.Errorf("tool %s: generated mark %v", tl.Name, tl.Meta)
		}
		if tl.Name == "s_say" && tl.Description != "Say hello" {
			t.Errorf("description = %q", tl.Description)
		}
	}
	r := call(t, b, "s_say", `{"args": ["there", "you"]}`)
	if r.IsError || strings.TrimSpace(text(r)) != "hi there you" {
		t.Fatalf("call = %v %q, want hi there you", r.IsError, text(r))
	}
	// Options stay refused, as for auto_discover.
	if r := call(t, b, "s_say", `{"args": ["-n"]}`); !r.IsError || !strings.Contains(text(r), "option") {
		t.Fatalf("an option was accepted: %q", text(r))
	}
	if r := call(t, b, "static", `{}`); r.IsError || strings.TrimSpace(text(r)) != "static" {
		t.Fatalf("static call = %q", text(r))
	}
}

// A transform builds tools from what the discovery command printed, each carrying its own
// argv (the command kind's own schema); the context holds the definition with its secret
// references as references.
func TestTransformDiscover(t *testing.T) {
	t.Setenv("TRANSFORM_TEST_SECRET", "s3cr3t-value")
	b, _, _, _ := withModule(t, `
export function tool(word, def) {
  return {name: word, description: "Print " + word + " (" + def.env.TOKEN + ")", argv: ["echo", word, {direct: "x"}],
          inputSchema: {type: "object", properties: {x: {type: "string"}}}};
}
export default function (serverName, context) {
  return context.discovery.stdout.trim().split(/\s+/).map(w => tool(w, context.definition));
}`, `
servers:
  s:
    kind: command
    env: {TOKEN: env:TRANSFORM_TEST_SECRET}
    discover: [echo, alpha, beta]
    tools_transform: gen.js
`)
	if got := toolNames(t, b); !slices.Equal(got, []string{"alpha", "beta"}) {
		t.Fatalf("tools = %v, want [alpha beta]", got)
	}
	cat, _ := b.Catalog(context.Background())
	for _, tl := range cat.Tools {
		if !strings.Contains(tl.Description, "env:TRANSFORM_TEST_SECRET") || strings.Contains(tl.Description, "s3cr3t") {
			t.Errorf("description %q: want the reference, never the value", tl.Description)
		}
	}
	if r := call(t, b, "beta", `{"x": "gamma"}`); r.IsError || strings.TrimSpace(text(r)) != "beta gamma" {
		t.Fatalf("call = %q", text(r))
	}
}

// Failure modes: the server keeps its static tools and the log says what went wrong.
func TestTransformFailures(t *testing.T) {
	cases := []struct {
		name, module, extra, want string
	}{
		{"throws", `export default function () { throw new Error("no tools today") }`, "", `threw Error: no tools today (line 1`},
		{"time limit", `export default function () { for (;;) {} }`, "", "time limit of 2s"},
		{"memory limit", `export default function () { let a = []; for (;;) a.push("x".repeat(1 << 20) + a.length) }`, "", "memory limit of 64.0 MiB"},
		{"not a list", `export default function () { return {name: "x"} }`, "", "returned object, not a list"},
		{"no default", `export function f() { return [] }`, "", "no `export default"},
		{"discovery fails", `export default function () { return [] }`, "    discover: [sh, -c, 'echo broken >&2; exit 3']\n", "exit code 3"},
		{"discovery program missing", `export default function () { return [] }`, "    discover: [no-such-program-mcpbridge]\n", "cannot start"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "memory limit" {
				// Only the memory limit may end it: a time limit no machine reaches first
				// (with the 2 s one, a busy machine ended it by time).
				limits := transform.Limits
				transform.Limits.Timeout = 10 * time.Minute
				t.Cleanup(func() { transform.Limits = limits })
			}
			b, logs, s, deps := withModule(t, c.module, `
servers:
  s:
    kind: command
    tools_transform: gen.js
`+c.extra+staticTool)
			if got := toolNames(t, b); !slices.Equal(got, []string{"static"}) {
				t.Errorf("tools = %v, want the static list", got)
			}
			if !strings.Contains(logs.String(), "transform failed") || !strings.Contains(logs.String(), c.want) {
				t.Errorf("log = %s\nwant a transform failure with %q", logs.String(), c.want)
			}
			tb, ok := b.(*transform.Backend)
			if !ok || tb.Err() == nil || !strings.Contains(tb.Err().Error(), c.want) {
				t.Errorf("Err = %v, want %q", tb.Err(), c.want)
			}
			ps := backend.Check(s, deps)
			if len(ps) != 1 || ps[0].Warning || ps[0].Path != "servers.s.tools_transform" || !strings.Contains(ps[0].Msg, c.want) {
				t.Errorf("check = %v, want one problem at servers.s.tools_transform with %q", ps, c.want)
			}
		})
	}
}

// A bad entry is reported with the module and its index; the rest of the list is kept.
// Entries are checked as the file's tools are: roles included.
func TestTransformBadEntries(t *testing.T) {
	b, logs, s, deps := withModule(t, `
export default function () {
  return [
    {name: "good", description: "fine", argv: ["echo", "good"]},
    {name: "noargv", description: "no argv"},
    {name: "static", description: "clashes", argv: ["echo"]},
    {description: "nameless", argv: ["echo"]},
    {name: "badrole", description: "empty role", argv: ["echo"], roles: [" "]},
    {name: "nodesc", argv: ["echo"]},
    {name: "admins", description: "for admins", argv: ["echo", "admin"], roles: ["admin"]},
    42,
  ];
}`, `
servers:
  s:
    kind: command
    tools_transform: gen.js
`+staticTool)
	if got := toolNames(t, b); !slices.Equal(got, []string{"admins", "good", "static"}) {
		t.Fatalf("tools = %v, want [admins good static]", got)
	}
	for _, want := range []string{
		`entry 1 (\"noargv\"): tools.noargv.argv: missing argv`,
		`entry 2 (\"static\"): tools already has \"static\"`,
		`entry 3: missing name`,
		`entry 4 (\"badrole\"): tools.badrole.roles[0]: empty role`,
		`entry 5 (\"nodesc\"): tools.nodesc.description: missing description`,
		`entry 7: expected an object`,
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, logs.String())
		}
	}
	if !strings.Contains(logs.String(), "module gen.js") {
		t.Errorf("log does not name the module:\n%s", logs.String())
	}
	gate := b.(backend.ToolGate)
	if gate.ToolAllowed(auth.Principal{User: "u", Roles: []string{"dev"}}, "admins") {
		t.Error("a principal without the role may use a generated tool with roles")
	}
	if !gate.ToolAllowed(auth.Principal{User: "u", Roles: []string{"admin"}}, "admins") || !gate.ToolAllowed(auth.Principal{}, "good") {
		t.Error("a generated tool is refused to a principal it allows")
	}
	ps := backend.Check(s, deps)
	if len(ps) != 6 {
		t.Errorf("check = %d problems, want 6: %v", len(ps), ps)
	}
	names, known := backend.ToolNames(s, deps)
	if !known || !slices.Equal(names, []string{"admins", "good", "static"}) {
		t.Errorf("ToolNames = %v %v", names, known)
	}
}

// The seed's *_transform_cid names are aliases; a Python module is refused with a word on
// why; both spellings at once, or a malformed cid, are problems.
func TestTransformFields(t *testing.T) {
	for _, c := range []struct{ fields, want string }{
		{"tools_transform_cid: reference_templates/mcps/transforms/jq_tools.py", "Python modules cannot run here"},
		{"tools_transform: a.js\n    tools_transform_cid: b.js", "not both"},
		{"tools_transform_cid: cid://abc", "cid://sha256-"},
		{"discover: [echo]", "discover is only used with a transform"},
		{"transform_refresh: 5m", "transform_refresh is only used with a transform"},
		{"tools_transform: a.js\n    transform_refresh: 10ms", "at least 1s"},
	} {
		_, err := config.Parse("test.yaml", t.TempDir(), []byte("servers:\n  s:\n    kind: command\n    "+c.fields+"\n"), backend.Kinds())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.fields, err, c.want)
		}
	}
	b, _, _, _ := withModule(t, `export default () => [{name: "x", description: "x", argv: ["echo", "x"]}]`, `
servers:
  s:
    kind: command
    tools_transform_cid: gen.js
`)
	if got := toolNames(t, b); !slices.Equal(got, []string{"x"}) {
		t.Fatalf("alias: tools = %v", got)
	}
}
