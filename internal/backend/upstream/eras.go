package upstream

import (
	"maps"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A result carries fields of the protocol version of the hop it crossed: resultType and
// the 2026-07-28 _meta keys (the server's identity above all), and the cache-control
// fields ttlMs and cacheScope. An upstream's result, as the go-sdk client decoded it at
// the upstream session's version, carries those of the upstream hop: the backend drops
// them here (CallTool, ReadResource, GetPrompt, Complete), and the gateway answers in the
// client's era with its own (internal/gateway/eras.go). Only results that crossed a hop
// are copied; the gateway's other backends build theirs afresh.

// hopMetaKeys are the _meta keys of the 2026-07-28 protocol: they describe one hop (who
// answered, at which version, for which client), so an upstream's are never passed on.
var hopMetaKeys = []string{
	mcp.MetaKeyServerInfo, mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientInfo,
	mcp.MetaKeyClientCapabilities, mcp.MetaKeyLogLevel, mcp.MetaKeySubscriptionID,
}

// withoutHopMeta returns m without hopMetaKeys: m itself when it has none, else a copy
// (nil when nothing is left).
func withoutHopMeta(m mcp.Meta) mcp.Meta {
	found := false
	for _, k := range hopMetaKeys {
		if _, ok := m[k]; ok {
			found = true
			break
		}
	}
	if !found {
		return m
	}
	out := maps.Clone(m)
	for _, k := range hopMetaKeys {
		delete(out, k)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// ownToolResult returns an upstream's tool result without the protocol fields of the hop it
// came over (see above). The copy is built field by field, which leaves out the result
// type the go-sdk client keeps in an unexported field (TestOwnResultsKeepEveryField
// checks that no exported field is lost).
func ownToolResult(r *mcp.CallToolResult) *mcp.CallToolResult {
	if r == nil {
		return nil
	}
	return &mcp.CallToolResult{
		Meta: withoutHopMeta(r.Meta), Content: r.Content, StructuredContent: r.StructuredContent,
		IsError: r.IsError, InputRequests: r.InputRequests, RequestState: r.RequestState,
	}
}

// ownPromptResult is ownToolResult for prompts/get.
func ownPromptResult(r *mcp.GetPromptResult) *mcp.GetPromptResult {
	if r == nil {
		return nil
	}
	return &mcp.GetPromptResult{
		Meta: withoutHopMeta(r.Meta), Description: r.Description, Messages: r.Messages,
		InputRequests: r.InputRequests, RequestState: r.RequestState,
	}
}

// ownReadResult is ownToolResult for resources/read. The cache-control fields stay: they
// say how long the content may be kept, which the gateway passes on (its cacheControl
// settles them).
func ownReadResult(r *mcp.ReadResourceResult) *mcp.ReadResourceResult {
	if r == nil {
		return nil
	}
	return &mcp.ReadResourceResult{
		Meta: withoutHopMeta(r.Meta), Cacheable: r.Cacheable, Contents: r.Contents,
		InputRequests: r.InputRequests, RequestState: r.RequestState,
	}
}

// ownCompleteResult is ownToolResult for completion/complete.
func ownCompleteResult(r *mcp.CompleteResult) *mcp.CompleteResult {
	if r == nil {
		return nil
	}
	return &mcp.CompleteResult{Meta: withoutHopMeta(r.Meta), Completion: r.Completion}
}
