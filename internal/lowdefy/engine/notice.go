package engine

import (
	"errors"
	"fmt"
	"slices"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/operators"
)

// Notice kinds.
const (
	// NoticeUnsupported: the page uses something mcpbridge does not run (a plugin
	// operator, a block type it does not know).
	NoticeUnsupported = "unsupported"
	// NoticeRequest: what a request did beyond its response (a write that changed
	// nothing), or a request failure Lowdefy's chain does not report (every failure
	// after the first of one Request action).
	NoticeRequest = "request"
	// NoticeAction: a failure Lowdefy does not stop on (an `async: true` action).
	NoticeAction = "action"
)

// Notice is something the headless engine says about a step that Lowdefy's own client
// does not put in its event log: what the page uses that mcpbridge does not run, a
// request failure beyond the first one an action reports, a write that matched nothing.
// Notices are kept apart from the journal (which follows Lowdefy's, and which the
// differential tests compare with Lowdefy's engine); a caller reads them with Notices
// from an index taken before a step, as for the journal. They are not saved by Save.
type Notice struct {
	// Kind is NoticeUnsupported, NoticeRequest or NoticeAction.
	Kind string
	// PageID is the page the notice is about; Where the block, request or action id.
	PageID, Where string
	// Message says what happened, in words an agent can act on.
	Message string
	// Call is the request call ({requestId, response, error, …} in Page.Requests) the
	// notice is about, or nil.
	Call *jsvalue.Object
}

// Notices returns the engine's notices, oldest first (live; do not modify).
func (e *Engine) Notices() []Notice { return e.notices }

// notice adds a notice; a notice of kind unsupported is kept once per page and place.
func (e *Engine) notice(n Notice) {
	if n.Kind == NoticeUnsupported {
		key := n.PageID + "\x00" + n.Where + "\x00" + n.Message
		if e.noticed[key] {
			return
		}
		if e.noticed == nil {
			e.noticed = map[string]bool{}
		}
		e.noticed[key] = true
	}
	e.notices = append(e.notices, n)
}

// Unsupported returns the page's notes on what it uses that mcpbridge does not run, in
// the order met: block types it does not know and plugin operators met while evaluating
// the page. A renderer shows them with the page.
func (p *Page) Unsupported() []Notice {
	return append([]Notice(nil), p.unsupported...)
}

func containsNotice(list []Notice, n Notice) bool {
	for _, x := range list {
		if x.Where == n.Where && x.Message == n.Message {
			return true
		}
	}
	return false
}

// noteUnsupported records the unsupported operators among errs (see
// operators.UnsupportedError) met at loc on page p.
func (p *Page) noteUnsupported(loc string, errs []error) {
	for _, err := range errs {
		var ue *operators.UnsupportedError
		if errors.As(err, &ue) {
			n := Notice{Kind: NoticeUnsupported, PageID: p.id, Where: loc, Message: fmt.Sprintf("%s (at %s)", ue.Message(), loc)}
			p.e.notice(n)
			if !containsNotice(p.unsupported, n) {
				p.unsupported = append(p.unsupported, n)
			}
		}
	}
}

// UnknownBlockMessage says that block type typ is not one mcpbridge runs and how the
// block runs instead (as a category: container, display, …); plugin says whether the app
// declares plugins (which presumably provide it).
func UnknownBlockMessage(typ, category string, plugin bool) string {
	if plugin {
		return fmt.Sprintf("`%s` is a plugin block type mcpbridge does not run: it runs as a %s block, and the page shows only what mcpbridge can read from its properties", typ, category)
	}
	return fmt.Sprintf("`%s` is not a block type of Lowdefy's default plugins: it runs as a %s block, and the page shows only what mcpbridge can read from its properties", typ, category)
}

// noteUnknownBlock records a block of a type mcpbridge does not know.
func (p *Page) noteUnknownBlock(b *block) {
	n := Notice{Kind: NoticeUnsupported, PageID: p.id, Where: b.blockIDPattern,
		Message: UnknownBlockMessage(b.typ, string(b.meta.Category), len(p.e.app.Plugins) > 0) + " (block " + b.blockIDPattern + ")"}
	p.e.notice(n)
	if !containsNotice(p.unsupported, n) {
		p.unsupported = append(p.unsupported, n)
	}
}

// UnknownActionMessage says that action type typ is not one the engine runs, and what
// happens instead; plugin says whether the app declares plugins.
func UnknownActionMessage(typ string, plugin bool) string {
	origin := "that no default Lowdefy plugin provides"
	switch {
	case slices.Contains(app.DefaultTypes("actions"), typ):
		origin = "of Lowdefy's default plugins"
	case plugin:
		origin = "of a plugin"
	}
	return fmt.Sprintf("action type `%s` (%s) is not one mcpbridge runs: the action fails with Invalid action type, and the event's catch actions run", typ, origin)
}

// noteUnknownActions records the actions of the page's events whose type the engine does
// not run, so that the page says so before they are triggered.
func (p *Page) noteUnknownActions() {
	known := actionFuncs()
	plugin := len(p.e.app.Plugins) > 0
	var walk func(b *jsvalue.Object)
	walk = func(b *jsvalue.Object) {
		id, _ := b.Prop("blockId").(string)
		events, _ := b.Prop("events").(*jsvalue.Object)
		for name, ev := range events.Range {
			eo, _ := ev.(*jsvalue.Object)
			for _, part := range []string{"try", "catch"} {
				list, _ := eo.Prop(part).([]any)
				for _, x := range list {
					act, _ := x.(*jsvalue.Object)
					typ, _ := act.Prop("type").(string)
					if _, ok := known[typ]; ok || typ == "" {
						continue
					}
					n := Notice{Kind: NoticeUnsupported, PageID: p.id, Where: id + "." + name,
						Message: UnknownActionMessage(typ, plugin) + " (" + id + "." + name + ")"}
					if !containsNotice(p.unsupported, n) {
						p.unsupported = append(p.unsupported, n)
						p.e.notice(n)
					}
				}
			}
		}
		for c := range app.ChildBlocks(b) {
			walk(c)
		}
	}
	walk(p.cfg.Config)
}
