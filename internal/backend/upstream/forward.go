package upstream

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
)

// newClient returns the MCP client of connection c: it forwards what the upstream sends
// during a call (progress, log messages, sampling, elicitation and roots requests) to the
// caller, and on the shared connection follows list changes.
func (u *upstream) newClient(c *conn, n *notes) *mcp.Client {
	// The sampling and elicitation handlers only make the client declare the
	// capabilities: the middleware below forwards those requests.
	refuse := errors.New("mcpbridge forwards this request before it reaches a handler")
	opts := &mcp.ClientOptions{
		Logger: u.log.With("sdk", "client"),
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			f, why := c.caller()
			if f == nil {
				u.log.Debug("dropping an upstream log message", "reason", why)
				return
			}
			p := *req.Params
			p.Data = u.b.scrubValue(p.Data)
			_ = f.sess.Log(f.ctx, &p)
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			if f := c.byToken(req.Params.ProgressToken); f != nil {
				f.sess.Progress(f.ctx, req.Params.Progress, req.Params.Total, u.b.scrubString(req.Params.Message))
			}
		},
		// Input requests of a 2026-07-28 upstream are passed to the caller, not answered here.
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	}
	clientOptionsFor(c, opts, func() {
		opts.CreateMessageHandler = func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return nil, refuse
		}
	}, func() {
		opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, refuse
		}
	})
	if c.key == "" || c.key == sharedLegacyKey {
		// The shared sessions follow the catalog: it is listed again through the session
		// that says it changed.
		changed := func() { u.requestRefresh(c) }
		opts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { changed() }
		opts.PromptListChangedHandler = func(context.Context, *mcp.PromptListChangedRequest) { changed() }
		opts.ResourceListChangedHandler = func(context.Context, *mcp.ResourceListChangedRequest) { changed() }
	}
	if c.key == "" {
		opts.ResourceUpdatedHandler = func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			u.resourceUpdated(req.Params.URI)
		}
	}
	impl := &mcp.Implementation{Name: "mcpbridge", Title: "mcpbridge gateway", Version: "1"}
	if c.info != nil {
		impl = c.info
	}
	cl := mcp.NewClient(impl, opts)
	// The upstream's requests are forwarded before the client handles them: roots/list
	// has no handler option (the client answers from its own roots), and the client
	// would check an elicitation's schema by its own rules before the handler runs — the
	// downstream client is the one to judge it.
	cl.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if forwardable(method) {
				defer n.handledOne()
			}
			switch p := req.GetParams().(type) {
			case *mcp.ListRootsParams:
				return forward(ctx, c, method, func(ctx context.Context, s backend.Session) (*mcp.ListRootsResult, error) {
					return s.ListRoots(ctx)
				}, p, answerAs[*mcp.ListRootsResult])
			case *mcp.ElicitParams:
				return forward(ctx, c, method, func(ctx context.Context, s backend.Session) (*mcp.ElicitResult, error) {
					return s.Elicit(ctx, p)
				}, p, answerAs[*mcp.ElicitResult])
			case *mcp.CreateMessageWithToolsParams:
				return forward(ctx, c, method, func(ctx context.Context, s backend.Session) (mcp.Result, error) {
					base, err := basicSampling(p)
					if err != nil {
						return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
					}
					return s.CreateMessage(ctx, base)
				}, p, samplingAnswer)
			}
			return next(ctx, method, req)
		}
	})
	return cl
}

