// Package connections defines what a Lowdefy connection type is to the server side: a set
// of request types, each with its read/write checks and a function that runs a request
// against the connection's evaluated properties. The connection types themselves live in
// sub-packages (axioshttp, knex, mongodb); package all assembles them into a Set.
//
// The contract follows @lowdefy/api 4.0.0-rc.11 (reference/lowdefy.md §6.1, §6.4, §7):
// the server evaluates the connection's and the request's properties with the server
// parser, applies CheckRead and CheckWrite, and calls Run. Values are those of package
// jsvalue; objects keep their key order, and results should keep the order the data source
// gives (a row's columns in the database's order).
package connections

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// Type is one connection type, such as AxiosHttp.
type Type struct {
	// Name is the connection type as written in the app (`type: Knex`).
	Name string
	// Check validates the evaluated connection properties before a request runs, the way
	// the plugin's JSON schema does; nil accepts anything. Its error names the property.
	Check func(props *jsvalue.Object) error
	// Requests are the request types of the connection, by name (`type: KnexRaw`).
	Requests map[string]*RequestType
}

// RequestType is one request type of a connection type.
type RequestType struct {
	// CheckRead refuses the request when the connection sets `read: false`.
	CheckRead bool
	// CheckWrite refuses the request unless the connection sets `write: true`.
	CheckWrite bool
	// Check validates the evaluated request properties; nil accepts anything.
	Check func(props any) error
	// Run runs the request and returns its response (JSON-like jsvalue data).
	Run func(ctx context.Context, c *Call) (any, error)
}

// Call is one request to run.
type Call struct {
	// PageID, RequestID and BlockID say where the request comes from (for logs and errors).
	PageID, RequestID, BlockID string
	// ConnectionID is the connection's id in the app.
	ConnectionID string
	// Connection holds the evaluated connection properties.
	Connection *jsvalue.Object
	// Request holds the evaluated request properties.
	Request any
	// Deps are the services of the process.
	Deps *Deps
	// Note, when set, receives what a connection can say about the outcome beyond its
	// response, such as a write that changed nothing where the response cannot show it
	// (a KnexRaw UPDATE on SQLite answers [] whatever it changed). Use Notef.
	Note func(msg string)
}

// Notef reports a note about the call's outcome to Note, if set.
func (c *Call) Notef(format string, args ...any) {
	if c != nil && c.Note != nil {
		c.Note(fmt.Sprintf(format, args...))
	}
}

// Deps are the services a connection may use. The zero value works: nil fields fall back
// to defaults (slog.Default, a client without SSRF rules, a fresh Pools).
type Deps struct {
	// Logger receives what the connections log.
	Logger *slog.Logger
	// HTTPClient returns the client for outgoing HTTP (AxiosHttp), which applies the
	// gateway's SSRF rules; nil uses http.DefaultClient.
	HTTPClient func() *http.Client
	// Pools keeps database handles open between requests; nil opens one per request.
	Pools *Pools
}

// Set is the connection types a server knows, by name.
type Set map[string]*Type

// Lookup returns the request type typ of connection type conn, or an error naming what is
// unknown.
func (s Set) Lookup(conn, typ string) (*Type, *RequestType, error) {
	t := s[conn]
	if t == nil {
		return nil, nil, &UnknownError{What: "connection type", Name: conn}
	}
	rt := t.Requests[typ]
	if rt == nil {
		return t, nil, &UnknownError{What: "request type", Name: typ, Of: conn}
	}
	return t, rt, nil
}

// UnknownError is a connection type or request type the server does not have.
type UnknownError struct {
	What, Name, Of string
}

func (e *UnknownError) Error() string {
	if e.Of != "" {
		return "unknown " + e.What + " \"" + e.Name + "\" for connection type " + e.Of
	}
	return "unknown " + e.What + " \"" + e.Name + "\""
}
