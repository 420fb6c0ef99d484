// Package all links every backend kind into the binary.
package all

import (
	_ "github.com/mcpbridge/mcpbridge/internal/backend/command"  // kind: command
	_ "github.com/mcpbridge/mcpbridge/internal/backend/httpapi"  // kind: http
	_ "github.com/mcpbridge/mcpbridge/internal/backend/lowdefy"  // kind: lowdefy
	_ "github.com/mcpbridge/mcpbridge/internal/backend/upstream" // kind: mcp
)
