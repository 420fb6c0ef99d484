package render

import (
	"html"
	"strconv"
	"strings"
)

// Lowdefy draws many properties as HTML: the Html block's html, and every
// property its components pass through renderHtml (titles, messages,
// descriptions, option labels, …), sanitised by DOMPurify. An agent reads the
// text a person sees, so such HTML is turned into markdown here: headings,
// paragraphs, line breaks, emphasis, links, images, lists, quotes, code and
// tables keep their meaning; styles, classes and other attributes go; the
// contents of script, style and other elements a browser does not show as
// text are dropped, as are comments. Entities are decoded.

// hnode is one node of the small HTML tree the converter reads.
type hnode struct {
	tag      string // "" for text
	text     string // text nodes: decoded text
	attrs    map[string]string
	children []*hnode
	parent   *hnode
	depth    int // elements above it
}

// maxHTMLDepth bounds how deep the tree nests: deeper start tags are ignored and their
// text joins the element at the bound, so converting nested markup (which may come from a
// request's data) costs time in proportion to its length, not to its depth squared.
const maxHTMLDepth = 64

// voidTags have no content and no end tag.
var voidTags = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "param": true, "source": true, "track": true, "wbr": true,
}

// hiddenTags are elements whose content a browser does not show as text
// (or DOMPurify removes).
var hiddenTags = map[string]bool{
	"script": true, "style": true, "template": true, "noscript": true, "head": true, "title": true,
	"iframe": true, "object": true, "embed": true, "svg": true, "math": true, "canvas": true,
	"select": true, "datalist": true, "audio": true, "video": true, "map": true, "frame": true, "frameset": true,
}

// rawTextTags hold text up to their end tag, never markup.
var rawTextTags = map[string]bool{"script": true, "style": true, "textarea": true, "title": true, "xmp": true}

// closedBy lists, for a start tag, the open elements it implicitly closes.
var closedBy = map[string][]string{
	"p": {"p"}, "li": {"li", "p"}, "dt": {"dt", "dd", "p"}, "dd": {"dt", "dd", "p"},
	"tr": {"tr", "td", "th"}, "td": {"td", "th"}, "th": {"td", "th"}, "option": {"option"},
	"h1": {"p"}, "h2": {"p"}, "h3": {"p"}, "h4": {"p"}, "h5": {"p"}, "h6": {"p"},
	"ul": {"p"}, "ol": {"p"}, "div": {"p"}, "table": {"p"}, "blockquote": {"p"}, "pre": {"p"},
	"thead": {"tbody", "tr", "td", "th"}, "tbody": {"thead", "tr", "td", "th"},
}

// looksLikeHTML reports whether s holds a tag, comment or entity; other
// strings are shown as they are.
func looksLikeHTML(s string) bool {
	for i := 0; i < len(s)-1; i++ {
		switch s[i] {
		case '<':
			c := s[i+1]
			if c == '/' || c == '!' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
				return true
			}
		case '&':
			if j := strings.IndexByte(s[i:], ';'); j > 1 && j < 12 && html.UnescapeString(s[i:i+j+1]) != s[i:i+j+1] {
				return true
			}
		}
	}
	return false
}

