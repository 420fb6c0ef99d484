package upstream

import (
	"context"
	"errors"
	"fmt"
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
// in a result, and answers by calling the tool again. So for a stateless client on a legacy
// upstream session mcpbridge runs the upstream call on its own, and when the upstream asks
// something, it *parks* the call: the client gets an input_required result whose
// requestState names the parked call, and its retry delivers the answers to the waiting
// upstream request and takes the call up again, round after round, until the upstream
// answers the call. A parked call lives in this process (a retry must reach the same
// replica) for at most the server's timeout, and belongs to the principal that started it.

// parkPrefix begins the requestState of a parked call.
const parkPrefix = "mcpbridge-parked:"

// parked is a tool call of a stateless client on a legacy upstream session.
type parked struct {
	id     string
	user   string // the principal that started it
	u      *upstream
	c      *conn
	f      *inflight
	events chan parkEvent
	upCtx  context.Context    // the upstream call's
	cancel context.CancelFunc // ends the upstream call
	cs     *mcp.ClientSession

	mu      sync.Mutex
	waiting map[string]chan parkReply // upstream requests waiting for the client, by input request key
	next    int
	expiry  *time.Timer
}

// parkEvent is what the upstream did: asked something (key, req), or answered the call.
type parkEvent struct {
	key  string
	req  mcp.InputRequest
	done bool
	res  *mcp.CallToolResult
	err  error
	// params of the upstream call, for the error of a refused retry
	params *mcp.CallToolParams
}

type parkReply struct {
	resp mcp.InputResponse
	err  error
}

// callParked runs a stateless client's call on a legacy upstream session.
func (u *upstream) callParked(ctx context.Context, call *backend.Call, name string, c *conn, cs *mcp.ClientSession, n *notes) (*mcp.CallToolResult, error) {
	upCtx, cancel := context.WithTimeout(c.life, u.src.Timeout)
	upCtx = withNotes(upCtx, n)
	p := &parked{
		id: randomHex(16), user: call.Principal.Owner(), u: u, c: c, upCtx: upCtx, cancel: cancel, cs: cs,
		events: make(chan parkEvent, 16), waiting: map[string]chan parkReply{},
	}
	p.f = c.begin(ctx, call.Session)
	c.mu.Lock()
	p.f.parked = p
	c.mu.Unlock()
	params := &mcp.CallToolParams{Name: name, Arguments: call.Arguments, InputResponses: call.InputResponses, RequestState: call.RequestState}
	params.SetProgressToken(p.f.token)
	u.b.goBackground(func() {
		defer cancel()
		res, err := cs.CallTool(upCtx, params)
		if err == nil {
			n.drain()
		}
		c.end(p.f)
		p.fail(errors.New("the call ended"))
		p.events <- parkEvent{done: true, res: res, err: err, params: params}
	})
	return p.round(ctx)
}

// round waits for what the upstream does next while the client's request ctx lasts.
func (p *parked) round(ctx context.Context) (*mcp.CallToolResult, error) {
	u := p.u
	stop := context.AfterFunc(ctx, p.cancel) // the client gave up: so does the upstream call
	ev := <-p.events
	if ev.done {
		stop()
		var rpcErr *jsonrpc.Error
		if ev.err != nil && (len(ev.params.InputResponses) > 0 || ev.params.RequestState != "") && upstreamError(ev.err, &rpcErr) {
			e := *rpcErr
			e.Message = u.b.scrubString(e.Message)
			return nil, &e
		}
		if ev.err != nil {
			return u.failure(ctx, p.upCtx, p.c, p.cs, "tools/call", ev.err), nil
		}
		return u.b.scrubResult(ev.res), nil
	}
	if !stop() {
		return backend.ErrorResult("the call was cancelled"), nil
	}
	u.b.park(p)
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{ev.key: ev.req}, RequestState: parkPrefix + p.id}, nil
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
		if b.unpark(p.id) != nil {
			p.u.log.Info("a call waiting for a client's input expired", "tool_call", p.id)
			p.cancel()
		}
	})
}

// unpark takes the parked call id out of the waiting room.
func (b *Backend) unpark(id string) *parked {
	b.parkMu.Lock()
	defer b.parkMu.Unlock()
	p := b.parked[id]
	if p != nil {
		delete(b.parked, id)
		p.expiry.Stop()
	}
	return p
}

// resume takes up a parked call with the answers of the client's retry.
func (b *Backend) resume(ctx context.Context, call *backend.Call, u *upstream, id string) (*mcp.CallToolResult, error) {
	p := b.unpark(id)
	if p == nil || p.user != call.Principal.Owner() || p.u != u {
		if p != nil {
			b.park(p) // not this caller's: leave it for its owner
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the requestState names no call waiting for input (it expired, or was already answered); call the tool again without it"}
	}
	p.c.moveTo(p.f, ctx, call.Session)
	p.answer(call.InputResponses)
	return p.round(ctx)
}

// dropParked ends every parked call (the backend closes).
func (b *Backend) dropParked() {
	b.parkMu.Lock()
	defer b.parkMu.Unlock()
	for id, p := range b.parked {
		p.expiry.Stop()
		p.cancel()
		delete(b.parked, id)
	}
}

// isParked reports whether a requestState names a parked call, and which.
func isParked(state string) (string, bool) {
	return strings.CutPrefix(state, parkPrefix)
}
