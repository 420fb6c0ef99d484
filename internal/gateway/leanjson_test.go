package gateway

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// appendResult writes exactly what json.Marshal writes through the SDK for the results it
// takes, with and without the 2026-07-28 _meta, and declines the others.
func TestAppendResultMatchesMarshal(t *testing.T) {
	impl := &mcp.Implementation{Name: "mcpbridge-x", Title: `X <&> "quoted"`, Version: "dev"}
	meta, err := json.Marshal(mcp.Meta{mcp.MetaKeyServerInfo: impl})
	if err != nil {
		t.Fatal(err)
	}
	text := func(s ...string) []mcp.Content {
		var cs []mcp.Content
		for _, x := range s {
			cs = append(cs, &mcp.TextContent{Text: x})
		}
		return cs
	}
	hostile := "<script>&amp;</script> \"q\" \\ \x00\x01\x1f \u2028\u2029 é 日本 \xff\xfe end"
	taken := map[string]*mcp.CallToolResult{
		"plain":               {Content: text("hello")},
		"empty text":          {Content: text("")},
		"hostile text":        {Content: text(hostile)},
		"several texts":       {Content: text("a", hostile, "c")},
		"empty content":       {Content: []mcp.Content{}},
		"nil content":         {},
		"error":               {Content: text("it failed: <x>"), IsError: true},
		"raw structured":      {Content: text(`{"id":"42"}`), StructuredContent: json.RawMessage("{ \"id\" : \"42\",\n \"html\": \"<b>&</b>\", \"n\": [1, 2.5e3, null, true] }")},
		"raw structured null": {Content: text("x"), StructuredContent: json.RawMessage(nil)},
		"large":               {Content: text(strings.Repeat("line <&>\n", 5000)), StructuredContent: json.RawMessage(`{"k":"` + strings.Repeat("v", 70000) + `"}`)},
	}
	for name, res := range taken {
		for _, m := range [][]byte{nil, meta} {
			ref := *res
			if m != nil {
				ref.Meta = mcp.Meta{mcp.MetaKeyServerInfo: impl}
			}
			want, err := json.Marshal(&ref)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got, ok := appendResult(nil, res, m)
			if !ok {
				t.Errorf("%s (meta %t): declined", name, m != nil)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s (meta %t):\n got %.300s\nwant %.300s", name, m != nil, got, want)
			}
		}
	}
	declined := map[string]*mcp.CallToolResult{
		"image":           {Content: []mcp.Content{&mcp.ImageContent{Data: []byte("x"), MIMEType: "image/png"}}},
		"annotated text":  {Content: []mcp.Content{&mcp.TextContent{Text: "x", Annotations: &mcp.Annotations{Priority: 1}}}},
		"text with _meta": {Content: []mcp.Content{&mcp.TextContent{Text: "x", Meta: mcp.Meta{"a": 1}}}},
		"structured map":  {Content: text("x"), StructuredContent: map[string]any{"a": 1}},
		"request state":   {Content: text("x"), RequestState: "s"},
		"invalid raw":     {Content: text("x"), StructuredContent: json.RawMessage(`{"a":`)},
	}
	for name, res := range declined {
		if _, ok := appendResult(nil, res, nil); ok {
			t.Errorf("%s: taken, want declined (the SDK's way)", name)
		}
	}
}
