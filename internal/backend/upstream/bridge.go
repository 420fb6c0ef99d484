package upstream

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
)

// A legacy (2025-11-25 or older) upstream asks for sampling, elicitation or roots with a
// request in the middle of a call, and waits for the answer. A stateless (2026-07-28)
// client has no session to carry that request: it can only be asked with input requests
// in a result, and answers by sending its request again. So for a stateless client on a
// legacy upstream session mcpbridge runs the upstream request (a tool call or a prompt
// get) on its own, and when the upstream asks something, it *parks* the request: the
// client gets an input_required result whose requestState names the parked request, and
// its retry delivers the answers to the waiting upstream request and takes the request up
// again, round after round, until the upstream answers it.
//
// A parked request is found by its requestState alone (128 random bits: the caller's
// continuation, which only it holds), and must be taken up by the principal that started
// it, with the same method and name. Since a legacy upstream's requests say nothing of
// which call they belong to, a stateless caller's request on a legacy upstream runs on an
// upstream session no other request of its is running on (see upstream.connFor): a
// parked request another caller abandoned holds up nothing but its own session. A parked
// request lives in this process (a retry must reach the same replica) for at most the
// server's timeout.

// parkPrefix begins the requestState of a parked request.
const parkPrefix = "mcpbridge-parked:"

// Why a parked request's upstream context ended (context.Cause).
var (
	errTimedOut   = errors.New("the upstream request ran out of time")
	errClientLeft = errors.New("the client gave up")
	errExpired    = errors.New("the client did not retry in time")
	errEnded      = errors.New("the request ended")
)

// parked is a tool call or prompt get of a stateless client on a legacy upstream session.
type parked struct {
	id     string
	user   string // the principal that started it
	method string // "tools/call" or "prompts/get"
	name   string // the tool's or prompt's name, as the client asked for it
	u      *upstream
	c      *conn
	cs     *mcp.ClientSession
	n      *notes
	f      *inflight
	// sentResponses and sentState are the input responses and requestState the client's
	// first request carried, passed upstream.
	sentResponses mcp.InputResponseMap
	sentState     string
	events        chan parkEvent
	upCtx         context.Context         // the upstream request's
	cancel        context.CancelCauseFunc // ends the upstream request

	mu      sync.Mutex
	waiting map[string]chan parkReply // upstream requests waiting for the client, by input request key
	next    int
	expiry  *time.Timer
}

// parkEvent is what the upstream did: asked something (key, req), or answered.
type parkEvent struct {
	key  string
	req  mcp.InputRequest
	done bool
	res  mcp.Result
	err  error
	// cause is why the upstream request's context had ended when the request returned
	// (nil when it had not): read then, before the request's own end cancels it.
	cause error
}

type parkReply struct {
	resp mcp.InputResponse
	err  error
}

// outcome is what one round of a parked request came to.
type outcome struct {
	// asked is what the client is asked, with state the requestState of its retry.
	asked mcp.InputRequestMap
	state string
	// res and err are the upstream's answer; cause why the request's context had ended.
	res   mcp.Result
	err   error
	cause error
}

// startParked runs a stateless client's request on a legacy upstream session c: run
// sends it upstream. The request is a call of c (its progress and the upstream's
// requests reach it) until the upstream answers.
//
// responses and state are what the client's request carried (a retry the upstream itself
// asked for, passed on): the upstream's refusal of them is the client's error.
func (u *upstream) startParked(ctx context.Context, w who, method, name string, c *conn, cs *mcp.ClientSession, n *notes, responses mcp.InputResponseMap, state string, run func(context.Context, string) (mcp.Result, error)) *parked {
	tctx, stopTimer := context.WithTimeoutCause(c.life, u.src.Timeout, errTimedOut)
	upCtx, cancel := context.WithCancelCause(tctx)
	p := &parked{
		id: randomHex(16), user: w.owner, method: method, name: name, u: u, c: c, cs: cs, n: n,
		sentResponses: responses, sentState: state,
		upCtx: withNotes(upCtx, n), cancel: cancel,
		events: make(chan parkEvent, 16), waiting: map[string]chan parkReply{},
	}
	p.f = c.begin(ctx, w.sess, w.caps())
	c.mu.Lock()
	p.f.parked = p
	c.mu.Unlock()
	u.b.goBackground(func() {
		defer stopTimer()
		res, err := run(p.upCtx, p.f.token)
		var cause error
		if p.upCtx.Err() != nil {
			cause = context.Cause(p.upCtx)
		}
		if err == nil {
			n.drain()
		}
		c.end(p.f)
		p.fail(errors.New("the call ended"))
		p.events <- parkEvent{done: true, res: res, err: err, cause: cause}
		cancel(errEnded)
	})
	return p
}

