package cli

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
)

// appFileExts are the files an app's configuration is made of (lowdefy.yaml and what it
// _refs: YAML, JSON, nunjucks templates, markdown and text, and JavaScript for _js and
// resolvers). Other files, such as an SQLite database the app writes to, do not trigger a
// reload.
var appFileExts = map[string]bool{
	".yaml": true, ".yml": true, ".json": true, ".json5": true, ".njk": true,
	".md": true, ".txt": true, ".js": true, ".mjs": true, ".cjs": true, ".html": true, ".css": true,
}

// watchApp reloads the app's server when a file of the app in dir changes (checked every
// reloadPoll) or on SIGHUP, until ctx ends. next loads the app and returns the server's new
// definition; an app that does not load is logged with its problems and the running app is
// kept. Connected clients are told the lists changed (notifications/tools/list_changed).
func watchApp(ctx context.Context, dir string, g *gateway.Gateway, next func() (*config.Server, error), log *slog.Logger) {
	watch(ctx, func() string { return appSum(dir) }, func() {
		s, err := next()
		if err == nil {
			err = g.ReloadServer(ctx, s)
		}
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if line = strings.TrimSpace(line); line != "" {
					log.Error("app reload refused; keeping the running app", "problem", line)
				}
			}
			return
		}
		log.Info("app reloaded", "app", dir)
	})
}

// appSum fingerprints the app's files (see appFileExts): their paths, sizes and modification
// times. Hidden folders (.lowdefy, .mcpbridge, .git), node_modules and the output of --build
// (mcp/) are left out.
func appSum(dir string) string {
	h := sha256.New()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a file removed while walking shows in the next sum
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(name, ".") || name == "node_modules" || p == filepath.Join(dir, appBuildDir)) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(name, ".") || !appFileExts[strings.ToLower(filepath.Ext(name))] {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\n", p, info.Size(), info.ModTime().UnixNano())
		return nil
	})
	return fmt.Sprintf("%x", h.Sum(nil))
}
