// Package gatewaytest starts a gateway the way tests and benchmarks need it: a YAML
// configuration decoded by every kind of the build, opened, and served over HTTP on a
// loopback port. It replaces the bootstrapping each test and benchmark used to copy.
package gatewaytest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	_ "github.com/mcpbridge/mcpbridge/internal/backend/all" // every kind
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
)

// A Server is a gateway served on a loopback port.
type Server struct {
	*gateway.Gateway
	// URL is the server's base URL, e.g. http://127.0.0.1:41234 (add /mcp/NAME).
	URL string
	// Config is the decoded configuration.
	Config *config.Config
}

// Open decodes yaml (relative paths resolve against dir) and opens a gateway for it,
// without serving it.
func Open(dir, yaml string, opts gateway.Options) (*gateway.Gateway, *config.Config, error) {
	cfg, err := config.Parse("test.yaml", dir, []byte(yaml), backend.Kinds())
	if err != nil {
		return nil, nil, err
	}
	g, err := gateway.New(context.Background(), cfg, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("opening the gateway: %w", err)
	}
	return g, cfg, nil
}

// Start opens a gateway for yaml, in a temporary directory, and serves it until the test
// ends. Stored servers (opts.Definitions) are followed while it runs.
func Start(tb testing.TB, yaml string, opts gateway.Options) *Server {
	tb.Helper()
	return StartIn(tb, tb.TempDir(), yaml, opts)
}

// StartIn is Start with relative paths resolved against dir.
func StartIn(tb testing.TB, dir, yaml string, opts gateway.Options) *Server {
	tb.Helper()
	g, cfg, err := Open(dir, yaml, opts)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go g.Watch(ctx)
	srv := httptest.NewServer(g.Handler())
	tb.Cleanup(func() {
		cancel()
		srv.Close()
		g.Close()
	})
	return &Server{Gateway: g, URL: srv.URL, Config: cfg}
}

// Serve serves h on a new loopback listener until the process ends and returns its URL;
// for benchmark programs, which have no testing.TB.
func Serve(h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	go http.Serve(ln, h)
	return "http://" + ln.Addr().String(), nil
}
