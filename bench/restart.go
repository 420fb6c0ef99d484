package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

// printRestart measures how long `mcpbridge serve` takes from its start to a 200 of
// /healthz with n servers stored in its (SQLite) store, each a command server with three
// tools: the restart time of a replica (issue 21). Median of -rounds starts.
func printRestart(n int) error {
	dir, err := os.MkdirTemp("", "mcpbridge-bench-restart")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := *binFlag
	if bin == "" {
		if bin, err = buildPackage(dir, "mcpbridge", "./cmd/mcpbridge"); err != nil {
			return err
		}
	}
	db := filepath.Join(dir, "restart.db")
	begun := time.Now()
	if err := storeServers(db, n); err != nil {
		return err
	}
	fmt.Printf("stored %d servers in %s (%s)\n", n, db, time.Since(begun).Round(time.Millisecond))
	cfg := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(cfg, []byte("{}\n"), 0o644); err != nil {
		return err
	}
	var runs []time.Duration
	for range max(*rounds, 1) {
		d, err := timeToReady(bin, cfg, db)
		if err != nil {
			return err
		}
		runs = append(runs, d)
	}
	slices.Sort(runs)
	fmt.Printf("time to /healthz 200 of `mcpbridge serve` with %d stored servers: median %s of %d starts (all: %v)\n",
		n, runs[len(runs)/2].Round(time.Millisecond), len(runs), runs)
	return nil
}

// storeServers writes n command servers into the SQLite store at path.
func storeServers(path string, n int) error {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	for i := range n {
		doc, _ := json.Marshal(map[string]any{
			"kind": "command", "description": fmt.Sprintf("stored server %d", i),
			"tools": map[string]any{
				"echo":  map[string]any{"description": "Echo", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"m": map[string]any{"type": "string"}}}, "argv": []any{"echo", map[string]any{"direct": "m"}}},
				"date":  map[string]any{"description": "Date", "argv": []any{"date"}},
				"upper": map[string]any{"description": "Upper-case", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"t": map[string]any{"type": "string"}}, "required": []any{"t"}}, "argv": []any{"tr", "a-z", "A-Z"}, "stdin": map[string]any{"direct": "t"}},
			},
		})
		if _, err := st.Definitions.Put(ctx, fmt.Sprintf("s%05d", i), doc); err != nil {
			return fmt.Errorf("storing server %d: %w", i, err)
		}
	}
	return nil
}

// timeToReady starts serve and returns how long it took until /healthz answered 200; it
// then stops the process.
func timeToReady(bin, cfg, db string) (time.Duration, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve", "--config", cfg, "--store", db, "--listen", addr, "--log-level", "warn")
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	hc := &http.Client{Timeout: time.Second}
	for time.Since(start) < 2*time.Minute {
		resp, err := hc.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(start), nil
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0, fmt.Errorf("serve with %s did not answer /healthz 200 within 2 minutes", db)
}
