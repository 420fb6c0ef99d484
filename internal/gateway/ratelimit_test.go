package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
)

// The rates are per hour, so no token comes back while a test runs: the figures do not
// depend on how fast a loaded machine is.
const rateServers = `limits:
  rate: {per_principal: 1/h, burst: 3}
  drain_period: 1s
servers:
  demo:
    kind: command
    description: demo
    tools:
      echo: {description: echo, inputSchema: {type: object, properties: {message: {type: string}}}, argv: [echo, {direct: message}]}
  shared:
    kind: command
    description: a per-server limit
    limits: {rate: {per_principal: "off", per_server: 1/h, server_burst: 2}}
    tools:
      echo: {description: echo, argv: [echo, hi]}
  batchy:
    kind: command
    description: a burst of 4
    limits: {rate: {burst: 4}}
    tools:
      echo: {description: echo, argv: [echo, hi]}
`

// modernMeta is the _meta a 2026-07-28 request carries.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

const modernCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"},` + modernMeta + `}}`

var modernHeaders = map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"}

// limitReply is a JSON-RPC error answer with the data of a limit.
type limitReply struct {
	ID    json.RawMessage `json:"id"`
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Limit string `json:"limit"`
			Retry int    `json:"retryAfterSeconds"`
		} `json:"data"`
	} `json:"error"`
}

// checkRefused checks a 429 answer: Retry-After in whole seconds, matching the JSON-RPC
// error's data, which names the limit.
func checkRefused(t *testing.T, what string, resp *http.Response, body []byte, limit string, minRetry int) limitReply {
	t.Helper()
	var r limitReply
	json.Unmarshal(body, &r)
	ra, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if resp.StatusCode != 429 || err != nil || ra < minRetry || r.Error.Code != -32029 || r.Error.Data.Limit != limit || r.Error.Data.Retry != ra {
		t.Errorf("%s: %d, Retry-After %q, %s; want 429, Retry-After ≥ %d, error -32029 with data {limit: %s, retryAfterSeconds: Retry-After}", what, resp.StatusCode, resp.Header.Get("Retry-After"), body, minRetry, limit)
	}
	return r
}

