package httpapi

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/transform"
)

// checkTimeout bounds the transforms `mcpbridge check` runs for one server.
const checkTimeout = 2 * time.Minute

// Open creates the backend of an http server: with transforms, one that serves the
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

// Check resolves every secret the definition names, so a missing one is reported before the
// server is served, and runs its transforms, reporting their problems.
func (sp *spec) Check(deps backend.Deps) config.Problems {
	ps := sp.checkSecrets(deps)
	if !sp.refs.Empty() {
		ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
		defer cancel()
		ps = append(ps, sp.transformServer(deps).Check(ctx)...)
	}
	return ps
}

// ToolNames returns the tools of the definition and those its tools_transform generates
// (known false when the transform cannot run here).
func (sp *spec) ToolNames(deps backend.Deps) ([]string, bool) {
	if sp.refs.Tools == "" {
		return sp.server.ToolNames(), true
	}
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	res, err := sp.transformServer(deps).Generate(ctx)
	if err != nil {
		return sp.server.ToolNames(), false
	}
	return res.Server.ToolNames(), true
}

// transformServer returns what the transform package needs to run the server's transforms.
// A generated tool is a tool of this kind's schema: method, path, mappings, ...
func (sp *spec) transformServer(deps backend.Deps) *transform.Server {
	return &transform.Server{
		Def:  sp.server,
		Refs: sp.refs,
		Deps: deps,
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
}
