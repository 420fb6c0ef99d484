//go:build unix

package transform_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls cond until it holds, failing the test after a generous deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// transform_refresh runs the transforms again: a changed result reaches connected clients
// as list_changed; a failed run keeps the last good lists; listing does not wait for a
// refresh that is still running.
func TestRefreshListChanged(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("state.txt", "alpha")
	write("gen.js", `export default function (serverName, context) {
  const out = context.discovery.stdout.trim();
  if (out === "boom") throw new Error("boom from the module");
  return out.split(/\s+/).map(w => ({name: w, description: "tool " + w, argv: ["echo", w]}));
}`)
	logs := &syncBuffer{}
	srv := gatewaytest.StartIn(t, dir, `
servers:
  s:
    kind: command
    discover: [sh, -c, 'if [ -e armed ]; then touch started; cat fifo; else cat state.txt; fi']
    tools_transform: gen.js
    transform_refresh: 1s
`, gateway.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	changed := make(chan struct{}, 16)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	ctx := context.Background()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/s", MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools := func() []string {
		t.Helper()
		lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		res, err := cs.ListTools(lctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		slices.Sort(names)
		return names
	}
	awaitChange := func(want []string) {
		t.Helper()
		deadline := time.After(60 * time.Second)
		for {
			select {
			case <-changed:
				if got := tools(); slices.Equal(got, want) {
					return
				}
			case <-deadline:
				t.Fatalf("no list_changed bringing %v (tools: %v)", want, tools())
			}
		}
	}
	if got := tools(); !slices.Equal(got, []string{"alpha"}) {
		t.Fatalf("tools = %v, want [alpha]", got)
	}
	write("state.txt", "alpha beta")
	awaitChange([]string{"alpha", "beta"})

	// A failing run keeps the last good lists.
	write("state.txt", "boom")
	waitFor(t, "a failed refresh in the log", func() bool { return strings.Contains(logs.String(), "boom from the module") })
	if got := tools(); !slices.Equal(got, []string{"alpha", "beta"}) {
		t.Fatalf("after a failed refresh: tools = %v, want the last good [alpha beta]", got)
	}

	// A refresh blocked in its discovery command does not hold up listing.
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	write("armed", "")
	waitFor(t, "a refresh blocked in discovery", func() bool {
		_, err := os.Stat(filepath.Join(dir, "started"))
		return err == nil
	})
	if got := tools(); !slices.Equal(got, []string{"alpha", "beta"}) {
		t.Fatalf("during a refresh: tools = %v, want [alpha beta]", got)
	}
	os.Remove(filepath.Join(dir, "armed"))
	write("state.txt", "alpha gamma")
	f, err := os.OpenFile(filepath.Join(dir, "fifo"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("alpha gamma\n")
	f.Close()
	awaitChange([]string{"alpha", "gamma"})
}
