// Package render draws a headless Lowdefy page for an agent: markdown with
// semantic tags, in the style of the MCP bridge architecture (seeds 001/002).
//
// Every block is addressed by its block id (stable across renders; ids inside
// lists carry the item index, such as list.0.name). Inputs are one line each,
//
//	<input id="ticket_title" type="TextInput" required label="Title" value=null>
//
// with their label, placeholder, options, current value, validation errors and
// warnings and declared events; buttons are <button id=… events=[onClick]>Title</button>;
// other display blocks <display …>; containers (cards, modals, drawers, page
// layouts) wrap their children in <container …>…</container>; lists show
// their items numbered, with the list methods an agent can call; tabs and
// collapse panels show every panel; tables are markdown tables of a bounded
// number of rows. Hidden blocks are omitted; a loading block says so.
//
// Text that comes from the app's state, its requests or its users can pose as
// markup. Attribute values are JSON with < and > escaped, so they stay on one
// line inside their quotes; free text is written plainly only when it is one
// line with nothing markdown or HTML could read as structure, and otherwise
// inside a code fence longer than any run of backticks in it; table cells are
// fenced with the table, one line each, with | escaped.
//
// The package knows nothing of MCP: the lowdefy backend calls Page after every
// navigate or interact call.
package render

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/blocks"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
)

// DefaultMaxRows is the number of table rows shown when Options.MaxRows is 0.
const DefaultMaxRows = 20

// DefaultMaxOptions is the number of selector options shown when
// Options.MaxOptions is 0.
const DefaultMaxOptions = 50

// DefaultMoreRows is the note's hint when Options.MoreRows is empty.
const DefaultMoreRows = "get_state returns every row"

// Options tune a render.
type Options struct {
	// MaxRows bounds the rows of each table (DefaultMaxRows if 0, no bound if
	// negative). A table with more rows says how many are not shown.
	MaxRows int
	// MaxOptions bounds the options listed for each selector
	// (DefaultMaxOptions if 0, no bound if negative).
	MaxOptions int
	// MoreRows tells the agent how to see the rows not shown
	// (DefaultMoreRows if empty).
	MoreRows string
}

func (o Options) maxRows() int {
	switch {
	case o.MaxRows == 0:
		return DefaultMaxRows
	case o.MaxRows < 0:
		return int(^uint(0) >> 1)
	}
	return o.MaxRows
}

func (o Options) maxOptions() int {
	switch {
	case o.MaxOptions == 0:
		return DefaultMaxOptions
	case o.MaxOptions < 0:
		return int(^uint(0) >> 1)
	}
	return o.MaxOptions
}

func (o Options) moreRows() string {
	if o.MoreRows == "" {
		return DefaultMoreRows
	}
	return o.MoreRows
}

// Page renders the current state of a page as agent markdown. A nil page
// renders as the empty string.
func Page(p *engine.Page, opts Options) string {
	if p == nil {
		return ""
	}
	r := &renderer{opts: opts, menus: p.Menus(), tz: p.TimeZone()}
	root := p.Tree()
	if root == nil {
		return ""
	}
	title := htmlInline(text(prop(root, "title")))
	if title == "" {
		title = p.ID()
	}
	r.line("# " + oneLine(title))
	r.root(p.ID(), root, p.Unsupported())
	return r.b.String()
}

// renderer accumulates the markdown of one page.
type renderer struct {
	b     strings.Builder
	opts  Options
	menus []any
	tz    *time.Location // the browser's time zone (DateTimeSelector values)
}

func (r *renderer) line(s string) {
	r.b.WriteString(s)
	r.b.WriteByte('\n')
}

// root renders the page block: its tag line, a note for each thing on the page that
// mcpbridge does not run (a plugin block type or operator), then its areas.
func (r *renderer) root(pageID string, n *engine.Node, unsupported []engine.Notice) {
	t := newTag("page", pageID, "")
	t.attr("type", n.Type)
	if n.Loading {
		t.flag("loading")
	}
	if n.Type == "Result" {
		// A Result page shows its status and subtitle under its title.
		if s := text(prop(n, "status")); s != "" {
			t.attr("status", s)
		}
		if s := htmlInline(text(prop(n, "subTitle"))); s != "" {
			t.attr("subTitle", s)
		}
	}
	if isPageLayout(n.Type) {
		if links := r.menuLinks(prop(n, "menu")); links != "" {
			t.raw("menu", links)
		}
	}
	// The page's lifecycle events run on navigation; only other events are
	// the agent's to trigger.
	for _, ev := range n.Events {
		switch ev {
		case "onInit", "onInitAsync", "onMount", "onMountAsync":
		default:
			t.evs = append(t.evs, ev)
		}
	}
	r.line(t.open())
	for _, u := range unsupported {
		r.line("> not supported: " + oneLine(u.Message))
	}
	if n.Loading {
		r.line(loadingNote)
		return
	}
	r.areas(n.Areas)
}

