package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// erasConfig serves the go-sdk reference everything-server behind kind: mcp (its answers
// are a 2026-07-28 server's: resultType, its own serverInfo in _meta, cache fields) and a
// native command server with one of each thing.
const erasConfig = `servers:
  ref:
    kind: mcp
    description: the go-sdk reference everything-server
    command: [%q]
  native:
    kind: command
    description: one of each thing
    tools:
      region:
        description: echoes its region, mirrored in Mcp-Param-Region at 2026-07-28
        inputSchema: {type: object, properties: {region: {type: string, x-mcp-header: Region}}}
        argv: [echo, {direct: region}]
    resources:
      note: {uri: "note://hello", description: a note, mimeType: text/plain, text: hello}
    prompts:
      greet: {description: a greeting, messages: [{role: user, text: hello}]}
`

// eraRequest is one request of TestEraFields: method, the name its Mcp-Name header carries
// at 2026-07-28, and params.
type eraRequest struct{ method, name, params string }

// eraRequests are the requests TestEraFields sends each server.
var eraRequests = map[string][]eraRequest{
	"ref": {
		{"tools/list", "", `{}`},
		{"resources/list", "", `{}`},
		{"resources/templates/list", "", `{}`},
		{"prompts/list", "", `{}`},
		{"tools/call", "test_simple_text", `{"name":"test_simple_text","arguments":{}}`},
		{"resources/read", "test://static-text", `{"uri":"test://static-text"}`},
		{"prompts/get", "test_simple_prompt", `{"name":"test_simple_prompt"}`},
		{"completion/complete", "", `{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"a"}}`},
	},
	"native": {
		{"tools/list", "", `{}`},
		{"resources/list", "", `{}`},
		{"prompts/list", "", `{}`},
		{"tools/call", "region", `{"name":"region","arguments":{}}`}, // a region would need its header at 2026-07-28
		{"resources/read", "note://hello", `{"uri":"note://hello"}`},
		{"prompts/get", "greet", `{"name":"greet"}`},
	},
}

// legacyForbidden are what a result of a session negotiated below 2026-07-28 must not
// hold: the fields and _meta keys 2026-07-28 added, and the upstream's own identity.
var legacyForbidden = []string{`"resultType"`, `"ttlMs"`, `"cacheScope"`, `"io.modelcontextprotocol/`, "mcp-conformance-test-server"}

// Answers carry only their era's fields, on every transport: a 2025-11-25 (or older)
// session over Streamable HTTP, HTTP+SSE or stdio gets no resultType, ttlMs, cacheScope or
// 2026-07-28 _meta key, from a native server or from an upstream that speaks 2026-07-28;
// a 2026-07-28 request gets exactly one resultType, the gateway's identity in _meta (not the
// upstream's), and the cache fields on lists and reads. The results are checked as raw
// JSON, as they cross the wire.
func TestEraFields(t *testing.T) {
	bin := mcpbridgeBinary(t)
	everything := everythingServer(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "eras.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(erasConfig, everything)), 0o644); err != nil {
		t.Fatal(err)
	}
	gw, err := startGateway(bin, cfg, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer gw.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, server := range []string{"ref", "native"} {
		reqs := eraRequests[server]
		t.Run(server+"/2026-07-28", func(t *testing.T) {
			c := &rawClient{url: gw.MCPURL(server), era: modernEra, hc: &http.Client{Timeout: time.Minute}}
			for _, r := range reqs {
				var params map[string]any
				json.Unmarshal([]byte(r.params), &params)
				params["_meta"] = c.meta()
				res, err := c.rpc(ctx, r.method, r.name, params)
				if err != nil {
					t.Errorf("%s: %v", r.method, err)
					continue
				}
				s := string(res)
				if n := strings.Count(s, `"resultType"`); n != 1 {
					t.Errorf("%s: %d resultType keys, want 1: %.600s", r.method, n, s)
				}
				if !strings.Contains(s, `"io.modelcontextprotocol/serverInfo":{"name":"mcpbridge-`+server+`"`) || strings.Contains(s, "mcp-conformance-test-server") {
					t.Errorf("%s: want the gateway's serverInfo, and only it: %.600s", r.method, s)
				}
				if strings.HasSuffix(r.method, "/list") || r.method == "resources/read" {
					if !strings.Contains(s, `"ttlMs":`) || !strings.Contains(s, `"cacheScope":"public"`) {
						t.Errorf("%s: want ttlMs and cacheScope: %.600s", r.method, s)
					}
				}
			}
		})
		for _, tr := range []string{"streamable", "sse", "stdio"} {
			t.Run(server+"/2025-11-25/"+tr, func(t *testing.T) {
				var send func(method, params string) (string, error)
				switch tr {
				case "streamable":
					c := &rawClient{url: gw.MCPURL(server), era: legacyEra, hc: &http.Client{Timeout: time.Minute}}
					if err := c.open(ctx); err != nil {
						t.Fatal(err)
					}
					defer c.close(ctx)
					send = func(method, params string) (string, error) {
						var p map[string]any
						json.Unmarshal([]byte(params), &p)
						res, err := c.rpc(ctx, method, "", p)
						return string(res), err
					}
				case "sse":
					c := openSSE(ctx, t, gw.MCPURL(server)+"/sse")
					send = c.call
				case "stdio":
					c := openStdio(ctx, t, bin, gw.Config, dir, server)
					send = c.call
				}
				for _, r := range reqs {
					s, err := send(r.method, r.params)
					if err != nil {
						t.Errorf("%s: %v", r.method, err)
						continue
					}
					for _, f := range legacyForbidden {
						if strings.Contains(s, f) {
							t.Errorf("%s over %s at 2025-11-25 carries %s: %.600s", r.method, tr, f, s)
						}
					}
				}
			})
		}
	}
	if t.Failed() {
		t.Logf("gateway log tail:\n%s", gw.LogTail())
	}
}

// lineClient speaks JSON-RPC with one message per call: initialize first, then requests;
// write sends a message, and answers arrive on the answers channel (by id).
type lineClient struct {
	write   func(msg []byte) error
	answers chan json.RawMessage
	next    int
	t       *testing.T
	ctx     context.Context
}

// start initializes a 2025-11-25 session.
func (c *lineClient) start() {
	c.t.Helper()
	if _, err := c.call("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e-eras","version":"1"}}`); err != nil {
		c.t.Fatalf("initialize: %v", err)
	}
	if err := c.write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		c.t.Fatal(err)
	}
}

// call sends a request and returns its raw result.
func (c *lineClient) call(method, params string) (string, error) {
	c.next++
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, c.next, method, params)
	if err := c.write([]byte(msg)); err != nil {
		return "", err
	}
	for {
		select {
		case <-c.ctx.Done():
			return "", fmt.Errorf("%s: no answer: %w", method, c.ctx.Err())
		case a, ok := <-c.answers:
			if !ok {
				return "", fmt.Errorf("%s: the connection ended", method)
			}
			var m struct {
				ID     int             `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(a, &m) != nil || m.ID != c.next {
				continue // a notification, or another answer
			}
			if m.Error != nil {
				return "", fmt.Errorf("%s: error %s", method, m.Error)
			}
			return string(m.Result), nil
		}
	}
}

