package gateway_test

// Helpers of the attack tests (*_attack_test.go). Each attack is performed through real HTTP
// against a gateway served by its Serve on a 127.0.0.1 listener, and logs its figures.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
)

// loopback is a gateway served by its real Serve on 127.0.0.1.
type loopback struct {
	g    *gateway.Gateway
	dir  string
	addr string // 127.0.0.1:PORT
	base string // http://127.0.0.1:PORT
}

// limitsSection returns the limits the attack tests run with, as a YAML line.
func limitsSection(limits string) string { return "limits: " + limits + "\n" }

// serveLoopback serves cfg (a YAML document; the test's directory is its dir) on 127.0.0.1.
// setup, when set, runs on the directory (and may adjust opts) before the gateway opens.
func serveLoopback(t *testing.T, cfgYAML string, opts gateway.Options, setup func(dir string, opts *gateway.Options)) *loopback {
	t.Helper()
	dir := t.TempDir()
	if setup != nil {
		setup(dir, &opts)
	}
	cfg, err := config.Parse("attack.yaml", dir, []byte(cfgYAML), backend.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	g, err := gateway.New(context.Background(), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return")
		}
		g.Close()
	})
	return &loopback{g: g, dir: dir, addr: ln.Addr().String(), base: "http://" + ln.Addr().String()}
}

// clientFrom returns an HTTP client whose connections come from the loopback address ip
// (127.0.0.2, 127.0.0.3, ...), i.e. another client address as far as the gateway can tell.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 4}, Timeout: 20 * time.Second}
}

func connectFrom(t *testing.T, ip, url, version string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "bystander", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: clientFrom(ip)}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s from %s (%s): %v", url, ip, version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// rawPost sends one JSON-RPC POST and returns the response and its whole body.
func rawPost(t *testing.T, c *http.Client, url string, hdr map[string]string, body string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, b
}

// messages returns the JSON-RPC messages of a response body: a JSON object or array, or the
// data lines of an event stream.
func messages(b []byte) []json.RawMessage {
	var out []json.RawMessage
	add := func(d []byte) {
		d = bytes.TrimSpace(d)
		if len(d) == 0 {
			return
		}
		if d[0] == '[' {
			var arr []json.RawMessage
			if json.Unmarshal(d, &arr) == nil {
				out = append(out, arr...)
				return
			}
		}
		out = append(out, json.RawMessage(d))
	}
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) || bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
		add(b)
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			add([]byte(d))
		}
	}
	return out
}

type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func replies(t *testing.T, b []byte) []rpcReply {
	t.Helper()
	var out []rpcReply
	for _, m := range messages(b) {
		var r rpcReply
		if err := json.Unmarshal(m, &r); err != nil {
			t.Fatalf("not a JSON-RPC message: %s", m)
		}
		out = append(out, r)
	}
	return out
}

// legacySession initializes a legacy session at version v and returns its headers.
func legacySession(t *testing.T, c *http.Client, url, v string) map[string]string {
	t.Helper()
	resp, b := rawPost(t, c, url, nil, initBody(v))
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize %s: %d %s", v, resp.StatusCode, b)
	}
	h := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": v}
	if resp, b := rawPost(t, c, url, h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != 202 {
		t.Fatalf("initialized: %d %s", resp.StatusCode, b)
	}
	return h
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

func openFDs() int {
	es, _ := os.ReadDir("/proc/self/fd")
	return len(es)
}

const echoServers = `servers:
  demo:
    kind: command
    description: demo
    tools:
      echo: {description: echo, inputSchema: {type: object, properties: {message: {type: string}}}, argv: [echo, {direct: message}]}
  other:
    kind: command
    description: another server
    tools:
      echo: {description: echo, inputSchema: {type: object, properties: {message: {type: string}}}, argv: [echo, {direct: message}]}
`
