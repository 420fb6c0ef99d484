package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/blocks"
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

// SetStateFromAgent is SetState as an agent's setState does it: the paths are set as the
// SetState action sets them, then every date block whose value the paths set (the block
// id is a path or lies below one) and now holds an ISO 8601 string (or, for a
// DateRangeSelector, strings) is given the value it stores when a person picks that date
// (blocks.PickDate), so that a date never stays a string the block shows as empty. A
// string a date block cannot read stays as it was set, and the error names the block and
// the forms it takes. No event runs.
func (e *Engine) SetStateFromAgent(ctx context.Context, values *jsvalue.Object) error {
	return e.step(ctx, func(p *Page) error {
		p.setState(ctx, nil, copyObject(values))
		var errs []error
		changed := false
		for id, v := range p.blockMap.Range {
			b := v.(*block)
			if blocks.DateKindOf(b.typ) == blocks.NotDate || !coveredBy(id, values) {
				continue
			}
			cur := getPath(p.state, id)
			if !hasString(cur) {
				continue
			}
			picked, err := blocks.PickDate(b.typ, b.propertiesOut, cur, e.opts.TimeZone)
			if err != nil {
				errs = append(errs, fmt.Errorf("block %q: %w", id, err))
				continue
			}
			b.value = picked
			p.set(id, picked)
			changed = true
		}
		if changed {
			p.update(ctx)
		}
		return errors.Join(errs...)
	})
}

// coveredBy reports whether a block id is one of the paths or lies below one.
func coveredBy(id string, paths *jsvalue.Object) bool {
	for k := range paths.Range {
		if id == k || strings.HasPrefix(id, k+".") {
			return true
		}
	}
	return false
}

// hasString reports whether v is a non-empty string or an array holding one.
func hasString(v any) bool {
	switch x := v.(type) {
	case string:
		return x != ""
	case []any:
		for _, it := range x {
			if s, ok := it.(string); ok && s != "" {
				return true
			}
		}
	}
	return false
}

// maxQuoted is how many bytes of an agent's page or block id an error message repeats.
const maxQuoted = 120

// quoted quotes an id an agent gave for an error message, as %q does, cut to maxQuoted
// bytes (at a rune boundary) with its length said, so that a huge id is not sent back
// whole.
func quoted(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("… (%d bytes)", len(s))
}
