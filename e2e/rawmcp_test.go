package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// rawClient is a minimal Streamable HTTP MCP client for load: the requests the go-sdk client
// sends (initialize + notifications/initialized and a session in the legacy era, per-request
// _meta and Mcp-Method/Mcp-Name headers in the modern era), without the SDK's per-call cost,
// so that a thousand of them fit in the test process. Every answer is read to its end.
type rawClient struct {
	url     string
	era     string
	key     string
	hc      *http.Client
	session string
	next    int
}

// modern reports whether the client speaks the sessionless era.
func (c *rawClient) modern() bool { return c.era >= modernEra }

// meta is the _meta a modern-era client sends with every request.
func (c *rawClient) meta() map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "e2e-raw", "version": "1"},
		"io.modelcontextprotocol/protocolVersion":    c.era,
	}
}

// open starts the client: server/discover in the modern era, initialize (keeping the session
// id) and notifications/initialized in the legacy era.
func (c *rawClient) open(ctx context.Context) error {
	if c.modern() {
		_, err := c.rpc(ctx, "server/discover", "", map[string]any{"_meta": c.meta()})
		return err
	}
	hdr, _, err := c.post(ctx, "initialize", "", c.message("initialize", map[string]any{
		"protocolVersion": c.era, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "e2e-raw", "version": "1"},
	}, true))
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if c.session = hdr.Get("Mcp-Session-Id"); c.session == "" {
		return errors.New("initialize: no Mcp-Session-Id in the answer")
	}
	if _, _, err := c.post(ctx, "notifications/initialized", "", c.message("notifications/initialized", map[string]any{}, false)); err != nil {
		return fmt.Errorf("notifications/initialized: %w", err)
	}
	return nil
}

// message encodes one JSON-RPC request (call set) or notification.
func (c *rawClient) message(method string, params map[string]any, call bool) []byte {
	m := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if call {
		c.next++
		m["id"] = c.next
	}
	b, _ := json.Marshal(m)
	return b
}

// callTool calls a tool and returns the text of its result; a tool error is an error.
func (c *rawClient) callTool(ctx context.Context, name string, args map[string]any) (string, error) {
	params := map[string]any{"name": name, "arguments": args}
	if c.modern() {
		params["_meta"] = c.meta()
	}
	data, err := c.rpc(ctx, "tools/call", name, params)
	if err != nil {
		return "", err
	}
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		return "", fmt.Errorf("tools/call %s: result: %w", name, err)
	}
	var sb strings.Builder
	for _, c := range res.Content {
		sb.WriteString(c.Text)
	}
	if res.IsError {
		return sb.String(), fmt.Errorf("tools/call %s: tool error: %s", name, sb.String())
	}
	return sb.String(), nil
}

// rpc sends one request and returns its JSON-RPC result.
func (c *rawClient) rpc(ctx context.Context, method, name string, params map[string]any) (json.RawMessage, error) {
	_, result, err := c.post(ctx, method, name, c.message(method, params, true))
	return result, err
}

// post sends one message. A notification must be answered 202; a request 200 with one
// JSON-RPC answer (JSON or the last data event of an SSE stream) that is not an error. It
// returns the answer's header and result.
func (c *rawClient) post(ctx context.Context, method, name string, body []byte) (http.Header, json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if c.key != "" {
		h.Set("Authorization", "Bearer "+c.key)
	}
	if method != "initialize" {
		h.Set("Mcp-Protocol-Version", c.era)
	}
	if c.session != "" {
		h.Set("Mcp-Session-Id", c.session)
	}
	if c.modern() {
		h.Set("Mcp-Method", method)
		if name != "" {
			h.Set("Mcp-Name", name)
		}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", method, err)
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: reading the answer: %w", method, err)
	}
	if strings.HasPrefix(method, "notifications/") {
		if resp.StatusCode != http.StatusAccepted {
			return nil, nil, fmt.Errorf("%s: status %d: %.200s", method, resp.StatusCode, data)
		}
		return resp.Header, nil, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("%s: status %d: %.300s", method, resp.StatusCode, data)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		data = lastSSEData(data)
	}
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, nil, fmt.Errorf("%s: the answer is not JSON-RPC: %v: %.300s", method, err, data)
	}
	if m.Error != nil {
		return nil, nil, fmt.Errorf("%s: JSON-RPC error %d: %s", method, m.Error.Code, m.Error.Message)
	}
	if m.Result == nil {
		return nil, nil, fmt.Errorf("%s: an answer without a result: %.300s", method, data)
	}
	return resp.Header, m.Result, nil
}

// close ends a legacy-era session (DELETE); it does nothing in the modern era.
func (c *rawClient) close(ctx context.Context) error {
	if c.session == "" {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Mcp-Session-Id", c.session)
	req.Header.Set("Mcp-Protocol-Version", c.era)
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("DELETE session: %w", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("DELETE session: status %d", resp.StatusCode)
	}
	c.session = ""
	return nil
}

// lastSSEData returns the data of the last SSE event that has any (priming events have none).
func lastSSEData(stream []byte) []byte {
	var last []byte
	for line := range bytes.Lines(stream) {
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if d = bytes.TrimSpace(d); len(d) > 0 {
				last = d
			}
		}
	}
	return last
}
