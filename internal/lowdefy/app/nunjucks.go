package app

import "github.com/mcpbridge/mcpbridge/internal/lowdefy/nunjucks"

// defaultNunjucks renders `.njk` files when Options.Nunjucks is nil.
var defaultNunjucks = nunjucks.Render