// round waits for what the upstream does next while the client's request ctx lasts: it
// asks something (the request is parked until the client's retry), or answers.
func (p *parked) round(ctx context.Context) outcome {
	stop := context.AfterFunc(ctx, func() { p.cancel(errClientLeft) }) // so does the upstream request
	ev := <-p.events
	if ev.done {
		stop()
		return outcome{res: ev.res, err: ev.err, cause: ev.cause}
	}
	if !stop() {
		// The client left as the upstream asked: the request ends (the upstream sees it
		// cancelled), and so does this round.
		return outcome{err: context.Cause(ctx), cause: errClientLeft}
	}
	p.u.b.park(p)
	return outcome{asked: mcp.InputRequestMap{ev.key: ev.req}, state: parkPrefix + p.id}
}

// ask is called for an upstream request: it is passed to the client as an input request,
// and the answer of the client's retry returned.
func (p *parked) ask(ctx context.Context, ir mcp.InputRequest) (mcp.InputResponse, error) {
	ch := make(chan parkReply, 1)
	p.mu.Lock()
	if p.waiting == nil {
		p.mu.Unlock()
		return nil, errors.New("the call ended")
	}
	p.next++
	key := fmt.Sprintf("upstream-%d", p.next)
	p.waiting[key] = ch
	p.mu.Unlock()
	select {
	case p.events <- parkEvent{key: key, req: ir}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-ch:
		return r.resp, r.err
	case <-ctx.Done():
		p.mu.Lock()
		if p.waiting != nil {
			delete(p.waiting, key)
		}
		p.mu.Unlock()
		return nil, ctx.Err()
	}
}

// asking reports whether the upstream request waits for the answer to something it
// asked the client.
func (p *parked) asking() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.waiting) > 0
}

// answer delivers the client's input responses to the waiting upstream requests; one
// without an answer fails.
func (p *parked) answer(responses mcp.InputResponseMap) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for key, ch := range p.waiting {
		if r, ok := responses[key]; ok && r != nil {
			ch <- parkReply{resp: r}
		} else {
			ch <- parkReply{err: fmt.Errorf("the client's retry has no answer to input request %q", key)}
		}
		delete(p.waiting, key)
	}
}

// fail ends every waiting upstream request with err, and takes no more.
func (p *parked) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for key, ch := range p.waiting {
		ch <- parkReply{err: err}
		delete(p.waiting, key)
	}
	p.waiting = nil
}

// park keeps p until the client's retry takes it up, at most the upstream's timeout.
func (b *Backend) park(p *parked) {
	b.parkMu.Lock()
	defer b.parkMu.Unlock()
	if b.parked == nil {
		b.parked = map[string]*parked{}
	}
	b.parked[p.id] = p
	p.expiry = time.AfterFunc(p.u.src.Timeout, func() {
		b.parkMu.Lock()
		expired := b.parked[p.id] == p
		if expired {
			delete(b.parked, p.id)
		}
		b.parkMu.Unlock()
		if expired {
			p.u.log.Info("a call waiting for a client's input expired", "tool_call", p.id, "method", p.method)
			p.cancel(errExpired)
		}
	})
}

// take takes the parked request id out of the waiting room for a retry, when the retry
// is the same request of the same principal on the same upstream; otherwise it leaves it
// where it is and returns nil.
func (b *Backend) take(id string, u *upstream, owner, method, name string) *parked {
	b.parkMu.Lock()
	defer b.parkMu.Unlock()
	p := b.parked[id]
	if p == nil || p.user != owner || p.u != u || p.method != method || p.name != name {
		return nil
	}
	delete(b.parked, id)
	p.expiry.Stop()
	return p
}

// notParked is the answer to a retry whose requestState names no parked request.
func notParked() error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the requestState names no request waiting for input (it expired, was already answered, or belongs to another tool or prompt); send the request again without it"}
}

// resume takes up a parked request with the answers of the client's retry, or fails
// with notParked.
func (b *Backend) resume(ctx context.Context, u *upstream, w who, method, name, id string, responses mcp.InputResponseMap) (*parked, outcome, error) {
	p := b.take(id, u, w.owner, method, name)
	if p == nil {
		return nil, outcome{}, notParked()
	}
	p.c.moveTo(p.f, ctx, w.sess, w.caps())
	p.answer(responses)
	return p, p.round(ctx), nil
}

// dropParked ends every parked request (the backend closes).
func (b *Backend) dropParked() {
	b.parkMu.Lock()
	defer b.parkMu.Unlock()
	for id, p := range b.parked {
		p.expiry.Stop()
		p.cancel(errClosed)
		delete(b.parked, id)
	}
}

// isParked reports whether a requestState names a parked request, and which.
func isParked(state string) (string, bool) {
	return strings.CutPrefix(state, parkPrefix)
}

