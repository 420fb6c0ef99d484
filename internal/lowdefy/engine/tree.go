package engine

import (
	"context"
	"slices"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/blocks"
)

// blockSet is one instance of Lowdefy's Blocks class: the blocks of a set of
// areas, evaluated with one set of list indices.
type blockSet struct {
	page         *Page
	arrayIndices []int
	blocks       []*block // all areas' blocks, in area order
	parent       *block   // the block whose areas (or list item) these are; nil for the root
}

// block is one block instance (list items get their own instances).
type block struct {
	set                        *blockSet
	id, blockID                string
	idPattern, blockIDPattern  string
	typ                        string
	meta                       blocks.Meta
	cfg                        *jsvalue.Object
	areas                      []any // block configs of all areas, in area order
	events                     *jsvalue.Object
	properties, required       any
	visible, loading           any
	validate                   []any
	visibleOut                 any
	propertiesOut, requiredOut any
	loadingOut                 any
	validation                 validation
	evaluated                  bool
	value                      any
	showValidation             bool
	sub                        []*blockSet
	open                       bool // Modal, Drawer: open state of the component
	activeKey                  any  // Tabs, Collapse: the key(s) switched to (nil: the default)
	closed                     bool // Alert, Tag: closed with their close control
	eventLoading               map[string]bool
}

// validation is a block's validation result (validationEval.output).
type validation struct {
	status   any // nil, "success", "warning" or "error"
	errors   []any
	warnings []any
}

func orDefault(v any, def any) any {
	if jsvalue.IsNullish(v) {
		return def
	}
	return v
}

func (p *Page) newBlock(s *blockSet, cfg *jsvalue.Object) *block {
	b := &block{set: s, cfg: cfg, visibleOut: jsvalue.Undefined}
	b.idPattern, _ = cfg.Prop("id").(string)
	b.blockIDPattern, _ = cfg.Prop("blockId").(string)
	b.typ, _ = cfg.Prop("type").(string)
	b.events, _ = cfg.Prop("events").(*jsvalue.Object)
	b.properties = orDefault(cfg.Prop("properties"), jsvalue.NewObject(0))
	b.required = orDefault(cfg.Prop("required"), false)
	b.visible = orDefault(cfg.Prop("visible"), true)
	b.loading = orDefault(cfg.Prop("loading"), false)
	b.validate, _ = cfg.Prop("validate").([]any)
	areas, _ := cfg.Prop("areas").(*jsvalue.Object)
	for _, a := range areas.Range {
		if ao, ok := a.(*jsvalue.Object); ok {
			if bl, ok := ao.Prop("blocks").([]any); ok {
				b.areas = append(b.areas, bl...)
			}
		}
	}
	if m, ok := blocks.Lookup(b.typ); ok {
		b.meta = m
	} else {
		b.meta = blocks.Guess(b.typ, areas != nil)
		p.e.log.Warn("lowdefy engine: unknown block type, treated as "+string(b.meta.Category),
			"type", b.typ, "block", b.blockIDPattern, "page", p.id)
		p.noteUnknownBlock(b)
	}
	return b
}

func (b *block) isInput() bool     { return b.meta.Category == blocks.Input }
func (b *block) isList() bool      { return b.meta.Category == blocks.List }
func (b *block) isContainer() bool { return b.meta.Category == blocks.Container }
func (b *block) isVisible() bool   { return b.visibleOut != false }

// init is Blocks.init: substitute indices, register the blocks, then reset
// their values from initState (nil: the page state).
func (s *blockSet) init(initState *jsvalue.Object) {
	p := s.page
	for _, b := range s.blocks {
		b.id = applyArrayIndices(s.arrayIndices, b.idPattern)
		b.blockID = applyArrayIndices(s.arrayIndices, b.blockIDPattern)
		p.blockMap.Set(b.blockID, b)
	}
	if initState == nil {
		initState = copyObject(p.state)
	}
	s.reset(initState)
}

func (s *blockSet) newSub(b *block, ai []int, initState *jsvalue.Object) *blockSet {
	sub := &blockSet{page: s.page, arrayIndices: ai, parent: b}
	for _, c := range b.areas {
		if co, ok := c.(*jsvalue.Object); ok {
			sub.blocks = append(sub.blocks, s.page.newBlock(sub, co))
		}
	}
	sub.init(initState)
	return sub
}

func withIndex(ai []int, i int) []int {
	n := make([]int, len(ai)+1)
	copy(n, ai)
	n[len(ai)] = i
	return n
}