// forward sends an upstream's request to the client of the call it belongs to: over the
// client's session, or, for a stateless client, as an input request of the call's result
// (see parked). The request ends when the upstream cancels it or the call ends. What the
// client did not declare it can answer is refused (and the call's error says so), never
// sent.
func forward[R any](ctx context.Context, c *conn, method string, ask func(context.Context, backend.Session) (R, error), ir mcp.InputRequest, answer func(mcp.InputResponse) (R, error)) (R, error) {
	var zero R
	f, why := c.caller()
	if f == nil {
		return zero, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("mcpbridge cannot forward %s: %s", method, why)}
	}
	if why := lacks(f.caps, ir); why != "" {
		c.refuse(f.f, why)
		return zero, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: fmt.Sprintf("mcpbridge cannot forward %s: the client cannot answer it (%s)", method, why)}
	}
	fctx, cancel := context.WithCancel(f.ctx)
	stop := context.AfterFunc(ctx, cancel)
	defer func() {
		stop()
		cancel()
	}()
	var res R
	var err error
	switch {
	case f.sess.ID() != "":
		res, err = ask(fctx, f.sess)
	case f.parked != nil:
		var resp mcp.InputResponse
		if resp, err = f.parked.ask(ctx, ir); err == nil {
			res, err = answer(resp)
		}
	default:
		return zero, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s sent %s, which cannot reach a client that made a stateless (2026-07-28) request; it needs a client with a session (protocol 2025-11-25 or older)", c.u.label, method)}
	}
	if err != nil {
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			return zero, rpcErr
		}
		return zero, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the client did not answer %s: %s", method, c.u.b.scrubString(err.Error()))}
	}
	return res, nil
}

// answerAs returns the input response as the result type R the upstream expects.
func answerAs[R any](resp mcp.InputResponse) (R, error) {
	var zero R
	if r, ok := resp.(R); ok {
		return r, nil
	}
	return zero, fmt.Errorf("the client answered with %T, not %T", resp, zero)
}

// samplingAnswer returns a sampling response in its form without tools when it has one
// content block (what a 2025-06-18 or older upstream reads), else as it is.
func samplingAnswer(resp mcp.InputResponse) (mcp.Result, error) {
	switch r := resp.(type) {
	case *mcp.CreateMessageResult:
		return r, nil
	case *mcp.CreateMessageWithToolsResult:
		if len(r.Content) == 1 {
			return &mcp.CreateMessageResult{Meta: r.Meta, Model: r.Model, Role: r.Role, StopReason: r.StopReason, Content: r.Content[0]}, nil
		}
		return r, nil
	}
	return nil, fmt.Errorf("the client answered a sampling request with %T", resp)
}

// fulfil asks a legacy client, over its session, for the input a 2026-07-28 upstream
// requested, all at once.
func fulfil(ctx context.Context, s backend.Session, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		out   = make(mcp.InputResponseMap, len(reqs))
		first error
	)
	for id, ir := range reqs {
		wg.Go(func() {
			resp, err := fulfilOne(ctx, s, ir)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = fmt.Errorf("input request %q: %w", id, err)
					cancel()
				}
				return
			}
			out[id] = resp
		})
	}
	wg.Wait()
	return out, first
}

func fulfilOne(ctx context.Context, s backend.Session, ir mcp.InputRequest) (mcp.InputResponse, error) {
	switch p := ir.(type) {
	case *mcp.ElicitParams:
		return s.Elicit(ctx, p)
	case *mcp.CreateMessageParams:
		return s.CreateMessage(ctx, p)
	case *mcp.CreateMessageWithToolsParams:
		base, err := basicSampling(p)
		if err != nil {
			return nil, err
		}
		return s.CreateMessage(ctx, base)
	case *mcp.ListRootsParams:
		return s.ListRoots(ctx)
	}
	return nil, fmt.Errorf("unknown input request %T", ir)
}

// basicSampling converts a sampling request to its form without tools, which is what a
// caller's session can send: each message must hold one content block and no tools may be
// offered.
func basicSampling(p *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageParams, error) {
	if len(p.Tools) > 0 {
		return nil, errors.New("the sampling request offers tools, which mcpbridge cannot forward to a legacy client")
	}
	out := &mcp.CreateMessageParams{
		Meta: p.Meta, IncludeContext: p.IncludeContext, MaxTokens: p.MaxTokens, Metadata: p.Metadata,
		ModelPreferences: p.ModelPreferences, StopSequences: p.StopSequences, SystemPrompt: p.SystemPrompt,
		Temperature: p.Temperature,
	}
	for _, m := range p.Messages {
		if len(m.Content) != 1 {
			return nil, fmt.Errorf("a sampling message with %d content blocks cannot be forwarded to a legacy client", len(m.Content))
		}
		out.Messages = append(out.Messages, &mcp.SamplingMessage{Role: m.Role, Content: m.Content[0]})
	}
	return out, nil
}
