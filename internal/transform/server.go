package transform

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.yaml.in/yaml/v3"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
)

// MetaGenerated is the _meta key of a generated tool (backend.MetaGenerated).
const MetaGenerated = backend.MetaGenerated

// A Server is a server definition with transforms, and what its kind supplies to run them.
type Server struct {
	// Def is the definition as configured (its static lists).
	Def *config.Server
	// Refs are its modules.
	Refs Refs
	// Deps are the backend's services (Dir, Blobs, Variables, Logger).
	Deps backend.Deps
	// Discover, when not nil, returns the output of the server's discovery command, put in
	// the context as discovery. An error stops the transforms.
	Discover func(ctx context.Context) (map[string]any, error)
	// Prepare, when not nil, completes an entry of list in the kind's schema before it is
	// checked (a command server's minimal tool gets the server's argv).
	Prepare func(list string, e *Entry)
	// Open opens the backend of a definition (the configured one, or one with the generated
	// lists in), without running transforms.
	Open func(ctx context.Context, s *config.Server) (backend.Backend, error)
}

// A Result is a definition with its generated lists in.
type Result struct {
	// Server is the definition with the good generated entries added.
	Server *config.Server
	// Tools maps each generated tool to the module that generated it.
	Tools map[string]string
	// Bad are the entries left out, each naming the module and its index.
	Bad []string
	// Digest identifies the generated definition: two runs with the same digest generated
	// the same lists.
	Digest string
}

