package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.yaml.in/yaml/v3"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/store/openstore"
)

// appStoreDir is the folder inside an app that holds the work-session store of
// `mcpbridge app` when --store is not given.
const appStoreDir = ".mcpbridge"

// appBuildDir is the folder inside an app that `mcpbridge app --build` writes.
const appBuildDir = "mcp"

// lowdefySecretEnv prefixes the environment variables that hold an app's secrets, as
// Lowdefy's own server reads them (LOWDEFY_SECRET_NAME is `_secret: NAME`).
const lowdefySecretEnv = "LOWDEFY_SECRET_"

const appUsage = `DIR [--http [--listen ADDR] [--insecure]] [--build] [--watch] [--store URL] [--toolset session|forms|both] [--allow-private]

Serves the Lowdefy app in DIR (the folder holding lowdefy.yaml, or a lowdefy build folder) as
one MCP server named after the app: over stdio by default (for desktop clients), or over
Streamable HTTP at http://ADDR/mcp/NAME with --http. The app's secrets come from
LOWDEFY_SECRET_<NAME> environment variables, as for Lowdefy's own server.

Other subcommands: app check DIR, app eval EXPR_JSON, app run DIR --script FILE.json.

Flags:`

// appOptions are the flags of `mcpbridge app DIR`.
type appOptions struct {
	dir          string // absolute
	http         bool
	listen       string
	build        bool
	watch        bool
	store        string
	toolset      string
	allowPrivate bool
	insecure     bool
	logLevel     string
}

// stdioArgs are the arguments of the command that serves the same app over stdio, for the
// desktop snippet of its page: "app DIR" and the flags that change what is served.
func (o appOptions) stdioArgs() []string {
	args := []string{"app", o.dir}
	if o.store != "" {
		st := o.store
		if kind, path, err := openstore.Parse(st); err == nil && kind == "sqlite" && !filepath.IsAbs(path) {
			if abs, err := filepath.Abs(path); err == nil {
				st = "sqlite:" + abs // the snippet runs in another folder
			}
		}
		args = append(args, "--store", st)
	}
	if o.toolset != "" {
		args = append(args, "--toolset", o.toolset)
	}
	if o.allowPrivate {
		args = append(args, "--allow-private")
	}
	return args
}

