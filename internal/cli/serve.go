package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/examples"
	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	_ "github.com/mcpbridge/mcpbridge/internal/backend/all"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/secret"
	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/openstore"
)

// defaultConfigFile is read by serve when --config is not given.
const defaultConfigFile = "mcpbridge.yaml"

// loadConfig reads path, or ./mcpbridge.yaml, or the embedded quickstart.
func loadConfig(path string, log *slog.Logger) (*config.Config, string, error) {
	if path == "" {
		if _, err := os.Stat(defaultConfigFile); err == nil {
			path = defaultConfigFile
		}
	}
	if path == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, "", err
		}
		cfg, err := config.Parse("examples/quickstart.yaml (embedded)", wd, examples.Quickstart, backend.Kinds())
		if err != nil {
			return nil, "", fmt.Errorf("embedded quickstart: %w", err)
		}
		if log != nil {
			log.Info("no --config and no ./mcpbridge.yaml: serving the embedded quickstart example")
		}
		return cfg, "", nil
	}
	cfg, err := config.Load(path, backend.Kinds())
	if err != nil {
		var ps config.Problems
		if errors.As(err, &ps) {
			return nil, "", fmt.Errorf("invalid config:\n%w", err)
		}
		return nil, "", err
	}
	if log != nil {
		for _, w := range cfg.Warnings {
			log.Warn("config", "problem", w.String())
		}
	}
	abs, _ := filepath.Abs(path)
	return cfg, abs, nil
}

// storeURL picks the store: the flag, then the config, then mcpbridge.db beside the config.
func storeURL(flagValue string, cfg *config.Config) string {
	switch {
	case flagValue != "":
		return flagValue
	case cfg.Store != "":
		if strings.HasPrefix(cfg.Store, "sqlite:") {
			p := strings.TrimPrefix(strings.TrimPrefix(cfg.Store, "sqlite:"), "//")
			if !filepath.IsAbs(p) {
				return "sqlite:" + filepath.Join(cfg.Dir, p)
			}
		}
		return cfg.Store
	}
	return "sqlite:" + filepath.Join(cfg.Dir, config.DefaultStoreFile)
}

// sqliteFile returns the database file of a SQLite store URL, or "".
func sqliteFile(url string) string {
	if kind, target, err := openstore.Parse(url); err == nil && kind == "sqlite" {
		return target
	}
	return ""
}

func openStore(ctx context.Context, url string, log *slog.Logger) (*store.Store, error) {
	st, err := openstore.Open(ctx, url, log)
	if err != nil {
		return nil, fmt.Errorf("opening store: %w", err)
	}
	return st, nil
}

func runServe(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "serve", "[--config FILE] [--listen ADDR] [--store URL] [--insecure]")
	cfgPath := fs.String("config", "", "config file (default ./mcpbridge.yaml, else the embedded quickstart)")
	listen := fs.String("listen", "", "address to listen on (default "+config.DefaultListen+", or listen: in the config)")
	storeFlag := fs.String("store", "", "store URL: sqlite:PATH or postgres://... (default mcpbridge.db beside the config)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	insecure := fs.Bool("insecure", false, "serve on a non-loopback address without authentication (no auth section in the config)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError(e, fs, pos, "")
	}
	log, err := newLogger(e.stderr, *logLevel)
	if err != nil {
		return err
	}
	gateway.TuneGC()
	cfg, abs, err := loadConfig(*cfgPath, log)
	if err != nil {
		return err
	}
	addr := *listen
	if addr == "" {
		addr = cfg.Listen
	}
	if addr == "" {
		addr = config.DefaultListen
	}
	if err := checkExposure(addr, cfg, *insecure, log); err != nil {
		return err
	}
	defaultSpillDir(cfg, log)
	stURL := storeURL(*storeFlag, cfg)
	st, err := openStore(ctx, stURL, log)
	if err != nil {
		return err
	}
	defer st.Close()
	adminKeys, err := adminKeys(cfg)
	if err != nil {
		return err
	}
	g, err := gateway.New(ctx, cfg, gateway.Options{Logger: log, Version: version(), Blobs: st.Blobs, WorkSessions: st.WorkSessions, ConfigLabel: abs, RequireSecrets: true,
		Definitions: st.Definitions, AdminKeys: adminKeys, Audit: st.Audit, StoreFile: sqliteFile(stURL), Keys: st.Keys})
	if err != nil {
		return err
	}
	defer g.Close()
	if len(adminKeys) > 0 {
		log.Info("admin API on", "path", "/admin/api/servers")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	if host, _, _ := net.SplitHostPort(addr); host == "" || host == "0.0.0.0" || host == "::" {
		log.Warn("listening on all interfaces: anyone who can reach this machine can call its tools", "listen", addr)
	}
	// Start-up (config, schemas, migrations, the list of stored servers) leaves garbage
	// behind; give it back before idling, without holding up the first requests: the
	// collection takes a few hundred milliseconds with 10,000 stored servers.
	go debug.FreeOSMemory()
	// Stored servers are counted by the gateway's own line ("stored servers listed").
	log.Info("mcpbridge serving", "url", "http://"+ln.Addr().String()+"/mcp", "config_servers", len(cfg.Servers), "store", st.Kind)
	if abs != "" {
		go watchConfig(ctx, abs, g, log)
	}
	return g.Serve(ctx, ln)
}

