package render

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/blocks"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
)

// renderFunc draws one visible block.
type renderFunc func(r *renderer, n *engine.Node)

// rich returns the block types with a render of their own; every other type
// is drawn by its category (renderer.fallback). The table is built on first use,
// by a function rather than a package-level initialiser, as the renders reach
// back here through the renderer.
func rich() map[string]renderFunc {
	richOnce.Do(func() { richTable = newRich() })
	return richTable
}

var (
	richOnce  sync.Once
	richTable map[string]renderFunc
)

// RichTypes returns the block types with a render of their own, sorted.
func RichTypes() []string {
	rich := rich()
	out := slices.Sorted(maps.Keys(rich))
	return out
}

func newRich() map[string]renderFunc {
	rich := map[string]renderFunc{}
	set := func(fn renderFunc, types ...string) {
		for _, t := range types {
			rich[t] = fn
		}
	}
	set(func(r *renderer, n *engine.Node) { r.input(n, textAttrs) },
		"TextInput", "TextArea", "ParagraphInput", "TitleInput", "ColorSelector")
	set(func(r *renderer, n *engine.Node) { r.input(n, r.suggestionAttrs) }, "AutoComplete")
	set(func(r *renderer, n *engine.Node) { r.input(n, textAttrs) }, "PasswordInput")
	set(func(r *renderer, n *engine.Node) { r.input(n, numberAttrs) }, "NumberInput", "RatingSlider")
	set(func(r *renderer, n *engine.Node) { r.input(n, switchAttrs) }, "Switch", "CheckboxSwitch")
	set(func(r *renderer, n *engine.Node) { r.input(n, r.optionAttrs) },
		"Selector", "MultipleSelector", "ButtonSelector", "RadioSelector", "CheckboxSelector")
	set(func(r *renderer, n *engine.Node) { r.input(n, dateAttrs) },
		"DateSelector", "DateTimeSelector", "DateRangeSelector", "MonthSelector", "WeekSelector")
	set((*renderer).button, "Button")
	set((*renderer).anchor, "Anchor")
	set((*renderer).markdown, "Markdown", "MarkdownWithCode", "DangerousMarkdown")
	set((*renderer).html, "Html", "DangerousHtml")
	set((*renderer).echart, "EChart")
	set((*renderer).googleMaps, "GoogleMaps", "GoogleMapsHeatmap")
	set((*renderer).menu, "Menu", "MobileMenu")
	set((*renderer).breadcrumb, "Breadcrumb")
	set((*renderer).pagination, "Pagination")
	set((*renderer).paragraph, "Paragraph")
	set((*renderer).tag, "Tag")
	set((*renderer).title, "Title")
	set((*renderer).table, "Table", "AgGridAlpine", "AgGridAlpineDark", "AgGridBalham",
		"AgGridBalhamDark", "AgGridMaterial", "AgGridInputAlpine", "AgGridInputAlpineDark",
		"AgGridInputBalham", "AgGridInputBalhamDark", "AgGridInputMaterial")
	set(func(r *renderer, n *engine.Node) { r.container(n, "container", titleOf(n)) }, "Card")
	set((*renderer).layout, "Box", "Span", "Layout", "Content", "Header", "Footer", "Affix",
		"Carousel", "GoogleMapsScript")
	set((*renderer).label, "Label")
	set((*renderer).tooltip, "Tooltip")
	set((*renderer).badge, "Badge")
	set((*renderer).comment, "Comment")
	set((*renderer).page, "PageHeaderMenu", "PageSiderMenu", "PageTitleCard")
	set((*renderer).modal, "Modal", "Drawer", "Sider")
	set((*renderer).confirmModal, "ConfirmModal")
	set(func(r *renderer, n *engine.Node) { r.panels(n, "tabs", "tab", "tabs") }, "Tabs")
	set(func(r *renderer, n *engine.Node) { r.panels(n, "collapse", "panel", "panels") }, "Collapse")
	set(func(r *renderer, n *engine.Node) { r.list(n, titleOf(n)) }, "ControlledList", "List", "TimelineList")
	set((*renderer).statistic, "Statistic")
	set((*renderer).descriptions, "Descriptions")
	set((*renderer).alert, "Alert")
	set((*renderer).result, "Result")
	set((*renderer).divider, "Divider")
	set((*renderer).progress, "Progress")
	set((*renderer).img, "Img")
	set((*renderer).avatar, "Avatar")
	set((*renderer).silent, "Icon", "Spinner", "Skeleton", "SkeletonAvatar", "SkeletonButton",
		"SkeletonInput", "SkeletonParagraph", "ProgressBar", "Message", "Notification")
	return rich
}

