package upstream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A 2026-07-28 upstream that asks the client for input hands back, in its requestState and
// its input requests, the credential the gateway sends it (headers: Authorization from a
// secret): the client gets it in neither (the requestState it gets is the gateway's parked
// handle; the input request is scrubbed), with the go-sdk client or a raw request.
func TestSecretInRequestStateIsScrubbed(t *testing.T) {
	const token = "upstream-bearer-7c6b5a4d3e2f1a0b"
	t.Setenv("MCPBRIDGE_TEST_UP_TOKEN", token)
	up := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	up.AddTool(&mcp.Tool{Name: "ask", Description: "Asks", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		got := req.Extra.Header.Get("Authorization")
		if req.Params.RequestState != "" {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "state back: " + req.Params.RequestState}}}, nil
		}
		return &mcp.CallToolResult{RequestState: "st:" + got, InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{
			Message: "who? " + got, RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}}}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.CloseClientConnections) // (Close waits for the upstream SDK's own streams)
	srv := start(t, fmt.Sprintf("servers:\n  up:\n    kind: mcp\n    description: d\n    url: %s\n    headers: {Authorization: \"env:MCPBRIDGE_TEST_UP_TOKEN\"}\n", ts.URL))
	_, cs := connect(t, srv, "up", "2026-07-28")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), token) || strings.Contains(res.RequestState, "7c6b5a4d") {
		t.Errorf("the upstream's credential reached the client: %s (requestState %q)", b, res.RequestState)
	}
	// A raw request: the input request and the requestState as the client gets them.
	params := `{"name":"ask","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}`
	for _, accept := range []string{"application/json, text/event-stream"} {
		req, _ := http.NewRequest("POST", srv.URL+"/mcp/up", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+params+`}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "ask")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), "7c6b5a4d") || !strings.Contains(string(body), "who? [env MCPBRIDGE_TEST_UP_TOKEN]") {
			t.Errorf("Accept %s: %d %s", accept, resp.StatusCode, body)
		}
	}
}