// reset is Blocks.reset: read values from initState (a copy the caller
// owns), writing defaults to state for inputs and lists without a value, and
// rebuild list items and container areas.
func (s *blockSet) reset(initState *jsvalue.Object) {
	p := s.page
	for _, b := range s.blocks {
		b.showValidation = false
		switch {
		case b.isInput() || b.isList():
			v := getPath(initState, b.blockID)
			if jsvalue.IsUndefined(v) {
				v = b.meta.InitValue()
				p.set(b.blockID, v)
			}
			if b.isList() {
				if arr, ok := v.([]any); ok {
					for i := range arr {
						if i < len(b.sub) {
							b.sub[i].reset(initState)
						} else {
							b.sub = append(b.sub, s.newSub(b, withIndex(s.arrayIndices, i), initState))
						}
					}
					if len(b.sub) > len(arr) {
						b.sub = b.sub[:len(arr)]
					}
				}
			} else {
				b.value = v
			}
		case b.isContainer():
			if len(b.sub) == 0 {
				b.sub = append(b.sub, s.newSub(b, s.arrayIndices, initState))
			} else {
				b.sub[0].reset(initState)
			}
		}
	}
}

// resetRoot is RootBlocks.reset(initState): nil resets from the page state.
func (p *Page) resetRoot(initState *jsvalue.Object) {
	if initState == nil {
		initState = copyObject(p.state)
	}
	p.root.reset(initState)
}

// requiredPass is the validation test of a required block, built on first use.
var requiredPass = lazy.Value[*jsvalue.Object]{New: func() *jsvalue.Object {
	return jsvalue.ObjectOf("_not", jsvalue.ObjectOf("_type", "none"))
}}

// recEval evaluates the set's blocks; it reports whether any block's
// visibility changed.
func (s *blockSet) recEval(ctx context.Context, visibleParent bool) bool {
	p := s.page
	repeat := false
	for _, b := range s.blocks {
		if b.isInput() {
			if sv := getPath(p.state, b.blockID); !jsvalue.IsUndefined(sv) {
				b.value = sv
			}
		}
		before := b.visibleOut
		if !visibleParent {
			b.visibleOut = false
		} else {
			b.visibleOut, _ = p.parse(ctx, b.visible, b.blockID, s.arrayIndices, nil, nil)
		}
		if !sameVisible(before, b.visibleOut) {
			repeat = true
		}
		if b.isVisible() {
			b.evaluated = true
			b.propertiesOut, _ = p.parse(ctx, b.properties, b.blockID, s.arrayIndices, nil, nil)
			b.requiredOut, _ = p.parse(ctx, b.required, b.blockID, s.arrayIndices, nil, nil)
			rules := b.validate
			if b.requiredOut != false {
				msg := any("This field is required")
				if str, ok := b.requiredOut.(string); ok {
					msg = str
				}
				rules = append([]any{jsvalue.ObjectOf("pass", requiredPass.Get(), "status", "error", "message", msg)}, b.validate...)
			}
			b.validation = validation{errors: []any{}, warnings: []any{}}
			var verr, vwarn bool
			for _, test := range rules {
				out, errs := p.parse(ctx, test, b.blockID, s.arrayIndices, nil, nil)
				oo, _ := out.(*jsvalue.Object)
				if len(errs) > 0 {
					b.validation.errors = append(b.validation.errors, oo.Prop("message"))
					verr = true
					continue
				}
				if !jsvalue.Truthy(oo.Prop("pass")) {
					to, _ := test.(*jsvalue.Object)
					st := to.Prop("status")
					if !jsvalue.Truthy(st) || st == "error" {
						b.validation.errors = append(b.validation.errors, oo.Prop("message"))
						verr = true
					}
					if st == "warning" {
						b.validation.warnings = append(b.validation.warnings, oo.Prop("message"))
						vwarn = true
					}
				}
			}
			if len(rules) > 0 {
				b.validation.status = "success"
			}
			if vwarn {
				b.validation.status = "warning"
			}
			if verr {
				b.validation.status = "error"
			}
			b.loadingOut, _ = p.parse(ctx, b.loading, b.blockID, s.arrayIndices, nil, nil)
		}
		if b.isContainer() || b.isList() {
			for _, sub := range b.sub {
				repeat = sub.recEval(ctx, b.isVisible()) || repeat
			}
		}
	}
	return repeat
}

func sameVisible(a, b any) bool {
	switch a.(type) {
	case *jsvalue.Object, []any:
		return jsvalue.StrictEqual(a, b)
	}
	if jsvalue.IsUndefined(a) || jsvalue.IsUndefined(b) {
		return jsvalue.IsUndefined(a) && jsvalue.IsUndefined(b)
	}
	return jsvalue.StrictEqual(a, b)
}