// Inputs.

// input renders an input block on one line:
// <input id type [required] [label] [placeholder] …extra… value=V [errors] [warnings] [events]>.
func (r *renderer) input(n *engine.Node, extra func(*tag, *engine.Node)) {
	t := r.common("input", n)
	if jsvalue.Truthy(n.Required) {
		t.flag("required")
	}
	if l := labelOf(n); l != "" {
		t.attr("label", l)
	}
	if p := text(prop(n, "placeholder")); p != "" {
		t.attr("placeholder", p)
	}
	if extra != nil {
		extra(t, n)
	}
	if k := blocks.DateKindOf(n.Type); k != blocks.NotDate {
		r.dateValue(t, n, k)
	} else if n.Type == "PasswordInput" {
		if s, _ := n.Value.(string); s != "" {
			t.raw("value", `"(`+strconv.Itoa(len([]rune(s)))+` characters, hidden)"`)
		} else {
			t.value("value", n.Value)
		}
	} else {
		t.value("value", n.Value)
	}
	validationAttrs(t, n)
	r.line(t.open())
}

func validationAttrs(t *tag, n *engine.Node) {
	if n.Validation == nil {
		return
	}
	for _, k := range []string{"errors", "warnings"} {
		if l, _ := n.Validation.Prop(k).([]any); len(l) > 0 {
			t.value(k, l)
		}
	}
}

func textAttrs(t *tag, n *engine.Node) {
	if v, ok := prop(n, "maxLength").(float64); ok {
		t.raw("maxLength", jsvalue.NumberToString(v))
	}
}

func numberAttrs(t *tag, n *engine.Node) {
	for _, k := range []string{"min", "max", "step"} {
		if v, ok := prop(n, k).(float64); ok {
			t.raw(k, jsvalue.NumberToString(v))
		}
	}
}

func switchAttrs(t *tag, n *engine.Node) {
	if d := htmlInline(text(prop(n, "description"))); d != "" {
		t.attr("description", d)
	}
}

func dateAttrs(t *tag, n *engine.Node) {
	if f := text(prop(n, "format")); f != "" {
		t.attr("format", f)
	}
}

// optionAttrs lists a selector's options: values as JSON, with their label
// when it differs (value:"Label"), at most Options.MaxOptions of them.
func (r *renderer) optionAttrs(t *tag, n *engine.Node) {
	items := r.limitedOptions(n, func(o any) string {
		oo, ok := o.(*jsvalue.Object)
		if !ok {
			return jsonValue(o)
		}
		v := oo.Prop("value")
		item := jsonValue(v)
		if l := htmlInline(text(oo.Prop("label"))); l != "" && l != text(v) {
			item += ":" + jsonAttr(l)
		}
		if d, _ := oo.Prop("disabled").(bool); d {
			item += "(disabled)"
		}
		return item
	})
	t.raw("options", "["+strings.Join(items, ", ")+"]")
}

// limitedOptions writes the first Options.MaxOptions of n's options with item, and
// says how many more there are.
func (r *renderer) limitedOptions(n *engine.Node, item func(o any) string) []string {
	opts, _ := prop(n, "options").([]any)
	var items []string
	limit := r.opts.maxOptions()
	for i, o := range opts {
		if i == limit {
			items = append(items, "… "+strconv.Itoa(len(opts)-limit)+" more")
			break
		}
		items = append(items, item(o))
	}
	return items
}

// Display blocks.

// button renders a Button: its title (HTML, shown as text), or its block id
// when it has none, as antd's Button shows; nothing with hideTitle.
func (r *renderer) button(n *engine.Node) {
	t := r.common("button", n)
	if typ := text(prop(n, "type")); typ == "danger" || jsvalue.Truthy(prop(n, "danger")) {
		t.flag("danger")
	}
	title := ""
	if !jsvalue.Truthy(prop(n, "hideTitle")) {
		title = htmlInline(strings.TrimSpace(text(prop(n, "title"))))
		if jsvalue.IsNullish(prop(n, "title")) {
			title = n.ID
		}
	}
	r.leaf(t, "", title)
}