// openSSE opens a 2024-11-05 HTTP+SSE session at url and initializes it.
func openSSE(ctx context.Context, t *testing.T, url string) *lineClient {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	endpoint := make(chan string, 1)
	c := &lineClient{answers: make(chan json.RawMessage, 16), t: t, ctx: ctx}
	go func() {
		defer resp.Body.Close()
		defer close(c.answers)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event:"):
				event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
			case strings.HasPrefix(line, "data:"):
				data := strings.TrimSpace(strings.TrimPrefix(line, "data:"))
				if event == "endpoint" {
					endpoint <- data
				} else {
					c.answers <- json.RawMessage(data)
				}
			}
		}
	}()
	var post string
	select {
	case ep := <-endpoint:
		post = ep
		if strings.HasPrefix(ep, "/") {
			post = url[:strings.Index(url[len("http://"):], "/")+len("http://")] + ep
		}
	case <-ctx.Done():
		t.Fatal("no endpoint event")
	}
	c.write = func(msg []byte) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, post, bytes.NewReader(msg))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("POST %s: %s", post, resp.Status)
		}
		return nil
	}
	c.start()
	return c
}

// openStdio runs `mcpbridge stdio --config cfg server` and initializes a session.
func openStdio(ctx context.Context, t *testing.T, bin, cfg, dir, server string) *lineClient {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, "stdio", "--config", cfg, server)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("mcpbridge stdio stderr:\n%s", stderr.String())
		}
	})
	c := &lineClient{answers: make(chan json.RawMessage, 16), t: t, ctx: ctx}
	var mu sync.Mutex
	c.write = func(msg []byte) error {
		mu.Lock()
		defer mu.Unlock()
		_, err := in.Write(append(msg, '\n'))
		return err
	}
	go func() {
		defer close(c.answers)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			c.answers <- json.RawMessage(append([]byte(nil), sc.Bytes()...))
		}
	}()
	c.start()
	return c
}

var (
	everythingOnce sync.Once
	everythingPath string
	everythingErr  error
)

// everythingServer builds the go-sdk reference everything-server once per test run and
// returns its path.
func everythingServer(t *testing.T) string {
	t.Helper()
	everythingOnce.Do(func() {
		everythingPath = filepath.Join(binaryDir, "everything-server")
		everythingErr = buildEverythingServer(everythingPath)
	})
	if everythingErr != nil {
		t.Fatalf("building the reference everything-server: %v", everythingErr)
	}
	return everythingPath
}