func runStdio(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "stdio", "[--config FILE] [--store URL] SERVER")
	cfgPath := fs.String("config", "", "config file (default ./mcpbridge.yaml, else the embedded quickstart)")
	storeFlag := fs.String("store", "", "store URL (default mcpbridge.db beside the config)")
	logLevel := fs.String("log-level", "warn", "debug, info, warn or error (logs go to stderr)")
	pos, err := parseN(fs, args, 1)
	if err != nil {
		return err
	}
	name := pos[0]
	log, err := newLogger(e.stderr, *logLevel)
	if err != nil {
		return err
	}
	gateway.TuneGC()
	cfg, _, err := loadConfig(*cfgPath, nil)
	if err != nil {
		return err
	}
	defaultSpillDir(cfg, log)
	stURL := storeURL(*storeFlag, cfg)
	st, err := openStore(ctx, stURL, log)
	if err != nil {
		return fmt.Errorf("%w\n(the store is where servers added through the admin API live; choose it with --store sqlite:PATH or --store postgres://...)", err)
	}
	defer st.Close()
	var defs store.Definitions
	s, ok := cfg.Servers[name]
	if ok {
		cfg.Servers = map[string]*config.Server{name: s} // only the requested server is opened
	} else {
		// A server stored through the admin API.
		if _, err := st.Definitions.Get(ctx, name); err != nil {
			return fmt.Errorf("no server named %q in the config or the store %s (have: %s)", name, stURL, serverNames(ctx, cfg.ServerNames(), st.Definitions))
		}
		cfg.Servers = map[string]*config.Server{}
		defs = onlySlug{st.Definitions, name}
	}
	if s != nil && !s.IsEnabled() {
		return errDisabled(name)
	}
	g, err := gateway.New(ctx, cfg, gateway.Options{Logger: log, Version: version(), Blobs: st.Blobs, WorkSessions: st.WorkSessions,
		Definitions: defs, Audit: st.Audit, StoreFile: sqliteFile(stURL), RequireSecrets: true})
	if err != nil {
		return fmt.Errorf("server %q cannot be served: %w", name, err)
	}
	defer g.Close() // writes the audit rows still queued
	sctx, stopSweep := context.WithCancel(ctx)
	defer stopSweep()
	go g.Sweep(sctx) // audit retention and work-session expiry, as serve does
	if g.Entry(name) == nil {
		return fmt.Errorf("stored server %q cannot be served; `mcpbridge serve` logs why", name)
	}
	if !g.Entry(name).Config().IsEnabled() {
		return errDisabled(name) // a stored server, disabled
	}
	if why := g.Entry(name).Unavailable(); why != "" {
		// Serving one server that cannot open (a stored one whose secret is not set, say)
		// would only fail each call.
		return fmt.Errorf("server %q cannot be served: %s", name, why)
	}
	return serveStdio(ctx, e, cfg, g, st.Keys, name)
}

// errDisabled is the answer for a server that is defined but disabled, the same whether it
// is in the config file or the store (and the same as /mcp/{server} gives).
func errDisabled(name string) error {
	return fmt.Errorf("server %q is disabled (enabled: false in its definition)", name)
}

// serveStdio serves the gateway's server name over stdin and stdout until the input ends,
// as the principal the environment names (stdioPrincipal), after checking that principal
// may use it.
func serveStdio(ctx context.Context, e *env, cfg *config.Config, g *gateway.Gateway, keys store.Keys, name string) error {
	// The principal comes from the environment, never from the protocol.
	p, err := stdioPrincipal(ctx, cfg, keys)
	if err != nil {
		return err
	}
	public, roles := cfg.ServerRule(g.Entry(name).Config())
	switch auth.AuthorizeServer(p, name, auth.Rule{Public: public, Roles: roles}) {
	case auth.Unauthenticated:
		return fmt.Errorf("server %q needs a principal: set %s to an API key, or %s (and %s) to say who runs it", name, apiKeyEnv, userEnv, rolesEnv)
	case auth.Forbidden:
		return fmt.Errorf("user %q may not use server %q (it requires one of the roles %s, or the key is limited to other servers)", p.User, name, strings.Join(roles, ", "))
	}
	ctx = auth.WithPrincipal(ctx, p)
	// Requests read before stdin closes are answered before the server sees the end.
	pipe := newStdioPipe(e.stdin, e.stdout, cfg.Limits.DrainPeriod)
	t := &mcp.IOTransport{Reader: pipe, Writer: nopWriteCloser{pipe}}
	err = g.Entry(name).Server.Run(ctx, t)
	if err != nil && (errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "closed")) {
		return nil
	}
	return err
}

