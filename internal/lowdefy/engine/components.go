package engine

import (
	"context"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// What the React components of @lowdefy/blocks-antd 4.0.0-rc.11 do around
// their events and to their own state, done headlessly. A browser user
// reaches these events through the component's own controls (a modal's OK
// button, a tab, a close icon); an agent reaches them by triggering the
// event by name, declared or not, and gets what the component would do:
//
//   - Modal: onOk and onCancel run, and when the event did not fail the
//     modal closes (onClose, then afterClose).
//   - Drawer: onClose runs (its close icon or mask), and when it did not
//     fail the drawer closes: onClose again and onToggle, as
//     Drawer.triggerSetOpen fires them.
//   - ConfirmModal: onOk and onCancel run; the modal closes unless the event
//     failed (the component rethrows and antd keeps the confirm open).
//   - Tabs: onChange with {activeKey} switches the tab (antd's uncontrolled
//     tabs switch before the callback), then runs onChange.
//   - Collapse: onChange with {activeKey} sets the open panels (a key or a
//     list of keys), then runs onChange.
//   - Alert and Tag with closable: onClose runs and the block closes (antd
//     hides it whatever the actions did); an Alert then runs afterClose.
//
// A Modal that closes after being open also runs afterClose (antd calls it
// when the closing animation ends), whichever way it was closed.

// componentEvent triggers a block event the way the block's component does
// when its user interface raises it.
func (p *Page) componentEvent(ctx context.Context, b *block, name string, event any) {
	switch {
	case b.typ == "Modal" && (name == "onOk" || name == "onCancel"):
		res := p.triggerEvent(ctx, b, name, event)
		if res.Prop("success") != false && res.Prop("bounced") != true {
			p.setOpen(ctx, b, false)
		}
	case b.typ == "Drawer" && name == "onClose":
		res := p.triggerEvent(ctx, b, name, event)
		if res.Prop("success") != false && res.Prop("bounced") != true {
			p.setOpen(ctx, b, false)
		}
	case b.typ == "ConfirmModal" && (name == "onOk" || name == "onCancel"):
		res := p.triggerEvent(ctx, b, name, event)
		if res.Prop("success") != false || res.Prop("bounced") == true {
			b.open = false
		}
	case (b.typ == "Tabs" || b.typ == "Collapse") && name == "onChange":
		if eo, ok := event.(*jsvalue.Object); ok {
			if k, ok := eo.Get("activeKey"); ok {
				b.activeKey = deepCopy(k)
			}
		}
		p.triggerEvent(ctx, b, name, event)
	case (b.typ == "Alert" || b.typ == "Tag") && name == "onClose":
		p.triggerEvent(ctx, b, name, event)
		if b.closable() {
			b.closed = true
			if b.typ == "Alert" {
				p.triggerEvent(ctx, b, "afterClose", jsvalue.Undefined)
			}
		}
	default:
		p.triggerEvent(ctx, b, name, event)
	}
}

// closable reports whether an Alert or Tag shows a close control.
func (b *block) closable() bool {
	props, _ := b.propertiesOut.(*jsvalue.Object)
	if jsvalue.Truthy(props.Prop("closable")) {
		return true
	}
	// antd's Alert is closable when it has closeText.
	return b.typ == "Alert" && jsvalue.Truthy(props.Prop("closeText"))
}

// setOpen is the triggerSetOpen of Modal, Drawer and Sider: onClose or
// onOpen (Drawer and Sider then onToggle), the new state, and afterClose when
// an open Modal closed.
func (p *Page) setOpen(ctx context.Context, b *block, open bool) {
	was := b.open
	if open {
		p.triggerEvent(ctx, b, "onOpen", jsvalue.Undefined)
	} else {
		p.triggerEvent(ctx, b, "onClose", jsvalue.Undefined)
	}
	if b.typ != "Modal" {
		p.triggerEvent(ctx, b, "onToggle", jsvalue.Undefined)
	}
	b.open = open
	if b.typ == "Modal" && was && !open {
		p.triggerEvent(ctx, b, "afterClose", jsvalue.Undefined)
	}
}

// ComponentEvents returns the events a block type's own controls raise,
// whether or not the block declares them (a Modal's OK and Cancel buttons,
// a tab), for a block with these evaluated properties. Declared events are
// the block's own business; these are what an agent can trigger to act as
// a person using the component would.
func ComponentEvents(typ string, properties any) []string {
	props, _ := properties.(*jsvalue.Object)
	switch typ {
	case "Modal", "ConfirmModal":
		return []string{"onOk", "onCancel"}
	case "Drawer":
		return []string{"onClose"}
	case "Tabs", "Collapse":
		return []string{"onChange"}
	case "Alert":
		if jsvalue.Truthy(props.Prop("closable")) || jsvalue.Truthy(props.Prop("closeText")) {
			return []string{"onClose"}
		}
	case "Tag":
		if jsvalue.Truthy(props.Prop("closable")) {
			return []string{"onClose"}
		}
	}
	return nil
}