// runAppServe serves one Lowdefy app directly: `mcpbridge app DIR [flags]`.
func runAppServe(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "app", appUsage)
	var o appOptions
	fs.BoolVar(&o.http, "http", false, "serve over Streamable HTTP instead of stdio")
	fs.StringVar(&o.listen, "listen", "", "with --http: the address to listen on (default "+config.DefaultListen+")")
	fs.BoolVar(&o.insecure, "insecure", false, "with --http: serve on a non-loopback address anyway (mcpbridge app has no authentication)")
	fs.BoolVar(&o.build, "build", false, "write DIR/mcp/tools.json and DIR/mcp/resources.json (what tools/list and resources/list answer) and exit")
	fs.BoolVar(&o.watch, "watch", false, "reload the app when its files change; clients are told the lists changed")
	fs.StringVar(&o.store, "store", "", "store URL for work sessions: sqlite:PATH or postgres://... (default sqlite:DIR/"+appStoreDir+"/mcpbridge.db)")
	fs.StringVar(&o.toolset, "toolset", "", "which tools to offer: session (work-session tools), forms (generated form tools) or both (default both)")
	fs.BoolVar(&o.allowPrivate, "allow-private", false, "let the app's AxiosHttp connections and Fetch reach loopback and private addresses")
	fs.StringVar(&o.logLevel, "log-level", "", "debug, info, warn or error (logs go to stderr; default warn over stdio, info over HTTP)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		if len(pos) == 0 {
			fmt.Fprintln(e.stderr, "mcpbridge app: give the app's folder (the one holding lowdefy.yaml)")
		} else {
			fmt.Fprintf(e.stderr, "mcpbridge app: one app folder at a time, got %d arguments: %s\n", len(pos), strings.Join(pos, " "))
		}
		fs.Usage()
		return errUsage
	}
	switch {
	case o.insecure && !o.http:
		fmt.Fprintln(e.stderr, "mcpbridge app: --insecure applies to --http only")
		return errUsage
	case o.listen != "" && !o.http:
		fmt.Fprintln(e.stderr, "mcpbridge app: --listen needs --http (without it the app is served over stdio)")
		return errUsage
	case o.build && (o.http || o.watch):
		fmt.Fprintln(e.stderr, "mcpbridge app: --build writes the tool and resource lists and exits; leave out --http and --watch")
		return errUsage
	}
	if o.listen != "" {
		if _, _, err := net.SplitHostPort(o.listen); err != nil || strings.HasPrefix(o.listen, "-") {
			fmt.Fprintf(e.stderr, "mcpbridge app: --listen %q is not an address: write HOST:PORT, such as 127.0.0.1:8080\n", o.listen)
			return errUsage
		}
	}
	if o.dir, err = filepath.Abs(pos[0]); err != nil {
		return fmt.Errorf("app folder %s: %w", pos[0], err)
	}
	if _, err := os.Stat(o.dir); errors.Is(err, os.ErrNotExist) && !strings.ContainsRune(pos[0], filepath.Separator) {
		// Perhaps a misspelt subcommand rather than a folder.
		return fmt.Errorf("no app folder %s (the app subcommands are check, eval and run; to serve an app give its folder, the one holding lowdefy.yaml)", pos[0])
	}
	if o.logLevel == "" {
		o.logLevel = "warn"
		if o.http {
			o.logLevel = "info"
		}
	}
	log, err := newLogger(e.stderr, o.logLevel)
	if err != nil {
		return err
	}
	a, err := loadAppDir(o.dir)
	if err != nil {
		return err
	}
	name := appServerName(a.Name, o.dir)
	title := cmp.Or(a.Name, filepath.Base(o.dir))
	cfg, err := appConfig(name, title, o)
	if err != nil {
		return err
	}
	if o.build {
		return buildApp(ctx, e, cfg, name, o, log)
	}
	if o.http && !o.insecure {
		// Refused before anything is opened or created.
		if addr := cmp.Or(o.listen, config.DefaultListen); !isLoopbackListen(addr) {
			return fmt.Errorf("an app served by mcpbridge app has no authentication, and %s can be reached from other machines: anyone who reaches it could call every tool.\n"+
				"Listen on a loopback address (--listen 127.0.0.1:PORT), serve the app with mcpbridge serve and a kind: lowdefy server (API keys or JWTs, see docs/auth.md),\n"+
				"or pass --insecure to serve without authentication anyway", addr)
		}
	}
	gateway.TuneGC()
	stURL := o.store
	if stURL == "" {
		dir := filepath.Join(o.dir, appStoreDir)
		if p := firstLink(dir, filepath.Join(dir, config.DefaultStoreFile)); p != "" {
			return fmt.Errorf("%s is a symbolic link; the work-session store is kept only inside the app folder: remove the link, or choose a store with --store sqlite:PATH", p)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("creating the work-session store's folder (or choose one with --store sqlite:PATH): %w", err)
		}
		stURL = "sqlite:" + filepath.Join(o.dir, appStoreDir, config.DefaultStoreFile)
	}
	st, err := openStore(ctx, stURL, log)
	if err != nil {
		return err
	}
	defer st.Close()
	opts := gateway.Options{Logger: log, Version: version(), Blobs: st.Blobs, WorkSessions: st.WorkSessions, StoreFile: sqliteFile(stURL), ConfigLabel: o.dir,
		StdioArgs: func(string) []string { return o.stdioArgs() }}
	if o.http {
		opts.Audit, opts.Keys = st.Audit, st.Keys
	}
	g, err := gateway.New(ctx, cfg, opts)
	if err != nil {
		return err
	}
	defer g.Close()
	if why := g.Entry(name).Unavailable(); why != "" {
		return fmt.Errorf("the app cannot be served: %s", why)
	}
	if o.watch {
		go watchApp(ctx, o.dir, g, func() (*config.Server, error) {
			if _, err := loadAppDir(o.dir); err != nil {
				return nil, err
			}
			c, err := appConfig(name, title, o)
			if err != nil {
				return nil, err
			}
			return c.Servers[name], nil
		}, log)
	}
	if !o.http {
		return serveStdio(ctx, e, cfg, g, st.Keys, name)
	}
	addr := o.listen
	if addr == "" {
		addr = config.DefaultListen
	}
	if o.insecure && !isLoopbackListen(addr) {
		log.Warn("serving WITHOUT AUTHENTICATION on a non-loopback address (--insecure): anyone who can reach it can list and call every tool", "listen", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s (choose another address with --listen): %w", addr, err)
	}
	debug.FreeOSMemory()
	log.Info("mcpbridge serving a Lowdefy app", "app", o.dir, "url", "http://"+ln.Addr().String()+"/mcp/"+name, "store", st.Kind, "watch", o.watch)
	return g.Serve(ctx, ln)
}

