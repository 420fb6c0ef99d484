package operators

import (
	"context"
	"log/slog"
	"time"
)

// Context holds what operators read. The client parser uses the page fields,
// the server parser uses Payload, Secrets and User. A Context may be changed
// between Parse calls (for example the engine's state); it must not be
// changed during one.
type Context struct {
	// PageID is the current page id (_location pageId).
	PageID string
	// BasePath is the app base path (_location basePath).
	BasePath string
	// HomePageID is the home page id (_location homePageId).
	HomePageID string
	// State is the page state (_state, and _type/_regex without "on").
	State map[string]any
	// Input is the page input set by Link (_input).
	Input map[string]any
	// Global is the app global (_global).
	Global map[string]any
	// User is the signed-in user, nil when signed out (_user).
	User map[string]any
	// URLQuery is the decoded URL query (_url_query). When nil it is parsed
	// from Location.Search the way Lowdefy does.
	URLQuery map[string]any
	// Location is the browser location; nil makes _location and _url_query
	// fail as when window.location is unavailable.
	Location *Location
	// Window is the browser window size; nil or a zero width makes _media fail.
	Window *Window
	// Menus are the app menus (_menu), each with a "menuId".
	Menus []any
	// Requests maps request id to its calls, newest first, each
	// {"loading": bool, "response": …, "payload": …, …} (_request,
	// _request_details).
	Requests map[string]any
	// EventLog is the page event log, newest first (_event_log).
	EventLog []any
	// Payload is the request payload (server: _payload, and _nunjucks).
	Payload map[string]any
	// Secrets are the app secrets (server: _secret).
	Secrets map[string]any
	// Env is the environment seen by the build parser's _env.
	Env map[string]any
	// Now returns the current time (_date.now, null dates); time.Now if nil.
	Now func() time.Time
	// Random returns a number in [0, 1) (_random, _math.random); a
	// math/rand source if nil.
	Random func() float64
	// Logger receives _log output; slog.Default() if nil.
	Logger *slog.Logger
	// JS runs _js functions; _js fails with a clear error if nil and the
	// default engine is unavailable.
	JS JSRunner
	// Ctx bounds _js evaluation; context.Background() if nil.
	Ctx context.Context
}

// Location is the browser window.location seen by _location and _url_query.
type Location struct {
	Hash, Host, Hostname, Href, Origin, Pathname, Port, Protocol, Search string
}

// Window is the browser window size seen by _media.
type Window struct {
	InnerWidth, InnerHeight float64
}

// JSRunner runs the body of a _js function. vars holds the accessors and
// arguments: accessor names map to serial.Func values.
type JSRunner interface {
	RunJS(ctx context.Context, body string, vars map[string]any) (any, error)
}

func (c *Context) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Context) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}
