package cli

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

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

// SIGHUP reloads the configuration even when the file did not change.
func TestReloadOnSIGHUP(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	doc := "servers:\n  demo:\n    kind: command\n    description: d\n    tools:\n      one: {description: one, argv: [echo, \"1\"]}\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	g, _, err := gatewaytest.Open(dir, doc, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var logs syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The test's own registration keeps a SIGHUP that comes before watchConfig has
	// installed its handler from ending the test binary; such a signal is lost to
	// watchConfig, so the test signals again until it sees a reload.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go watchConfig(ctx, path, g, slog.New(slog.NewTextHandler(&logs, nil)))
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(logs.String(), "config reloaded") {
		if time.Now().After(deadline) {
			t.Fatalf("no reload after SIGHUP; log:\n%s", logs.String())
		}
		if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
