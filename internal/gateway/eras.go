package gateway

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/auth"
)

// A result carries fields of the protocol version of the hop it crossed (resultType, the
// 2026-07-28 _meta keys, the cache-control fields ttlMs and cacheScope). The upstream
// backend drops its upstream hop's (internal/backend/upstream/eras.go); the gateway adds
// its own on the way out (the go-sdk server for 2026-07-28 requests, writeLean on the lean
// path) and settles the cache-control fields here. A session negotiated below 2026-07-28
// gets none of them: the carried go-sdk leaves them out of such answers (mcp/legacy.go),
// and the lean legacy path never writes them.

// cacheControl settles the cache-control fields (ttlMs, cacheScope) of a 2026-07-28
// list or read result, and of a REST read, so that both surfaces say the same. ttlMs is
// the backend's (0, "do not reuse", for what the gateway lists itself). cacheScope is
// "private" for an authenticated caller: what it lists and reads depends on who it is
// (roles, key scopes), so no shared cache may hand it to another caller. For an anonymous
// caller it is the backend's, or "public", the protocol's default.
func cacheControl(ctx context.Context, c *mcp.Cacheable) {
	if auth.FromContext(ctx).Authenticated() {
		c.CacheScope = "private"
		return
	}
	if c.CacheScope == "" {
		c.CacheScope = "public"
	}
}
