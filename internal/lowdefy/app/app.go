package app

import (
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// App is a loaded Lowdefy app, shaped like the build artifacts. All config values are
// JSON-like data (nil, bool, float64, string, []any, *jsvalue.Object).
type App struct {
	// Dir is the app directory (Load) or the build artifacts directory (LoadBuild).
	Dir string
	// Lowdefy is the Lowdefy version the app declares (empty for LoadBuild).
	Lowdefy string
	// Name, Version and License are the app's metadata (empty for LoadBuild).
	Name, Version, License string
	// AppConfig is the `app` section (app.json): `html.appendHead`, `html.appendBody`.
	AppConfig *jsvalue.Object
	// Config is the `config` section (config.json): basePath, homePageId.
	Config *jsvalue.Object
	// Auth is the built `auth` section (auth.json) including `configured`.
	Auth *jsvalue.Object
	// Global is the initial `_global` state (global.json).
	Global *jsvalue.Object
	// Menus are the built menus (menus.json), each with `menuId` and `links`.
	Menus []any
	// Connections in config order.
	Connections []*Connection
	// Pages in config order, the built-in 404 page included.
	Pages []*Page
	// Plugins is the `plugins` section (nil for LoadBuild).
	Plugins []any
	// API is the late-v4 `api` section (endpoints) as written, or nil.
	API []any
	// MCP is the app's `mcp` section as written (mcpbridge's own: limits, tools,
	// resources), or nil. Lowdefy itself has no such section; nil for LoadBuild.
	MCP *jsvalue.Object
	// TimeZone is the app's time zone (mcp.timeZone; UTC when the app names none): a date
	// without a zone given to a date block is taken in it, and DateTimeSelector shows its
	// value in it, as a browser in that zone would. Never nil after Load and LoadBuild.
	TimeZone *time.Location
	// Warnings are problems that do not stop the app from loading (Lowdefy warns about them).
	Warnings []Problem

	// positions are the source positions of the built config's objects (Where).
	positions posIndex
	appOperatorState
}

// Page is one built page.
type Page struct {
	// ID is the page id as written in the config (the built `pageId`).
	ID string
	// Type is the page's block type.
	Type string
	// Auth is the page's protection.
	Auth PageAuth
	// Config is the built page (pages/<id>/<id>.json): `id: "page:<id>"`, `pageId`,
	// `blockId`, `areas` with blocks (each block has `id: "block:<page>:<blockId>:<n>"` and
	// `blockId`), events as `{try, catch}` and `requests` reduced to
	// `{id, payload, requestId, pageId}` as in the artifact.
	Config *jsvalue.Object
	// Requests are the page's requests in full (pages/<id>/requests/<r>.json), hoisted from
	// every block of the page in document order.
	Requests []*Request
}

// PageAuth is a page's protection as the build computes it from `auth.pages`.
type PageAuth struct {
	Public bool
	Roles  []string
}

// Request is one request of a page.
type Request struct {
	// ID is the request id as written (the built `requestId`).
	ID string
	// PageID is the page the request belongs to.
	PageID string
	// Type is the request type, such as KnexRaw or MongoDBFind.
	Type string
	// ConnectionID names the connection.
	ConnectionID string
	// Config is the built request: `id: "request:<page>:<id>"`, type, connectionId,
	// payload, properties, auth, requestId, pageId.
	Config *jsvalue.Object
}

// Connection is one connection.
type Connection struct {
	// ID is the connection id as written (the built `connectionId`).
	ID string
	// Type is the connection type, such as Knex or AxiosHttp.
	Type string
	// Properties are the connection properties (server operators such as _secret unevaluated).
	Properties *jsvalue.Object
	// Config is the built connection: `id: "connection:<id>"`, type, properties, connectionId.
	Config *jsvalue.Object
}

// Page returns the page with id, or nil.
func (a *App) Page(id string) *Page {
	for _, p := range a.Pages {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// Connection returns the connection with id, or nil.
func (a *App) Connection(id string) *Connection {
	for _, c := range a.Connections {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// Request returns the page's request with id, or nil.
func (p *Page) Request(id string) *Request {
	for _, r := range p.Requests {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// Options tune Load. The zero value is what `lowdefy build` does.
type Options struct {
	// Env is the environment `_build.env` reads; nil means the process environment.
	Env map[string]string
	// Nunjucks renders `.njk` files with the ref's vars; nil uses package nunjucks.
	Nunjucks func(src string, vars map[string]any) (string, error)
	// BuildOperators evaluates `_build.*` operators; nil uses the loader's subset and then
	// the full build operator set of internal/lowdefy/operators.
	BuildOperators BuildOperatorFunc
	// Logger receives warnings; nil discards them (they are also in App.Warnings).
	Logger *slog.Logger
}

// loader holds the state of one Load.
type loader struct {
	root     string
	rootFile string
	opts     Options
	files    map[string][]byte
	osEnv    map[string]string
	problems []Problem
	warnings []Problem
}

// Load reads the Lowdefy app in dir (its `lowdefy.yaml`, or `lowdefy.yml`) and builds it
// the way `lowdefy build` does. When the app has problems it returns an *Error listing all
// of them, each with file:line:col and field path where known.
func Load(dir string, opts Options) (app *App, err error) {
	defer func() {
		// Guard the promise that bad input never crashes the caller.
		if r := recover(); r != nil {
			app, err = nil, &Error{Dir: dir, Problems: []Problem{{Message: fmt.Sprintf("internal error while loading (please report): %v", r)}}}
		}
	}()
	return load(dir, opts)
}

// load is Load without the panic guard (the fuzz test calls it to see panics).
func load(dir string, opts Options) (*App, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("loading Lowdefy app %s: %w", dir, err)
	}
	if opts.Nunjucks == nil {
		opts.Nunjucks = defaultNunjucks
	}
	l := &loader{root: abs, opts: opts, files: map[string][]byte{}}
	app, problems := l.load()
	if opts.Logger != nil {
		for _, w := range l.warnings {
			opts.Logger.Warn("lowdefy app", "dir", dir, "warning", w.String())
		}
	}
	if len(problems) > 0 {
		return nil, &Error{Dir: dir, Problems: problems}
	}
	app.Dir = dir
	app.Warnings = l.warnings
	return app, nil
}

func (l *loader) load() (*App, []Problem) {
	name := "lowdefy.yaml"
	content, err := l.readFile(name)
	if err == nil && content == nil {
		name = "lowdefy.yml"
		content, err = l.readFile(name)
	}
	if err != nil {
		return nil, []Problem{{File: name, Message: err.Error()}}
	}
	if content == nil {
		return nil, []Problem{{Message: fmt.Sprintf("no lowdefy.yaml or lowdefy.yml in %s", l.root)}}
	}
	l.rootFile = name
	root, err := parseYAML(content, name)
	if err != nil {
		var pe *parseError
		if errors.As(err, &pe) {
			return nil, []Problem{pe.problem()}
		}
		return nil, []Problem{{File: name, Message: err.Error()}}
	}
	vars := newMap(position{file: name})
	root, err = l.resolve(root, &scope{file: name, vars: vars, chain: &refLink{file: name, key: name + "\x00{}"}})
	if err != nil {
		var re *refError
		if errors.As(err, &re) {
			return nil, []Problem{re.p}
		}
		return nil, []Problem{{File: name, Message: err.Error()}}
	}
	root = l.evalBuild(root, name)
	if len(l.problems) > 0 {
		return nil, l.problems
	}
	if root.isNone() {
		root = newMap(position{file: name, line: 1, col: 1})
	}
	validate(root, appSchema.Get(), "", &l.problems)
	if len(l.problems) > 0 {
		return nil, l.problems
	}
	ix := posIndex{}
	components, _ := root.toPlain(ix).(*jsvalue.Object)
	b := &builder{l: l, ix: ix, c: components}
	b.run()
	if len(l.problems) > 0 {
		return nil, l.problems
	}
	app := assemble(components)
	app.positions = ix
	app.Lowdefy = str(get(components, "lowdefy"))
	app.Name = str(get(components, "name"))
	app.Version = str(get(components, "version"))
	app.License = str(get(components, "license"))
	app.Plugins = asList(get(components, "plugins"))
	app.API = asList(get(components, "api"))
	app.MCP = asMap(get(components, "mcp"))
	tz, _ := get(app.MCP, "timeZone").(string)
	app.TimeZone, _ = timeZoneOf(tz) // checked by the builder
	return app, nil
}

// assemble turns built components into an App, splitting page requests into the full
// request objects and the reduced copies the page artifact keeps.
func assemble(c *jsvalue.Object) *App {
	app := &App{
		AppConfig: asMap(get(c, "app")),
		Config:    asMap(get(c, "config")),
		Auth:      asMap(get(c, "auth")),
		Global:    asMap(get(c, "global")),
		Menus:     asList(get(c, "menus")),
	}
	if app.Menus == nil {
		app.Menus = []any{}
	}
	for _, cn := range asList(get(c, "connections")) {
		app.Connections = append(app.Connections, newConnection(asMap(cn)))
	}
	for _, p := range asList(get(c, "pages")) {
		pm := asMap(p)
		page := &Page{ID: str(get(pm, "pageId")), Type: str(get(pm, "type")), Config: pm, Auth: pageAuth(asMap(get(pm, "auth")))}
		reduced := make([]any, 0)
		for _, r := range asList(get(pm, "requests")) {
			full := asMap(r)
			page.Requests = append(page.Requests, newRequest(full))
			small := &jsvalue.Object{}
			for _, k := range []string{"id", "payload", "requestId", "pageId"} {
				if v, ok := full.Get(k); ok {
					small.Set(k, v)
				}
			}
			for k, v := range full.Range {
				switch k {
				case "properties", "type", "connectionId", "auth":
				default:
					small.Set(k, v)
				}
			}
			reduced = append(reduced, small)
		}
		pm.Set("requests", reduced)
		app.Pages = append(app.Pages, page)
	}
	return app
}

func newConnection(m *jsvalue.Object) *Connection {
	return &Connection{ID: str(get(m, "connectionId")), Type: str(get(m, "type")), Properties: asMap(get(m, "properties")), Config: m}
}

func newRequest(m *jsvalue.Object) *Request {
	return &Request{ID: str(get(m, "requestId")), PageID: str(get(m, "pageId")), Type: str(get(m, "type")), ConnectionID: str(get(m, "connectionId")), Config: m}
}

func pageAuth(m *jsvalue.Object) PageAuth {
	pa := PageAuth{Public: get(m, "public") == true}
	pa.Roles = stringList(get(m, "roles"))
	return pa
}

// ChildBlocks yields the blocks of a built block config's areas, area after area, in
// order (what is not a block config is passed over).
func ChildBlocks(block *jsvalue.Object) iter.Seq[*jsvalue.Object] {
	return func(yield func(*jsvalue.Object) bool) {
		areas, _ := block.Prop("areas").(*jsvalue.Object)
		for _, a := range areas.Range {
			ao, _ := a.(*jsvalue.Object)
			list, _ := ao.Prop("blocks").([]any)
			for _, c := range list {
				if co, ok := c.(*jsvalue.Object); ok && !yield(co) {
					return
				}
			}
		}
	}
}
