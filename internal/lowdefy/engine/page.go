package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/blocks"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/operators"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// Page is the context of one visited page (Lowdefy's getContext result):
// its state, request calls, event log and block tree.
type Page struct {
	e                           *Engine
	id                          string
	cfg                         *app.Page
	state                       *jsvalue.Object
	requests                    *jsvalue.Object // requestId → calls, newest first
	eventLog                    []any           // event results, newest first
	frozen                      *string         // serialized state frozen after onInit
	onInitDone, onInitAsyncDone bool

	requestConfig map[string]*jsvalue.Object
	root          *blockSet
	rootBlock     *block
	blockMap      *jsvalue.Object // blockId → *block, in registration order
	octx          *operators.Context
	parser        *operators.Parser
	recCount      int
	// unsupported are the page's notes on what mcpbridge does not run (Unsupported).
	unsupported []Notice
}

// ID returns the page id.
func (p *Page) ID() string { return p.id }

// State returns the page state (live; do not modify).
func (p *Page) State() *jsvalue.Object { return p.state }

// Requests returns the page's request calls: request id → calls, newest
// first, each {blockId, loading, payload, requestId, response[, error]}.
func (p *Page) Requests() *jsvalue.Object { return p.requests }

func newPage(e *Engine, cfg *app.Page) *Page {
	p := &Page{e: e, id: cfg.ID, cfg: cfg, state: jsvalue.NewObject(0), requests: jsvalue.NewObject(0)}
	p.init()
	return p
}

// init builds the parser, request table and block tree from p.state.
func (p *Page) init() {
	p.octx = &operators.Context{
		PageID:     p.id,
		HomePageID: p.e.HomePageID(),
		Menus:      p.e.Menus(),
		User:       p.e.opts.User,
		Window:     &p.e.opts.Window,
		Now:        p.e.opts.Now,
		Logger:     p.e.log,
		Plugins:    p.e.plugins,
	}
	p.octx.BasePath, _ = p.e.app.Config.Prop("basePath").(string)
	p.parser = operators.NewClientParser(p.octx)
	p.requestConfig = map[string]*jsvalue.Object{}
	if reqs, ok := p.cfg.Config.Prop("requests").([]any); ok {
		for _, r := range reqs {
			if ro, ok := r.(*jsvalue.Object); ok {
				if id, ok := ro.Prop("requestId").(string); ok {
					p.requestConfig[id] = ro
				}
			}
		}
	}
	p.blockMap = jsvalue.NewObject(0)
	p.root = &blockSet{page: p}
	p.rootBlock = p.newBlock(p.root, p.cfg.Config)
	p.root.blocks = []*block{p.rootBlock}
	p.root.init(nil)
	p.noteUnknownActions()
}

// sync points the operator context at the engine's current data.
func (p *Page) sync() {
	c := p.octx
	c.State = p.state
	c.Global = p.e.global
	c.Input = p.e.inputs[p.id]
	c.Requests = p.requests
	c.EventLog = p.eventLog
	c.URLQuery = nil
	c.Location = p.e.location(p)
}

func (p *Page) parse(ctx context.Context, input any, loc string, ai []int, event any, actions *jsvalue.Object) (any, []error) {
	p.sync()
	if event == nil {
		event = jsvalue.Undefined
	}
	out, errs := p.parser.ParseWith(ctx, input, operators.Options{Location: loc, ArrayIndices: ai, Event: event, Actions: actions})
	if len(errs) > 0 && p.e.plugins != nil {
		p.noteUnsupported(applyArrayIndices(ai, loc), errs)
	}
	return out, errs
}

// block finds a block by its id (list items carry their index: "items.0.name"), or by
// the path-qualified id of a block whose id the page uses more than once (addresses).
func (p *Page) block(id string) (*block, error) {
	if v, ok := p.blockMap.Get(id); ok {
		return v.(*block), nil
	}
	if strings.Contains(id, "/") {
		for b, a := range p.addresses() {
			if a == id {
				return b, nil
			}
		}
	}
	return nil, fmt.Errorf("page %q has no block %s (block ids inside lists carry the item index, such as list.0.field; a block whose id is used more than once is addressed as PARENT/ID, as the page shows it)", p.id, quoted(id))
}

