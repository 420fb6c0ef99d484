package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/backend/httpapi"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/openapi"
	"github.com/mcpbridge/mcpbridge/internal/secret"
	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/transform"
)

type nopReadCloser struct{ io.Reader }

func (nopReadCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// checkUsage is the usage line of `mcpbridge check`.
const checkUsage = `[--strict] [--store URL] --config FILE

Validates a config and exits 1 with one FILE:LINE:COL line per problem. Warnings (a
program not on PATH, a secret reference that is not set in this environment) are printed
too but do not fail the check, so it runs in CI without the production secrets; --strict
makes them fail it. serve and stdio still refuse to start without a secret. A transform
module named by cid:// is read from the store serve would use (--store, or the config's)
when that store exists; check never creates one.

Flags:`

func runCheck(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "check", checkUsage)
	cfgPath := fs.String("config", "", "config file to validate")
	strict := fs.Bool("strict", false, "fail (exit 1) on warnings too, such as a secret that is not set")
	storeFlag := fs.String("store", "", "store URL to read cid:// transform modules from (default the config's, as serve)")
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
	cfg, err := config.Load(*cfgPath, backend.Kinds())
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
	// What only the running system can tell: the secrets each server names are set, its app
	// loads. Checked with the Deps every path builds, with a resolver that makes a secret
	// this environment lacks a warning.
	ps := append(config.Problems(nil), cfg.Warnings...)
	ps = append(ps, checkAdminKeys(cfg)...)
	tools, later := 0, []string{}
	services := backend.Services{Check: true}
	if needsContentStore(cfg) {
		st, problem := existingStore(ctx, storeURL(*storeFlag, cfg))
		if problem != "" {
			ps = append(ps, config.Problem{File: cfg.Path, Msg: problem, Warning: true})
		}
		if st != nil {
			defer st.Close()
			services.Blobs = st.Blobs
		}
	}
	for _, name := range cfg.ServerNames() {
		s := cfg.Servers[name]
		deps := backend.NewDeps(cfg, s, services)
		ps = append(ps, backend.Check(s, deps)...)
		if !s.IsEnabled() {
			continue
		}
		names, known := backend.ToolNames(s, deps)
		tools += len(names)
		if !known {
			later = append(later, name)
		}
	}
	ps.Sorted()
	failed := false
	for _, p := range ps {
		fmt.Fprintln(e.stderr, p)
		failed = failed || !p.Warning || *strict
	}
	if failed {
		if *strict && !slices.ContainsFunc(ps, func(p config.Problem) bool { return !p.Warning }) {
			fmt.Fprintf(e.stderr, "%s: %s (--strict)\n", *cfgPath, plural(len(ps), "warning"))
		}
		return exitError{1}
	}
	summary := fmt.Sprintf("%s, %s", plural(len(cfg.Servers), "server"), plural(tools, "tool"))
	switch len(later) {
	case 0:
	case 1:
		summary += ", and the tools server " + later[0] + " lists when it starts"
	default:
		summary += ", and the tools servers " + strings.Join(later, ", ") + " list when they start"
	}
	fmt.Fprintf(e.stdout, "%s: ok (%s)\n", *cfgPath, summary)
	return nil
}

// plural returns "1 server", "2 servers".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// checkAdminKeys reports the admin.keys references that are not set in this environment
// (warnings) or cannot be resolved (problems), as serve resolves them.
func checkAdminKeys(cfg *config.Config) config.Problems {
	var ps config.Problems
	for i, ref := range cfg.Admin.Keys {
		p := config.Problem{File: cfg.Path, Path: fmt.Sprintf("admin.keys[%d]", i)}
		_, err := backend.CheckSecrets{Dir: cfg.Dir}.Resolve("", ref)
		var m *backend.MissingSecret
		switch {
		case !secret.IsRef(ref):
			p.Msg = "write a reference (secret:NAME, env:NAME or file:PATH), not the key itself"
		case errors.As(err, &m):
			p.Msg, p.Warning = strings.TrimPrefix(err.Error(), ": ")+" (serve refuses to start without it)", true
		case err != nil:
			p.Msg = strings.TrimPrefix(err.Error(), ": ")
		default:
			continue
		}
		ps = append(ps, p)
	}
	return ps
}