// parseHTML reads HTML leniently into a tree: unknown end tags are
// ignored, unclosed elements end with their parent.
func parseHTML(s string) *hnode {
	root := &hnode{tag: "#root"}
	cur := root
	addText := func(t string) {
		if t == "" {
			return
		}
		cur.children = append(cur.children, &hnode{text: html.UnescapeString(t), parent: cur})
	}
	closeTo := func(name string, stopAt ...string) bool {
		for n := cur; n != root; n = n.parent {
			for _, s := range stopAt {
				if n.tag == s {
					return false
				}
			}
			if n.tag == name {
				cur = n.parent
				return true
			}
		}
		return false
	}
	i := 0
	for i < len(s) {
		lt := strings.IndexByte(s[i:], '<')
		if lt < 0 {
			addText(s[i:])
			break
		}
		addText(s[i : i+lt])
		i += lt
		rest := s[i:]
		switch {
		case strings.HasPrefix(rest, "<!--"):
			end := strings.Index(rest[4:], "-->")
			if end < 0 {
				return root
			}
			i += 4 + end + 3
		case strings.HasPrefix(rest, "<!") || strings.HasPrefix(rest, "<?"):
			end := strings.IndexByte(rest, '>')
			if end < 0 {
				return root
			}
			i += end + 1
		case len(rest) > 2 && rest[1] == '/' && isLetter(rest[2]):
			end := strings.IndexByte(rest, '>')
			if end < 0 {
				return root
			}
			name := tagName(rest[2:end])
			if name == "p" && !closeTo("p", "ul", "ol", "table", "blockquote", "div") {
				// </p> without <p> is an empty paragraph, as browsers read it.
				cur.children = append(cur.children, &hnode{tag: "p", parent: cur})
			} else if name != "p" {
				closeTo(name)
			}
			i += end + 1
		case len(rest) > 1 && isLetter(rest[1]):
			end := tagEnd(rest)
			if end < 0 {
				addText(rest)
				return root
			}
			body := rest[1:end]
			selfClosed := strings.HasSuffix(body, "/")
			name := tagName(body)
			n := &hnode{tag: name, attrs: parseAttrs(body[len(name):]), parent: cur}
			for _, c := range closedBy[name] {
				closeTo(c, "ul", "ol", "table", "blockquote", "div", "td", "th")
			}
			i += end + 1
			if cur.depth >= maxHTMLDepth && !rawTextTags[name] {
				continue // too deep: the element's text joins cur
			}
			n.parent = cur
			n.depth = cur.depth + 1
			cur.children = append(cur.children, n)
			if rawTextTags[name] {
				closeAt := indexEndTag(s[i:], name)
				if closeAt < 0 {
					closeAt = len(s) - i
				}
				n.children = append(n.children, &hnode{text: html.UnescapeString(s[i : i+closeAt]), parent: n})
				i += closeAt
				if gt := strings.IndexByte(s[i:], '>'); gt >= 0 {
					i += gt + 1
				}
				continue
			}
			if !voidTags[name] && !selfClosed {
				cur = n
			}
		default:
			addText("<")
			i++
		}
	}
	return root
}

// indexEndTag returns the index of the first "</name" in s, in any case, or -1.
func indexEndTag(s, name string) int {
	for i := 0; ; {
		j := strings.Index(s[i:], "</")
		if j < 0 {
			return -1
		}
		i += j
		if len(s)-i-2 >= len(name) && strings.EqualFold(s[i+2:i+2+len(name)], name) {
			return i
		}
		i += 2
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// tagName is the lower-case name at the start of a tag's body.
func tagName(body string) string {
	j := 0
	for j < len(body) && (isLetter(body[j]) || body[j] >= '0' && body[j] <= '9' || body[j] == '-' || body[j] == ':') {
		j++
	}
	return strings.ToLower(body[:j])
}

// tagEnd finds the > that ends the tag starting s, skipping quoted values.
func tagEnd(s string) int {
	var quote byte
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return i
		}
	}
	return -1
}

// parseAttrs reads name="value" pairs (values decoded, names lower case).
func parseAttrs(s string) map[string]string {
	attrs := map[string]string{}
	i := 0
	for i < len(s) {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '/') {
			i++
		}
		j := i
		for j < len(s) && s[j] != '=' && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '/' {
			j++
		}
		name := strings.ToLower(s[i:j])
		i = j
		val := ""
		if i < len(s) && s[i] == '=' {
			i++
			if i < len(s) && (s[i] == '"' || s[i] == '\'') {
				q := s[i]
				k := strings.IndexByte(s[i+1:], q)
				if k < 0 {
					k = len(s) - i - 1
				}
				val = s[i+1 : i+1+k]
				i += k + 2
			} else {
				k := i
				for k < len(s) && s[k] != ' ' && s[k] != '\t' && s[k] != '\n' {
					k++
				}
				val = s[i:k]
				i = k
			}
		}
		if name != "" {
			attrs[name] = html.UnescapeString(val)
		}
		if j == i && val == "" && name == "" {
			i++
		}
	}
	return attrs
}

// conv converts a parsed tree; plain drops inline marks (emphasis, code,
// link targets, images) for text that must read as plain words.
type conv struct{ plain bool }

// htmlToMarkdown converts HTML to markdown text, trimmed.
func htmlToMarkdown(s string) string {
	return tidy(conv{}.blocksOf(parseHTML(s), 0))
}

// htmlInline converts HTML to one line of plain text (for titles,
// attributes and table cells): the text of htmlToMarkdown without heading,
// emphasis or link marks, its lines joined by spaces.
func htmlInline(s string) string {
	if !looksLikeHTML(s) {
		return s
	}
	lines := strings.Split(tidy(conv{plain: true}.blocksOf(parseHTML(s), 0)), "\n")
	for i, l := range lines {
		// A heading in a title reads as the title.
		if h := strings.TrimLeft(l, "#"); len(h) < len(l) && len(l)-len(h) <= 6 && strings.HasPrefix(h, " ") {
			lines[i] = h
		}
	}
	return strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
}

