package lowdefy

import (
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/render"
)

// agentRender renders a page as markdown with semantic tags (internal/lowdefy/render), with
// the renderer's default bounds on table rows and selector options.
func agentRender(p *engine.Page) string {
	return render.Page(p, render.Options{})
}
