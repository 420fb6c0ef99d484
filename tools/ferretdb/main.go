// Command ferretdb runs an embedded FerretDB (v1.24, SQLite handler) on a loopback port, as
// the MongoDB server of mcpbridge's tests. It lives in its own module so that FerretDB and
// its dependencies never enter the mcpbridge binary's module graph.
//
// Usage:
//
//	ferretdb -sqlite DIR [-listen 127.0.0.1:0]
//
// When the server accepts connections it prints one line, `ready mongodb://HOST:PORT/`, to
// standard output. It stops on SIGINT or SIGTERM, and when its standard input reaches end
// of file, so a test that dies without cleaning up does not leave it running.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb:", err)
		os.Exit(1)
	}
}

func run() error {
	listen := flag.String("listen", "127.0.0.1:0", "TCP address to listen on (loopback; port 0 picks a free one)")
	dir := flag.String("sqlite", "", "directory for the SQLite databases (required; created if missing)")
	verbose := flag.Bool("v", false, "log FerretDB's info messages to standard error (default: warnings only)")
	flag.Parse()
	if *dir == "" {
		return errors.New("-sqlite DIR is required: the directory where FerretDB keeps its SQLite files")
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return fmt.Errorf("resolve -sqlite %q: %w", *dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return fmt.Errorf("create the SQLite directory: %w", err)
	}

	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: *listen},
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: "file:" + abs + "/",
	})
	if err != nil {
		return fmt.Errorf("configure FerretDB: %w", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		// End of standard input (the parent closed the pipe or died) stops the server.
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()

	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	uri := f.MongoDBURI() // waits for the listener
	if err := waitTCP(ctx, uri); err != nil {
		return err
	}
	fmt.Println("ready", uri)

	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("FerretDB stopped: %w", err)
	}
	return nil
}

// waitTCP dials the host of uri until it answers, so "ready" means ready.
func waitTCP(ctx context.Context, uri string) error {
	host := uri
	if i := len("mongodb://"); len(host) > i && host[:i] == "mongodb://" {
		host = host[i:]
	}
	for j := 0; j < len(host); j++ {
		if host[j] == '/' || host[j] == '?' {
			host = host[:j]
			break
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", host, time.Second)
		if err == nil {
			return c.Close()
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("FerretDB does not accept connections on %s: %w", host, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
