package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// rawMCP is a minimal Streamable HTTP client: per worker, the same requests the go-sdk
// client sends (initialize and notifications/initialized with a session up to 2025-11-25,
// server/discover and per-request _meta and Mcp-Method/Mcp-Name headers from 2026-07-28),
// without the SDK's own per-call cost, so that the client side of an MCP call costs about
// what the REST baseline's client does.
type rawMCP struct {
	url    string
	era    string
	modern bool
	tr     *http.Transport
	hc     *http.Client
	w      []rawWorker
	// tool and args are what callTool calls: get_user {"id":"42","verbose":true} unless set.
	tool string
	args []byte
}

type rawWorker struct {
	session string
	next    int64
	buf     []byte
}

// clientMeta is the _meta a 2026-07-28 client sends with every request.
func clientMeta(era string) string {
	return `"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/protocolVersion":"` + era + `"}`
}

func newRawMCP(url, era string, workers int) (*rawMCP, error) {
	return newRawMCPOpts(url, era, workers, false)
}

// newRawMCPOpts is newRawMCP; with stateless, an initialize answered without a session id
// is accepted (the server keeps no sessions) instead of being an error.
func newRawMCPOpts(url, era string, workers int, stateless bool) (*rawMCP, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}
	c := &rawMCP{url: url, era: era, modern: era >= "2026-07-28", tr: tr, hc: &http.Client{Transport: tr}, w: make([]rawWorker, workers)}
	for i := range c.w {
		w := &c.w[i]
		w.next = 1
		if c.modern {
			body := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + clientMeta(era) + `}}`
			if _, err := c.post(w, "server/discover", "", []byte(body)); err != nil {
				return nil, fmt.Errorf("server/discover: %w", err)
			}
		} else {
			body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"bench","version":"1"},"protocolVersion":"` + era + `","capabilities":{}}}`
			hdr, err := c.post(w, "initialize", "", []byte(body))
			if err != nil {
				return nil, fmt.Errorf("initialize: %w", err)
			}
			w.session = hdr.Get("Mcp-Session-Id")
			if w.session == "" && !stateless {
				return nil, errors.New("initialize: no Mcp-Session-Id in the answer")
			}
			if _, err := c.post(w, "notifications/initialized", "", []byte(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)); err != nil {
				return nil, fmt.Errorf("notifications/initialized: %w", err)
			}
		}
		w.next++
	}
	return c, nil
}

// callTool calls the tool (get_user unless set) once as worker i.
func (c *rawMCP) callTool(i int) error {
	tool, args := c.tool, c.args
	if tool == "" {
		tool, args = "get_user", getUserArgs
	}
	w := &c.w[i]
	_, err := c.post(w, "tools/call", tool, c.toolCall(w, tool, args))
	return err
}

// getUserArgs are the arguments callTool gives get_user.
var getUserArgs = []byte(`{"id":"42","verbose":true}`)

// toolCall writes the tools/call message of tool with args into w's buffer, numbered by
// w.next, and returns it.
func (c *rawMCP) toolCall(w *rawWorker, tool string, args []byte) []byte {
	b := w.buf[:0]
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, w.next, 10)
	b = append(b, `,"method":"tools/call","params":{`...)
	if c.modern {
		b = append(b, clientMeta(c.era)...)
		b = append(b, ',')
	}
	b = append(b, `"name":`...)
	b = strconv.AppendQuote(b, tool)
	b = append(b, `,"arguments":`...)
	b = append(b, args...)
	b = append(b, "}}"...)
	w.buf = b
	w.next++
	return b
}

// post sends one JSON-RPC message and checks the answer (see send); it returns the
// answer's headers.
func (c *rawMCP) post(w *rawWorker, method, name string, body []byte) (http.Header, error) {
	hdr, _, err := c.send(w, method, name, body)
	if err != nil {
		return nil, err
	}
	return hdr, nil
}

// send sends one JSON-RPC message and checks the answer: 202 for a notification, else a
// JSON-RPC result (in a JSON body or an SSE stream) that is not a tool error. It returns
// the answer's headers and body (for a result, its JSON-RPC message, also when the check
// fails).
func (c *rawMCP) send(w *rawWorker, method, name string, body []byte) (http.Header, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if method != "initialize" {
		h.Set("Mcp-Protocol-Version", c.era)
	}
	if w.session != "" {
		h.Set("Mcp-Session-Id", w.session)
	}
	if c.modern {
		h.Set("Mcp-Method", method)
		if name != "" {
			h.Set("Mcp-Name", name)
		}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, nil, err
	}
	if strings.HasPrefix(method, "notifications/") {
		if resp.StatusCode != http.StatusAccepted {
			return nil, nil, fmt.Errorf("status %d: %s", resp.StatusCode, data)
		}
		return resp.Header, data, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("status %d: %.200s", resp.StatusCode, data)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		data = lastSSEData(data)
	}
	return resp.Header, data, checkAnswer(data)
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

// close ends the workers' sessions (DELETE) and the client's connections.
func (c *rawMCP) close() {
	for i := range c.w {
		if s := c.w[i].session; s != "" {
			req, _ := http.NewRequest(http.MethodDelete, c.url, nil)
			req.Header.Set("Mcp-Session-Id", s)
			req.Header.Set("Mcp-Protocol-Version", c.era)
			if resp, err := c.hc.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
	}
	c.tr.CloseIdleConnections()
}

// checkAnswer checks a JSON-RPC answer to tools/call: a result that is not a tool error.
func checkAnswer(data []byte) error {
	var m struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("answer is not JSON-RPC: %v: %.200s", err, data)
	}
	switch {
	case m.Error != nil:
		return errors.New(m.Error.Message)
	case m.Result == nil:
		return fmt.Errorf("answer without a result: %.200s", data)
	case m.Result.IsError:
		return fmt.Errorf("tool error: %.200s", data)
	}
	return nil
}
