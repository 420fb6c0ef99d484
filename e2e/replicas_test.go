package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/store/postgres/pgtest"
)

// TestReplicasOnPostgres runs two `mcpbridge serve` processes on one PostgreSQL database: a
// server created through the admin API of one is served by the other within 2 seconds.
func TestReplicasOnPostgres(t *testing.T) {
	dbURL := pgtest.URL(t) // a fresh database; fails with what to run when PostgreSQL is absent
	bin := mcpbridgeBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "replica.yaml")
	os.WriteFile(cfg, []byte("servers:\n  local:\n    kind: command\n    description: file server\n    tools:\n      echo: {description: Echo, argv: [echo, hi]}\n"), 0o644)
	const key = "e2e-admin-key-0123456789abcdef"
	var bases []string
	for i := range 2 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		base := fmt.Sprintf("http://127.0.0.1:%d", port)
		log, _ := os.Create(filepath.Join(dir, fmt.Sprintf("replica%d.log", i)))
		cmd := exec.Command(bin, "serve", "--config", cfg, "--listen", base[len("http://"):], "--store", dbURL)
		cmd.Env = append(os.Environ(), "MCPBRIDGE_ADMIN_KEY="+key)
		cmd.Stdout, cmd.Stderr = log, log
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
			log.Close()
		})
		g := &gateway{Base: base, done: make(chan struct{})}
		if err := g.waitReady(30 * time.Second); err != nil {
			b, _ := os.ReadFile(log.Name())
			t.Fatalf("replica %d: %v\n%s", i, err, b)
		}
		bases = append(bases, base)
	}
	def := `{"kind":"command","description":"shared","tools":{"shout":{"description":"Upper-case","inputSchema":{"type":"object","properties":{"t":{"type":"string"}},"required":["t"]},"argv":["tr","a-z","A-Z"],"stdin":{"direct":"t"}}}}`
	req, _ := http.NewRequest("PUT", bases[0]+"/admin/api/servers/shared", strings.NewReader(def))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT on replica 0: %v %v", resp, err)
	}
	resp.Body.Close()
	var cs *mcp.ClientSession
	for {
		c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
		cs, err = c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: bases[1] + "/mcp/shared", MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err == nil {
			break
		}
		if time.Since(start) > 2*time.Second {
			t.Fatalf("replica 1 does not serve the new server 2s after it was created on replica 0: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	defer cs.Close()
	t.Logf("replica 1 served the server %s after it was created on replica 0", time.Since(start).Round(time.Millisecond))
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "shout", Arguments: map[string]any{"t": "replicated"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "REPLICATED" {
		t.Fatalf("call on replica 1: %v %v", res, err)
	}
}