func isPageLayout(typ string) bool {
	switch typ {
	case "PageHeaderMenu", "PageSiderMenu":
		return true
	}
	return false
}

// menuLinks lists the links of the menu a page layout or Menu block shows
// (its links property, else the menu named by menuId, else the default
// menu, else the first) as [pageId:"Title", …], groups flattened. The
// menus are the user's: links to pages the user may not open are gone.
func (r *renderer) menuLinks(props any) string {
	links, ok := propOf(props, "links").([]any)
	if !ok {
		menuID := text(propOf(props, "menuId"))
		if menuID == "" {
			menuID = "default"
		}
		var menu *jsvalue.Object
		for _, m := range r.menus {
			mo, _ := m.(*jsvalue.Object)
			if mo == nil {
				continue
			}
			if mo.Prop("menuId") == menuID {
				menu = mo
				break
			}
			if menu == nil {
				menu = mo
			}
		}
		links, _ = menu.Prop("links").([]any)
	}
	var parts []string
	var walk func(links []any)
	walk = func(links []any) {
		for _, l := range links {
			lo, _ := l.(*jsvalue.Object)
			if lo == nil {
				continue
			}
			if sub, ok := lo.Prop("links").([]any); ok {
				walk(sub)
				continue
			}
			target := text(lo.Prop("pageId"))
			if target == "" {
				if u := text(lo.Prop("url")); u != "" {
					target = jsonAttr(u)
				}
			}
			if target == "" {
				continue
			}
			title := htmlInline(text(propOf(lo.Prop("properties"), "title")))
			if title == "" || title == target {
				parts = append(parts, target)
			} else {
				parts = append(parts, target+":"+jsonAttr(title))
			}
		}
	}
	walk(links)
	if len(parts) == 0 {
		return ""
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// areas renders the blocks of every area, in order.
func (r *renderer) areas(areas []engine.Area) {
	for _, a := range areas {
		r.blocks(a.Blocks)
	}
}

func (r *renderer) blocks(ns []*engine.Node) {
	for _, c := range ns {
		r.block(c)
	}
}

// loadingNote stands for what a loading block does not show yet.
const loadingNote = "(loading)"

// block renders one block and its children, or nothing when it is hidden
// (or, for a closable Alert or Tag, closed).
//
// Loading follows @lowdefy/client: a loading block with a skeleton is drawn
// as its skeleton, so it shows no values; a loading container or list draws
// its children loading (disabled, or their skeletons), so its content is
// shown as loading rather than as the values it holds until it has loaded.
// Other loading blocks are drawn with a loading flag.
func (r *renderer) block(n *engine.Node) {
	if !n.Visible || n.Closed {
		return
	}
	if n.Loading {
		cat := blocks.Category(n.Category)
		if n.Skeleton || cat == blocks.Container || cat == blocks.List {
			r.loading(n)
			return
		}
	}
	if fn, ok := rich()[n.Type]; ok {
		fn(r, n)
		return
	}
	r.fallback(n)
}

// fallback renders a block of a type without a rich render by its category.
func (r *renderer) fallback(n *engine.Node) {
	switch blocks.Category(n.Category) {
	case blocks.Input:
		r.input(n, nil)
	case blocks.List:
		r.list(n, "")
	case blocks.Container:
		r.container(n, "container", titleOf(n))
	default:
		r.display(n, firstText(n, "title", "content", "text", "label", "description"))
	}
}

// loading renders a loading block as one line, without its values or
// children.
func (r *renderer) loading(n *engine.Node) {
	name := "display"
	switch blocks.Category(n.Category) {
	case blocks.Input:
		name = "input"
	case blocks.List:
		name = "list"
	case blocks.Container:
		name = "container"
	}
	t := r.common(name, n)
	if s := htmlInline(titleOf(n)); s != "" {
		t.attr("title", s)
	}
	r.line(t.open() + loadingNote + t.close())
}

// container renders <TAG id type …> title, children, </TAG>.
func (r *renderer) container(n *engine.Node, tagName, title string, extra ...func(*tag)) {
	t := r.common(tagName, n)
	if title != "" {
		t.attr("title", title)
	}
	for _, e := range extra {
		e(t)
	}
	r.line(t.open())
	r.areas(n.Areas)
	r.line(t.close())
}

// display renders a display block with an optional text body.
func (r *renderer) display(n *engine.Node, body string, extra ...func(*tag)) {
	t := r.common("display", n)
	for _, e := range extra {
		e(t)
	}
	r.leaf(t, "", body)
}

// leaf writes a tag with a text body: on one line when the body is plain,
// else with the body fenced (as lang, "" for none) between the open and close
// lines.
func (r *renderer) leaf(t *tag, lang, body string) {
	switch {
	case body == "":
		r.line(t.selfClosed())
	case plain(body):
		r.line(t.open() + body + t.close())
	default:
		r.line(t.open())
		r.fence(lang, body)
		r.line(t.close())
	}
}

// text writes text on a line of its own when it is plain, else fenced.
func (r *renderer) text(s string) {
	switch {
	case s == "":
	case plain(s):
		r.line(s)
	default:
		r.fence("", s)
	}
}

// fence writes s inside a code fence longer than any backtick run in s.
func (r *renderer) fence(info, s string) {
	f := fenceFor(s)
	r.line(f + info)
	r.line(strings.TrimRight(s, "\n"))
	r.line(f)
}

// common starts a tag with the attributes every block shares: id, type,
// loading and declared events.
func (r *renderer) common(tagName string, n *engine.Node) *tag {
	typ := n.Type
	if tagName == "button" && typ == "Button" {
		typ = "" // the tag says it
	}
	t := newTag(tagName, n.ID, typ)
	unsupportedNote(t, n.Type)
	if _, known := blocks.Lookup(n.Type); !known && n.Type != "" {
		if _, drawn := rich()[n.Type]; !drawn {
			t.flag("unsupported") // the page's "not supported" notes say more
		}
	}
	if n.Loading {
		t.flag("loading")
	}
	if b, _ := prop(n, "disabled").(bool); b {
		t.flag("disabled")
	}
	t.events(n)
	return t
}

// methodsOf lists the methods of a block type an agent can call (besides
// the list methods, which lists show as actions).
func methodsOf(typ string) []string {
	m, ok := blocks.Lookup(typ)
	if !ok {
		return nil
	}
	return m.Methods
}

// tag builds one semantic tag.
type tag struct {
	name  string
	parts []string
	evs   []string // declared events, written last
}

func newTag(name, id, typ string) *tag {
	t := &tag{name: name}
	if id != "" {
		t.parts = append(t.parts, "id="+jsonAttr(id))
	}
	if typ != "" {
		t.attr("type", typ)
	}
	return t
}

func (t *tag) attr(k, v string) { t.parts = append(t.parts, k+"="+jsonAttr(v)) }
func (t *tag) raw(k, v string)  { t.parts = append(t.parts, k+"="+v) }
func (t *tag) flag(k string)    { t.parts = append(t.parts, k) }
func (t *tag) value(k string, v any) {
	t.parts = append(t.parts, k+"="+jsonValue(v))
}

func (t *tag) list(k string, items []string) {
	if len(items) > 0 {
		t.parts = append(t.parts, k+"=["+strings.Join(items, ", ")+"]")
	}
}

// events lists the block's declared events, then the events its
// component's own controls raise (a Modal's onOk and onCancel, …).
func (t *tag) events(n *engine.Node) {
	t.evs = n.Events
	for _, ev := range n.ComponentEvents {
		if !slices.Contains(t.evs, ev) {
			t.evs = append(t.evs[:len(t.evs):len(t.evs)], ev)
		}
	}
}

func (t *tag) open() string {
	parts := t.parts
	if len(t.evs) > 0 {
		parts = append(parts[:len(parts):len(parts)], "events=["+strings.Join(t.evs, ", ")+"]")
	}
	if len(parts) == 0 {
		return "<" + t.name + ">"
	}
	return "<" + t.name + " " + strings.Join(parts, " ") + ">"
}

func (t *tag) selfClosed() string { return t.open() }
func (t *tag) close() string      { return "</" + t.name + ">" }

// prop returns an evaluated property of a block (undefined when absent).
func prop(n *engine.Node, path ...string) any {
	v := n.Properties
	for _, k := range path {
		v = propOf(v, k)
	}
	return v
}

func propOf(v any, k string) any {
	o, ok := v.(*jsvalue.Object)
	if !ok {
		return jsvalue.Undefined
	}
	return o.Prop(k)
}

// text returns a property's text: strings as they are, numbers and booleans
// as JavaScript writes them, nothing for other values.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return jsvalue.NumberToString(x)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// firstText returns the first of the named properties with text.
func firstText(n *engine.Node, keys ...string) string {
	for _, k := range keys {
		if s := text(prop(n, k)); s != "" {
			return s
		}
	}
	return ""
}

// titleOf is a container's title: properties.title, or header for Card-like
// blocks, shown as text when it holds HTML (most components draw it so).
func titleOf(n *engine.Node) string {
	return htmlInline(firstText(n, "title", "header"))
}

// labelOf is an input's label as antd inputs show it: label.title, else
// title, else nothing (the id names it); a disabled label shows nothing.
func labelOf(n *engine.Node) string {
	if d, _ := prop(n, "label", "disabled").(bool); d {
		return ""
	}
	if s := text(prop(n, "label", "title")); s != "" {
		return htmlInline(s)
	}
	return htmlInline(text(prop(n, "title")))
}
