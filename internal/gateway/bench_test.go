package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

const benchSchema = `{"type":"object","properties":{"x":{"type":"string"}}}`

type noopBackend struct{}

func (noopBackend) Catalog(context.Context) (*backend.Catalog, error) {
	return &backend.Catalog{Tools: []*mcp.Tool{{Name: "noop", Description: "does nothing", InputSchema: json.RawMessage(benchSchema)}}}, nil
}

func (noopBackend) CallTool(context.Context, *backend.Call) (*mcp.CallToolResult, error) {
	return backend.TextResult("ok"), nil
}

func init() {
	backend.Register(backend.Kind{Name: "test-noop", Decode: func(*config.Server) (backend.Spec, config.Problems) {
		return backend.SpecFunc(func(context.Context, backend.Deps) (backend.Backend, error) { return noopBackend{}, nil }), nil
	}})
}

// benchServers starts the gateway with a no-op tool and a bare go-sdk server with the same
// tool, both dual-era.
func benchServers(b *testing.B) (gwURL, bareURL string, stop func()) {
	g, _, err := gatewaytest.Open(b.TempDir(), "servers: {noop: {kind: test-noop, description: bench}}\n", gateway.Options{})
	if err != nil {
		b.Fatal(err)
	}
	gw := httptest.NewServer(g.Handler())
	s := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "noop", Description: "does nothing", InputSchema: json.RawMessage(benchSchema)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	get := func(*http.Request) *mcp.Server { return s }
	legacy := mcp.NewStreamableHTTPHandler(get, nil)
	modern := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true})
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			modern.ServeHTTP(w, r)
		} else {
			legacy.ServeHTTP(w, r)
		}
	}))
	return gw.URL + "/mcp/noop", bare.URL, func() { gw.Close(); bare.Close() }
}

// BenchmarkCallTool measures one sequential tools/call of a no-op tool through the gateway
// and, in the same run, on a bare go-sdk server (the baseline), in both eras.
func BenchmarkCallTool(b *testing.B) {
	gwURL, bareURL, stop := benchServers(b)
	defer stop()
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		for _, target := range []struct{ name, url string }{{"bare", bareURL}, {"gateway", gwURL}} {
			b.Run(target.name+"/"+era, func(b *testing.B) {
				c := mcp.NewClient(&mcp.Implementation{Name: "b", Version: "1"}, nil)
				cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: target.url, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: era})
				if err != nil {
					b.Fatal(err)
				}
				defer cs.Close()
				p := &mcp.CallToolParams{Name: "noop", Arguments: map[string]any{"x": "y"}}
				b.ReportAllocs()
				for b.Loop() {
					if res, err := cs.CallTool(context.Background(), p); err != nil || res.IsError {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkCallToolParallel is BenchmarkCallTool with 8 clients at once (legacy era).
func BenchmarkCallToolParallel(b *testing.B) {
	gwURL, bareURL, stop := benchServers(b)
	defer stop()
	for _, target := range []struct{ name, url string }{{"bare", bareURL}, {"gateway", gwURL}} {
		b.Run(target.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(4)
			b.RunParallel(func(pb *testing.PB) {
				c := mcp.NewClient(&mcp.Implementation{Name: "b", Version: "1"}, nil)
				cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: target.url, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
				if err != nil {
					b.Error(err)
					return
				}
				defer cs.Close()
				p := &mcp.CallToolParams{Name: "noop", Arguments: map[string]any{"x": "y"}}
				for pb.Next() {
					if res, err := cs.CallTool(context.Background(), p); err != nil || res.IsError {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
