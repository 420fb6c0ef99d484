// Package runtime wires a loaded Lowdefy app to a headless engine: the client side
// (package engine) and the server side (package server) that runs the app's requests and
// API endpoints on its connections (package connections/all). It is what
// `mcpbridge app run` and the differential tests use; it imports nothing of MCP, the
// gateway or the store.
package runtime

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections/all"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/server"
)

// Options configure a runtime.
type Options struct {
	// User is the session user (_user) of both sides; nil is anonymous.
	User *jsvalue.Object
	// Now is the clock of both sides (_date: now); time.Now if nil.
	Now func() time.Time
	// Logger receives warnings; slog.Default() if nil.
	Logger *slog.Logger
	// HTTPClient returns the client for outgoing HTTP (Fetch, AxiosHttp); nil makes Fetch
	// fail and AxiosHttp use a client without the gateway's SSRF rules.
	HTTPClient func() *http.Client
	// Origin is the headless browser's origin (the engine's default if empty).
	Origin string
	// Secrets are the app's secrets (`_secret`), as server.SecretsFromEnv reads them.
	Secrets map[string]string
	// Connections are the connection types requests may use; nil is every type mcpbridge
	// has (connections/all).
	Connections connections.Set
	// Pools keeps database handles between requests; nil opens one per request. The
	// caller closes it.
	Pools *connections.Pools
	// NoServer leaves the server side out: every Request and CallAPI action fails.
	NoServer bool
}

// NewEngine returns an engine for a whose requests and endpoints run on the server side
// (unless o.NoServer).
func NewEngine(a *app.App, o Options) *engine.Engine {
	eo := engine.Options{
		User:       o.User,
		Now:        o.Now,
		Logger:     o.Logger,
		HTTPClient: o.HTTPClient,
		Origin:     o.Origin,
	}
	if !o.NoServer {
		conns := o.Connections
		if conns == nil {
			conns = all.Set()
		}
		eo.Server = &serverSide{user: o.User, srv: server.New(a, server.Options{
			Connections: conns,
			Secrets:     o.Secrets,
			Deps:        &connections.Deps{Logger: o.Logger, HTTPClient: o.HTTPClient, Pools: o.Pools},
			Logger:      o.Logger,
			Now:         o.Now,
		})}
	}
	return engine.New(a, eo)
}

// serverSide adapts a server.Server to the engine's Server interface for one user.
type serverSide struct {
	user *jsvalue.Object
	srv  *server.Server
}

func (s *serverSide) Request(ctx context.Context, c engine.RequestCall) (any, error) {
	res, err := s.srv.CallRequest(ctx, s.user, server.RequestCall{PageID: c.PageID, RequestID: c.RequestID, BlockID: c.BlockID, Payload: c.Payload})
	if err != nil {
		return nil, err
	}
	if c.Note != nil {
		for _, n := range res.Notes {
			c.Note(n)
		}
	}
	return res.Response, nil
}

func (s *serverSide) Endpoint(ctx context.Context, c engine.EndpointCall) (engine.EndpointResult, error) {
	res, err := s.srv.CallEndpoint(ctx, s.user, server.EndpointCall{EndpointID: c.EndpointID, PageID: c.PageID, BlockID: c.BlockID, Payload: c.Payload})
	if err != nil {
		return engine.EndpointResult{}, err
	}
	out := engine.EndpointResult{Response: res.Response, Status: res.Status, Success: res.Success}
	if res.Error != nil {
		out.Error = res.Error
	}
	return out, nil
}