// Context returns the context a module is called with: the definition as written, the
// config's variables and, when the server has a discovery command, its output.
func (sv *Server) Context(ctx context.Context) (map[string]any, error) {
	c := map[string]any{
		"server":     sv.Def.Name,
		"kind":       sv.Def.Kind,
		"definition": Definition(sv.Def),
		"variables":  orEmpty(sv.Deps.Variables),
	}
	if sv.Discover != nil {
		d, err := sv.Discover(ctx)
		if err != nil {
			return nil, err
		}
		c["discovery"] = d
	}
	return c, nil
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// Generate runs the server's transforms and returns its definition with their results.
// An error means no list was generated (a module could not be read, threw, went over its
// limits or returned something other than a list, or discovery failed).
func (sv *Server) Generate(ctx context.Context) (*Result, error) {
	cctx, err := sv.Context(ctx)
	if err != nil {
		return nil, err
	}
	res := &Result{Server: sv.Def, Tools: map[string]string{}}
	var base *yaml.Node
	for _, l := range []struct{ list, ref, key string }{
		{"tools", sv.Refs.Tools, "name"},
		{"resources", sv.Refs.Resources, "name"},
		{"prompts", sv.Refs.Prompts, "name"},
	} {
		if l.ref == "" {
			continue
		}
		src, err := Load(ctx, sv.Deps, l.ref)
		if err != nil {
			return nil, fmt.Errorf("%s_transform: %w", l.list, err)
		}
		p, err := Compile(l.ref, src)
		if err != nil {
			return nil, fmt.Errorf("%s_transform: %w", l.list, err)
		}
		list, err := Run(ctx, l.ref, p, sv.Def.Name, cctx)
		if err != nil {
			return nil, fmt.Errorf("%s_transform: %w", l.list, err)
		}
		entries, bad := Entries(l.ref, list, l.key, l.list != "resources")
		res.Bad = append(res.Bad, bad...)
		if sv.Prepare != nil {
			for i := range entries {
				sv.Prepare(l.list, &entries[i])
			}
		}
		s, n, bad, err := Build(sv.Def, base, l.list, l.ref, entries)
		res.Bad = append(res.Bad, bad...)
		if err != nil {
			return nil, fmt.Errorf("%s_transform: %w", l.list, err)
		}
		base, res.Server = n, s
		res.Digest = digest(n)
		if l.list == "tools" {
			for name := range s.Tools {
				if _, static := sv.Def.Tools[name]; !static {
					res.Tools[name] = l.ref
				}
			}
		}
	}
	return res, nil
}

// digest identifies a definition node by its YAML text.
func digest(n *yaml.Node) string {
	b, err := yaml.Marshal(n)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// field names the transform field of list in problems.
func (sv *Server) field(list string) string {
	key := list + "_transform"
	if !sv.Def.Section.Has(key) && sv.Def.Section.Has(key+"_cid") {
		key += "_cid"
	}
	return key
}

// Check runs the transforms as serving will and reports their problems at the transform
// field: a failure as a problem, each entry left out as a problem. A cid:// module without
// a content store at hand (`mcpbridge check` without an existing store) is a warning.
func (sv *Server) Check(ctx context.Context) config.Problems {
	sec := sv.Def.Section
	if sv.Deps.Blobs == nil {
		for _, l := range []struct{ list, ref string }{{"tools", sv.Refs.Tools}, {"resources", sv.Refs.Resources}, {"prompts", sv.Refs.Prompts}} {
			if len(l.ref) > 6 && l.ref[:6] == "cid://" {
				return config.Problems{sec.Warning(sv.field(l.list), "%s was not run: there is no content store at hand to read %s from; serve runs it", l.list+"_transform", l.ref)}
			}
		}
	}
	res, err := sv.Generate(ctx)
	if err != nil {
		return config.Problems{sec.Problem(sv.field(firstList(sv.Refs)), "%v", err)}
	}
	var ps config.Problems
	for _, b := range res.Bad {
		ps = append(ps, sec.Problem(sv.field(firstList(sv.Refs)), "%s", b))
	}
	return ps
}

func firstList(r Refs) string {
	switch {
	case r.Tools != "":
		return "tools"
	case r.Resources != "":
		return "resources"
	}
	return "prompts"
}

// Open opens the server's backend with its generated lists. When the transforms fail, the
// backend serves the static lists and the failure is logged (and returned by Err); entries
// left out are logged as warnings. With Refs.Refresh the transforms run again that often,
// in the background, until Close: the last good lists serve meanwhile, and a run whose
// result differs replaces them and is announced on Changes (the gateway tells clients
// list_changed).
func Open(ctx context.Context, sv *Server) (*Backend, error) {
	b := &Backend{sv: sv}
	res, err := sv.Generate(ctx)
	log := sv.Deps.Log()
	if err == nil {
		for _, bad := range res.Bad {
			log.Warn("transform entry left out", "problem", bad)
		}
		var cur backend.Backend
		if cur, err = sv.Open(ctx, res.Server); err == nil {
			b.cur, b.res = cur, res
		} else {
			err = fmt.Errorf("opening the server with the generated lists: %w", err)
		}
	}
	if err != nil {
		log.Error("transform failed; the server serves its static lists", "error", err)
		cur, oerr := sv.Open(ctx, sv.Def)
		if oerr != nil {
			return nil, oerr
		}
		b.cur, b.err = cur, err
	}
	if sv.Refs.Refresh > 0 {
		rctx, cancel := context.WithCancel(context.Background())
		b.stop, b.changes, b.stopped = cancel, make(chan struct{}, 1), make(chan struct{})
		go b.refreshLoop(rctx, sv.Refs.Refresh)
	}
	return b, nil
}

// refreshLoop runs the transforms every interval until ctx ends.
func (b *Backend) refreshLoop(ctx context.Context, every time.Duration) {
	defer close(b.stopped)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		b.refresh(ctx)
	}
}

// refresh runs the transforms once and serves their result if it changed.
func (b *Backend) refresh(ctx context.Context) {
	log := b.sv.Deps.Log()
	res, err := b.sv.Generate(ctx)
	if ctx.Err() != nil {
		return
	}
	if err == nil {
		b.mu.RLock()
		same := b.res != nil && b.res.Digest == res.Digest
		b.mu.RUnlock()
		if same {
			b.mu.Lock()
			b.err = nil
			b.mu.Unlock()
			return
		}
		for _, bad := range res.Bad {
			log.Warn("transform entry left out", "problem", bad)
		}
		var cur backend.Backend
		if cur, err = b.sv.Open(ctx, res.Server); err == nil {
			b.mu.Lock()
			b.cur, b.res, b.err = cur, res, nil
			b.mu.Unlock()
			log.Info("transform refreshed: the generated lists changed")
			select {
			case b.changes <- struct{}{}:
			default:
			}
			return
		}
	}
	log.Error("transform refresh failed; the last good lists are served", "error", err)
	b.mu.Lock()
	b.err = err
	b.mu.Unlock()
}

// Backend serves a server whose lists are generated: it forwards to the backend of the
// definition with the generated lists in, marks generated tools, and lets a principal use
// a generated tool only with one of its roles.
type Backend struct {
	sv  *Server
	mu  sync.RWMutex
	cur backend.Backend
	res *Result // nil when the transforms failed
	err error
	// With a refresh: stop ends the loop, which closes stopped; changes announces a new
	// result.
	stop    context.CancelFunc
	stopped chan struct{}
	changes chan struct{}
}

// Changes receives a value when a refresh changed the generated lists (backend.Watcher);
// nil without transform_refresh.
func (b *Backend) Changes() <-chan struct{} { return b.changes }

func (b *Backend) state() (backend.Backend, *Result) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.cur, b.res
}