// loadAppDir loads the app as the lowdefy backend will, turning its problems into an error
// that lists each of them with its file and line.
func loadAppDir(dir string) (*app.App, error) {
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return nil, fmt.Errorf("the app folder %s cannot be read: %w", dir, err)
	case !fi.IsDir():
		return nil, fmt.Errorf("%s is a file; give the folder that holds lowdefy.yaml", dir)
	}
	var a *app.App
	switch {
	case app.IsBuildDir(dir):
		a, err = app.LoadBuild(dir)
	case fileExists(filepath.Join(dir, ".lowdefy", "server", "build", "config.json")) && !fileExists(filepath.Join(dir, "lowdefy.yaml")) && !fileExists(filepath.Join(dir, "lowdefy.yml")):
		a, err = app.LoadBuild(filepath.Join(dir, ".lowdefy", "server", "build"))
	case fileExists(filepath.Join(dir, "lowdefy.yaml")), fileExists(filepath.Join(dir, "lowdefy.yml")):
		a, err = app.Load(dir, app.Options{})
	default:
		return nil, fmt.Errorf("%s holds neither lowdefy.yaml nor a Lowdefy build (config.json); give the app's folder", dir)
	}
	if err != nil {
		var le *app.Error
		if errors.As(err, &le) && len(le.Problems) > 0 {
			lines := make([]string, len(le.Problems))
			for i, p := range le.Problems {
				lines[i] = "  " + p.String()
			}
			return nil, fmt.Errorf("the app in %s does not load; fix:\n%s", dir, strings.Join(lines, "\n"))
		}
		return nil, fmt.Errorf("the app in %s does not load: %w", dir, err)
	}
	return a, nil
}

var nameRun = lazy.Regexp{Expr: `[^a-z0-9_]+`}

// appServerName is the server name of an app: its lowdefy.yaml name, else its folder's
// name, made a valid server name (lowercase letters, digits, '-' and '_'); "app" when
// neither gives one.
func appServerName(appName, dir string) string {
	for _, s := range []string{appName, filepath.Base(dir)} {
		n := strings.Trim(nameRun.Get().ReplaceAllString(strings.ToLower(s), "-"), "-_")
		if len(n) > 63 {
			n = strings.TrimRight(n[:63], "-_")
		}
		if config.NamePattern.Get().MatchString(n) && n != "mcp" && n != "meta" {
			return n
		}
	}
	return "app"
}

// appConfig is the in-memory configuration `mcpbridge app` serves: one kind lowdefy server
// called name for the app (titled title), with a secret reference for every LOWDEFY_SECRET_* environment variable.
func appConfig(name, title string, o appOptions) (*config.Config, error) {
	secrets := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		// An empty variable provides nothing (secret references refuse empty values): the
		// app runs without it and the start warns about it, as for one that is not set.
		if n, ok := strings.CutPrefix(k, lowdefySecretEnv); ok && n != "" && v != "" && secretNamePattern.Get().MatchString(n) {
			secrets[n] = "env:" + k
		}
	}
	server := map[string]any{
		"kind":        "lowdefy",
		"title":       title,
		"description": fmt.Sprintf("The Lowdefy app %q, used like a person uses it in a browser.", title),
		"app":         o.dir,
	}
	if o.toolset != "" {
		server["toolset"] = o.toolset
	}
	if len(secrets) > 0 {
		server["secrets"] = secrets
	}
	if o.allowPrivate {
		server["allow_private"] = true
	}
	doc, err := yaml.Marshal(map[string]any{"servers": map[string]any{name: server}})
	if err != nil {
		return nil, fmt.Errorf("building the app's configuration: %w", err)
	}
	cfg, err := config.Parse("mcpbridge app "+o.dir, o.dir, doc, backend.Kinds())
	if err != nil {
		var ps config.Problems
		if errors.As(err, &ps) {
			lines := make([]string, len(ps))
			for i, p := range ps {
				// The file and position are of the generated config; the path and message
				// say what is wrong (a flag's value, an environment variable's name).
				lines[i] = "  " + strings.TrimPrefix(p.Path, "servers."+name+".") + ": " + p.Msg
			}
			return nil, fmt.Errorf("cannot serve the app:\n%s", strings.Join(lines, "\n"))
		}
		return nil, err
	}
	return cfg, nil
}