func (r *renderer) anchor(n *engine.Node) {
	t := r.common("button", n)
	if h := text(prop(n, "href")); h != "" {
		t.attr("href", h)
	}
	title := strings.TrimSpace(text(prop(n, "title")))
	if title == "" {
		// The Link's default title: the page id, the url, else the block id.
		title = firstText(n, "pageId", "url")
		if title == "" {
			title = n.ID
		}
	}
	r.leaf(t, "", title)
}

// markdown renders the markdown blocks: their content is markdown, written
// fenced. Markdown and MarkdownWithCode show HTML in the content as text
// (react-markdown escapes it); DangerousMarkdown draws it, so its HTML
// paragraphs are turned into markdown.
func (r *renderer) markdown(n *engine.Node) {
	body := strings.TrimSpace(text(prop(n, "content")))
	if n.Type == "DangerousMarkdown" {
		body = markdownWithHTML(body)
	}
	t := r.common("display", n)
	r.line(t.open())
	if body != "" {
		r.fence("markdown", body)
	}
	r.areas(n.Areas)
	r.line(t.close())
}

// markdownWithHTML turns the paragraphs of markdown that hold HTML into
// markdown, leaving the others as written.
func markdownWithHTML(s string) string {
	if !looksLikeHTML(s) {
		return s
	}
	paras := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n")
	for i, p := range paras {
		if looksLikeHTML(p) {
			paras[i] = htmlToMarkdown(p)
		}
	}
	return strings.Join(paras, "\n\n")
}

// html renders Html and DangerousHtml as the text a person reads, turned
// into markdown (never the markup itself); plain text is written as it is,
// other text fenced as markdown.
func (r *renderer) html(n *engine.Node) {
	body := htmlToMarkdown(text(prop(n, "html")))
	r.leaf(r.common("display", n), "markdown", body)
}

// paragraph writes plain text as a line of its own; text that is not plain,
// or a paragraph with events, is a <display> with the text fenced.
func (r *renderer) paragraph(n *engine.Node) {
	body := strings.TrimSpace(htmlText(strings.TrimSpace(text(prop(n, "content")))))
	if body == "" && len(n.Events) == 0 {
		return
	}
	if len(n.Events) == 0 && !n.Loading && plain(body) {
		r.line(body)
		return
	}
	r.display(n, body)
}

// title writes a heading one level below the page's (level 1 → ##).
func (r *renderer) title(n *engine.Node) {
	body := htmlInline(strings.TrimSpace(text(prop(n, "content"))))
	if body == "" && len(n.Events) == 0 {
		return
	}
	level := 1
	if l, ok := prop(n, "level").(float64); ok && l >= 1 && l <= 5 {
		level = int(l)
	}
	if len(n.Events) == 0 && !n.Loading && plain(body) {
		r.line(strings.Repeat("#", level+1) + " " + body)
		return
	}
	r.display(n, body, func(t *tag) { t.raw("level", strconv.Itoa(level)) })
}

func (r *renderer) divider(n *engine.Node) {
	if s := htmlInline(strings.TrimSpace(text(prop(n, "title")))); s != "" || len(n.Events) > 0 {
		r.display(n, s)
		return
	}
	r.line("---")
}

func (r *renderer) img(n *engine.Node) {
	alt := firstText(n, "alt", "content", "title")
	if alt == "" && len(n.Events) == 0 {
		return
	}
	r.display(n, "", func(t *tag) {
		if alt != "" {
			t.attr("alt", alt)
		}
	})
}

// silent omits blocks that show nothing an agent can use (icons, loaders),
// unless they have events.
func (r *renderer) silent(n *engine.Node) {
	if len(n.Events) > 0 {
		r.display(n, "")
	}
}

// Containers.

