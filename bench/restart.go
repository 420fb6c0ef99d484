package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/store/openstore"
)

// printRestart measures how long `mcpbridge serve` takes from its start to a 200 of
// /healthz with n servers stored in its store — a SQLite file, or the database of
// -restart-store (postgres://…) — each a command server with three tools: the restart time
// of a replica (issue 21). Stored servers open on first use, so each start then times the
// first use of one stored server (a 2026-07-28 server/discover, which opens it, and a
// tools/call) and a second call on it. Medians of -rounds starts.
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
	storeURL := *restartStore
	if storeURL == "" {
		storeURL = filepath.Join(dir, "restart.db")
	}
	begun := time.Now()
	if err := storeServers(storeURL, n); err != nil {
		return err
	}
	fmt.Printf("stored %d servers in %s (%s)\n", n, openstore.Redact(storeURL), time.Since(begun).Round(time.Millisecond))
	cfg := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(cfg, []byte("{}\n"), 0o644); err != nil {
		return err
	}
	var ready, first, second []time.Duration
	for i := range max(*rounds, 1) {
		slug := ""
		if n > 0 {
			slug = fmt.Sprintf("s%05d", (i*7919)%n) // a different server each start
		}
		r, err := timeToReady(bin, cfg, storeURL, slug)
		if err != nil {
			return err
		}
		ready = append(ready, r.ready)
		if slug != "" {
			first, second = append(first, r.first), append(second, r.second)
		}
	}
	fmt.Printf("time to /healthz 200 of `mcpbridge serve` with %d stored servers: median %s of %d starts (all: %v)\n",
		n, medianDuration(ready), len(ready), ready)
	if len(first) > 0 {
		fmt.Printf("first use of a stored server after ready (opens it: server/discover + tools/call): median %s (all: %v); a second call: median %s\n",
			medianDuration(first), first, medianDuration(second))
	}
	return nil
}

func medianDuration(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2].Round(time.Millisecond)
}

// storeServers writes n command servers s00000… into the store at url (a SQLite path or a
// postgres:// URL).
func storeServers(url string, n int) error {
	ctx := context.Background()
	st, err := openstore.Open(ctx, url, slog.New(slog.DiscardHandler))
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

// restartTimes are the figures of one start.
type restartTimes struct {
	ready  time.Duration // from the start of the process to /healthz 200
	first  time.Duration // the first use of a stored server: server/discover and tools/call
	second time.Duration // a second tools/call on it
}

// timeToReady starts serve and returns how long it took until /healthz answered 200 and,
// when slug is set, how long the first use of that stored server and a second call took;
// it then stops the process.
func timeToReady(bin, cfg, storeURL, slug string) (restartTimes, error) {
	var rt restartTimes
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return rt, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve", "--config", cfg, "--store", storeURL, "--listen", addr, "--log-level", "warn")
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return rt, err
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	hc := &http.Client{Timeout: time.Second}
	for rt.ready == 0 {
		if time.Since(start) > 2*time.Minute {
			return rt, fmt.Errorf("serve with %s did not answer /healthz 200 within 2 minutes", openstore.Redact(storeURL))
		}
		resp, err := hc.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				rt.ready = time.Since(start)
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	if slug == "" {
		return rt, nil
	}
	begun := time.Now()
	c, err := newRawMCP("http://"+addr+"/mcp/"+slug, "2026-07-28", 1)
	if err != nil {
		return rt, fmt.Errorf("first use of %s: %w", slug, err)
	}
	defer c.close()
	c.tool, c.args = "date", []byte(`{}`)
	if err := c.callTool(0); err != nil {
		return rt, fmt.Errorf("first call of %s: %w", slug, err)
	}
	rt.first = time.Since(begun)
	begun = time.Now()
	if err := c.callTool(0); err != nil {
		return rt, fmt.Errorf("second call of %s: %w", slug, err)
	}
	rt.second = time.Since(begun)
	return rt, nil
}
