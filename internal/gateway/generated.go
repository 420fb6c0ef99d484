package gateway

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

// listsOf returns the definition whose resources and prompts the gateway serves for server s
// with backend b: s, or, when b's lists are generated (backend.Generator), the definition
// with the generated ones in.
func listsOf(s *config.Server, b backend.Backend) *config.Server {
	if gen, ok := b.(backend.Generator); ok {
		if d := gen.Generated(); d != nil {
			return d
		}
	}
	return s
}

// generatedBy returns the module that generated tool t, "" for a written tool.
func generatedBy(t *mcp.Tool) string {
	m, _ := t.Meta[backend.MetaGenerated].(string)
	return m
}

// transformError returns why the transforms of the backend st serves failed, "" when they
// did not (or it has none).
func transformError(st *entryState) string {
	if st == nil {
		return ""
	}
	if gen, ok := st.backend.(backend.Generator); ok {
		if err := gen.GenerateError(); err != nil {
			return err.Error()
		}
	}
	return ""
}