// htmlText is the text of a property Lowdefy draws as HTML: markdown when
// it holds markup, else the string as it is.
func htmlText(s string) string {
	if !looksLikeHTML(s) {
		return s
	}
	return htmlToMarkdown(s)
}

// tidy trims trailing spaces of lines and collapses runs of blank lines.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	blank := true
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if strings.TrimSpace(l) == "" {
			if !blank {
				out = append(out, "")
			}
			blank = true
			continue
		}
		out = append(out, l)
		blank = false
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

var blockTags = map[string]bool{
	"p": true, "div": true, "section": true, "article": true, "header": true, "footer": true, "main": true,
	"nav": true, "aside": true, "figure": true, "figcaption": true, "address": true, "details": true,
	"summary": true, "form": true, "fieldset": true, "center": true, "dl": true, "dt": true, "dd": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "ul": true, "ol": true,
	"li": true, "blockquote": true, "pre": true, "table": true, "hr": true, "legend": true, "caption": true,
	"thead": true, "tbody": true, "tfoot": true, "tr": true,
}

// blocksOf renders the children of n as markdown blocks.
func (cv conv) blocksOf(n *hnode, depth int) string {
	var b strings.Builder
	var inline []*hnode
	flush := func() {
		if len(inline) == 0 {
			return
		}
		t := strings.TrimSpace(cv.inlineOf(inline))
		if t != "" {
			b.WriteString("\n\n" + t + "\n\n")
		}
		inline = nil
	}
	for _, c := range n.children {
		if c.tag == "" || !blockTags[c.tag] {
			inline = append(inline, c)
			continue
		}
		flush()
		b.WriteString("\n\n" + cv.blockOf(c, depth) + "\n\n")
	}
	flush()
	return b.String()
}

// blockOf renders one block element.
func (cv conv) blockOf(n *hnode, depth int) string {
	switch n.tag {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		level, _ := strconv.Atoi(n.tag[1:])
		t := strings.Join(strings.Fields(cv.inlineOf(n.children)), " ")
		if t == "" {
			return ""
		}
		return strings.Repeat("#", level) + " " + t
	case "hr":
		return "---"
	case "ul", "ol":
		return cv.listOf(n, depth)
	case "li":
		return cv.listOf(&hnode{tag: "ul", children: []*hnode{n}}, depth)
	case "blockquote":
		inner := tidy(cv.blocksOf(n, depth))
		if inner == "" {
			return ""
		}
		return "> " + strings.ReplaceAll(inner, "\n", "\n> ")
	case "pre":
		code := textOf(n)
		code = strings.TrimPrefix(code, "\n")
		code = strings.TrimRight(code, "\n")
		f := fenceFor(code)
		return f + "\n" + code + "\n" + f
	case "table":
		return cv.tableOf(n)
	}
	return tidy(cv.blocksOf(n, depth))
}

// listOf renders a list with "- " or "1. " items, nested lists indented.
func (cv conv) listOf(n *hnode, depth int) string {
	var lines []string
	i := 1
	if s, ok := n.attrs["start"]; ok {
		if v, err := strconv.Atoi(s); err == nil {
			i = v
		}
	}
	indent := strings.Repeat("  ", depth)
	for _, c := range n.children {
		if c.tag != "li" {
			if c.tag == "ul" || c.tag == "ol" {
				lines = append(lines, cv.listOf(c, depth+1))
			} else if t := strings.TrimSpace(cv.inlineOf([]*hnode{c})); t != "" && c.tag != "" {
				lines = append(lines, indent+"- "+t)
			}
			continue
		}
		marker := "- "
		if n.tag == "ol" {
			marker = strconv.Itoa(i) + ". "
			i++
		}
		var own []*hnode
		var nested []string
		for _, cc := range c.children {
			if cc.tag == "ul" || cc.tag == "ol" {
				nested = append(nested, cv.listOf(cc, depth+1))
				continue
			}
			own = append(own, cc)
		}
		text := tidy(cv.blocksOf(&hnode{tag: "li", children: own}, depth+1))
		text = strings.ReplaceAll(text, "\n\n", "\n")
		text = strings.ReplaceAll(text, "\n", "\n"+indent+strings.Repeat(" ", len(marker)))
		lines = append(lines, indent+marker+text)
		lines = append(lines, nested...)
	}
	return strings.Join(lines, "\n")
}

