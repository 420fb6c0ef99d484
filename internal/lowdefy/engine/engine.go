package engine

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/blocks"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/operators"
)

// Server is the server side the engine calls for the Request and CallAPI
// actions. The payload is already evaluated on the client side, as Lowdefy
// does; the server evaluates request properties and runs the connection.
type Server interface {
	// Request runs a page request and returns its response (Lowdefy's
	// `response` field: dates may be time.Time or {"~d": ms} markers).
	Request(ctx context.Context, c RequestCall) (response any, err error)
	// Endpoint runs an API endpoint (CallAPI).
	Endpoint(ctx context.Context, c EndpointCall) (EndpointResult, error)
}

// RequestCall is one call of a page request.
type RequestCall struct {
	PageID, RequestID, BlockID string
	// Payload is the evaluated payload, after Lowdefy's serialize/deserialize
	// round trip (undefined values dropped).
	Payload any
	// Note receives what the server side says about the outcome beyond the response
	// (such as a write that matched nothing); the engine keeps it as a notice.
	Note func(msg string)
}

// EndpointCall is one call of an API endpoint (CallAPI).
type EndpointCall struct {
	EndpointID, PageID, BlockID string
	Payload                     any
}

// EndpointResult is what an endpoint returned.
type EndpointResult struct {
	// Response is the routine's :return value.
	Response any
	// Status is "success", "error" or "reject".
	Status string
	// Success is Status == "success".
	Success bool
	// Error is the error (a message or an error object), nil on success.
	Error any
}

// Options configure an Engine. The zero value works: an anonymous user, no
// server (Request fails), no HTTP (Fetch fails), the system clock.
type Options struct {
	// User is the session user (_user); nil is anonymous.
	User *jsvalue.Object
	// Server runs requests and endpoints; nil makes Request and CallAPI fail.
	Server Server
	// HTTPClient returns the client the Fetch action uses (the gateway passes
	// an SSRF-guarded one); nil makes Fetch fail.
	HTTPClient func() *http.Client
	// Now is the clock (_date.now, event timestamps); time.Now if nil.
	Now func() time.Time
	// Sleep waits for the Wait action; a timer bounded by ctx if nil.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logger receives warnings and errors; slog.Default() if nil.
	Logger *slog.Logger
	// Origin is the browser origin (_location); "http://localhost:3000" if empty.
	Origin string
	// Window is the browser window size (_media); 1280×800 if zero.
	Window operators.Window
	// TimeZone is the browser's time zone: SetValue reads a date without a zone given to a
	// date block in it. The app's time zone (app.App.TimeZone, UTC) if nil.
	TimeZone *time.Location
}

// Engine is one headless Lowdefy client: the `lowdefy` object of the
// browser, with its page contexts, global, inputs and the current page.
// An Engine is not safe for concurrent use.
type Engine struct {
	app    *app.App
	opts   Options
	log    *slog.Logger
	global *jsvalue.Object
	inputs map[string]*jsvalue.Object
	pages  map[string]*Page
	cur    *Page
	// visited lists page ids in the order first visited; history is the
	// navigation stack for Link back, historySearch the URL query (search) of
	// each of its entries.
	visited, history []string
	historySearch    []string
	urlQuery         *jsvalue.Object // as linked (before stringify)
	search           string          // window.location.search without "?"
	apiResponses     *jsvalue.Object
	journal          []*jsvalue.Object
	pending          *navigation
	menus            []any // the user's menus (Menus), built on first use
	// notices are what the engine says beyond Lowdefy's journal (notice.go); noticed
	// keeps unsupported notices once per page and place.
	notices []Notice
	noticed map[string]bool
	// plugins are the app's plugin operators (app.PluginOperators).
	plugins map[string]bool
}

type navigation struct {
	pageID   string
	urlQuery any
	// search, when set, is the URL query as a URL gives it (without "?"): it is used as
	// it is instead of stringifying urlQuery.
	search *string
	back   bool
}

