package lowdefy

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/runtime"
	"github.com/mcpbridge/mcpbridge/internal/safehttp"
	"github.com/mcpbridge/mcpbridge/internal/secret"
	"github.com/mcpbridge/mcpbridge/internal/transform"
)

// Tool sets a server offers (toolset:).
const (
	// ToolsetSession is the work-session tools of seeds 001/002 (session_create, navigate,
	// interact, ...).
	ToolsetSession = "session"
	// ToolsetForms is the tools and resources generated from the app (seed 000): one tool
	// per form's submit button, one per API endpoint, one resource per query page.
	ToolsetForms = "forms"
	// ToolsetBoth is both; the default.
	ToolsetBoth = "both"
)

func init() {
	backend.Register(backend.Kind{
		Name:         "lowdefy",
		ServerFields: append(backend.FieldsOf(serverSection{}), transform.Fields...),
		Decode:       decode,
	})
}

// serverSection is the lowdefy kind's part of a server definition.
type serverSection struct {
	// App is the Lowdefy app: its source folder (with lowdefy.yaml) or the build folder
	// `lowdefy build` wrote (.lowdefy/server/build), relative to the config's folder.
	App string `yaml:"app"`
	// Toolset is which tools the server offers: session, forms or both (the default).
	Toolset string `yaml:"toolset"`
	// Secrets are the app's secrets (`_secret: NAME`) by name, each a secret reference
	// (secret:NAME, env:NAME or file:PATH), never a value.
	Secrets map[string]string `yaml:"secrets"`
	// AllowPrivate and AllowHosts open the SSRF guard of the app's outgoing HTTP (AxiosHttp
	// connections, Fetch) to private addresses, as for kind http.
	AllowPrivate bool     `yaml:"allow_private"`
	AllowHosts   []string `yaml:"allow_hosts"`
}

// spec is a decoded and checked lowdefy server, ready to open.
type spec struct {
	server *config.Server
	conf   serverSection
	// refs name the transforms of the server's resources and prompts.
	refs transform.Refs
}

var secretName = lazy.Regexp{Expr: `^[A-Za-z_][A-Za-z0-9_]*$`}

func decode(s *config.Server) (backend.Spec, config.Problems) {
	sp := &spec{server: s}
	sec := s.Section
	refs, rest, ps := transform.Decode(sec, "resources", "prompts")
	sp.refs = refs
	ps = append(ps, rest.Decode(&sp.conf)...)
	if refs.Refresh > 0 {
		ps = append(ps, sec.Problem("transform_refresh", "transform_refresh is not available on kind lowdefy: its transforms run when the server opens"))
	}
	c := &sp.conf
	switch {
	case !sec.Has("app"):
		ps = append(ps, sec.Problem("app", "missing app: the Lowdefy app's folder (with lowdefy.yaml) or its build folder, relative to this config"))
	case strings.TrimSpace(c.App) == "" || strings.Contains(c.App, "\x00"):
		ps = append(ps, sec.Problem("app", "app must be a folder path, such as ./apps/tickets"))
	}
	switch c.Toolset {
	case "":
		c.Toolset = ToolsetBoth
	case ToolsetSession, ToolsetBoth, ToolsetForms:
	default:
		ps = append(ps, sec.Problem("toolset", "toolset %q is not one of session, forms or both", c.Toolset))
	}
	for _, name := range slices.Sorted(maps.Keys(c.Secrets)) {
		if !secretName.Get().MatchString(name) {
			ps = append(ps, sec.Problem("secrets."+name, "%q is not a secret name as _secret reads it (letters, digits and _)", name))
		}
		if !secret.IsRef(c.Secrets[name]) {
			ps = append(ps, sec.Problem("secrets."+name, "write a reference to the value (secret:NAME, env:NAME or file:PATH), never the value itself"))
		}
	}
	for i, h := range c.AllowHosts {
		if strings.TrimSpace(h) == "" {
			ps = append(ps, sec.Problem(fmt.Sprintf("allow_hosts[%d]", i), "empty host"))
		}
	}
	if len(s.Tools) > 0 {
		ps = append(ps, sec.Problem("tools", "a lowdefy server's tools come from its app; remove tools (toolset: session | forms | both chooses them)"))
	}
	return sp, ps
}

