package upstream

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource subscriptions. The backend seam has no interface for them yet; these methods
// are what this kind offers a gateway that forwards resources/subscribe (legacy) and
// subscriptions/listen resourceSubscriptions (2026-07-28): it subscribes a URI once,
// however many clients subscribed to it, and reads the URIs that changed from
// ResourceUpdates. Subscriptions go through the shared upstream session and are made
// again when that session is started again.

// updatesBuffer bounds the resource updates waiting to be read.
const updatesBuffer = 64

// SubscribeResource asks the upstream that serves uri to say when it changes.
func (b *Backend) SubscribeResource(ctx context.Context, uri string) error {
	u := b.resourceOwner(uri)
	u.subsMu.Lock()
	u.subs[uri] = true
	u.subsMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, u.src.Timeout)
	defer cancel()
	cs, _, err := u.shared.session(ctx)
	if err != nil {
		return u.rpcFailure(ctx, ctx.Err() != nil, u.shared, nil, "resources/subscribe", err)
	}
	if !canSubscribe(cs) {
		u.subsMu.Lock()
		delete(u.subs, uri)
		u.subsMu.Unlock()
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s does not offer resource subscriptions", u.label)}
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		return u.rpcFailure(ctx, ctx.Err() != nil, u.shared, cs, "resources/subscribe", err)
	}
	return nil
}

// UnsubscribeResource ends a subscription made with SubscribeResource.
func (b *Backend) UnsubscribeResource(ctx context.Context, uri string) error {
	u := b.resourceOwner(uri)
	u.subsMu.Lock()
	had := u.subs[uri]
	delete(u.subs, uri)
	u.subsMu.Unlock()
	if !had {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, u.src.Timeout)
	defer cancel()
	cs, _, err := u.shared.session(ctx)
	if err != nil {
		return nil // a session that is gone holds no subscription
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		return u.rpcFailure(ctx, ctx.Err() != nil, u.shared, cs, "resources/unsubscribe", err)
	}
	return nil
}

// ResourceUpdates receives the URI of a subscribed resource each time the upstream says
// it changed.
func (b *Backend) ResourceUpdates() <-chan string { return b.updates }

// resourceUpdated passes an upstream's notifications/resources/updated on.
func (u *upstream) resourceUpdated(uri string) {
	u.subsMu.Lock()
	subscribed := u.subs[uri]
	u.subsMu.Unlock()
	if !subscribed {
		return
	}
	select {
	case u.b.updates <- uri:
	default:
		u.log.Warn("dropping a resource update: nobody reads them", "uri", uri)
	}
}

// resubscribe makes the subscriptions again on a new shared session.
func (u *upstream) resubscribe(ctx context.Context, cs *mcp.ClientSession) {
	u.subsMu.Lock()
	uris := make([]string, 0, len(u.subs))
	for uri := range u.subs {
		uris = append(uris, uri)
	}
	u.subsMu.Unlock()
	if len(uris) == 0 || !canSubscribe(cs) {
		return
	}
	for _, uri := range uris {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			u.log.Warn("subscribing again to a resource failed", "uri", uri, "error", u.b.scrubString(err.Error()))
		}
	}
}

func canSubscribe(cs *mcp.ClientSession) bool {
	res := cs.InitializeResult()
	return res != nil && res.Capabilities != nil && res.Capabilities.Resources != nil && res.Capabilities.Resources.Subscribe
}
