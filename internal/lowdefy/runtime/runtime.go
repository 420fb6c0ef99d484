// Package runtime wires a loaded Lowdefy app to a headless engine: the client side
// (package engine) and, once it exists, the server side that runs the app's requests on
// its connections. It is what `mcpbridge app run` and the differential tests use; it
// imports nothing of MCP, the gateway or the store.
package runtime

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
)

// Options configure a runtime.
type Options struct {
	// User is the session user (_user); nil is anonymous.
	User *jsvalue.Object
	// Now is the clock of both sides (_date: now); time.Now if nil.
	Now func() time.Time
	// Logger receives warnings; slog.Default() if nil.
	Logger *slog.Logger
	// HTTPClient returns the client for outgoing HTTP (Fetch); nil makes Fetch fail.
	HTTPClient func() *http.Client
	// Origin and Window are the headless browser's (engine defaults if zero).
	Origin string
}

// NewEngine returns a headless engine for the app.
func NewEngine(a *app.App, o Options) *engine.Engine {
	return engine.New(a, engine.Options{
		User:       o.User,
		Now:        o.Now,
		Logger:     o.Logger,
		HTTPClient: o.HTTPClient,
		Origin:     o.Origin,
	})
}
