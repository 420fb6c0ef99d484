package engine

import (
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// Node is one block instance as a renderer sees it: the block tree of a page
// with each block's evaluated properties, value, visibility, declared events,
// shown validation, loading flag and its children by area (containers) or by
// list item (lists). Block ids inside lists carry their item index.
type Node struct {
	// ID is the id to address the block by: its block id, or for a block whose id the page
	// uses more than once, a path-qualified id (PARENT/ID, PARENT/ID#2) that reaches this
	// one (SetValue, Trigger and CallMethod take it).
	ID       string
	Type     string
	Category string
	// Properties are the evaluated properties (nil before the block was
	// first evaluated).
	Properties any
	// Value is an input's or list's value (nil for other blocks).
	Value any
	// Visible is false for hidden blocks and for every block below one.
	Visible bool
	// Required is the evaluated required (false, true or a message).
	Required any
	// Loading is the evaluated loading property, or an event of the block
	// still running.
	Loading bool
	// Events are the names of the block's declared events, in config order.
	Events []string
	// Validation is the validation shown on the block, {status, errors,
	// warnings}, or nil while it is not shown (before Validate) and for
	// blocks without rules. Warnings show without Validate, as in Lowdefy.
	Validation *jsvalue.Object
	// Open is the open flag of a Modal, Drawer, ConfirmModal or Sider.
	Open bool
	// ActiveKey is the tab (Tabs) or the open panels (Collapse: a key or a
	// list of keys) switched to through onChange, nil until then.
	ActiveKey any
	// Closed is true once a closable Alert or Tag was closed (antd hides it).
	Closed bool
	// Skeleton is true when the block has a skeleton: while it is loading,
	// Lowdefy draws the skeleton instead of the block and its children.
	Skeleton bool
	// ComponentEvents are the events the block's own controls raise whether
	// declared or not (a Modal's onOk and onCancel, Tabs onChange), which an
	// agent triggers to act as a person using the component would.
	ComponentEvents []string
	// Areas are a container's children, one entry per area in config order.
	Areas []Area
	// Items are a list's items, each with its areas.
	Items [][]Area
}

// Area is one named area of a container or list item.
type Area struct {
	Key    string
	Blocks []*Node
}

// Tree returns the page's block tree from its root block (the page itself).
func (p *Page) Tree() *Node {
	if p.rootBlock == nil {
		return nil
	}
	return p.rootBlock.node(p.addresses())
}

// Menus returns the app's menus ({menuId, links}) as the user sees them,
// filtered by page auth (Engine.Menus), as page layouts such as
// PageHeaderMenu show them.
func (p *Page) Menus() []any { return p.e.Menus() }

func (b *block) node(addr map[*block]string) *Node {
	id := b.blockID
	if a, ok := addr[b]; ok {
		id = a
	}
	n := &Node{
		ID: id, Type: b.typ, Category: string(b.meta.Category),
		Properties: orDefault(b.propertiesOut, nil),
		Visible:    b.isVisible(),
		Required:   orDefault(b.requiredOut, false),
		Loading:    jsvalue.Truthy(b.loadingOut),
		Open:       b.open,
		ActiveKey:  b.activeKey,
		Closed:     b.closed,
	}
	_, n.Skeleton = b.cfg.Prop("skeleton").(*jsvalue.Object)
	n.ComponentEvents = ComponentEvents(b.typ, b.propertiesOut)
	if b.isInput() || b.isList() {
		n.Value = orDefault(b.value, nil)
		if b.isList() {
			n.Value = orDefault(getPath(b.set.page.state, b.blockID), nil)
		}
	}
	for name := range b.events.Range {
		n.Events = append(n.Events, name)
		if b.eventLoading[name] {
			n.Loading = true
		}
	}
	if len(b.validation.errors)+len(b.validation.warnings) > 0 &&
		(b.showValidation || (len(b.validation.errors) == 0 && b.validation.status == "warning")) {
		n.Validation = jsvalue.ObjectOf("status", b.validation.status,
			"errors", append([]any{}, b.validation.errors...),
			"warnings", append([]any{}, b.validation.warnings...))
	}
	switch {
	case b.isList():
		for _, s := range b.sub {
			n.Items = append(n.Items, b.areasOf(s, addr))
		}
	case len(b.sub) > 0:
		n.Areas = b.areasOf(b.sub[0], addr)
	}
	return n
}

// areasOf splits a sub-set's blocks (all areas' blocks, in area order) back
// into the block's areas.
func (b *block) areasOf(s *blockSet, addr map[*block]string) []Area {
	var out []Area
	areas, _ := b.cfg.Prop("areas").(*jsvalue.Object)
	i := 0
	for key, a := range areas.Range {
		ao, _ := a.(*jsvalue.Object)
		bl, _ := ao.Prop("blocks").([]any)
		area := Area{Key: key}
		for range bl {
			if i < len(s.blocks) {
				area.Blocks = append(area.Blocks, s.blocks[i].node(addr))
			}
			i++
		}
		out = append(out, area)
	}
	return out
}

// TimeZone returns the browser's time zone, in which DateTimeSelector shows its value.
func (p *Page) TimeZone() *time.Location { return p.e.opts.TimeZone }