var secretNamePattern = lazy.Regexp{Expr: `^[A-Za-z_][A-Za-z0-9_]*$`}

// buildApp writes DIR/mcp/tools.json and DIR/mcp/resources.json: what a client gets from
// tools/list, and from resources/list and resources/templates/list, on the app's server.
func buildApp(ctx context.Context, e *env, cfg *config.Config, name string, o appOptions, log *slog.Logger) error {
	// The backend keeps work sessions in a store; listing needs none, so a throwaway one.
	tmp, err := os.MkdirTemp("", "mcpbridge-app-build-")
	if err != nil {
		return fmt.Errorf("creating a temporary store: %w", err)
	}
	defer os.RemoveAll(tmp)
	st, err := openStore(ctx, "sqlite:"+filepath.Join(tmp, "build.db"), log)
	if err != nil {
		return err
	}
	defer st.Close()
	g, err := gateway.New(ctx, cfg, gateway.Options{Logger: log, Version: version(), WorkSessions: st.WorkSessions})
	if err != nil {
		return err
	}
	defer g.Close()
	entry := g.Entry(name)
	if why := entry.Unavailable(); why != "" {
		return fmt.Errorf("the app cannot be served: %s", why)
	}
	p, err := stdioPrincipal(ctx, cfg, nil)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(auth.WithPrincipal(ctx, p))
	defer cancel()
	ct, stt := mcp.NewInMemoryTransports()
	ss, err := entry.Server.Connect(ctx, stt, nil)
	if err != nil {
		return fmt.Errorf("listing the app's tools: %w", err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcpbridge-app-build", Version: version()}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return fmt.Errorf("listing the app's tools: %w", err)
	}
	defer cs.Close()
	tools := []*mcp.Tool{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing the app's tools: %w", err)
		}
		tools = append(tools, t)
	}
	resources := []*mcp.Resource{}
	templates := []*mcp.ResourceTemplate{}
	if cs.InitializeResult().Capabilities.Resources != nil {
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				return fmt.Errorf("listing the app's resources: %w", err)
			}
			resources = append(resources, r)
		}
		for t, err := range cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				return fmt.Errorf("listing the app's resource templates: %w", err)
			}
			templates = append(templates, t)
		}
	}
	sort.Slice(resources, func(i, j int) bool { return resources[i].URI < resources[j].URI })
	sort.Slice(templates, func(i, j int) bool { return templates[i].URITemplate < templates[j].URITemplate })
	out := filepath.Join(o.dir, appBuildDir)
	toolsFile := filepath.Join(out, "tools.json")
	resFile := filepath.Join(out, "resources.json")
	// --build writes only inside the app folder: a link at DIR/mcp or at one of its files
	// (perhaps from a checked-out repository) is refused, not written through.
	if p := firstLink(out, toolsFile, resFile); p != "" {
		hint := "remove the link"
		if p == out {
			hint += " (or make " + appBuildDir + " a folder)"
		}
		return fmt.Errorf("%s is a symbolic link; --build writes only inside the app folder: %s", p, hint)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", out, err)
	}
	if err := writeJSON(toolsFile, map[string]any{"tools": tools}); err != nil {
		return err
	}
	if err := writeJSON(resFile, map[string]any{"resources": resources, "resourceTemplates": templates}); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "app %s: wrote %s (%d tools) and %s (%d resources, %d templates)\n",
		name, toolsFile, len(tools), resFile, len(resources), len(templates))
	return nil
}

// writeJSON writes v to path as indented JSON, through a temporary file so that a reader
// never sees half of it.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	// A fresh temporary file (created, never opened through an existing name or link).
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// firstLink returns the first of paths that is a symbolic link, or "".
func firstLink(paths ...string) string {
	for _, p := range paths {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return p
		}
	}
	return ""
}