// toolOutcome is the answer to the client of a round of a parked tool call.
func (u *upstream) toolOutcome(ctx context.Context, p *parked, o outcome) (*mcp.CallToolResult, error) {
	if o.asked != nil {
		return &mcp.CallToolResult{InputRequests: o.asked, RequestState: o.state}, nil
	}
	if o.err != nil {
		if errors.Is(o.cause, errClientLeft) || ctx.Err() != nil {
			return backend.ErrorResult("the call was cancelled"), nil
		}
		if why := p.f.refusal(); why != "" {
			return u.needsInput(why), nil
		}
		if e := u.clientError(o.err, p.sentResponses, p.sentState); e != nil {
			return nil, e
		}
		return u.failure(ctx, errors.Is(o.cause, errTimedOut), p.n, p.c, p.cs, "tools/call", o.err), nil
	}
	res, _ := o.res.(*mcp.CallToolResult)
	if res == nil {
		return backend.ErrorResult("%s answered the call with nothing", u.label), nil
	}
	return u.checkedResult(res, p.f), nil
}

// promptOutcome is the answer to the client of a round of a parked prompt get.
func (u *upstream) promptOutcome(ctx context.Context, p *parked, o outcome) (*mcp.GetPromptResult, error) {
	if o.asked != nil {
		return &mcp.GetPromptResult{InputRequests: o.asked, RequestState: o.state}, nil
	}
	if o.err != nil {
		if errors.Is(o.cause, errClientLeft) || ctx.Err() != nil {
			return nil, context.Canceled
		}
		if why := p.f.refusal(); why != "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: u.needsInputText(why)}
		}
		if e := u.clientError(o.err, p.sentResponses, p.sentState); e != nil {
			return nil, e
		}
		return nil, u.rpcFailure(ctx, errors.Is(o.cause, errTimedOut), p.c, p.cs, "prompts/get", o.err)
	}
	res, _ := o.res.(*mcp.GetPromptResult)
	if res == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s answered prompts/get with nothing", u.label)}
	}
	return res, nil
}

// checkedResult is the upstream's tool result for the client: when the upstream failed
// after mcpbridge refused it input the client cannot give, an error result that says
// so; otherwise the result, scrubbed.
func (u *upstream) checkedResult(res *mcp.CallToolResult, f *inflight) *mcp.CallToolResult {
	if why := f.refusal(); why != "" && res.IsError {
		return u.needsInput(why)
	}
	return u.b.scrubResult(res)
}

// needsInput is the error result of a call whose upstream needed input the client
// cannot give (why says which), and failed without it. (What the upstream said then only
// repeats mcpbridge's refusal.)
func (u *upstream) needsInput(why string) *mcp.CallToolResult {
	return backend.ErrorResult("%s", u.needsInputText(why))
}

func (u *upstream) needsInputText(why string) string {
	return fmt.Sprintf("%s needed input this client cannot give: %s. Use a client that declares that capability, or ask for something that needs no such input.", u.label, why)
}

// lacks says what of an input request the client's declared capabilities (nil when it
// declared none) do not allow, or "" when they do.
func lacks(caps *mcp.ClientCapabilities, ir mcp.InputRequest) string {
	if caps == nil {
		caps = &mcp.ClientCapabilities{}
	}
	switch p := ir.(type) {
	case *mcp.ElicitParams:
		e := caps.Elicitation
		switch {
		case e == nil:
			return "it asked the user a question (elicitation), and the client did not declare the elicitation capability"
		case p.Mode == "url" && e.URL == nil:
			return "it asked the user to open a URL (URL-mode elicitation), and the client did not declare elicitation.url"
		case p.Mode != "url" && e.Form == nil && e.URL != nil:
			return "it asked the user to fill in a form (form-mode elicitation), and the client declared only elicitation.url"
		}
	case *mcp.CreateMessageParams:
		if caps.Sampling == nil {
			return "it asked the client's model for a completion (sampling), and the client did not declare the sampling capability"
		}
	case *mcp.CreateMessageWithToolsParams:
		if caps.Sampling == nil {
			return "it asked the client's model for a completion (sampling), and the client did not declare the sampling capability"
		}
		if len(p.Tools) > 0 && caps.Sampling.Tools == nil {
			return "it asked the client's model for a completion with tools (sampling with tools), and the client did not declare sampling.tools"
		}
	case *mcp.ListRootsParams:
		if caps.RootsV2 == nil {
			return "it asked for the client's roots, and the client did not declare the roots capability"
		}
	}
	return ""
}

// lacksAny is lacks for every input request of a result, in the order of their keys.
func lacksAny(caps *mcp.ClientCapabilities, reqs mcp.InputRequestMap) string {
	var why []string
	for _, k := range slices.Sorted(maps.Keys(reqs)) {
		if w := lacks(caps, reqs[k]); w != "" && !slices.Contains(why, w) {
			why = append(why, w)
		}
	}
	return strings.Join(why, "; ")
}