// layout blocks (Box, Layout, …) draw only their children unless they have
// a title or events to show.
//
// Box and Span show their content property (as text, in place of their
// children) when they have one.
func (r *renderer) layout(n *engine.Node) {
	content := ""
	if n.Type == "Box" || n.Type == "Span" {
		content = strings.TrimSpace(text(prop(n, "content")))
	}
	if len(n.Events) == 0 && !n.Loading && titleOf(n) == "" {
		if content != "" {
			r.text(content)
			return
		}
		r.areas(n.Areas)
		return
	}
	if content != "" {
		r.display(n, content)
		return
	}
	r.container(n, "container", titleOf(n))
}

// page renders a page layout block below the root (the root is
// renderer.root).
func (r *renderer) page(n *engine.Node) { r.container(n, "container", titleOf(n)) }

// modal renders a Modal, Drawer or Sider as a container with its open
// state and methods; its content is always shown.
func (r *renderer) modal(n *engine.Node) {
	r.container(n, "container", htmlInline(titleOf(n)), func(t *tag) {
		t.raw("open", strconv.FormatBool(n.Open))
		t.list("methods", methodsOf(n.Type))
	})
}

func (r *renderer) confirmModal(n *engine.Node) {
	t := r.common("container", n)
	if s := htmlInline(titleOf(n)); s != "" {
		t.attr("title", s)
	}
	t.raw("open", strconv.FormatBool(n.Open))
	t.list("methods", methodsOf(n.Type))
	for _, k := range []string{"okText", "cancelText"} {
		if s := text(prop(n, k)); s != "" {
			t.attr(k, s)
		}
	}
	r.line(t.open())
	if allEmpty(n.Areas) {
		// The content property shows only when the content area is empty.
		r.text(htmlText(strings.TrimSpace(text(prop(n, "content")))))
	}
	r.areas(n.Areas)
	r.line(t.close())
}

