package command

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.yaml.in/yaml/v3"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/transform"
)

// MaxDiscoverOutput caps what a discovery command's output may hold (1 MiB).
const MaxDiscoverOutput = 1 << 20

// checkTimeout bounds the transforms `mcpbridge check` runs for one server.
const checkTimeout = 2 * time.Minute

// Open creates the backend of a command server: with transforms, one that serves the
// generated lists (or the static ones when the transforms fail).
func (sp *spec) Open(ctx context.Context, deps backend.Deps) (backend.Backend, error) {
	if sp.refs.Empty() {
		b, err := sp.openStatic(deps)
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	b, err := transform.Open(ctx, sp.transformServer(deps))
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Check resolves the secret references of the server and its tools, and runs its
// transforms, reporting their problems.
func (sp *spec) Check(deps backend.Deps) config.Problems {
	ps := sp.checkSecrets(deps)
	if !sp.refs.Empty() {
		ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
		defer cancel()
		ps = append(ps, sp.transformServer(deps).Check(ctx)...)
	}
	return ps
}

// ToolNames returns the tools of the definition, the one auto_discover adds, and those its
// tools_transform generates (known false when the transform cannot run here).
func (sp *spec) ToolNames(deps backend.Deps) ([]string, bool) {
	if sp.refs.Tools == "" {
		return sp.staticToolNames(), true
	}
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	res, err := sp.transformServer(deps).Generate(ctx)
	if err != nil {
		return sp.staticToolNames(), false
	}
	inner, ok := res.Server.Spec.(*spec)
	if !ok {
		return sp.staticToolNames(), false
	}
	return inner.staticToolNames(), true
}

// transformServer returns what the transform package needs to run the server's transforms.
func (sp *spec) transformServer(deps backend.Deps) *transform.Server {
	sv := &transform.Server{
		Def:     sp.server,
		Refs:    sp.refs,
		Deps:    deps,
		Prepare: sp.prepare,
		Open: func(_ context.Context, s *config.Server) (backend.Backend, error) {
			inner, ok := s.Spec.(*spec)
			if !ok {
				return nil, fmt.Errorf("server %s: the generated definition was not decoded", s.Name)
			}
			b, err := inner.openStatic(deps)
			if err != nil {
				return nil, err
			}
			return b, nil
		},
	}
	if len(sp.conf.Discover) > 0 {
		sv.Discover = func(ctx context.Context) (map[string]any, error) { return sp.discover(ctx, deps) }
	}
	return sv
}

// prepare completes a generated tool in the seed's minimal shape (name, description,
// inputSchema, no argv) on a server with a server-level argv: it runs that argv with its
// args array appended, as the auto_discover tool does, with the server's env, workdir and
// timeout.
func (sp *spec) prepare(list string, e *transform.Entry) {
	if list != "tools" || transform.Field(e.Node, "argv") != nil {
		return
	}
	sec := sp.server.Section
	argv := transform.Field(sec.Node, "argv")
	if argv == nil || argv.Kind != yaml.SequenceNode {
		return
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: slices.Clone(argv.Content)}
	extra := map[string]any{"direct": "args"}
	if sp.conf.AllowOptions {
		extra["allow_options"] = true
	}
	seq.Content = append(seq.Content, transform.Node(extra))
	transform.SetField(e.Node, "argv", seq)
	if transform.Field(e.Node, "inputSchema") == nil {
		transform.SetField(e.Node, "inputSchema", transform.Node(argsSchema()))
	}
	for _, k := range []string{"env", "workdir", "timeout"} {
		if v := transform.Field(sec.Node, k); v != nil && transform.Field(e.Node, k) == nil {
			transform.SetField(e.Node, k, v)
		}
	}
}

// argsSchema is the input schema of the auto_discover tool: an args array of strings.
func argsSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"args": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Arguments appended to the command"},
		},
	}
}

// discover runs the server's discovery command as a tool of the kind runs (no shell, the
// env the server declares, its workdir and timeout), its output capped at
// MaxDiscoverOutput, and returns what the transforms' context holds of it.
func (sp *spec) discover(ctx context.Context, deps backend.Deps) (map[string]any, error) {
	b, err := sp.openStatic(deps)
	if err != nil {
		return nil, err
	}
	argv := sp.conf.Discover
	t := &tool{
		name: "discover", server: sp.server.Name, workdir: sp.conf.Workdir,
		timeout:   cmp.Or(sp.conf.Timeout, config.DefaultTimeout),
		maxOutput: MaxDiscoverOutput, output: backend.OutputText, logStderr: "off",
	}
	env := []string{"PATH=" + os.Getenv("PATH")}
	resolved, err := resolveEnv(deps, "discover", sp.conf.Env, map[string]string{})
	if err != nil {
		return nil, err
	}
	for _, k := range slices.Sorted(maps.Keys(resolved)) {
		a := resolved[k]
		if a.Source != ArgConstant {
			continue // a tool argument or expression has no value outside a call
		}
		env = append(env, k+"="+scalarText(a.Constant))
	}
	res := b.run(ctx, backend.NoSession{}, t, argv, nil, env)
	var tc *mcp.TextContent
	if len(res.Content) == 1 {
		tc, _ = res.Content[0].(*mcp.TextContent)
	}
	cmdline := strings.Join(argv, " ")
	switch {
	case res.IsError && tc != nil:
		return nil, fmt.Errorf("discover [%s]: %w: %s", cmdline, transform.ErrDiscovery, strings.Replace(tc.Text, "discover ", "the command ", 1))
	case tc == nil:
		return nil, fmt.Errorf("discover [%s]: %w: its output is not text", cmdline, transform.ErrDiscovery)
	}
	text := tc.Text
	return map[string]any{"argv": slices.Clone(argv), "stdout": text}, nil
}
