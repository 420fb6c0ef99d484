package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mcpbridge/mcpbridge/internal/config"
)

type nopReadCloser struct{ io.Reader }

func (nopReadCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func runCheck(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "check", "--config FILE")
	cfgPath := fs.String("config", "", "config file to validate")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *cfgPath == "" && len(pos) == 1 {
		*cfgPath = pos[0]
	} else if *cfgPath == "" || len(pos) > 0 {
		fs.Usage()
		return errUsage
	}
	cfg, err := config.Load(*cfgPath)
	if err != nil {
		var ps config.Problems
		if errors.As(err, &ps) {
			for _, p := range ps {
				fmt.Fprintln(e.stderr, p)
			}
			return exitError{1}
		}
		fmt.Fprintf(e.stderr, "%s: %v\n", *cfgPath, err)
		return exitError{1}
	}
	tools := 0
	for _, s := range cfg.Servers {
		tools += len(s.Tools)
	}
	fmt.Fprintf(e.stdout, "%s: ok (%d servers, %d tools)\n", *cfgPath, len(cfg.Servers), tools)
	return nil
}

func runCID(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] != "add" {
		fmt.Fprintln(e.stderr, "Usage: mcpbridge cid add [--config FILE] [--store URL] FILE")
		return errUsage
	}
	fs := newFlags(e, "cid add", "[--config FILE] [--store URL] FILE")
	cfgPath := fs.String("config", "", "config file (its store: and directory choose the store)")
	storeFlag := fs.String("store", "", "store URL (default mcpbridge.db beside the config)")
	pos, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return errUsage
	}
	data, err := os.ReadFile(pos[0])
	if err != nil {
		return err
	}
	cfg := &config.Config{}
	if *cfgPath != "" || fileExists(defaultConfigFile) {
		cfg, _, err = loadConfig(*cfgPath, nil)
		if err != nil {
			return err
		}
	} else {
		cfg.Dir, _ = os.Getwd()
	}
	st, err := openStore(ctx, storeURL(*storeFlag, cfg), nil)
	if err != nil {
		return err
	}
	defer st.Close()
	id, err := st.Blobs.Put(ctx, data)
	if err != nil {
		return fmt.Errorf("adding %s: %w", filepath.Base(pos[0]), err)
	}
	fmt.Fprintf(e.stdout, "cid://%s\n", id)
	return nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func runApp(ctx context.Context, e *env, args []string) error {
	fmt.Fprintln(e.stderr, "mcpbridge app: Lowdefy app tools are not in this build yet")
	return exitError{1}
}

func runImport(ctx context.Context, e *env, args []string) error {
	fmt.Fprintln(e.stderr, "mcpbridge import: not in this build yet")
	return exitError{1}
}
