package operators

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// Context holds what operators read. The client parser uses the page fields,
// the server parser uses Payload, Secrets and User. Objects are
// *jsvalue.Object, so _state, _object.keys and every other read see keys in
// the order they were written; nil means absent. A Context may be changed
// between Parse calls (for example the engine's state); it must not be
// changed during one. The context.Context of an evaluation is an argument of
// Parse, not part of the Context.
type Context struct {
	// PageID is the current page id (_location pageId).
	PageID string
	// BasePath is the app base path (_location basePath).
	BasePath string
	// HomePageID is the home page id (_location homePageId).
	HomePageID string
	// State is the page state (_state, and _type/_regex without "on").
	State *jsvalue.Object
	// Input is the page input set by Link (_input).
	Input *jsvalue.Object
	// Global is the app global (_global).
	Global *jsvalue.Object
	// User is the signed-in user, nil when signed out (_user).
	User *jsvalue.Object
	// URLQuery is the decoded URL query (_url_query). When nil it is parsed
	// from Location.Search the way Lowdefy does.
	URLQuery *jsvalue.Object
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
	Requests *jsvalue.Object
	// EventLog is the page event log, newest first (_event_log).
	EventLog []any
	// Payload is the request payload (server: _payload, and _nunjucks).
	Payload *jsvalue.Object
	// Secrets are the app secrets (server: _secret).
	Secrets *jsvalue.Object
	// Steps are the results of the steps an API endpoint's routine has run,
	// by step id (routine parser: _step).
	Steps *jsvalue.Object
	// Items are the loop variables of a routine's :for and :parallel_for, by
	// name (routine parser: _item).
	Items *jsvalue.Object
	// Env is the environment seen by the build parser's _env.
	Env *jsvalue.Object
	// Now returns the current time (_date.now, null dates); time.Now if nil.
	Now func() time.Time
	// Random returns a number in [0, 1) (_random, _math.random); a
	// math/rand source if nil.
	Random func() float64
	// Logger receives _log output; slog.Default() if nil.
	Logger *slog.Logger
	// JS runs _js functions; nil uses the sandbox of internal/expr.
	JS JSRunner
	// Plugins names operators that the app's plugins provide and mcpbridge does not run
	// (by operator name, such as "_my_operator"). Lowdefy would run them; here an
	// operator object naming one evaluates to null with an *UnsupportedError, so that it
	// is reported instead of flowing on as an object (and printing as "[object Object]").
	Plugins map[string]bool
}

// Location is the browser window.location seen by _location and _url_query.
type Location struct {
	Hash, Host, Hostname, Href, Origin, Pathname, Port, Protocol, Search string
}

// Window is the browser window size seen by _media.
type Window struct {
	InnerWidth, InnerHeight float64
}

// JSRunner runs the body of a _js function within ctx (the context passed
// to Parse). vars holds the accessors and arguments by parameter name:
// accessor names map to func([]any) (any, error) values, "args" to the
// arguments.
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
