package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/journey"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/runtime"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/server"
	"github.com/mcpbridge/mcpbridge/internal/safehttp"
)

// runAppRun runs a journey script headlessly on a Lowdefy app and prints one JSON line per
// step (page id, state, global, shown validation, request results, event log, error).
func runAppRun(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "app run", "DIR --script FILE.json [--user JSON] [--now MS]")
	script := fs.String("script", "", "the journey script: a JSON array of steps such as {\"navigate\": \"PAGE\"}, {\"setValue\": \"BLOCK\", \"value\": V}, {\"trigger\": \"BLOCK\", \"event\": \"onClick\"}")
	var user jsonFlag
	fs.Var(&user, "user", "the session user (JSON object, _user); none = anonymous")
	now := fs.Int64("now", 0, "freeze the clock at this many milliseconds since the epoch (_date: now)")
	allowPrivate := fs.Bool("allow-private", false, "let AxiosHttp and Fetch reach loopback and private addresses (refused by default, as for HTTP tools)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *script == "" {
		fs.Usage()
		return errUsage
	}
	data, err := os.ReadFile(*script)
	if err != nil {
		return fmt.Errorf("reading the journey script: %w", err)
	}
	steps, err := journey.Parse(data)
	if err != nil {
		return fmt.Errorf("%s: %w", *script, err)
	}
	var opts runtime.Options
	if user.raw != nil {
		v, err := serial.Unmarshal(user.raw)
		if err != nil {
			return fmt.Errorf("--user: %w", err)
		}
		o, ok := v.(*jsvalue.Object)
		if !ok {
			return fmt.Errorf("--user must be a JSON object, such as '{\"sub\": \"u1\", \"roles\": [\"admin\"]}'")
		}
		opts.User = o
	}
	if *now != 0 {
		t := time.UnixMilli(*now)
		opts.Now = func() time.Time { return t }
	}
	a, err := app.Load(pos[0], app.Options{})
	if err != nil {
		return err
	}
	// Requests run on the app's connections with the LOWDEFY_SECRET_* variables of the
	// environment, as Lowdefy's server reads them; outgoing HTTP follows the SSRF rules of
	// HTTP tools.
	opts.Secrets = server.SecretsFromEnv(os.Environ())
	client := safehttp.NewClient(safehttp.Policy{AllowPrivate: *allowPrivate}, safehttp.Options{})
	opts.HTTPClient = func() *http.Client { return client }
	opts.Pools = &connections.Pools{}
	defer opts.Pools.Close()
	eng := runtime.NewEngine(a, opts)
	return journey.Run(ctx, eng, steps, e.stdout)
}