// New returns an engine for a loaded app. No page is open until Navigate.
func New(a *app.App, opts Options) *Engine {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Origin == "" {
		opts.Origin = "http://localhost:3000"
	}
	if opts.TimeZone == nil {
		opts.TimeZone = a.TimeZone
	}
	if opts.TimeZone == nil {
		opts.TimeZone = time.UTC
	}
	if opts.Window.InnerWidth == 0 {
		opts.Window = operators.Window{InnerWidth: 1280, InnerHeight: 800}
	}
	if opts.Sleep == nil {
		opts.Sleep = func(ctx context.Context, d time.Duration) error {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return &Engine{
		app:          a,
		opts:         opts,
		log:          opts.Logger,
		global:       copyObject(a.Global),
		inputs:       map[string]*jsvalue.Object{},
		pages:        map[string]*Page{},
		apiResponses: jsvalue.NewObject(0),
		plugins:      a.PluginOperators(),
	}
}

// App returns the engine's app.
func (e *Engine) App() *app.App { return e.app }

// Page returns the current page context, nil before the first Navigate.
func (e *Engine) Page() *Page { return e.cur }

// Global returns the _global object (live; do not modify).
func (e *Engine) Global() *jsvalue.Object { return e.global }

// Visited returns the ids of the pages visited, in first-visit order.
func (e *Engine) Visited() []string { return append([]string(nil), e.visited...) }

// Journal returns the engine's event log: DisplayMessage, Link, Login,
// Logout, UpdateSession, Throw, error and warning entries, oldest first.
func (e *Engine) Journal() []*jsvalue.Object { return e.journal }

func (e *Engine) record(kv ...any) {
	e.journal = append(e.journal, jsvalue.ObjectOf(kv...))
}

// recordOpt records an entry leaving out keys whose value is undefined.
func (e *Engine) recordOpt(kv ...any) {
	o := jsvalue.NewObject(len(kv) / 2)
	for i := 0; i < len(kv); i += 2 {
		if jsvalue.IsUndefined(kv[i+1]) {
			continue
		}
		o.Set(kv[i].(string), kv[i+1])
	}
	e.journal = append(e.journal, o)
}

// HomePageID returns the home page id as Lowdefy computes it
// (getHomeAndMenus): the configured config.homePageId, else the first link of
// the user's default menu (or first menu) — links.0, links.0.links.0 or
// links.0.links.0.links.0 — else, where Lowdefy would have none, the first
// page.
func (e *Engine) HomePageID() string {
	if s, ok := e.app.Config.Prop("homePageId").(string); ok && s != "" {
		return s
	}
	var menu *jsvalue.Object
	for _, m := range e.Menus() {
		mo, _ := m.(*jsvalue.Object)
		if mo == nil {
			continue
		}
		if menu == nil || mo.Prop("menuId") == "default" && menu.Prop("menuId") != "default" {
			menu = mo
		}
	}
	if menu != nil {
		for _, path := range []string{"links.0.pageId", "links.0.links.0.pageId", "links.0.links.0.links.0.pageId"} {
			if id, ok := getPath(menu, path).(string); ok && id != "" {
				return id
			}
		}
	}
	for _, p := range e.app.Pages {
		if p.ID != "404" && e.authorized(p) {
			return p.ID
		}
	}
	return ""
}

// Menus returns the app's menus as the user gets them (Lowdefy's getMenus):
// only the MenuLinks the user may open (by the link's auth, which is its
// page's) and the MenuGroups with such links left; other items (dividers)
// are dropped. They are computed on first use.
func (e *Engine) Menus() []any {
	if e.menus == nil {
		e.menus = make([]any, 0, len(e.app.Menus))
		for _, m := range e.app.Menus {
			mo, ok := m.(*jsvalue.Object)
			if !ok {
				continue
			}
			c := copyObject(mo)
			links, _ := mo.Prop("links").([]any)
			c.Set("links", e.filterMenuList(links))
			e.menus = append(e.menus, c)
		}
	}
	return e.menus
}

func (e *Engine) filterMenuList(links []any) []any {
	out := []any{}
	for _, l := range links {
		lo, ok := l.(*jsvalue.Object)
		if !ok {
			continue
		}
		switch lo.Prop("type") {
		case "MenuLink":
			if auth, _ := lo.Prop("auth").(*jsvalue.Object); e.authorize(auth) {
				out = append(out, lo)
			}
		case "MenuGroup":
			sub, _ := lo.Prop("links").([]any)
			if kept := e.filterMenuList(sub); len(kept) > 0 {
				c := copyObject(lo)
				c.Set("links", kept)
				out = append(out, c)
			}
		}
	}
	return out
}

// authorize is Lowdefy's createAuthorize on an auth object {public, roles}
// for the engine's user; an auth object of another shape allows nothing.
func (e *Engine) authorize(auth *jsvalue.Object) bool {
	switch auth.Prop("public") {
	case true:
		return true
	case false:
	default:
		return false
	}
	if e.opts.User == nil {
		return false
	}
	want, ok := auth.Prop("roles").([]any)
	if !ok {
		return true
	}
	roles, _ := e.opts.User.Prop("roles").([]any)
	for _, r := range roles {
		for _, w := range want {
			if r == w {
				return true
			}
		}
	}
	return false
}

// authorized applies Lowdefy's authorize rule to a page for the engine's user.
func (e *Engine) authorized(p *app.Page) bool {
	if p.Auth.Public {
		return true
	}
	if e.opts.User == nil {
		return false
	}
	if len(p.Auth.Roles) == 0 {
		return true
	}
	roles, _ := e.opts.User.Prop("roles").([]any)
	for _, r := range roles {
		for _, want := range p.Auth.Roles {
			if r == want {
				return true
			}
		}
	}
	return false
}

// resolvePage returns the page a navigation to id lands on: the home page
// for "", the 404 page for unknown or unauthorised pages.
func (e *Engine) resolvePage(id string) (*app.Page, error) {
	if id == "" {
		id = e.HomePageID()
	}
	p := e.app.Page(id)
	if p == nil || !e.authorized(p) {
		p = e.app.Page("404")
	}
	if p == nil {
		return nil, fmt.Errorf("page %s not found and the app has no 404 page", quoted(id))
	}
	return p, nil
}

// Navigate opens a page the way a Link action does: the page's input is set
// to input (an empty object when nil), the URL query to urlQuery, the page
// context is created (or reused when visited before), and the lifecycle runs:
// onInit and onInitAsync once per context, then onMount and onMountAsync of
// the rendered blocks. Link actions run by these events navigate further.
func (e *Engine) Navigate(ctx context.Context, pageID string, input *jsvalue.Object, urlQuery *jsvalue.Object) error {
	var q any = jsvalue.Undefined
	if urlQuery != nil {
		q = urlQuery
	}
	if pageID == "" {
		pageID = e.HomePageID()
	}
	// Lowdefy's page route answers nothing for a page that does not exist or that the user
	// may not see: the navigation fails and the current page stays (a Link to such a page
	// opens the 404 page instead, see resolvePage).
	if cfg := e.app.Page(pageID); cfg == nil || !e.authorized(cfg) {
		return fmt.Errorf("page %s not found (or not visible to this user)", quoted(pageID))
	}
	if input == nil {
		input = jsvalue.NewObject(0)
	}
	e.inputs[pageID] = input
	e.pending = &navigation{pageID: pageID, urlQuery: q}
	return e.settle(ctx)
}

// NavigateURL opens a page the way opening its URL does: target is the page id with
// an optional query string ("profile?id=42", a leading "/" and a "#fragment" are
// ignored), and the query becomes window.location.search as it is written, so that
// _url_query reads {id: 42} as in a browser. input is the page's input as for Navigate;
// urlQuery, as a Link action gives it, may be used instead of a query string in target
// (not with one).
func (e *Engine) NavigateURL(ctx context.Context, target string, input, urlQuery *jsvalue.Object) error {
	if i := strings.IndexByte(target, '#'); i >= 0 {
		target = target[:i]
	}
	pageID, search, hasQuery := strings.Cut(target, "?")
	pageID = strings.TrimPrefix(pageID, "/")
	if base, _ := e.app.Config.Prop("basePath").(string); base != "" {
		if rest, ok := strings.CutPrefix(pageID, strings.TrimPrefix(base, "/")+"/"); ok {
			pageID = rest
		}
	}
	if !hasQuery || search == "" {
		return e.Navigate(ctx, pageID, input, urlQuery)
	}
	if urlQuery != nil {
		return fmt.Errorf("give the URL query either in the page id (%s) or as urlQuery, not both", quoted(target))
	}
	if cfg := e.app.Page(pageID); cfg == nil || !e.authorized(cfg) {
		return fmt.Errorf("page %s not found (or not visible to this user)", quoted(pageID))
	}
	if input == nil {
		input = jsvalue.NewObject(0)
	}
	e.inputs[pageID] = input
	e.pending = &navigation{pageID: pageID, search: &search}
	return e.settle(ctx)
}

// settle performs pending navigations (at most 20 in a row, as a guard
// against pages that link to themselves on mount).
func (e *Engine) settle(ctx context.Context) error {
	for i := 0; e.pending != nil; i++ {
		if i == 20 {
			e.pending = nil
			return fmt.Errorf("navigation loop: more than 20 page changes in one step (check Link actions in onInit/onMount events)")
		}
		nav := e.pending
		e.pending = nil
		if err := e.open(ctx, nav); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) open(ctx context.Context, nav *navigation) error {
	id := nav.pageID
	if nav.back {
		if len(e.history) < 2 {
			return nil
		}
		e.history = e.history[:len(e.history)-1]
		id = e.history[len(e.history)-1]
		// The browser's back restores the URL, query included.
		if n := len(e.history); len(e.historySearch) == n+1 {
			e.historySearch = e.historySearch[:n]
			e.urlQuery, e.search = nil, e.historySearch[n-1]
		}
	} else if nav.search != nil {
		e.urlQuery, e.search = nil, *nav.search
	} else {
		e.setURLQuery(nav.urlQuery)
	}
	cfg, err := e.resolvePage(id)
	if err != nil {
		return err
	}
	if !nav.back {
		if len(e.historySearch) != len(e.history) {
			// A snapshot saved before queries were kept: no query is known.
			e.historySearch = make([]string, len(e.history))
		}
		e.history = append(e.history, cfg.ID)
		e.historySearch = append(e.historySearch, e.search)
	}
	p := e.pages[cfg.ID]
	if p == nil {
		p = newPage(e, cfg)
		e.pages[cfg.ID] = p
	}
	seen := false
	for _, v := range e.visited {
		if v == cfg.ID {
			seen = true
			break
		}
	}
	if !seen {
		e.visited = append(e.visited, cfg.ID)
	}
	e.cur = p
	p.update(ctx)
	return p.mount(ctx)
}

// setURLQuery sets window.location.search the way Link does: each value
// serialized to JSON, query-string stringified with sorted keys.
func (e *Engine) setURLQuery(q any) {
	o, ok := q.(*jsvalue.Object)
	if !ok {
		e.urlQuery, e.search = nil, ""
		return
	}
	e.urlQuery = copyObject(o)
	e.search = stringifyQuery(o)
}

// URLQuery returns the decoded URL query the current page sees (_url_query).
func (e *Engine) URLQuery() *jsvalue.Object { return operators.ParseURLQuery(e.search) }

func (e *Engine) location(p *Page) *operators.Location {
	origin := e.opts.Origin
	scheme, hostport, _ := strings.Cut(origin, "://")
	host := hostport
	hostname, port := host, ""
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		hostname, port = host[:i], host[i+1:]
	}
	base, _ := e.app.Config.Prop("basePath").(string)
	search := ""
	if e.search != "" {
		search = "?" + e.search
	}
	path := base + "/" + p.id
	return &operators.Location{
		Hash: "", Host: host, Hostname: hostname, Href: origin + path + search, Origin: origin,
		Pathname: path, Port: port, Protocol: scheme + ":", Search: search,
	}
}

// step runs fn on the current page and then performs the navigations it
// asked for.
func (e *Engine) step(ctx context.Context, fn func(p *Page) error) error {
	if e.cur == nil {
		return fmt.Errorf("no page is open: navigate to a page first")
	}
	err := fn(e.cur)
	if nerr := e.settle(ctx); err == nil {
		err = nerr
	}
	return err
}

// TimeZone returns the browser's time zone (Options.TimeZone).
func (e *Engine) TimeZone() *time.Location { return e.opts.TimeZone }

// SetValue sets an input block's value as the block's component does on a
// change: the value is coerced to the block's value type, written to state,
// the page updated, and the block's onChange event triggered.
//
// A date block (DateSelector, DateTimeSelector, MonthSelector, WeekSelector,
// DateRangeSelector) takes what a person picks in it, as an ISO 8601 string,
// and stores what its component stores (blocks.PickDate, in the engine's time
// zone); a value it cannot take is an error and changes nothing.
func (e *Engine) SetValue(ctx context.Context, blockID string, value any) error {
	return e.step(ctx, func(p *Page) error {
		b, err := p.block(blockID)
		if err != nil {
			return err
		}
		if b.meta.Category != "input" {
			return fmt.Errorf("block %q is a %s block (%s), not an input: only input blocks take a value", blockID, b.meta.Category, b.typ)
		}
		if blocks.DateKindOf(b.typ) != blocks.NotDate {
			if value, err = blocks.PickDate(b.typ, b.propertiesOut, value, e.opts.TimeZone); err != nil {
				return fmt.Errorf("block %q: %w", blockID, err)
			}
		}
		p.setValue(ctx, b, deepCopy(value))
		p.triggerEvent(ctx, b, "onChange", jsvalue.Undefined)
		return nil
	})
}

// Trigger triggers an event of a block (a click is "onClick") with an
// optional event object (nil for none), as the block's component does when
// its controls raise the event: a Modal's onOk closes it when the actions
// succeed, a Tabs onChange switches the tab (see components.go). A block
// without that event runs no actions, as in Lowdefy, but its component
// still does its part (the Modal still closes).
func (e *Engine) Trigger(ctx context.Context, blockID, event string, args any) error {
	return e.step(ctx, func(p *Page) error {
		b, err := p.block(blockID)
		if err != nil {
			return err
		}
		if args == nil {
			args = jsvalue.Undefined
		}
		p.componentEvent(ctx, b, event, args)
		return nil
	})
}

// CallMethod calls a block method as the CallMethod action does
// (pushItem, removeItem, toggleOpen, …).
func (e *Engine) CallMethod(ctx context.Context, blockID, method string, args []any) error {
	return e.step(ctx, func(p *Page) error {
		if args == nil {
			args = []any{}
		}
		_, err := p.callMethod(ctx, nil, jsvalue.ObjectOf("blockId", blockID, "method", method, "args", deepCopy(args)))
		return err
	})
}

// SetState sets state paths as the SetState action does.
func (e *Engine) SetState(ctx context.Context, values *jsvalue.Object) error {
	return e.step(ctx, func(p *Page) error {
		p.setState(ctx, nil, copyObject(values))
		return nil
	})
}
