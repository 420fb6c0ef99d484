package gateway

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/secret"
)

// TestScrubHandler: every way a secret can reach a log line — the message, a string, an
// error, a value, a group, attributes added with With — is scrubbed, including secrets
// added to the set after the logger was made.
func TestScrubHandler(t *testing.T) {
	const s = "log-secret-value-123"
	set := new(secret.Set)
	var buf bytes.Buffer
	log := slog.New(scrubHandler{h: slog.NewTextHandler(&buf, nil), set: set})
	set.Add(s, "secret S")
	log = log.With("early", "with "+s)
	log.Info("message "+s, "str", s, "err", errors.New("failed: "+s), "any", []string{s},
		slog.Group("g", "inner", s), "n", 42)
	out := buf.String()
	if strings.Contains(out, s) || strings.Count(out, "[secret S]") != 6 || !strings.Contains(out, "n=42") {
		t.Errorf("log line = %s", out)
	}
}

// TestScrubResults: tool results, resource contents, prompts, completions and JSON-RPC
// errors come back scrubbed, as copies; what held no secret is left as it was.
func TestScrubResults(t *testing.T) {
	const s = "result-secret-value-456"
	g := &Gateway{secrets: new(secret.Set)}
	g.secrets.Add(s, "env S")
	orig := &mcp.TextContent{Text: "text " + s}
	res, _ := g.scrubCall(&mcp.CallToolResult{Content: []mcp.Content{orig, &mcp.ImageContent{Data: []byte("img " + s)}}, StructuredContent: map[string]any{"k": s}}, nil)
	if orig.Text != "text "+s {
		t.Error("the backend's result was changed in place")
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "text [env S]" {
		t.Errorf("text = %q", got)
	}
	if got := string(res.Content[1].(*mcp.ImageContent).Data); strings.Contains(got, s) {
		t.Errorf("image data = %q", got)
	}
	if got := res.StructuredContent.(map[string]any)["k"]; got != "[env S]" {
		t.Errorf("structuredContent = %v", got)
	}
	rr, _ := g.scrubRead(&mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "x://" + s, Text: s, Blob: []byte(s)}}}, nil)
	if c := rr.Contents[0]; strings.Contains(c.URI+c.Text+string(c.Blob), s) {
		t.Errorf("resource contents = %+v", c)
	}
	pr, _ := g.scrubPrompt(&mcp.GetPromptResult{Description: s, Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: s}}}}, nil)
	if pr.Description != "[env S]" || pr.Messages[0].Content.(*mcp.TextContent).Text != "[env S]" {
		t.Errorf("prompt = %+v", pr)
	}
	cr, _ := g.scrubCompletion(&mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{s}}}, nil)
	if cr.Completion.Values[0] != "[env S]" {
		t.Errorf("completion = %v", cr.Completion.Values)
	}
	_, err := g.scrubRead(nil, &jsonrpc.Error{Code: -32002, Message: "not found: " + s, Data: []byte(`{"uri":"` + s + `"}`)})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != -32002 || strings.Contains(je.Message+string(je.Data), s) {
		t.Errorf("error = %v (data %s)", err, je.Data)
	}
	plain := errors.New("nothing secret")
	if _, err := g.scrubPrompt(nil, plain); err != plain {
		t.Errorf("an error without a secret became %v", err)
	}
}