// updateState writes visible values to state and deletes the values of
// hidden inputs and lists (Blocks.updateState).
func (s *blockSet) updateState() {
	p := s.page
	var toSet, toDelete []string
	for _, b := range s.blocks {
		switch {
		case b.isVisible():
			if b.isContainer() || b.isList() {
				if len(b.sub) > 0 {
					for _, sub := range b.sub {
						sub.updateState()
					}
				} else {
					toSet = append(toSet, b.blockID)
					p.set(b.blockID, blocks.EnforceType(b.meta.ValueType, nil))
				}
			} else if b.isInput() {
				toSet = append(toSet, b.blockID)
				p.set(b.blockID, b.value)
			}
		case b.isContainer():
			for _, sub := range b.sub {
				sub.recContainerDelState(&toDelete)
			}
		default:
			toDelete = appendUnique(toDelete, b.blockID)
		}
	}
	for _, f := range toDelete {
		if !slices.Contains(toSet, f) {
			p.del(f)
		}
	}
}

func appendUnique(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func (s *blockSet) recContainerDelState(toDelete *[]string) {
	for _, b := range s.blocks {
		if b.isContainer() {
			for _, sub := range b.sub {
				sub.recContainerDelState(toDelete)
			}
		} else {
			*toDelete = appendUnique(*toDelete, b.blockID)
		}
	}
}

// recUpdateArrayIndices moves a list item's blocks to new indices.
func (s *blockSet) recUpdateArrayIndices(newIndices []int) {
	for i, v := range newIndices {
		if i < len(s.arrayIndices) {
			s.arrayIndices[i] = v
		}
	}
	for _, b := range s.blocks {
		b.blockID = applyArrayIndices(s.arrayIndices, b.blockIDPattern)
		s.page.blockMap.Set(b.blockID, b)
	}
	for _, b := range s.blocks {
		for _, sub := range b.sub {
			sub.recUpdateArrayIndices(newIndices)
		}
	}
}

func (s *blockSet) recSetUndefined() {
	for _, b := range s.blocks {
		s.page.set(b.blockID, jsvalue.Undefined)
	}
	for _, b := range s.blocks {
		for _, sub := range b.sub {
			sub.recSetUndefined()
		}
	}
}

func (s *blockSet) recRemoveBlocksFromMap() {
	for _, b := range s.blocks {
		s.page.blockMap.Delete(b.blockID)
	}
	for _, b := range s.blocks {
		for _, sub := range b.sub {
			sub.recRemoveBlocksFromMap()
		}
	}
}

// walk visits every block of the set and its sub-sets in Lowdefy's order:
// the set's blocks first, then each block's sub-sets.
func (s *blockSet) walk(fn func(b *block)) {
	for _, b := range s.blocks {
		fn(b)
	}
	for _, b := range s.blocks {
		for _, sub := range b.sub {
			sub.walk(fn)
		}
	}
}

// List methods (Blocks.js list category).

func (p *Page) unshiftItem(ctx context.Context, b *block) {
	s := b.set
	for i, sub := range b.sub {
		sub.recUpdateArrayIndices(withIndex(s.arrayIndices, i+1))
	}
	n := s.newSub(b, withIndex(s.arrayIndices, 0), jsvalue.NewObject(0))
	b.sub = append([]*blockSet{n}, b.sub...)
	p.set(b.blockID, jsvalue.Undefined)
	n.recSetUndefined()
	p.update(ctx)
}

func (p *Page) pushItem(ctx context.Context, b *block) {
	s := b.set
	b.sub = append(b.sub, s.newSub(b, withIndex(s.arrayIndices, len(b.sub)), jsvalue.NewObject(0)))
	p.update(ctx)
}

func (p *Page) removeListItem(ctx context.Context, b *block, index int) {
	s := b.set
	p.removeItem(b.blockID, index)
	if len(b.sub) > 0 {
		b.sub[len(b.sub)-1].recRemoveBlocksFromMap()
	}
	if index >= 0 && index < len(b.sub) {
		for i, sub := range b.sub[index+1:] {
			sub.recUpdateArrayIndices(withIndex(s.arrayIndices, index+i))
		}
		b.sub = slices.Delete(b.sub, index, index+1)
	}
	p.update(ctx)
}

func (p *Page) moveItem(ctx context.Context, b *block, index int, up bool) {
	s := b.set
	if up {
		if index == 0 || index < 0 || index >= len(b.sub) {
			return
		}
		p.swapItems(b.blockID, index-1, index)
		b.sub[index-1].recUpdateArrayIndices(withIndex(s.arrayIndices, index))
		b.sub[index].recUpdateArrayIndices(withIndex(s.arrayIndices, index-1))
		b.sub[index-1], b.sub[index] = b.sub[index], b.sub[index-1]
	} else {
		if index == len(b.sub)-1 || index < 0 || index >= len(b.sub) {
			return
		}
		p.swapItems(b.blockID, index, index+1)
		b.sub[index+1].recUpdateArrayIndices(withIndex(s.arrayIndices, index))
		b.sub[index].recUpdateArrayIndices(withIndex(s.arrayIndices, index+1))
		b.sub[index], b.sub[index+1] = b.sub[index+1], b.sub[index]
	}
	p.update(ctx)
}
