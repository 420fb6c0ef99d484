package server

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/operators"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// RequestCall names a page request to run, as the client's Request action sends it.
type RequestCall struct {
	// PageID and RequestID name the request; BlockID is the block whose event called it.
	PageID, RequestID, BlockID string
	// Payload is the request's evaluated payload as the client sends it (serialized:
	// dates as {"~d": ms}); Go maps from encoding/json are accepted.
	Payload any
}

// RequestResult is the answer to a request, as Lowdefy's callRequest returns it.
type RequestResult struct {
	// ID is the built request id, "request:<pageId>:<requestId>".
	ID string
	// Success is always true: failures are returned as errors.
	Success bool
	// Type is the request type, such as KnexRaw.
	Type string
	// Response is the connection's response serialized for the client (dates as
	// {"~d": ms}, key order kept), ready for json.Marshal.
	Response any
	// Notes are what the connection said about the outcome beyond the response, such as
	// a write that matched nothing ("… matched no document (matchedCount 0): nothing was
	// changed"). Lowdefy has no such field; it is for the caller's log.
	Notes []string
}

// CallRequest runs request call.RequestID of page call.PageID for user (nil when nobody
// is signed in), the way Lowdefy's callRequest does (reference/lowdefy.md §6.1): find
// the request and its connection, authorise the page's protection for the user (a user
// who may not see the page is told the request does not exist), evaluate the
// connection's and then the request's properties with the server parser over
// `_payload`, `_secret` and `_user`, apply the connection's read/write rules and
// property checks, and run it. Failures are *Error values worded as Lowdefy words them.
func (s *Server) CallRequest(ctx context.Context, user *jsvalue.Object, call RequestCall) (*RequestResult, error) {
	s.debug(ctx, "debug_request", "pageId", call.PageID, "requestId", call.RequestID, "blockId", call.BlockID)
	notExist := s.newError("ConfigurationError", fmt.Sprintf("Request %q does not exist.", call.RequestID), nil)
	page := s.app.Page(call.PageID)
	if page == nil {
		return nil, notExist
	}
	req := page.Request(call.RequestID)
	if req == nil {
		return nil, notExist
	}
	spec := requestSpec{
		requestID:    req.ID,
		pageID:       page.ID,
		blockID:      call.BlockID,
		typ:          req.Type,
		connectionID: req.ConnectionID,
		properties:   req.Config.Prop("properties"),
		location:     req.ID,
		auth:         authOf(req.Config),
		checkAuth:    true,
	}
	var notes []string
	spec.note = func(msg string) { notes = append(notes, msg) }
	payload, _ := serial.Decode(call.Payload).(*jsvalue.Object)
	pctx := &operators.Context{Payload: payload, Secrets: s.secrets, User: user, Logger: s.log, Now: s.now, Plugins: s.app.PluginOperators()}
	resp, err := s.execRequest(ctx, spec, func(input any, loc string) (any, []error) {
		return operators.NewServerParser(pctx).Parse(ctx, input, loc, nil, nil)
	}, user, nil)
	if err != nil {
		return nil, err
	}
	return &RequestResult{
		ID:       jsvalue.ToString(req.Config.Prop("id")),
		Success:  true,
		Type:     req.Type,
		Response: serial.Encode(resp, false),
		Notes:    notes,
	}, nil
}

// authOf returns the `auth` object of a built request, or nil.
func authOf(cfg *jsvalue.Object) *jsvalue.Object {
	a, _ := cfg.Prop("auth").(*jsvalue.Object)
	return a
}

// requestSpec is what execRequest needs of a page request or a routine step.
type requestSpec struct {
	requestID, pageID, blockID, typ, connectionID string
	properties                                    any
	location                                      string
	// auth is checked when checkAuth is set (page requests; endpoint steps are covered
	// by the endpoint's own authorisation).
	auth      *jsvalue.Object
	checkAuth bool
	// note, when set, receives the connection's notes on the outcome.
	note func(string)
}

// evalFunc evaluates config at a location with the parser of the call.
type evalFunc func(input any, loc string) (any, []error)

