package engine

import (
	"context"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// SetGlobal sets _global paths as the SetGlobal action does, then updates the current
// page. It is what an agent's setGlobal does (no block or event runs it).
func (e *Engine) SetGlobal(ctx context.Context, values *jsvalue.Object) error {
	return e.step(ctx, func(p *Page) error {
		for k, v := range values.Range {
			setPath(e.global, k, deepCopy(v))
		}
		p.resetRoot(nil)
		p.update(ctx)
		return nil
	})
}

// CallAPI calls an API endpoint from the current page as the CallAPI action does (the
// call is kept newest first per endpoint, as _api reads it) and returns the call object
// {endpointId, payload, blockId, loading, pageId, success, error, response, status,
// responseTime}. The call is attributed to the page's root block.
func (e *Engine) CallAPI(ctx context.Context, endpointID string, payload any) (*jsvalue.Object, error) {
	var call *jsvalue.Object
	err := e.step(ctx, func(p *Page) error {
		params := jsvalue.ObjectOf("endpointId", endpointID)
		if payload != nil {
			params.Set("payload", deepCopy(payload))
		}
		run := &actionRun{block: p.rootBlock, eventName: "callApi", event: jsvalue.Undefined, responses: jsvalue.NewObject(0)}
		v, err := actCallAPI(ctx, p, run, params)
		call, _ = v.(*jsvalue.Object)
		return err
	})
	return call, err
}

// VisitedPage returns the context of a page visited before (the one a return to it
// reuses), or nil.
func (e *Engine) VisitedPage(id string) *Page { return e.pages[id] }
