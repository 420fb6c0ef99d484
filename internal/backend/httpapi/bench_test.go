package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
)

// directGet calls the REST endpoint the way get_user does, with plain net/http.
func directGet(b *testing.B, c *http.Client, url string) {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("X-Tenant", "acme")
	req.Header.Set("X-Api-Key", gwAPIKey)
	req.Header.Set("Cookie", "session=abc123")
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("status %d", resp.StatusCode)
	}
}

// pairedMedians times n alternating calls of via and of direct and returns the median of
// each: interleaving keeps the comparison fair on a machine whose load changes.
func pairedMedians(n int, via, direct func()) (viaNs, directNs float64) {
	a, d := make([]float64, n), make([]float64, n)
	for i := range n {
		s := time.Now()
		via()
		a[i] = float64(time.Since(s).Nanoseconds())
		s = time.Now()
		direct()
		d[i] = float64(time.Since(s).Nanoseconds())
	}
	slices.Sort(a)
	slices.Sort(d)
	return a[n/2], d[n/2]
}

// BenchmarkHTTPTool measures an HTTP tool called through the whole gateway (go-sdk client,
// Streamable HTTP, modern and legacy protocol eras) and through the backend alone, against
// calling the same loopback REST endpoint directly with net/http. Each gateway/backend run
// reports calls/s and added-ns/op: the median latency it adds over a direct call, measured
// on alternating calls after the timed loop.
func BenchmarkHTTPTool(b *testing.B) {
	os.Setenv("MCPBRIDGE_SECRET_GW_USERS_API_KEY", gwAPIKey)
	defer os.Unsetenv("MCPBRIDGE_SECRET_GW_USERS_API_KEY")
	up := newUpstream(b)
	srv := newGateway(b, up.URL)
	direct := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	url := up.URL + "/users/42?verbose=true"
	directCall := func() { directGet(b, direct, url) }
	const pairs = 300

	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		n, start := 0, time.Now()
		for b.Loop() {
			directCall()
			n++
		}
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "calls/s")
	})

	be := mustOpen(b, fmt.Sprintf(`kind: http
description: d
base_url: %s
allow_private: true
headers: {X-Api-Key: secret:GW_USERS_API_KEY}
tools:
  get_user:
    description: d
    inputSchema: {type: object, properties: {id: {type: string}, verbose: {type: boolean}}, required: [id]}
    method: GET
    path: /users/{id}
    mappings:
      - {field: id, in: path, direct: id}
      - {field: verbose, in: query, direct: verbose}
      - {field: X-Tenant, in: header, constant: acme}
      - {field: session, in: cookie, constant: abc123}
`, up.URL))
	raw := json.RawMessage(`{"id":"42","verbose":true}`)
	backendCall := func() {
		res, err := be.CallTool(context.Background(), &backend.Call{Name: "get_user", Arguments: raw, Session: backend.NoSession{}})
		if err != nil || res.IsError {
			b.Fatalf("call: %v %v", err, res)
		}
	}
	b.Run("backend", func(b *testing.B) {
		b.ReportAllocs()
		n, start := 0, time.Now()
		for b.Loop() {
			backendCall()
			n++
		}
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "calls/s")
		v, d := pairedMedians(pairs, backendCall, directCall)
		b.ReportMetric(v-d, "added-ns/op")
	})

	for _, v := range []string{"2026-07-28", "2025-11-25"} {
		b.Run("gateway-"+v, func(b *testing.B) {
			cs := connectMCP(b, srv.URL+"/mcp/users", v)
			ctx := context.Background()
			params := &mcp.CallToolParams{Name: "get_user", Arguments: map[string]any{"id": "42", "verbose": true}}
			call := func() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatalf("call: %v %v", err, res)
				}
			}
			b.ReportAllocs()
			n, start := 0, time.Now()
			for b.Loop() {
				call()
				n++
			}
			b.ReportMetric(float64(n)/time.Since(start).Seconds(), "calls/s")
			g, d := pairedMedians(pairs, call, directCall)
			b.ReportMetric(g-d, "added-ns/op")
		})
	}
}
