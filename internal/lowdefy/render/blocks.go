package render

import (
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
	out := make([]string, 0, len(rich))
	for t := range rich {
		out = append(out, t)
	}
	slices.Sort(out)
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
		"TextInput", "TextArea", "AutoComplete", "ParagraphInput", "TitleInput", "ColorSelector")
	set(func(r *renderer, n *engine.Node) { r.input(n, textAttrs) }, "PasswordInput")
	set(func(r *renderer, n *engine.Node) { r.input(n, numberAttrs) }, "NumberInput", "RatingSlider")
	set(func(r *renderer, n *engine.Node) { r.input(n, switchAttrs) }, "Switch", "CheckboxSwitch")
	set(func(r *renderer, n *engine.Node) { r.input(n, r.optionAttrs) },
		"Selector", "MultipleSelector", "ButtonSelector", "RadioSelector", "CheckboxSelector")
	set(func(r *renderer, n *engine.Node) { r.input(n, dateAttrs) },
		"DateSelector", "DateTimeSelector", "DateRangeSelector", "MonthSelector", "WeekSelector")
	set((*renderer).button, "Button")
	set((*renderer).anchor, "Anchor")
	set((*renderer).markdown, "Markdown", "MarkdownWithCode", "DangerousMarkdown", "Html", "DangerousHtml")
	set((*renderer).paragraph, "Paragraph", "Tag")
	set((*renderer).title, "Title")
	set((*renderer).table, "Table", "AgGridAlpine", "AgGridAlpineDark", "AgGridBalham",
		"AgGridBalhamDark", "AgGridMaterial", "AgGridInputAlpine", "AgGridInputAlpineDark",
		"AgGridInputBalham", "AgGridInputBalhamDark", "AgGridInputMaterial")
	set(func(r *renderer, n *engine.Node) { r.container(n, "container", titleOf(n)) }, "Card")
	set((*renderer).layout, "Box", "Span", "Layout", "Content", "Header", "Footer", "Affix",
		"Label", "Tooltip", "Badge", "Comment", "Carousel")
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
	set((*renderer).img, "Img", "Avatar")
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
	if d := text(prop(n, "description")); d != "" {
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
	opts, _ := prop(n, "options").([]any)
	var items []string
	limit := r.opts.maxOptions()
	for i, o := range opts {
		if i == limit {
			items = append(items, "… "+strconv.Itoa(len(opts)-limit)+" more")
			break
		}
		oo, ok := o.(*jsvalue.Object)
		if !ok {
			items = append(items, jsonValue(o))
			continue
		}
		v := oo.Prop("value")
		item := jsonValue(v)
		if l := text(oo.Prop("label")); l != "" && l != text(v) {
			item += ":" + jsonAttr(l)
		}
		if d, _ := oo.Prop("disabled").(bool); d {
			item += "(disabled)"
		}
		items = append(items, item)
	}
	t.raw("options", "["+strings.Join(items, ", ")+"]")
}

// Display blocks.

func (r *renderer) button(n *engine.Node) {
	t := r.common("button", n)
	if typ := text(prop(n, "type")); typ == "danger" || jsvalue.Truthy(prop(n, "danger")) {
		t.flag("danger")
	}
	r.leaf(t, strings.TrimSpace(text(prop(n, "title"))))
}

func (r *renderer) anchor(n *engine.Node) {
	t := r.common("button", n)
	if h := text(prop(n, "href")); h != "" {
		t.attr("href", h)
	}
	r.leaf(t, strings.TrimSpace(firstText(n, "title", "content")))
}

func (r *renderer) markdown(n *engine.Node) {
	body := strings.TrimSpace(firstText(n, "content", "html"))
	t := r.common("display", n)
	if body == "" {
		r.line(t.open())
	} else {
		r.line(t.open())
		info := "markdown"
		if strings.Contains(n.Type, "Html") {
			info = "html"
		}
		r.fence(info, body)
	}
	r.areas(n.Areas)
	r.line(t.close())
}