// limits.rate on the HTTP edge: a caller over its burst gets 429 with Retry-After before
// MCP, on /mcp/{server} and on the REST routes alike, and other callers are not affected.
func TestRateLimitPerCaller(t *testing.T) {
	lb := serveLoopback(t, rateServers, gateway.Options{}, nil)
	a := clientFrom("127.0.0.1")
	u := lb.base + "/mcp/demo"
	for i := range 3 {
		if resp, b := rawPost(t, a, u, modernHeaders, modernCall); resp.StatusCode != 200 {
			t.Fatalf("call %d of the burst: %d %s", i+1, resp.StatusCode, b)
		}
	}
	resp, b := rawPost(t, a, u, modernHeaders, modernCall)
	r := checkRefused(t, "4th call", resp, b, "rate.per_principal", 3000) // 1/h: a token is an hour away
	if string(r.ID) != "7" || !strings.Contains(r.Error.Message, "rate limit: you sent server demo more than 1/h requests (limits.rate.per_principal); retry in") {
		t.Errorf("4th call: id %s, message %q", r.ID, r.Error.Message)
	}
	// The same caller on the REST routes: the same bucket.
	resp, err := a.Get(lb.base + "/api/mcp/demo/tools")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	var rest struct {
		Error string `json:"error"`
		Limit string `json:"limit"`
		Retry int    `json:"retryAfterSeconds"`
	}
	json.Unmarshal(b, &rest)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != strconv.Itoa(rest.Retry) || rest.Limit != "rate.per_principal" || !strings.Contains(rest.Error, "rate limit") {
		t.Errorf("REST over the limit: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
	// Another client address is another caller.
	if resp, b := rawPost(t, clientFrom("127.0.0.2"), u, modernHeaders, modernCall); resp.StatusCode != 200 {
		t.Errorf("another caller: %d %s", resp.StatusCode, b)
	}
	// Refusals are counted by limit.
	resp, err = a.Get(lb.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `mcpbridge_limit_refusals_total{limit="rate.per_principal"} 2`) {
		t.Errorf("metrics lack 2 rate.per_principal refusals:\n%s", grepLines(string(b), "limit_refusals"))
	}
}

// A per-server rate is shared by every caller of the server.
func TestRateLimitPerServer(t *testing.T) {
	lb := serveLoopback(t, rateServers, gateway.Options{}, nil)
	u := lb.base + "/mcp/shared"
	for _, ip := range []string{"127.0.0.2", "127.0.0.3"} {
		if resp, b := rawPost(t, clientFrom(ip), u, modernHeaders, modernCall); resp.StatusCode != 200 {
			t.Fatalf("caller %s: %d %s", ip, resp.StatusCode, b)
		}
	}
	resp, b := rawPost(t, clientFrom("127.0.0.4"), u, modernHeaders, modernCall)
	r := checkRefused(t, "a third caller", resp, b, "rate.per_server", 1000)
	if !strings.Contains(r.Error.Message, "server shared takes at most 1/h requests from all callers (limits.rate.per_server)") {
		t.Errorf("message %q", r.Error.Message)
	}
}

// Inside a stream — the items of a JSON-RPC batch, which the HTTP edge cannot refuse one
// by one — a request over the limit gets a JSON-RPC error with the limit and when to retry;
// the items within the limit are answered.
func TestRateLimitInsideABatch(t *testing.T) {
	lb := serveLoopback(t, rateServers, gateway.Options{}, nil)
	c := clientFrom("127.0.0.5")
	u := lb.base + "/mcp/batchy"
	h := legacySession(t, c, u, "2025-03-26") // initialize takes one token of 4; the notification none
	var items []string
	for i := range 5 {
		items = append(items, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 10+i))
	}
	resp, b := rawPost(t, c, u, h, "["+strings.Join(items, ",")+"]")
	if resp.StatusCode != 200 {
		t.Fatalf("batch: %d %s", resp.StatusCode, b)
	}
	var ok, refused int
	for _, m := range messages(b) {
		var r limitReply
		if err := json.Unmarshal(m, &r); err != nil {
			t.Fatalf("not JSON-RPC: %s", m)
		}
		if r.Error.Code == 0 {
			ok++
			continue
		}
		refused++
		if r.Error.Code != -32029 || r.Error.Data.Limit != "rate.per_principal" || r.Error.Data.Retry < 1000 || !strings.Contains(r.Error.Message, "retry in") {
			t.Errorf("refused item: %s", m)
		}
	}
	if ok != 3 || refused != 2 {
		t.Errorf("batch of 5 with 3 tokens left: %d answered, %d refused; want 3 and 2:\n%s", ok, refused, b)
	}
}

// limits.concurrent_calls_per_principal: while a caller's call runs, its next call is
// refused (429 before MCP, on /mcp and on REST), and another caller's is served.
func TestConcurrentCallsPerPrincipal(t *testing.T) {
	lb := serveLoopback(t, `limits: {concurrent_calls_per_principal: 1, drain_period: 1s}
servers:
  demo:
    kind: command
    description: demo
    tools:
      slow: {description: sleeps, argv: [sleep, "5"], timeout: 20s}
      echo: {description: echo, argv: [echo, hi]}
`, gateway.Options{}, nil)
	a := clientFrom("127.0.0.6")
	u := lb.base + "/mcp/demo"
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "slow"}
		for {
			resp, b := rawPost(t, a, u, h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},`+modernMeta+`}}`)
			if resp.StatusCode == 429 { // a probe held the caller's slot: try again
				time.Sleep(20 * time.Millisecond)
				continue
			}
			if resp.StatusCode != 200 {
				t.Errorf("slow call: %d %s", resp.StatusCode, b)
			}
			return
		}
	}()
	defer wg.Wait()
	// Probe with a quick call until the slow one holds the caller's slot (the probes run
	// one at a time, so a refused probe was refused for the slow call).
	for {
		resp, b := rawPost(t, a, u, modernHeaders, strings.Replace(modernCall, `"echo","arguments":{"message":"hi"}`, `"echo","arguments":{}`, 1))
		if resp.StatusCode == 429 {
			checkRefused(t, "a second call at once", resp, b, "concurrent_calls_per_principal", 1)
			break
		}
		select {
		case <-done:
			t.Fatal("the slow call ended before a second call of its caller was refused")
		case <-time.After(50 * time.Millisecond):
		}
	}
	// The REST route: the same limit, checked at call time.
	req, _ := http.NewRequest("POST", lb.base+"/api/mcp/demo/tools/call", strings.NewReader(`{"name":"echo"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	select {
	case <-done:
		t.Fatal("the slow call ended too soon for the REST check")
	default:
	}
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1" || !strings.Contains(string(b), `"limit":"concurrent_calls_per_principal"`) {
		t.Errorf("REST second call: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
	if resp, b := rawPost(t, clientFrom("127.0.0.7"), u, modernHeaders, modernCall); resp.StatusCode != 200 {
		t.Errorf("another caller: %d %s", resp.StatusCode, b)
	}
}

// limits.call_timeout (here a server's own): a call that runs longer is stopped and the
// agent gets an error result that says what happened and what to do.
func TestCallTimeout(t *testing.T) {
	lb := serveLoopback(t, `limits: {call_timeout: 1h, drain_period: 1s}
servers:
  demo:
    kind: command
    description: demo
    limits: {call_timeout: 300ms}
    tools:
      slow: {description: sleeps, argv: [sleep, "30"], timeout: 1m}
`, gateway.Options{}, nil)
	cs := connectFrom(t, "127.0.0.8", lb.base+"/mcp/demo", "2025-11-25")
	start := time.Now()
	res := call(t, cs, "slow", map[string]any{})
	took := time.Since(start)
	txt := text(t, res)
	if !res.IsError || !strings.Contains(txt, "the call to slow took longer than 300ms (limits.call_timeout of server demo) and was stopped") || !strings.Contains(txt, "raise limits.call_timeout") {
		t.Errorf("result = %v %q", res.IsError, txt)
	}
	if took > 15*time.Second {
		t.Errorf("the call took %s; want it stopped after about 300ms", took)
	}
}

// limits.max_body holds on every route: the REST routes and the HTTP+SSE message endpoint
// too.
func TestMaxBodyEveryRoute(t *testing.T) {
	lb := serveLoopback(t, "limits: {max_body: 1000, drain_period: 1s}\n"+echoServers, gateway.Options{}, nil)
	big := `{"name":"echo","arguments":{"message":"` + strings.Repeat("x", 2000) + `"}}`
	for _, path := range []string{"/api/mcp/demo/tools/call", "/mcp/demo/sse?sessionid=nope", "/mcp/demo"} {
		req, _ := http.NewRequest("POST", lb.base+path, strings.NewReader(big))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 413 || !strings.Contains(string(b), "1000") {
			t.Errorf("POST %s with 2 kB: %d %s; want 413 naming limits.max_body", path, resp.StatusCode, b)
		}
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// On the HTTP+SSE transport the POSTs are taken (202) and answered on the event stream,
// so a message over the limit gets its JSON-RPC error there.
func TestRateLimitOnSSEStream(t *testing.T) {
	lb := serveLoopback(t, rateServers, gateway.Options{}, nil)
	c := clientFrom("127.0.0.9")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", lb.base+"/mcp/demo/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewReader(resp.Body)
	next := func() string { // the data of the next event
		t.Helper()
		for {
			line, err := events.ReadString('\n')
			if err != nil {
				t.Fatalf("reading the stream: %v", err)
			}
			if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
				return d
			}
		}
	}
	endpoint := next()
	send := func(body string) {
		t.Helper()
		if resp, b := rawPost(t, c, lb.base+endpoint, nil, body); resp.StatusCode != 202 {
			t.Fatalf("POST %s: %d %s", body, resp.StatusCode, b)
		}
	}
	// Burst 3: initialize and two pings are answered (the notification is free), the third
	// ping is refused.
	send(initBody("2024-11-05"))
	next()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for id := 2; id <= 4; id++ {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
		var r limitReply
		d := next()
		if err := json.Unmarshal([]byte(d), &r); err != nil {
			t.Fatalf("not JSON-RPC: %s", d)
		}
		if refused := r.Error.Code != 0; refused != (id == 4) {
			t.Errorf("ping %d: %s; want only the third ping refused", id, d)
		}
		if id == 4 && (r.Error.Code != -32029 || r.Error.Data.Limit != "rate.per_principal" || r.Error.Data.Retry < 1000) {
			t.Errorf("refused ping: %s", d)
		}
	}
}