// panels renders Tabs and Collapse as their components draw them: the
// panels of the tabs/panels property, else one per area in key order (the
// Tabs extraAreaKey area is the tab bar's extra content, not a tab), each
// with its key and title (HTML for Collapse, shown as text). Tabs mark the
// active tab (activeKey, else the tab switched to with onChange, else
// defaultActiveKey, else the first); Collapse marks the open panels the
// same way (its default is the first panel). Every panel's content is
// shown: Lowdefy evaluates all of them.
func (r *renderer) panels(n *engine.Node, outer, inner, listProp string) {
	type panel struct {
		key, title string
		disabled   bool
	}
	extraKey := ""
	if outer == "tabs" {
		extraKey = text(prop(n, "extraAreaKey"))
	}
	var order []panel
	if l, ok := prop(n, listProp).([]any); ok {
		for _, p := range l {
			po, _ := p.(*jsvalue.Object)
			k := text(po.Prop("key"))
			if k == "" || k == extraKey {
				continue
			}
			title := strings.TrimSpace(text(po.Prop("title")))
			if outer == "collapse" {
				title = htmlInline(title) // Collapse draws panel titles as HTML
			}
			order = append(order, panel{key: k, title: title, disabled: jsvalue.Truthy(po.Prop("disabled"))})
		}
	} else {
		var keys []string
		for _, a := range n.Areas {
			if a.Key != extraKey {
				keys = append(keys, a.Key)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			order = append(order, panel{key: k, title: k})
		}
	}
	areas := map[string]engine.Area{}
	for _, a := range n.Areas {
		areas[a.Key] = a
	}
	var active []string
	activeOf := func(v any) []string {
		var out []string
		for _, k := range asList(v) {
			if s := text(k); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	switch {
	case jsvalue.Truthy(prop(n, "activeKey")):
		active = activeOf(prop(n, "activeKey"))
	case n.ActiveKey != nil:
		active = activeOf(n.ActiveKey) // switched to; may be no panel
		if active == nil {
			active = []string{}
		}
	case jsvalue.Truthy(prop(n, "defaultActiveKey")):
		active = activeOf(prop(n, "defaultActiveKey"))
	case len(order) > 0:
		active = []string{order[0].key}
	}
	t := r.common(outer, n)
	if s := text(prop(n, "title")); s != "" {
		t.attr("title", s)
	}
	if outer == "tabs" {
		if len(active) > 0 {
			t.attr("active", active[0])
		}
	} else {
		items := make([]string, len(active))
		for i, k := range active {
			items[i] = jsonAttr(k)
		}
		t.raw("open", "["+strings.Join(items, ", ")+"]")
	}
	r.line(t.open())
	shown := map[string]bool{}
	for _, p := range order {
		shown[p.key] = true
		pt := newTag(inner, "", "")
		pt.attr("key", p.key)
		if p.title != "" && p.title != p.key {
			pt.attr("title", p.title)
		}
		if p.disabled {
			pt.flag("disabled")
		}
		r.line(pt.open())
		r.blocks(areas[p.key].Blocks)
		r.line(pt.close())
	}
	for _, a := range n.Areas {
		if !shown[a.Key] {
			r.blocks(a.Blocks)
		}
	}
	r.line(t.close())
}

// list renders a list block with its item count, the methods that change
// it and its items numbered from 0 (the index in the item blocks' ids).
func (r *renderer) list(n *engine.Node, title string) {
	t := r.common("list", n)
	if title != "" {
		t.attr("title", title)
	}
	t.raw("items", strconv.Itoa(len(n.Items)))
	var actions []string
	for _, m := range []string{"pushItem", "unshiftItem", "removeItem", "moveItemUp", "moveItemDown"} {
		if slices.Contains(methodsOf(n.Type), m) {
			actions = append(actions, m)
		}
	}
	t.list("actions", actions)
	validationAttrs(t, n)
	if len(n.Items) == 0 {
		r.line(t.open() + t.close())
		return
	}
	r.line(t.open())
	// A TimelineList labels its items from its data property.
	data, _ := prop(n, "data").([]any)
	labelField := text(prop(n, "labelField"))
	if labelField == "" {
		labelField = "label"
	}
	for i, item := range n.Items {
		head := "[" + strconv.Itoa(i) + "]"
		if n.Type == "TimelineList" && i < len(data) {
			if l := strings.TrimSpace(text(getPath(data[i], labelField))); l != "" {
				head += " " + oneLine(l)
			}
		}
		r.line(head)
		r.areas(item)
	}
	r.line(t.close())
}

func (r *renderer) descriptions(n *engine.Node) {
	t := r.common("container", n)
	if s := titleOf(n); s != "" {
		t.attr("title", s)
	}
	r.line(t.open())
	if items, ok := prop(n, "items").([]any); ok && len(items) > 0 {
		var rows [][]string
		for _, it := range items {
			io, _ := it.(*jsvalue.Object)
			if io == nil {
				continue
			}
			rows = append(rows, []string{cell(htmlCell(io.Prop("label"))), cell(htmlCell(io.Prop("value")))})
		}
		r.markdownTable([]string{"", ""}, rows, "")
	}
	r.areas(n.Areas)
	r.line(t.close())
}

func (r *renderer) alert(n *engine.Node) {
	body := strings.TrimSpace(htmlText(text(prop(n, "message"))))
	if d := strings.TrimSpace(htmlText(text(prop(n, "description")))); d != "" {
		if body != "" {
			body += "\n"
		}
		body += d
	}
	extra := func(t *tag) {
		if s := text(prop(n, "type")); s != "" {
			t.attr("status", s)
		}
	}
	if len(n.Areas) == 0 || allEmpty(n.Areas) {
		r.display(n, body, extra)
		return
	}
	t := r.common("container", n)
	extra(t)
	r.line(t.open())
	r.text(body)
	r.areas(n.Areas)
	r.line(t.close())
}

func (r *renderer) result(n *engine.Node) {
	r.container(n, "container", "", func(t *tag) {
		if s := text(prop(n, "status")); s != "" {
			t.attr("status", s)
		}
		if s := htmlInline(text(prop(n, "title"))); s != "" {
			t.attr("title", s)
		}
		if s := htmlInline(text(prop(n, "subTitle"))); s != "" {
			t.attr("subTitle", s)
		}
	})
}

// htmlCell is a value drawn as HTML, as text when it is a string.
func htmlCell(v any) any {
	if s, ok := v.(string); ok {
		return htmlInline(s)
	}
	return v
}

func allEmpty(areas []engine.Area) bool {
	for _, a := range areas {
		if len(a.Blocks) > 0 {
			return false
		}
	}
	return true
}

func orNull(v any) any {
	if jsvalue.IsUndefined(v) {
		return nil
	}
	return v
}