func runCID(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] != "add" {
		fmt.Fprintln(e.stderr, "Usage: mcpbridge cid add [--config FILE] [--store URL] FILE")
		return errUsage
	}
	fs := newFlags(e, "cid add", "[--config FILE] [--store URL] FILE")
	cfgPath := fs.String("config", "", "config file (its store: and directory choose the store)")
	storeFlag := fs.String("store", "", "store URL (default mcpbridge.db beside the config)")
	pos, err := parseN(fs, args[1:], 1)
	if err != nil {
		return err
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
	log, _ := newLogger(e.stderr, "warn") // the one log format of every subcommand
	st, err := openStore(ctx, storeURL(*storeFlag, cfg), log)
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

// sameFile reports whether a and b name the same file (a missing a is not b).
func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func runImport(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] != "openapi" {
		fmt.Fprintln(e.stderr, "Usage: mcpbridge import openapi SPEC --server NAME [--base-url URL] [--out FILE]")
		return errUsage
	}
	fs := newFlags(e, "import openapi", "SPEC --server NAME [--base-url URL] [--out FILE]")
	name := fs.String("server", "", "server name for the generated definition (default: from the spec's title)")
	baseURL := fs.String("base-url", "", "base URL of the API (default: the spec's first server)")
	desc := fs.String("description", "", "server description (default: from the spec)")
	out := fs.String("out", "", "write the config here instead of standard output")
	var include, exclude patternList
	fs.Var(&include, "include", "import only operations matching PATTERN: an operationId, a tag or \"METHOD /path\", * for any characters (repeatable)")
	fs.Var(&exclude, "exclude", "leave out operations matching PATTERN (repeatable)")
	pos, err := parseN(fs, args[1:], 1)
	if err != nil {
		return err
	}
	if *out != "" && sameFile(*out, pos[0]) {
		return fmt.Errorf("--out %s is the spec itself; write the config to another file", *out)
	}
	spec, err := readSpec(ctx, pos[0])
	if err != nil {
		return err
	}
	if *name != "" && !config.NamePattern.Get().MatchString(*name) {
		return fmt.Errorf("--server %q: use 1-63 lowercase letters, digits, '-' or '_'", *name)
	}
	res, err := openapi.Import(spec, openapi.Options{ServerName: *name, BaseURL: *baseURL, Description: *desc, Include: include, Exclude: exclude})
	if err != nil {
		return fmt.Errorf("importing %s: %w", pos[0], err)
	}
	doc, err := res.YAML()
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(e.stderr, "warning: %s\n", w)
	}
	if u, err := url.Parse(res.Server.BaseURL); err == nil {
		if hint := httpapi.PrivateBaseHint(u, false, nil); hint != "" {
			fmt.Fprintf(e.stderr, "warning: %s\n", hint)
		}
	}
	if *out == "" {
		_, err = e.stdout.Write(doc)
		return err
	}
	if err := os.WriteFile(*out, doc, 0o644); err != nil {
		return err
	}
	if res.Filtered > 0 {
		fmt.Fprintf(e.stderr, "left out %d operations (--include/--exclude)\n", res.Filtered)
	}
	fmt.Fprintf(e.stderr, "wrote %d tools of server %s to %s; check it with: mcpbridge check --config %s\n", len(res.Server.Tools), res.Name, *out, *out)
	return nil
}

// patternList is a repeatable string flag.
type patternList []string

func (p *patternList) String() string { return strings.Join(*p, ",") }

// Set adds one pattern.
func (p *patternList) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("empty pattern")
	}
	*p = append(*p, v)
	return nil
}

// maxSpecBytes bounds an OpenAPI document read from a URL.
const maxSpecBytes = 64 << 20

// readSpec reads an OpenAPI document from a file or an http(s) URL.
func readSpec(ctx context.Context, src string) ([]byte, error) {
	if !strings.HasPrefix(src, "http://") && !strings.HasPrefix(src, "https://") {
		return os.ReadFile(src)
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, application/yaml, text/yaml, */*")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", src, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching %s: %s", src, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxSpecBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", src, err)
	}
	if len(data) > maxSpecBytes {
		return nil, fmt.Errorf("fetching %s: the document is larger than %d MiB", src, maxSpecBytes>>20)
	}
	return data, nil
}

// needsContentStore reports whether a server of cfg names a transform module by cid://,
// which only the content store can give.
func needsContentStore(cfg *config.Config) bool {
	for _, s := range cfg.Servers {
		refs, _, _ := transform.Decode(s.Section, "tools", "resources", "prompts")
		for _, ref := range []string{refs.Tools, refs.Resources, refs.Prompts} {
			if strings.HasPrefix(ref, "cid://") {
				return true
			}
		}
	}
	return false
}

// existingStore opens the store at url for check when it exists: a SQLite file that is not
// there is not created (each transform named by cid:// then warns that it was not run). A
// store that cannot be opened is a warning.
func existingStore(ctx context.Context, url string) (*store.Store, string) {
	if f := sqliteFile(url); f != "" {
		if _, err := os.Stat(f); err != nil {
			return nil, "" // each such transform says it was not run
		}
	}
	st, err := openStore(ctx, url, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, fmt.Sprintf("transforms named by cid:// were not run: %v", err)
	}
	return st, ""
}
