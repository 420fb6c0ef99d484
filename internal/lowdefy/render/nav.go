package render

import (
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/blocks"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
)

// menu renders a Menu or MobileMenu block with the links it shows.
func (r *renderer) menu(n *engine.Node) {
	r.display(n, "", func(t *tag) {
		if links := r.menuLinks(n.Properties); links != "" {
			t.raw("links", links)
		}
	})
}

// breadcrumb renders a Breadcrumb as its items joined by " / ".
func (r *renderer) breadcrumb(n *engine.Node) {
	var items []string
	for _, l := range asList(prop(n, "list")) {
		s := text(l)
		if lo, ok := l.(*jsvalue.Object); ok {
			s = text(lo.Prop("label"))
		}
		if s = strings.TrimSpace(s); s != "" {
			items = append(items, s)
		}
	}
	r.display(n, strings.Join(items, " / "))
}

// pagination renders a Pagination input: its value {current, pageSize,
// skip} and the total it pages through (100 unless set, as the block does).
func (r *renderer) pagination(n *engine.Node) {
	r.input(n, func(t *tag, n *engine.Node) {
		total := prop(n, "total")
		if jsvalue.IsUndefined(total) {
			total = 100.0
		}
		t.value("total", total)
	})
}

// suggestionAttrs lists an AutoComplete's options as suggestions: any text
// is a value.
func (r *renderer) suggestionAttrs(t *tag, n *engine.Node) {
	// The block shows each option as `${opt}`.
	t.list("suggestions", r.limitedOptions(n, func(o any) string { return jsonAttr(jsvalue.ToString(o)) }))
	textAttrs(t, n)
}

// tag renders a Tag: its title (HTML, as text), else its block id.
func (r *renderer) tag(n *engine.Node) {
	if n.Closed {
		return
	}
	title := prop(n, "title")
	body := ""
	switch x := title.(type) {
	case string:
		body = htmlInline(strings.TrimSpace(x))
	case nil, jsvalue.UndefinedType:
		body = n.ID
	default:
		body = text(x)
	}
	if len(n.Events)+len(n.ComponentEvents) == 0 && !n.Loading && plain(body) && jsvalue.IsUndefined(prop(n, "color")) {
		r.line(body)
		return
	}
	r.display(n, body, func(t *tag) {
		if c := text(prop(n, "color")); c != "" {
			t.attr("color", c)
		}
	})
}

// label renders a Label: its title and extra text (HTML, as text) around
// its content.
func (r *renderer) label(n *engine.Node) {
	r.container(n, "container", htmlInline(text(prop(n, "title"))), func(t *tag) {
		if s := htmlInline(text(prop(n, "extra"))); s != "" {
			t.attr("extra", s)
		}
	})
}

// tooltip renders a Tooltip: its content, with the tooltip's text (HTML, as
// text) as an attribute.
func (r *renderer) tooltip(n *engine.Node) {
	tip := htmlInline(strings.TrimSpace(text(prop(n, "title"))))
	if tip == "" && len(n.Events) == 0 {
		r.areas(n.Areas)
		return
	}
	r.container(n, "container", "", func(t *tag) {
		if tip != "" {
			t.attr("tooltip", tip)
		}
	})
}

// badge renders a Badge: its count (or status text) around its content.
func (r *renderer) badge(n *engine.Node) {
	count := prop(n, "count")
	txt := text(prop(n, "text"))
	if jsvalue.IsNullish(count) && txt == "" && len(n.Events) == 0 {
		r.areas(n.Areas)
		return
	}
	r.container(n, "container", text(prop(n, "title")), func(t *tag) {
		if !jsvalue.IsNullish(count) {
			c := count
			if f, ok := count.(float64); ok {
				over := 100.0 // the block's default overflowCount
				if o, ok := prop(n, "overflowCount").(float64); ok {
					over = o
				}
				if f > over {
					c = jsvalue.NumberToString(over) + "+"
				}
			}
			t.value("count", c)
		}
		if txt != "" {
			t.attr("text", txt)
		}
	})
}

// comment renders a Comment: author, date and text, then its areas.
func (r *renderer) comment(n *engine.Node) {
	r.container(n, "container", "", func(t *tag) {
		for _, k := range []string{"author", "datetime"} {
			if s := text(prop(n, k)); s != "" {
				t.attr(k, s)
			}
		}
		if s := strings.TrimSpace(text(prop(n, "content"))); s != "" {
			t.attr("content", s)
		}
	})
}

// avatar renders an Avatar: its content (initials) or alt text.
func (r *renderer) avatar(n *engine.Node) {
	body := firstText(n, "content", "alt")
	if body == "" && len(n.Events) == 0 {
		return
	}
	r.display(n, strings.TrimSpace(body))
}

// unsupportedNote marks a built-in type mcpbridge cannot run headlessly.
func unsupportedNote(t *tag, typ string) {
	if m, ok := blocks.Lookup(typ); ok && m.Unsupported != "" {
		t.attr("unsupported", typ+" "+m.Unsupported)
	}
}