// tableOf renders a table as a markdown table; its first row is the header.
func (cv conv) tableOf(n *hnode) string {
	var rows [][]string
	var walk func(n *hnode)
	walk = func(n *hnode) {
		for _, c := range n.children {
			switch c.tag {
			case "tr":
				var row []string
				for _, cell := range c.children {
					if cell.tag == "td" || cell.tag == "th" {
						t := strings.Join(strings.Fields(tidy(cv.blocksOf(cell, 0))), " ")
						row = append(row, strings.ReplaceAll(t, "|", `\|`))
					}
				}
				rows = append(rows, row)
			case "thead", "tbody", "tfoot":
				walk(c)
			}
		}
	}
	walk(n)
	if len(rows) == 0 {
		return ""
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	var b strings.Builder
	for i, r := range rows {
		for len(r) < width {
			r = append(r, "")
		}
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
		if i == 0 {
			b.WriteString(strings.Repeat("|---", width) + "|\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// textOf is the raw text below n (for pre).
func textOf(n *hnode) string {
	if n.tag == "" {
		return n.text
	}
	if n.tag == "br" {
		return "\n"
	}
	if hiddenTags[n.tag] {
		return ""
	}
	var b strings.Builder
	for _, c := range n.children {
		b.WriteString(textOf(c))
	}
	return b.String()
}

// inlineOf renders inline content: whitespace collapsed, emphasis, code,
// links and images as markdown, <br> as a line break.
func (cv conv) inlineOf(ns []*hnode) string {
	var b strings.Builder
	for _, n := range ns {
		b.WriteString(cv.inlineNode(n))
	}
	// Collapse whitespace within lines; keep the breaks of <br>.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(strings.ReplaceAll(l, "\u00a0", " ")), " ")
	}
	return strings.Join(lines, "\n")
}

// inlineNode renders one inline node; whitespace in text becomes spaces
// (a line break is only written for <br>).
func (cv conv) inlineNode(n *hnode) string {
	if n.tag == "" {
		return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(n.text)
	}
	if hiddenTags[n.tag] {
		return ""
	}
	inner := func() string {
		var b strings.Builder
		for _, c := range n.children {
			b.WriteString(cv.inlineNode(c))
		}
		return b.String()
	}
	wrap := func(mark string) string {
		t := inner()
		if cv.plain {
			return t
		}
		core := strings.TrimSpace(t)
		if core == "" {
			return t
		}
		lead := t[:strings.Index(t, core)]
		trail := t[strings.Index(t, core)+len(core):]
		return lead + mark + core + mark + trail
	}
	switch n.tag {
	case "br":
		return "\n"
	case "strong", "b":
		return wrap("**")
	case "em", "i", "cite", "dfn", "var":
		return wrap("*")
	case "del", "s", "strike":
		return wrap("~~")
	case "code", "kbd", "samp", "tt":
		t := strings.TrimSpace(inner())
		if t == "" || cv.plain {
			return t
		}
		f := "`"
		if strings.Contains(t, "`") {
			f = "``"
		}
		return f + t + f
	case "a":
		t := strings.TrimSpace(inner())
		href := strings.TrimSpace(n.attrs["href"])
		if !safeURL(href) || href == "" || href == t || cv.plain && t != "" {
			return t
		}
		if t == "" {
			t = href
		}
		return "[" + t + "](" + href + ")"
	case "img":
		alt := strings.TrimSpace(n.attrs["alt"])
		src := strings.TrimSpace(n.attrs["src"])
		if !safeURL(src) || src == "" || strings.HasPrefix(src, "data:") || cv.plain {
			return alt
		}
		return "![" + alt + "](" + src + ")"
	case "input":
		switch strings.ToLower(n.attrs["type"]) {
		case "checkbox", "radio":
			if _, ok := n.attrs["checked"]; ok {
				return "[x] "
			}
			return "[ ] "
		}
		return n.attrs["value"]
	case "td", "th":
		return " " + inner() + " "
	}
	if blockTags[n.tag] {
		return "\n" + inner() + "\n"
	}
	return inner()
}

// safeURL accepts http(s), mailto and tel URLs and relative links; other
// schemes (javascript:, data:, vbscript:) are dropped, as DOMPurify does.
func safeURL(u string) bool {
	lower := strings.ToLower(u)
	colon := strings.IndexByte(lower, ':')
	if colon < 0 {
		return true
	}
	if slash := strings.IndexAny(lower, "/?#"); slash >= 0 && slash < colon {
		return true
	}
	switch lower[:colon] {
	case "http", "https", "mailto", "tel":
		return true
	}
	return false
}
