package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// Many stored servers used for the first time at once open a few at a time (8, the
// gateway's bound), not all together; every one is then served, and so is one whose first
// client left at once.
func TestStoredServersFirstUseStormIsBounded(t *testing.T) {
	const (
		n     = 40
		bound = 8 // maxOpenings
	)
	up := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	mcp.AddTool(up, &mcp.Tool{Name: "hello", Description: "Says hello"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello"}}}, nil, nil
	})
	upHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, nil)
	release := make(chan struct{})
	var mu sync.Mutex
	active := map[string]int{} // upstream paths (one per stored server) with a request held
	peak := 0
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			mu.Lock()
			active[r.URL.Path]++
			peak = max(peak, len(active))
			mu.Unlock()
			<-release
			mu.Lock()
			if active[r.URL.Path]--; active[r.URL.Path] == 0 {
				delete(active, r.URL.Path)
			}
			mu.Unlock()
		}
		upHandler.ServeHTTP(w, r)
	}))
	defer func() {
		upstream.CloseClientConnections()
		upstream.Close()
	}()
	var closeRelease sync.Once
	defer closeRelease.Do(func() { close(release) })

	st := openSQLite(t)
	names := []string{"gone"}
	for i := range n {
		names = append(names, fmt.Sprintf("s%d", i))
	}
	for _, name := range names {
		def := fmt.Sprintf(`{"kind":"mcp","description":"d","url":%q}`, upstream.URL+"/u/"+name)
		if _, err := st.Definitions.Put(context.Background(), name, json.RawMessage(def)); err != nil {
			t.Fatal(err)
		}
	}
	g, _, err := gatewaytest.Open(t.TempDir(), "servers: {}\n", gateway.Options{Definitions: st.Definitions})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var entered atomic.Int64
	h := g.Handler()
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/mcp/s") {
			entered.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	defer gw.Close()

	// A client that leaves as soon as its first request is in: the opening goes on.
	leave, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(leave, "POST", gw.URL+"/mcp/gone", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	left := make(chan struct{})
	go func() {
		defer close(left)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()

	errs := make(chan error, n)
	for i := range n {
		go func() {
			c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: gw.URL + "/mcp/" + names[i+1], MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
			if err != nil {
				errs <- fmt.Errorf("client %d: connect: %w", i, err)
				return
			}
			defer cs.Close()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hello", Arguments: map[string]any{}})
			switch {
			case err != nil:
				errs <- fmt.Errorf("client %d: call: %w", i, err)
			case res.IsError || len(res.Content) == 0 || res.Content[0].(*mcp.TextContent).Text != "hello":
				errs <- fmt.Errorf("client %d: result %+v", i, res)
			default:
				errs <- nil
			}
		}()
	}
	// Wait until every first request is in and the openings under way fill the bound, or
	// more than the bound are under way.
	deadline := time.Now().Add(60 * time.Second)
	for {
		mu.Lock()
		now := len(active)
		mu.Unlock()
		if now > bound || (now == bound && entered.Load() >= n) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s: %d openings under way, %d of %d first requests in", now, entered.Load(), n)
		}
		time.Sleep(5 * time.Millisecond) // polling a condition, not waiting for time to pass
	}
	cancel()
	<-left
	closeRelease.Do(func() { close(release) })
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	mu.Lock()
	if peak > bound {
		t.Errorf("%d stored servers used at once opened %d at a time, want at most %d", n, peak, bound)
	}
	mu.Unlock()
	// The server whose first client left is opened and served.
	deadline = time.Now().Add(60 * time.Second)
	for {
		c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: gw.URL + "/mcp/gone", MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err == nil {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hello", Arguments: map[string]any{}})
			cs.Close()
			if err == nil && !res.IsError {
				break
			}
			t.Logf("gone: %v %+v", err, res)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server whose first client left is not served after 60 s: %v", err)
		}
		time.Sleep(50 * time.Millisecond) // polling a condition
	}
	if got := metric(t, gw.URL, `mcpbridge_server_opens_total{outcome="ok"}`); got != n+1 {
		t.Errorf("opens: %v, want %d", got, n+1)
	}
}