// Check loads the app, as opening the server will, and resolves its secrets, so that
// `mcpbridge check` reports an app that does not load or a secret that is not set.
func (sp *spec) Check(deps backend.Deps) config.Problems {
	var ps config.Problems
	sec := sp.server.Section
	a, err := loadApp(sp.appDir(deps.Dir))
	if err != nil {
		ps = append(ps, sec.Problem("app", "%v", err))
	} else if sp.conf.Toolset != ToolsetSession {
		if _, err := generate(a, sessionToolNames(sp.conf.Toolset)); err != nil {
			ps = append(ps, sec.Problem("app", "the app's generated tools: %v", err))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(sp.conf.Secrets)) {
		ps = append(ps, backend.CheckRef(deps, sec, "secrets."+name, sp.conf.Secrets[name])...)
	}
	if a != nil {
		if note := adapterNote(a); note != "" {
			ps = append(ps, sec.Warning("app", "%s", note))
		}
		for _, p := range runtime.Unsupported(a) {
			ps = append(ps, sec.Warning("app", "not run by mcpbridge: %s", p))
		}
		for _, m := range unprovidedSecrets(a, sp.conf.Secrets) {
			ps = append(ps, sec.Warning("app", "the app reads _secret %s (%s), which the server does not provide; Lowdefy runs without it but requests that need it fail: add %s: secret:%s under secrets:", m.name, m.where, m.name, m.name))
		}
	}
	return ps
}

// ToolNames returns the tools of the server's toolset: the work-session tools and the tools
// generated from the app (known false when the app does not load; Check says why).
func (sp *spec) ToolNames(deps backend.Deps) ([]string, bool) {
	names := sessionToolNames(sp.conf.Toolset)
	if sp.conf.Toolset == ToolsetSession {
		return names, true
	}
	a, err := loadApp(sp.appDir(deps.Dir))
	if err != nil {
		return names, false
	}
	g, err := generate(a, names)
	if err != nil {
		return names, false
	}
	for _, t := range g.tools {
		names = append(names, t.tool.Name)
	}
	return names, true
}

// lowdefySecretEnv prefixes the environment variables Lowdefy's own server (and mcpbridge
// app) reads an app's secrets from: LOWDEFY_SECRET_NAME is `_secret: NAME`.
const lowdefySecretEnv = "LOWDEFY_SECRET_"

// unprovided is a secret an app reads that its server does not provide.
type unprovided struct{ name, where string }

// unprovidedSecrets returns the secrets app a reads (app.SecretRefs) that provided lacks,
// one per name, with the places that read it.
func unprovidedSecrets(a *app.App, provided map[string]string) []unprovided {
	var out []unprovided
	for _, r := range a.SecretRefs() {
		if _, ok := provided[r.Name]; ok {
			continue
		}
		if n := len(out); n > 0 && out[n-1].name == r.Name {
			out[n-1].where += ", " + r.Where
			continue
		}
		out = append(out, unprovided{name: r.Name, where: r.Where})
	}
	return out
}

// appDir is the app folder, resolved against the config's folder.
func (sp *spec) appDir(dir string) string {
	if filepath.IsAbs(sp.conf.App) || dir == "" {
		return filepath.Clean(sp.conf.App)
	}
	return filepath.Join(dir, sp.conf.App)
}

// secrets resolves the app's secrets.
func (sp *spec) secrets(deps backend.Deps) (map[string]string, error) {
	out := make(map[string]string, len(sp.conf.Secrets))
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(sp.conf.Secrets)) {
		v, err := deps.Resolve(config.JoinPath(sp.server.Section.Path, "secrets."+name), sp.conf.Secrets[name])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[name] = v
	}
	return out, errors.Join(errs...)
}

func (sp *spec) policy() safehttp.Policy {
	hosts := append([]string(nil), sp.conf.AllowHosts...)
	sort.Strings(hosts)
	return safehttp.Policy{AllowPrivate: sp.conf.AllowPrivate, AllowHosts: hosts}
}

// loadApp loads a Lowdefy app from its source folder (lowdefy.yaml or lowdefy.yml) or from
// the artifacts of `lowdefy build` (a folder with config.json, or an app folder holding
// .lowdefy/server/build).
func loadApp(dir string) (*app.App, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("the app folder %s cannot be read: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("app %s is a file; give the folder that holds lowdefy.yaml (or the build folder)", dir)
	}
	has := func(name string) bool { _, err := os.Stat(filepath.Join(dir, name)); return err == nil }
	switch {
	case has("lowdefy.yaml"), has("lowdefy.yml"):
		a, err := app.Load(dir, app.Options{})
		if err != nil {
			return nil, fmt.Errorf("the app in %s does not load: %w", dir, err)
		}
		return a, nil
	case has("config.json"):
		return app.LoadBuild(dir)
	case has(filepath.Join(".lowdefy", "server", "build", "config.json")):
		return app.LoadBuild(filepath.Join(dir, ".lowdefy", "server", "build"))
	}
	return nil, fmt.Errorf("%s holds neither lowdefy.yaml nor a Lowdefy build (config.json); give the app's folder", dir)
}