// execRequest runs steps 2–8 of callRequest. When mu is not nil it is held by the
// caller and released while the connection runs (endpoint routines).
func (s *Server) execRequest(ctx context.Context, spec requestSpec, eval evalFunc, user *jsvalue.Object, mu *sync.Mutex) (any, error) {
	if spec.connectionID == "" {
		return nil, s.newError("ConfigurationError", fmt.Sprintf("Request %q does not specify a connection.", spec.requestID), nil)
	}
	conn := s.app.Connection(spec.connectionID)
	if conn == nil {
		return nil, s.newError("ConfigurationError", fmt.Sprintf("Connection %q does not exist.", spec.connectionID), nil)
	}
	if spec.checkAuth {
		ok, err := authorize(user, spec.auth)
		if err != nil {
			return nil, err
		}
		s.debug(ctx, "debug_request_authorize", "authorized", ok)
		if !ok {
			return nil, s.newError("ConfigurationError", fmt.Sprintf("Request %q does not exist.", spec.requestID), nil)
		}
	}
	ctype, rtype, err := s.conns.Lookup(conn.Type, spec.typ)
	if err != nil {
		var ue *connections.UnknownError
		if errors.As(err, &ue) && ue.What == "connection type" {
			return nil, s.newError("ConfigurationError", fmt.Sprintf("Connection type %q can not be found.", conn.Type), err)
		}
		return nil, s.newError("ConfigurationError", fmt.Sprintf("Request type %q can not be found.", spec.typ), err)
	}
	connInput := conn.Properties
	if connInput == nil {
		connInput = &jsvalue.Object{}
	}
	connOut, errs := eval(connInput, conn.ID)
	if len(errs) > 0 {
		return nil, s.operatorError(errs[0])
	}
	var reqInput any = spec.properties
	if reqInput == nil || jsvalue.IsUndefined(reqInput) {
		reqInput = &jsvalue.Object{}
	}
	reqOut, errs := eval(reqInput, spec.location)
	if len(errs) > 0 {
		return nil, s.operatorError(errs[0])
	}
	connProps, _ := connOut.(*jsvalue.Object)
	if rtype.CheckRead && connProps.Prop("read") == false {
		return nil, s.newError("ConfigurationError", fmt.Sprintf("Connection %q does not allow reads.", conn.ID), nil)
	}
	if rtype.CheckWrite && connProps.Prop("write") != true {
		return nil, s.newError("ConfigurationError", fmt.Sprintf("Connection %q does not allow writes.", conn.ID), nil)
	}
	if ctype.Check != nil {
		if err := ctype.Check(connProps); err != nil {
			return nil, s.newError("ConfigurationError", err.Error(), err)
		}
	}
	if rtype.Check != nil {
		if err := rtype.Check(reqOut); err != nil {
			return nil, s.newError("ConfigurationError", err.Error(), err)
		}
	}
	c := &connections.Call{
		PageID: spec.pageID, RequestID: spec.requestID, BlockID: spec.blockID,
		ConnectionID: conn.ID, Connection: connProps, Request: reqOut, Deps: s.deps, Note: spec.note,
	}
	if mu != nil {
		mu.Unlock()
	}
	resp, err := runConnection(ctx, rtype, c)
	if mu != nil {
		mu.Lock()
	}
	if err != nil {
		s.debug(ctx, "debug_request_error", "requestId", spec.requestID, "type", spec.typ, "err", s.scrub(err.Error()))
		return nil, s.newError("RequestError", err.Error(), err)
	}
	return resp, nil
}

// runConnection calls the request type's Run, turning a panic of the connection into
// an error so that a faulty connection type cannot bring the process down.
func runConnection(ctx context.Context, rt *connections.RequestType, c *connections.Call) (resp any, err error) {
	defer func() {
		if r := recover(); r != nil {
			resp, err = nil, fmt.Errorf("internal error in the connection (please report): %v", r)
		}
	}()
	if rt.Run == nil {
		return nil, errors.New("the request type has no Run function")
	}
	return rt.Run(ctx, c)
}

// operatorError is the RequestError of a failed operator. Lowdefy builds it with
// `new RequestError(errors[0])`, so the message is the JavaScript error's string form,
// "Error: Operator Error: …".
func (s *Server) operatorError(err error) *Error {
	return s.newError("RequestError", "Error: "+err.Error(), err)
}
