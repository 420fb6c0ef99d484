package gateway

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// appendResult appends res as json.Marshal writes it through the SDK's MarshalJSON, for the
// results the lean paths answer most: text content without annotations or _meta, structured
// content absent or raw JSON, no input requests or request state. meta, when not nil, is the
// encoded _meta object. It reports false for any other result, which the caller marshals the
// SDK's way.
//
// The SDK's way encodes every text twice and compacts it (and the raw structured content)
// once per nesting level — each MarshalJSON's output is checked and compacted again by the
// encoder that called it —, which was a sixth of the gateway's CPU for a small HTTP tool.
// TestAppendResultMatchesMarshal checks that the bytes are the same.
func appendResult(dst []byte, res *mcp.CallToolResult, meta []byte) ([]byte, bool) {
	if res.InputRequests != nil || res.RequestState != "" {
		return dst, false
	}
	dst = append(dst, '{')
	if meta != nil {
		dst = append(dst, `"_meta":`...)
		dst = append(dst, meta...)
		dst = append(dst, ',')
	}
	dst = append(dst, `"content":`...)
	if res.Content == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, c := range res.Content {
			t, ok := c.(*mcp.TextContent)
			if !ok || t == nil || t.Meta != nil || t.Annotations != nil {
				return dst, false
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			text, err := json.Marshal(t.Text)
			if err != nil {
				return dst, false
			}
			dst = append(dst, `{"type":"text","text":`...)
			dst = append(dst, text...)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	switch sc := res.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		raw, err := json.Marshal(sc) // compacted and HTML-escaped, as the SDK's encoding leaves it
		if err != nil {
			return dst, false
		}
		dst = append(dst, `,"structuredContent":`...)
		dst = append(dst, raw...)
	default:
		return dst, false
	}
	if res.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	return append(dst, '}'), true
}