// addresses returns the path-qualified ids of the blocks whose id is used more than once
// on the page: PARENT/ID, where PARENT is the id of the block that holds it (the page id
// at the top), and PARENT/ID#n for the n-th of several under one parent. Lowdefy keeps
// one block per id in its map (the last); these let an agent reach each of them.
func (p *Page) addresses() map[*block]string {
	count := map[string]int{}
	p.root.walk(func(b *block) { count[b.blockID]++ })
	var out map[*block]string
	used := map[string]int{}
	p.root.walk(func(b *block) {
		if count[b.blockID] < 2 {
			return
		}
		parent := p.id
		if b.set.parent != nil {
			parent = b.set.parent.blockID
		}
		a := parent + "/" + b.blockID
		used[a]++
		if used[a] > 1 {
			a = fmt.Sprintf("%s#%d", a, used[a])
		}
		if out == nil {
			out = map[*block]string{}
		}
		out[b] = a
	})
	return out
}

// update is Lowdefy's context update: evaluate the blocks and write their
// values to state until visibility settles (at most 20 repeats).
func (p *Page) update(ctx context.Context) {
	for {
		repeat := p.root.recEval(ctx, true)
		p.root.updateState()
		if !repeat || p.recCount >= 20 {
			break
		}
		p.recCount++
	}
	p.recCount = 0
}

// State helpers (State.js).

func (p *Page) set(path string, v any) { setPath(p.state, path, v) }

func (p *Page) del(path string) {
	unsetPath(p.state, path)
	if i := lastDot(path); i >= 0 {
		parent := path[:i]
		if o, ok := getPath(p.state, parent).(*jsvalue.Object); ok && o.Len() == 0 {
			p.del(parent)
		}
	}
}

func lastDot(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '.' {
			return i
		}
	}
	return -1
}

func (p *Page) swapItems(path string, from, to int) {
	arr, ok := getPath(p.state, path).([]any)
	if !ok || from < 0 || to < 0 || from >= len(arr) || to >= len(arr) {
		return
	}
	arr[from], arr[to] = arr[to], arr[from]
}

func (p *Page) removeItem(path string, index int) {
	arr, ok := getPath(p.state, path).([]any)
	if !ok || index < 0 || index >= len(arr) {
		return
	}
	n := make([]any, 0, len(arr)-1)
	n = append(n, arr[:index]...)
	n = append(n, arr[index+1:]...)
	p.set(path, n)
}

func (p *Page) freezeState() {
	if p.frozen != nil {
		return
	}
	s, _ := serial.Stringify(p.state, "", false)
	p.frozen = &s
}

func (p *Page) resetState() error {
	if p.frozen == nil {
		return fmt.Errorf("cannot reset the state of page %q before its onInit event has finished", p.id)
	}
	for _, k := range p.state.Keys() {
		p.state.Delete(k)
	}
	v, err := serial.Unmarshal([]byte(*p.frozen))
	if err != nil {
		return fmt.Errorf("frozen state of page %q: %w", p.id, err)
	}
	if o, ok := v.(*jsvalue.Object); ok {
		for k, val := range o.Range {
			p.set(k, val)
		}
	}
	return nil
}

func (p *Page) frozenState() *jsvalue.Object {
	if p.frozen == nil {
		return jsvalue.NewObject(0)
	}
	v, _ := serial.Unmarshal([]byte(*p.frozen))
	o, _ := v.(*jsvalue.Object)
	return o
}

// setValue is an input block's setValue.
func (p *Page) setValue(ctx context.Context, b *block, v any) {
	b.value = blocks.EnforceType(b.meta.ValueType, v)
	p.set(b.blockID, b.value)
	p.update(ctx)
}

// mount runs the lifecycle events after a navigation: onInit (once), then
// onInitAsync (once), then onMount and onMountAsync of every rendered block,
// parents first (a block's children render once its onMount has finished, as
// @lowdefy/client's MountEvents does), in block order. A hidden block is not
// rendered, nor is anything below it.
func (p *Page) mount(ctx context.Context) error {
	if !p.onInitDone {
		p.triggerEvent(ctx, p.rootBlock, "onInit", jsvalue.Undefined)
		p.update(ctx)
		p.freezeState()
		p.onInitDone = true
	}
	if !p.onInitAsyncDone {
		p.triggerEvent(ctx, p.rootBlock, "onInitAsync", jsvalue.Undefined)
		p.onInitAsyncDone = true
	}
	p.mountSet(ctx, p.root)
	return nil
}

func (p *Page) mountSet(ctx context.Context, s *blockSet) {
	for _, b := range slices.Clone(s.blocks) {
		if !b.isVisible() {
			continue
		}
		p.triggerEvent(ctx, b, "onMount", jsvalue.Undefined)
		p.triggerEvent(ctx, b, "onMountAsync", jsvalue.Undefined)
		for _, sub := range slices.Clone(b.sub) {
			p.mountSet(ctx, sub)
		}
	}
}
