package cli

import (
	"context"
	"crypto/sha256"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
)

// reloadPoll is how often serve looks at its config file for changes.
const reloadPoll = time.Second

// watchConfig reloads the configuration file when its content changes (checked every
// reloadPoll) or on SIGHUP, until ctx ends. A valid new version is applied live; an invalid
// one is logged with its problems and the running configuration is kept.
func watchConfig(ctx context.Context, path string, g *gateway.Gateway, log *slog.Logger) {
	watch(ctx, func() string { return string(fileSum(path)) }, func() {
		cfg, err := config.Load(path, backend.Kinds())
		if err != nil {
			var ps config.Problems
			if errors.As(err, &ps) {
				for _, p := range ps {
					log.Error("config reload refused; keeping the running config", "problem", p.String())
				}
			} else {
				log.Error("config reload refused; keeping the running config", "error", err)
			}
			return
		}
		for _, w := range cfg.Warnings {
			log.Warn("config", "problem", w.String())
		}
		restart := g.Reload(ctx, cfg)
		log.Info("config reloaded", "file", path, "servers", len(cfg.Servers))
		if len(restart) > 0 {
			log.Warn("config reloaded; these settings take effect at the next start", "settings", restart)
		}
	})
}

// watch calls changed whenever sum's value differs from the one it last saw (checked every
// reloadPoll), and on every SIGHUP whatever sum says, until ctx ends. It serves both the
// config file watcher and the app folder watcher.
func watch(ctx context.Context, sum func() string, changed func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	last := sum()
	tick := time.NewTicker(reloadPoll)
	defer tick.Stop()
	for {
		forced := false
		select {
		case <-ctx.Done():
			return
		case <-hup:
			forced = true
		case <-tick.C:
		}
		cur := sum()
		if !forced && cur == last {
			continue
		}
		last = cur
		changed()
	}
}

// fileSum returns the SHA-256 of a file's content (nil when it cannot be read).
func fileSum(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	s := sha256.Sum256(b)
	return s[:]
}