// GenerateError returns the error of the last run of the transforms, nil when it
// succeeded (backend.Generator).
func (b *Backend) GenerateError() error { return b.Err() }

// Err returns the error of the last run of the transforms, nil when it succeeded.
func (b *Backend) Err() error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.err
}

// Catalog returns the catalog of the current backend, generated tools marked.
func (b *Backend) Catalog(ctx context.Context) (*backend.Catalog, error) {
	cur, res := b.state()
	cat, err := cur.Catalog(ctx)
	if err != nil || res == nil || len(res.Tools) == 0 {
		return cat, err
	}
	out := *cat
	out.Tools = make([]*mcp.Tool, len(cat.Tools))
	for i, t := range cat.Tools {
		if ref, ok := res.Tools[t.Name]; ok {
			c := *t
			c.Meta = maps.Clone(t.Meta)
			if c.Meta == nil {
				c.Meta = mcp.Meta{}
			}
			c.Meta[MetaGenerated] = ref
			t = &c
		}
		out.Tools[i] = t
	}
	return &out, nil
}

// CallTool calls the current backend.
func (b *Backend) CallTool(ctx context.Context, c *backend.Call) (*mcp.CallToolResult, error) {
	cur, _ := b.state()
	return cur.CallTool(ctx, c)
}

// Quiet is the current backend's (backend.Quiet).
func (b *Backend) Quiet() bool {
	cur, _ := b.state()
	q, ok := cur.(backend.Quiet)
	return ok && q.Quiet()
}

// ToolAllowed lets p use a generated tool only with one of the roles its entry names
// (backend.ToolGate); the gateway checks the roles of configured tools.
func (b *Backend) ToolAllowed(p auth.Principal, tool string) bool {
	cur, res := b.state()
	if res != nil {
		if _, gen := res.Tools[tool]; gen {
			if t := res.Server.Tools[tool]; t != nil && !auth.MayCallTool(p, t.Roles) {
				return false
			}
		}
	}
	if g, ok := cur.(backend.ToolGate); ok {
		return g.ToolAllowed(p, tool)
	}
	return true
}

// Generated returns the definition with the generated lists in, nil when the transforms
// failed (backend.Generator).
func (b *Backend) Generated() *config.Server {
	_, res := b.state()
	if res == nil {
		return nil
	}
	return res.Server
}

// Close stops the refreshes and closes the current backend.
func (b *Backend) Close() error {
	if b.stop != nil {
		b.stop()
		<-b.stopped
	}
	cur, _ := b.state()
	if c, ok := cur.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// ErrDiscovery wraps a failure of a discovery command.
var ErrDiscovery = errors.New("discovery failed")

var (
	_ backend.Backend   = (*Backend)(nil)
	_ backend.Quiet     = (*Backend)(nil)
	_ backend.ToolGate  = (*Backend)(nil)
	_ backend.Generator = (*Backend)(nil)
	_ backend.Watcher   = (*Backend)(nil)
)

// Lists are generated resources and prompts for a kind whose tools come from elsewhere (an
// upstream MCP server, a Lowdefy app): its backend embeds a *Lists, so that it is a
// backend.Generator and the gateway serves them. A nil *Lists has none.
type Lists struct {
	def *config.Server
	err error
}

// GenerateLists runs sv's transforms once: a failure is logged and leaves the server with
// its written lists (GenerateError says why), entries left out are logged as warnings.
func GenerateLists(ctx context.Context, sv *Server) *Lists {
	if sv.Refs.Empty() {
		return nil
	}
	log := sv.Deps.Log()
	res, err := sv.Generate(ctx)
	if err != nil {
		log.Error("transform failed; the server serves its written resources and prompts", "error", err)
		return &Lists{err: err}
	}
	for _, bad := range res.Bad {
		log.Warn("transform entry left out", "problem", bad)
	}
	return &Lists{def: res.Server}
}

// Generated returns the definition with the generated resources and prompts in, or nil
// (backend.Generator).
func (l *Lists) Generated() *config.Server {
	if l == nil {
		return nil
	}
	return l.def
}

// GenerateError returns why the transforms failed, or nil (backend.Generator).
func (l *Lists) GenerateError() error {
	if l == nil {
		return nil
	}
	return l.err
}
