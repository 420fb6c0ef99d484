// Command mcpbridge exposes HTTP APIs, command-line tools, other MCP servers and Lowdefy apps
// to AI agents over the Model Context Protocol. Run `mcpbridge serve` and open
// http://127.0.0.1:8080/mcp.
package main

import (
	"os"

	"github.com/mcpbridge/mcpbridge/internal/cli"
)

func main() { os.Exit(cli.Main()) }
