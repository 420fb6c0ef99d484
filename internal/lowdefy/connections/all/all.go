// Package all assembles every connection type mcpbridge's Lowdefy runtime knows into a
// [connections.Set].
package all

import (
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections/axioshttp"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections/knex"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections/mongodb"
)

// Set returns a new set holding every connection type, by name.
func Set() connections.Set {
	s := connections.Set{}
	for _, t := range []*connections.Type{
		axioshttp.Type(),
		knex.Type(),
		mongodb.Type(),
	} {
		s[t.Name] = t
	}
	return s
}