// adminKeyEnv is the environment variable that holds an admin API key.
const adminKeyEnv = "MCPBRIDGE_ADMIN_KEY"

// isSecretEnv reports whether the environment variable name holds a secret of the gateway
// (secret:NAME references and the admin key): serve and stdio take these out of the
// environment child processes can read (/proc/PID/environ), see proc.HideEnv.
func isSecretEnv(name string) bool {
	return strings.HasPrefix(name, secret.EnvPrefix) || name == adminKeyEnv || name == apiKeyEnv
}

// adminKeys returns the admin API keys: MCPBRIDGE_ADMIN_KEY and the config's admin.keys
// (each a secret reference: secret:NAME, env:NAME or file:PATH).
func adminKeys(cfg *config.Config) ([]string, error) {
	var keys []string
	if k := os.Getenv(adminKeyEnv); k != "" {
		keys = append(keys, k)
	}
	for i, ref := range cfg.Admin.Keys {
		if !secret.IsRef(ref) {
			return nil, fmt.Errorf("admin.keys[%d]: write a reference (secret:NAME, env:NAME or file:PATH), not the key itself", i)
		}
		v, _, err := secret.Resolve(cfg.Dir, fmt.Sprintf("admin.keys[%d]", i), ref)
		if err != nil {
			return nil, err
		}
		keys = append(keys, v)
	}
	for _, k := range keys {
		if len(k) < 16 {
			return nil, errors.New("an admin key is shorter than 16 characters; use a long random key (e.g. openssl rand -hex 32)")
		}
	}
	return keys, nil
}

// onlySlug is a store's definitions narrowed to one slug, for stdio serving one stored server.
type onlySlug struct {
	store.Definitions
	slug string
}

// List returns the one definition.
func (o onlySlug) List(ctx context.Context) ([]store.Definition, error) {
	d, err := o.Definitions.Get(ctx, o.slug)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return []store.Definition{d}, nil
}

// errNoAuth refuses a non-loopback listener without authentication.
var errNoAuth = errors.New("no authentication is configured")

// checkExposure refuses to serve on an address other machines can reach (anything but a
// loopback IP or localhost) when the config has no auth section: without one, every server
// that does not set its own auth is open to anyone who reaches the port. With an auth
// section, servers need credentials (API keys in the config or the store, or JWTs) unless
// they say auth: {public: true}. --insecure serves anyway, with a warning.
func checkExposure(addr string, cfg *config.Config, insecure bool, log *slog.Logger) error {
	if isLoopbackListen(addr) || cfg.Auth != nil {
		return nil
	}
	if insecure {
		log.Warn("serving WITHOUT AUTHENTICATION on a non-loopback address (--insecure): anyone who can reach it can list and call every tool", "listen", addr)
		return nil
	}
	return fmt.Errorf("%w, and %s can be reached from other machines: anyone who reaches it could call every tool.\n"+
		"Configure authentication — an auth section with API keys (mcpbridge keys create, or auth.keys) or JWTs (auth.jwt); see docs/auth.md —\n"+
		"or listen on a loopback address (--listen 127.0.0.1:PORT), or pass --insecure to serve without authentication anyway", errNoAuth, addr)
}

// isLoopbackListen reports whether a listen address (host:port) accepts connections from
// this machine only: a loopback IP or localhost. An empty host, 0.0.0.0, :: and every other
// name are reachable from elsewhere.
func isLoopbackListen(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// defaultSpillDir sets audit.spill_dir, when the config leaves it empty, to the user's state
// directory (config.DefaultSpillDir), and warns when there is none.
func defaultSpillDir(cfg *config.Config, log *slog.Logger) {
	if cfg.Audit.SpillDir != "" {
		return
	}
	cfg.Audit.SpillDir = config.DefaultSpillDir()
	if cfg.Audit.SpillDir == "" {
		log.Warn("no state directory ($XDG_STATE_HOME or a home directory) for the audit spill file: audit rows the store does not take are kept in memory only; set audit.spill_dir")
	}
}
