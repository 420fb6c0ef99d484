package gateway

import (
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
