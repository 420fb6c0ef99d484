package gateway_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

const (
	aliceKey = "alice-key-0123456789abcdef0123"
	bobKey   = "bob-key-0123456789abcdef0123456"
	alice2   = "alice-second-key-0123456789abcd"
)

// An HTTP+SSE session is bound to the principal that opened its stream: a message posted to
// it by another principal, by the same user through another key, or without credentials, is
// refused with 403 and never reaches the session; its owner's messages are answered on the
// stream.
func TestSSESessionBoundToPrincipal(t *testing.T) {
	cfg := fmt.Sprintf(`
auth:
  keys:
    - {id: alice, hash: "sha256:%s", user: {id: alice}}
    - {id: alice2, hash: "sha256:%s", user: {id: alice}}
    - {id: bob, hash: "sha256:%s", user: {id: bob}}
servers:
  open:
    kind: command
    description: anyone may use it
    auth: {public: true}
    tools:
      hello: {description: hello, argv: [echo, hello]}
`, store.HashKey(aliceKey), store.HashKey(alice2), store.HashKey(bobKey))
	srv := gatewaytest.Start(t, cfg, gateway.Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	// Alice opens the stream and learns her message endpoint.
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/mcp/open/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+aliceKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET sse: %d", resp.StatusCode)
	}
	events := bufio.NewReader(resp.Body)
	endpoint := ""
	for endpoint == "" {
		line, err := events.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the endpoint event: %v", err)
		}
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			endpoint = d
		}
	}
	if !strings.Contains(endpoint, "sessionid=") {
		t.Fatalf("endpoint event %q", endpoint)
	}
	post := func(token, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, c := range []struct{ who, token string }{{"bob", bobKey}, {"anonymous", ""}, {"alice's other key", alice2}} {
		code, body := post(c.token, initBody("2024-11-05"))
		if code != 403 || !strings.Contains(body, "this session belongs to the principal that opened it") || !strings.Contains(body, `"code":-32600`) {
			t.Errorf("%s posting to alice's session: %d %s; want 403 and a JSON-RPC error", c.who, code, body)
		}
	}
	// Alice's own messages are taken (202) and answered on her stream — the first answer
	// there is her initialize's: the refused ones never reached the session.
	if code, body := post(aliceKey, strings.Replace(initBody("2024-11-05"), `"id":1`, `"id":"alice-1"`, 1)); code != 202 {
		t.Fatalf("alice posting to her session: %d %s", code, body)
	}
	for {
		line, err := events.ReadString('\n')
		if err != nil {
			t.Fatalf("reading alice's stream: %v", err)
		}
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			if !strings.Contains(d, `"id":"alice-1"`) || !strings.Contains(d, `"protocolVersion"`) {
				t.Errorf("first message on alice's stream: %s; want the answer to her initialize", d)
			}
			break
		}
	}
}

// An anonymous stream is anyone's, as before: there is no principal to bind it to.
func TestSSEAnonymousSessionUnbound(t *testing.T) {
	srv := gatewaytest.Start(t, echoServers, gateway.Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/mcp/demo/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewReader(resp.Body)
	endpoint := ""
	for endpoint == "" {
		line, err := events.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			endpoint = d
		}
	}
	preq, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+endpoint, strings.NewReader(initBody("2024-11-05")))
	preq.Header.Set("Content-Type", "application/json")
	presp, err := http.DefaultClient.Do(preq)
	if err != nil {
		t.Fatal(err)
	}
	presp.Body.Close()
	if presp.StatusCode != 202 {
		t.Errorf("anonymous message on an anonymous session: %d; want 202", presp.StatusCode)
	}
}
