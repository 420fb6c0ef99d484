package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
)

// behaviourEngine runs the blocks-behaviour app of the differential tests (where the same
// journeys are compared with Lowdefy's engine) as user (nil: anonymous).
func behaviourEngine(t *testing.T, user *jsvalue.Object) *engine.Engine {
	t.Helper()
	a, err := app.Load(filepath.Join("..", "lowdefytest", "testdata", "blocks-behaviour"), app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return engine.New(a, engine.Options{User: user, Now: fixedClock()})
}

// node finds a block in the current page's tree.
func node(t *testing.T, e *engine.Engine, id string) *engine.Node {
	t.Helper()
	var found *engine.Node
	var walk func(n *engine.Node)
	walk = func(n *engine.Node) {
		if n.ID == id {
			found = n
		}
		for _, a := range n.Areas {
			for _, c := range a.Blocks {
				walk(c)
			}
		}
	}
	walk(e.Page().Tree())
	if found == nil {
		t.Fatalf("no block %s", id)
	}
	return found
}

// A Modal closes after its onOk succeeded (running onClose and afterClose), stays open when
// onOk failed, and closes on onCancel; its onOk and onCancel are component events even when
// not declared.
func TestModalClosesAfterOk(t *testing.T) {
	ctx := context.Background()
	e := behaviourEngine(t, nil)
	must(t, e.Navigate(ctx, "modals", nil, nil))
	must(t, e.CallMethod(ctx, "edit", "toggleOpen", nil))
	if !node(t, e, "edit").Open {
		t.Fatal("toggleOpen did not open the modal")
	}
	must(t, e.Trigger(ctx, "edit", "onOk", nil))
	if !node(t, e, "edit").Open {
		t.Error("the modal closed although onOk failed (name is required)")
	}
	must(t, e.SetValue(ctx, "name", "Ada"))
	must(t, e.Trigger(ctx, "edit", "onOk", nil))
	st := e.Page().State()
	if node(t, e, "edit").Open || st.Prop("saved") != "Ada" || st.Prop("closes") != 1.0 || st.Prop("after_close") != 1.0 {
		t.Errorf("after a successful onOk: open=%v state=%s; want closed, saved, onClose and afterClose once", node(t, e, "edit").Open, st)
	}
	must(t, e.CallMethod(ctx, "edit", "toggleOpen", nil))
	must(t, e.Trigger(ctx, "edit", "onCancel", nil))
	if node(t, e, "edit").Open || st.Prop("cancelled") != true {
		t.Error("onCancel did not close the modal")
	}
	// Closing a closed modal runs onClose but not afterClose.
	must(t, e.CallMethod(ctx, "edit", "setOpen", []any{jsvalue.ObjectOf("open", false)}))
	if st.Prop("closes") != 3.0 || st.Prop("after_close") != 2.0 {
		t.Errorf("closes=%v after_close=%v, want 3 and 2", st.Prop("closes"), st.Prop("after_close"))
	}
	bare := node(t, e, "bare_modal")
	if strings.Join(bare.ComponentEvents, ",") != "onOk,onCancel" || len(bare.Events) != 1 {
		t.Errorf("bare modal events %v, component events %v", bare.Events, bare.ComponentEvents)
	}
	must(t, e.CallMethod(ctx, "bare_modal", "toggleOpen", nil))
	must(t, e.Trigger(ctx, "bare_modal", "onOk", nil))
	if node(t, e, "bare_modal").Open || st.Prop("bare_closed") != true {
		t.Error("a modal without onOk actions did not close on OK")
	}
}

// A Drawer's onClose closes it when the actions succeed (onClose runs again, then onToggle,
// as the component's triggerSetOpen does) and leaves it open when they fail.
func TestDrawerClose(t *testing.T) {
	ctx := context.Background()
	e := behaviourEngine(t, nil)
	must(t, e.Navigate(ctx, "modals", nil, nil))
	must(t, e.CallMethod(ctx, "details", "toggleOpen", nil))
	must(t, e.Trigger(ctx, "details", "onClose", nil))
	st := e.Page().State()
	if node(t, e, "details").Open || st.Prop("drawer_closes") != 2.0 || st.Prop("toggles") != 2.0 {
		t.Errorf("drawer open=%v closes=%v toggles=%v; want closed, 2, 2", node(t, e, "details").Open, st.Prop("drawer_closes"), st.Prop("toggles"))
	}
	must(t, e.CallMethod(ctx, "stuck", "toggleOpen", nil))
	must(t, e.Trigger(ctx, "stuck", "onClose", nil))
	if !node(t, e, "stuck").Open {
		t.Error("a drawer whose onClose failed closed")
	}
}

// A ConfirmModal opens with open and closes after onOk or onCancel.
func TestConfirmModal(t *testing.T) {
	ctx := context.Background()
	e := behaviourEngine(t, nil)
	must(t, e.Navigate(ctx, "modals", nil, nil))
	must(t, e.CallMethod(ctx, "sure", "open", nil))
	if !node(t, e, "sure").Open {
		t.Fatal("open did not open the confirm modal")
	}
	must(t, e.Trigger(ctx, "sure", "onOk", nil))
	if node(t, e, "sure").Open || e.Page().State().Prop("deleted") != true {
		t.Error("onOk did not run and close the confirm modal")
	}
}

// Tabs and Collapse switch with onChange; a closable Alert and Tag close with onClose (the
// Alert then runs afterClose); the switches survive save and restore.
func TestPanelsAndClosing(t *testing.T) {
	ctx := context.Background()
	e := behaviourEngine(t, nil)
	must(t, e.Navigate(ctx, "panels", nil, nil))
	if n := node(t, e, "tabs"); n.ActiveKey != nil || strings.Join(n.ComponentEvents, ",") != "onChange" {
		t.Errorf("tabs before a switch: active %v, component events %v", n.ActiveKey, n.ComponentEvents)
	}
	must(t, e.Trigger(ctx, "tabs", "onChange", jsvalue.ObjectOf("activeKey", "two")))
	must(t, e.Trigger(ctx, "faq", "onChange", jsvalue.ObjectOf("activeKey", []any{"a", "b"})))
	must(t, e.Trigger(ctx, "notice", "onClose", nil))
	must(t, e.Trigger(ctx, "label", "onClose", nil))
	check := func(e *engine.Engine) {
		t.Helper()
		if k := node(t, e, "tabs").ActiveKey; k != "two" {
			t.Errorf("tabs active key %v, want two", k)
		}
		if k := node(t, e, "faq").ActiveKey; js(t, k) != `["a","b"]` {
			t.Errorf("collapse open panels %v, want [a b]", k)
		}
		if !node(t, e, "notice").Closed || !node(t, e, "label").Closed {
			t.Error("the closable alert and tag did not close")
		}
	}
	check(e)
	if st := e.Page().State(); st.Prop("tab") != "two" || st.Prop("alert_after") != true {
		t.Errorf("state %s: want the onChange and afterClose actions run", st)
	}
	snap, err := e.Save()
	must(t, err)
	e2 := behaviourEngine(t, nil)
	must(t, e2.Restore(ctx, snap))
	check(e2)
}

// Menus are filtered by page auth as Lowdefy's getMenus does: an anonymous user sees no link
// to the admin page, and the group holding only that link is gone; the home page is the
// first link the user sees. An admin sees all.
func TestMenusFilteredByAuth(t *testing.T) {
	ctx := context.Background()
	anon := behaviourEngine(t, nil)
	must(t, anon.Navigate(ctx, "modals", nil, nil))
	menus := js(t, anon.Menus())
	if strings.Contains(menus, `"admin"`) || strings.Contains(menus, "Admin only") || strings.Contains(menus, "MenuDivider") {
		t.Errorf("anonymous menus show the admin page, its group or a divider: %s", menus)
	}
	if !strings.Contains(menus, `"pageId":"panels"`) || anon.HomePageID() != "modals" {
		t.Errorf("anonymous menus %s, home %s; want panels listed and home modals", menus, anon.HomePageID())
	}
	if got := js(t, anon.Page().State().Prop("menu")); got != js(t, anon.Menus()[0]) {
		t.Errorf("_menu gave %s, want the user's menu", got)
	}
	admin := behaviourEngine(t, jsvalue.ObjectOf("sub", "ada", "roles", []any{"admin"}))
	must(t, admin.Navigate(ctx, "modals", nil, nil))
	if m := js(t, admin.Menus()); !strings.Contains(m, `"pageId":"admin"`) || !strings.Contains(m, "Admin only") || admin.HomePageID() != "admin" {
		t.Errorf("admin menus %s, home %s", m, admin.HomePageID())
	}
}