// paragraph writes plain text as a line of its own; text that is not plain,
// or a paragraph with events, is a <display> with the text fenced.
func (r *renderer) paragraph(n *engine.Node) {
	body := strings.TrimSpace(firstText(n, "content", "title"))
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
	body := strings.TrimSpace(text(prop(n, "content")))
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

func (r *renderer) statistic(n *engine.Node) {
	r.display(n, "", func(t *tag) {
		if s := text(prop(n, "title")); s != "" {
			t.attr("title", s)
		}
		v := prop(n, "value")
		if jsvalue.IsUndefined(v) {
			v = nil
		}
		t.value("value", v)
		for _, k := range []string{"prefix", "suffix"} {
			if s := text(prop(n, k)); s != "" {
				t.attr(k, s)
			}
		}
	})
}

func (r *renderer) divider(n *engine.Node) {
	if s := strings.TrimSpace(text(prop(n, "title"))); s != "" || len(n.Events) > 0 {
		r.display(n, s)
		return
	}
	r.line("---")
}

func (r *renderer) progress(n *engine.Node) {
	r.display(n, "", func(t *tag) { t.value("percent", orNull(prop(n, "percent"))) })
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
func (r *renderer) layout(n *engine.Node) {
	if len(n.Events) == 0 && !n.Loading && titleOf(n) == "" {
		r.areas(n.Areas)
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
	r.container(n, "container", titleOf(n), func(t *tag) {
		t.raw("open", strconv.FormatBool(n.Open))
		t.list("methods", methodsOf(n.Type))
	})
}

func (r *renderer) confirmModal(n *engine.Node) {
	t := r.common("container", n)
	if s := titleOf(n); s != "" {
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
	r.text(strings.TrimSpace(text(prop(n, "content"))))
	r.areas(n.Areas)
	r.line(t.close())
}

// panels renders Tabs and Collapse: every panel with its key and title
// (from the tabs/panels property, else the area keys), the active one
// marked.
func (r *renderer) panels(n *engine.Node, outer, inner, listProp string) {
	titles := map[string]string{}
	var order []string
	if l, ok := prop(n, listProp).([]any); ok {
		for _, p := range l {
			po, _ := p.(*jsvalue.Object)
			k := text(po.Prop("key"))
			if k == "" {
				continue
			}
			order = append(order, k)
			titles[k] = text(po.Prop("title"))
		}
	}
	areas := map[string]engine.Area{}
	var extra []engine.Area
	for _, a := range n.Areas {
		areas[a.Key] = a
		if len(order) > 0 && !slices.Contains(order, a.Key) {
			extra = append(extra, a)
		}
	}
	if len(order) == 0 {
		for _, a := range n.Areas {
			order = append(order, a.Key)
		}
	}
	active := text(prop(n, "activeKey"))
	if active == "" {
		active = text(prop(n, "defaultActiveKey"))
	}
	if active == "" && outer == "tabs" && len(order) > 0 {
		active = order[0]
	}
	t := r.common(outer, n)
	if s := text(prop(n, "title")); s != "" {
		t.attr("title", s)
	}
	if active != "" {
		t.attr("active", active)
	}
	r.line(t.open())
	for _, k := range order {
		pt := newTag(inner, "", "")
		pt.attr("key", k)
		if s := titles[k]; s != "" && s != k {
			pt.attr("title", s)
		}
		r.line(pt.open())
		r.blocks(areas[k].Blocks)
		r.line(pt.close())
	}
	r.areas(extra)
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
	for i, item := range n.Items {
		r.line("[" + strconv.Itoa(i) + "]")
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
			rows = append(rows, []string{cell(io.Prop("label")), cell(io.Prop("value"))})
		}
		r.markdownTable([]string{"", ""}, rows, "")
	}
	r.areas(n.Areas)
	r.line(t.close())
}

func (r *renderer) alert(n *engine.Node) {
	body := strings.TrimSpace(text(prop(n, "message")))
	if d := strings.TrimSpace(text(prop(n, "description"))); d != "" {
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
		if s := text(prop(n, "title")); s != "" {
			t.attr("title", s)
		}
		if s := text(prop(n, "subTitle")); s != "" {
			t.attr("subTitle", s)
		}
	})
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
