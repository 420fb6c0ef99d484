package app

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// builder applies the steps of Lowdefy's build that shape the config (validateApp,
// validateConfig, addDefaultPages, buildAuth, buildConnections, buildPages, buildMenu,
// buildTypes' existence checks and the global default) to the resolved, schema-checked
// components. Problems are collected on the loader.
type builder struct {
	l       *loader
	ix      posIndex
	c       *jsvalue.Object
	typeUse map[string]map[string]position // type class → type name → first use
}

func (b *builder) fail(m *jsvalue.Object, path, format string, args ...any) {
	b.l.problems = append(b.l.problems, problemAt(b.ix.of(m), path, format, args...))
}

func (b *builder) warn(m *jsvalue.Object, path, format string, args ...any) {
	b.l.warnings = append(b.l.warnings, problemAt(b.ix.of(m), path, format, args...))
}

func (b *builder) useType(class, name string, at *jsvalue.Object) {
	if b.typeUse[class] == nil {
		b.typeUse[class] = map[string]position{}
	}
	if _, ok := b.typeUse[class][name]; !ok {
		b.typeUse[class][name] = b.ix.of(at)
	}
}

func (b *builder) run() {
	b.typeUse = map[string]map[string]position{}
	b.appDefaults()
	b.configDefaults()
	if !b.addDefaultPages() {
		return
	}
	if !b.buildAuth() {
		return
	}
	b.checkUserFields()
	b.buildConnections()
	b.buildPages()
	b.buildMenus()
	b.checkTypes()
	b.checkTimeZone()
	if get(b.c, "global") == nil {
		b.c.Set("global", &jsvalue.Object{})
	}
}

// get reads m[key] like a Go map read: nil when the key is absent (or m is nil).
func get(m *jsvalue.Object, key string) any {
	v, _ := m.Get(key)
	return v
}

func asMap(v any) *jsvalue.Object {
	m, _ := v.(*jsvalue.Object)
	return m
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func isNone(m *jsvalue.Object, key string) bool {
	return get(m, key) == nil
}

func (b *builder) appDefaults() {
	if isNone(b.c, "app") {
		b.c.Set("app", &jsvalue.Object{})
	}
	app := asMap(get(b.c, "app"))
	if app == nil {
		b.fail(b.c, "app", "app must be an object")
		return
	}
	if isNone(app, "html") {
		app.Set("html", &jsvalue.Object{})
	}
	html := asMap(get(app, "html"))
	if html == nil {
		b.fail(app, "app.html", "app.html must be an object")
		return
	}
	for _, k := range []string{"appendBody", "appendHead"} {
		if isNone(html, k) {
			html.Set(k, "")
		}
	}
}

func (b *builder) configDefaults() {
	if isNone(b.c, "config") {
		b.c.Set("config", &jsvalue.Object{})
	}
	cfg := asMap(get(b.c, "config"))
	if cfg == nil {
		b.fail(b.c, "config", "config must be an object")
		return
	}
	if bp, ok := get(cfg, "basePath").(string); ok && !strings.HasPrefix(bp, "/") {
		b.fail(cfg, "config.basePath", "base path must start with \"/\"; got %q", bp)
	}
}

// page404 is the page Lowdefy adds when an app defines no page with id "404".
func page404() *jsvalue.Object {
	return jsvalue.ObjectOf(
		"id", "404",
		"type", "Result",
		"style", jsvalue.ObjectOf("minHeight", "100vh"),
		"properties", jsvalue.ObjectOf(
			"status", "info",
			"title", "404",
			"subTitle", "Sorry, the page you are visiting does not exist.",
		),
		"areas", jsvalue.ObjectOf(
			"extra", jsvalue.ObjectOf(
				"blocks", []any{jsvalue.ObjectOf(
					"id", "home",
					"type", "Button",
					"properties", jsvalue.ObjectOf("title", "Go to home page", "type", "Link"),
					"events", jsvalue.ObjectOf(
						"onClick", []any{jsvalue.ObjectOf("id", "home", "type", "Link", "params", jsvalue.ObjectOf("home", true))},
					),
				)},
			),
		),
	)
}

func (b *builder) addDefaultPages() bool {
	if isNone(b.c, "pages") {
		b.c.Set("pages", []any{})
	}
	pages, ok := get(b.c, "pages").([]any)
	if !ok {
		b.fail(b.c, "pages", "pages must be an array")
		return false
	}
	has404 := false
	for i, p := range pages {
		pm := asMap(p)
		if pm == nil {
			b.fail(b.c, indexPath("pages", i), "page must be an object")
			return false
		}
		if get(pm, "id") == "404" {
			has404 = true
		}
	}
	if !has404 {
		b.c.Set("pages", append(pages, page404()))
	}
	return true
}

func (b *builder) buildAuth() bool {
	configured := get(b.c, "auth") != nil
	if !configured {
		b.c.Set("auth", &jsvalue.Object{})
	}
	auth := asMap(get(b.c, "auth"))
	if auth == nil {
		b.fail(b.c, "auth", "auth must be an object")
		return false
	}
	// Defaults in the order Lowdefy's build adds them (objects and lists).
	for _, k := range []string{"authPages", "pages", "callbacks", "events", "providers", "session", "theme"} {
		if !isNone(auth, k) {
			continue
		}
		switch k {
		case "callbacks", "events", "providers":
			auth.Set(k, []any{})
		default:
			auth.Set(k, &jsvalue.Object{})
		}
	}
	ap := asMap(get(auth, "pages"))
	if ap == nil {
		b.fail(auth, "auth.pages", "auth.pages must be an object")
		return false
	}
	if isNone(ap, "roles") {
		ap.Set("roles", &jsvalue.Object{})
	}
	prot, pub := get(ap, "protected"), get(ap, "public")
	_, protList := prot.([]any)
	_, pubList := pub.([]any)
	if (prot == true && pub == true) || (protList && pubList) {
		b.fail(ap, "auth.pages", "protected and public pages are mutually exclusive: when protected pages are listed, all other pages are public, and the other way round")
		return false
	}
	if prot == false {
		b.fail(ap, "auth.pages.protected", "protected pages can not be set to false")
		return false
	}
	if pub == false {
		b.fail(ap, "auth.pages.public", "public pages can not be set to false")
		return false
	}
	auth.Set("configured", configured)

	pages := asList(get(b.c, "pages"))
	var ids []string
	for _, p := range pages {
		ids = append(ids, str(get(asMap(p), "id")))
	}
	publicList := stringList(pub)
	var protected []string
	switch {
	case pubList:
		for _, id := range ids {
			if !slices.Contains(publicList, id) {
				protected = append(protected, id)
			}
		}
	case prot == true:
		protected = ids
	case protList:
		protected = stringList(prot)
	}
	pageRoles := map[string][]string{}
	roles := asMap(get(ap, "roles"))
	for role, pages := range roles.Range {
		for _, pid := range stringList(pages) {
			if !slices.Contains(pageRoles[pid], role) {
				pageRoles[pid] = append(pageRoles[pid], role)
			}
		}
	}
	for i, p := range pages {
		pm := asMap(p)
		id := str(get(pm, "id"))
		switch {
		case len(pageRoles[id]) > 0:
			if slices.Contains(publicList, id) {
				b.fail(pm, indexPath("pages", i), "page %q is both protected by roles %s and public", id, jsonText(anyList(pageRoles[id])))
				return false
			}
			pm.Set("auth", jsvalue.ObjectOf("public", false, "roles", anyList(pageRoles[id])))
		case slices.Contains(protected, id):
			pm.Set("auth", jsvalue.ObjectOf("public", false))
		default:
			pm.Set("auth", jsvalue.ObjectOf("public", true))
		}
	}
	for _, class := range []string{"callbacks", "events", "providers"} {
		for i, it := range asList(get(auth, class)) {
			m := asMap(it)
			if t, ok := get(m, "type").(string); ok {
				b.useType("auth"+strings.ToUpper(class[:1])+class[1:], t, m)
			} else {
				b.fail(m, indexPath("auth."+class, i), "auth %s type must be a string", strings.TrimSuffix(class, "s"))
			}
		}
	}
	if ad := asMap(get(auth, "adapter")); ad != nil {
		if t, ok := get(ad, "type").(string); ok {
			b.useType("authAdapters", t, ad)
		}
	}
	return true
}

func stringList(v any) []string {
	var out []string
	for _, x := range asList(v) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func anyList(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

func copyMap(m *jsvalue.Object) *jsvalue.Object {
	if m == nil {
		return nil
	}
	out := jsvalue.NewObject(m.Len())
	for k, v := range m.Range {
		switch x := v.(type) {
		case *jsvalue.Object:
			out.Set(k, copyMap(x))
		case []any:
			l := make([]any, len(x))
			copy(l, x)
			out.Set(k, l)
		default:
			out.Set(k, v)
		}
	}
	return out
}

func (b *builder) buildConnections() {
	seen := map[string]bool{}
	for i, c := range asList(get(b.c, "connections")) {
		m := asMap(c)
		path := indexPath("connections", i)
		id, ok := get(m, "id").(string)
		if !ok {
			b.fail(m, path, "connection id must be a string")
			continue
		}
		if seen[id] {
			b.fail(m, path, "duplicate connectionId %q", id)
			continue
		}
		seen[id] = true
		t, ok := get(m, "type").(string)
		if !ok {
			b.fail(m, path, "connection type must be a string at connection %q", id)
			continue
		}
		b.useType("connections", t, m)
		m.Set("connectionId", id)
		m.Set("id", "connection:"+id)
	}
}

// pageContext is what buildBlock carries down a page.
type pageContext struct {
	pageID     string
	auth       *jsvalue.Object
	blockCount map[string]int
	blockFirst map[string]*jsvalue.Object
	requestIDs map[string]bool
	requests   []any
}

func (b *builder) buildPages() {
	seen := map[string]bool{}
	for i, p := range asList(get(b.c, "pages")) {
		pm := asMap(p)
		path := indexPath("pages", i)
		id, ok := get(pm, "id").(string)
		if !ok {
			b.fail(pm, path, "page id must be a string")
			continue
		}
		if seen[id] {
			b.fail(pm, path, "duplicate pageId %q", id)
			continue
		}
		seen[id] = true
		pm.Set("pageId", id)
		pc := &pageContext{pageID: id, auth: asMap(get(pm, "auth")), blockCount: map[string]int{}, blockFirst: map[string]*jsvalue.Object{}, requestIDs: map[string]bool{}, requests: []any{}}
		b.buildBlock(pm, pc, path)
		pm.Set("id", "page:"+id)
		pm.Set("requests", pc.requests)
		pm.Set("operators", []any{})
	}
}

func (b *builder) buildBlock(block *jsvalue.Object, pc *pageContext, path string) {
	if block == nil {
		b.l.problems = append(b.l.problems, Problem{Path: path, Message: fmt.Sprintf("block must be an object on page %q", pc.pageID)})
		return
	}
	id, ok := get(block, "id").(string)
	if !ok {
		b.fail(block, path, "block id must be a string on page %q", pc.pageID)
		return
	}
	t, ok := get(block, "type").(string)
	if !ok {
		b.fail(block, path, "block type must be a string at %q on page %q", id, pc.pageID)
		return
	}
	b.useType("blocks", t, block)
	block.Set("blockId", id)
	block.Set("id", fmt.Sprintf("block:%s:%s:%d", pc.pageID, id, pc.blockCount[id]))
	if first := pc.blockFirst[id]; first == nil {
		pc.blockFirst[id] = block
	} else if pc.blockCount[id] == 1 {
		// Lowdefy numbers the copies and goes on; say it, as it is rarely meant.
		b.warn(block, path, "block id %q is used more than once on page %q (first at %s): the blocks share the state value %s, and Lowdefy's own lookups by id (CallMethod, Validate, an agent's setValue) reach only the last one; mcpbridge shows each with a path-qualified id (PARENT/%s) that addresses it", id, pc.pageID, b.ix.of(first), id, id)
	}
	pc.blockCount[id]++

	b.buildEvents(block, pc, path)
	if reqs, ok := block.Get("requests"); ok {
		for i, r := range asList(reqs) {
			b.buildRequest(asMap(r), pc, indexPath(joinPath(path, "requests"), i))
		}
		block.Delete("requests")
	}
	areaPaths := map[string]string{}
	if blocks, ok := block.Get("blocks"); ok && blocks != nil {
		areas := asMap(get(block, "areas"))
		if areas == nil {
			areas = &jsvalue.Object{}
			block.Set("areas", areas)
		}
		content := asMap(get(areas, "content"))
		if content == nil {
			content = &jsvalue.Object{}
			areas.Set("content", content)
		}
		content.Set("blocks", blocks)
		block.Delete("blocks")
		areaPaths["content"] = joinPath(path, "blocks")
	} else if ok {
		block.Delete("blocks")
	}
	if sk := asMap(get(block, "skeleton")); sk != nil {
		moveSkeletonBlocks(sk)
	}
	areas := asMap(get(block, "areas"))
	for key, av := range areas.Range {
		area := asMap(av)
		if area == nil {
			continue
		}
		if isNone(area, "blocks") {
			area.Set("blocks", []any{})
		}
		list, ok := get(area, "blocks").([]any)
		if !ok {
			b.fail(area, joinPath(joinPath(path, "areas"), key), "blocks must be an array at %q in area %q on page %q", id, key, pc.pageID)
			continue
		}
		ap, ok := areaPaths[key]
		if !ok {
			ap = joinPath(joinPath(joinPath(path, "areas"), key), "blocks")
		}
		for i, child := range list {
			b.buildBlock(asMap(child), pc, indexPath(ap, i))
		}
	}
}

// moveSkeletonBlocks moves `blocks` to `areas.content.blocks` through a skeleton tree.
func moveSkeletonBlocks(block *jsvalue.Object) {
	if blocks, ok := block.Get("blocks"); ok && blocks != nil {
		areas := asMap(get(block, "areas"))
		if areas == nil {
			areas = &jsvalue.Object{}
			block.Set("areas", areas)
		}
		content := asMap(get(areas, "content"))
		if content == nil {
			content = &jsvalue.Object{}
			areas.Set("content", content)
		}
		content.Set("blocks", blocks)
		block.Delete("blocks")
	}
	for _, a := range asMap(get(block, "areas")).Range {
		for _, child := range asList(get(asMap(a), "blocks")) {
			if cm := asMap(child); cm != nil {
				moveSkeletonBlocks(cm)
			}
		}
	}
}

func (b *builder) buildEvents(block *jsvalue.Object, pc *pageContext, path string) {
	events := asMap(get(block, "events"))
	blockID := str(get(block, "blockId"))
	for key, evv := range events.Range {
		ep := joinPath(joinPath(path, "events"), key)
		var ev *jsvalue.Object
		switch x := evv.(type) {
		case []any:
			ev = jsvalue.ObjectOf("try", x, "catch", []any{})
			events.Set(key, ev)
		case *jsvalue.Object:
			ev = x
			if isNone(ev, "try") {
				b.fail(ev, ep, "actions must be an array at %q in event %q on page %q", blockID, key, pc.pageID)
				continue
			}
			if isNone(ev, "catch") {
				ev.Set("catch", []any{})
			}
		default:
			b.fail(block, ep, "actions must be an array at %q in event %q on page %q", blockID, key, pc.pageID)
			continue
		}
		seen := map[string]bool{}
		for _, part := range []string{"try", "catch"} {
			list, ok := get(ev, part).([]any)
			if !ok {
				b.fail(ev, joinPath(ep, part), "%s actions must be an array at %q in event %q on page %q", part, blockID, key, pc.pageID)
				continue
			}
			for i, a := range list {
				am := asMap(a)
				ap := indexPath(joinPath(ep, part), i)
				id, ok := get(am, "id").(string)
				if !ok {
					b.fail(am, ap, "action id must be a string on event %q on block %q on page %q", key, blockID, pc.pageID)
					continue
				}
				if seen[id] {
					b.fail(am, ap, "duplicate actionId %q on event %q on block %q on page %q", id, key, blockID, pc.pageID)
					continue
				}
				seen[id] = true
				t, ok := get(am, "type").(string)
				if !ok {
					b.fail(am, ap, "action type must be a string on action %q on event %q on block %q on page %q", id, key, blockID, pc.pageID)
					continue
				}
				b.useType("actions", t, am)
			}
		}
	}
}

func (b *builder) buildRequest(req *jsvalue.Object, pc *pageContext, path string) {
	if req == nil {
		b.l.problems = append(b.l.problems, Problem{Path: path, Message: fmt.Sprintf("request must be an object on page %q", pc.pageID)})
		return
	}
	id, ok := get(req, "id").(string)
	if !ok {
		b.fail(req, path, "request id must be a string on page %q", pc.pageID)
		return
	}
	if pc.requestIDs[id] {
		b.fail(req, path, "duplicate requestId %q on page %q", id, pc.pageID)
		return
	}
	pc.requestIDs[id] = true
	if strings.Contains(id, ".") {
		b.fail(req, path, "request id %q on page %q must not include a period (\".\")", id, pc.pageID)
		return
	}
	t, ok := get(req, "type").(string)
	if !ok {
		b.fail(req, path, "request type must be a string at request %q on page %q", id, pc.pageID)
		return
	}
	b.useType("requests", t, req)
	if !req.Has("payload") {
		req.Set("payload", &jsvalue.Object{})
	}
	if asMap(get(req, "payload")) == nil {
		b.fail(req, joinPath(path, "payload"), "request %q on page %q: payload must be an object", id, pc.pageID)
		return
	}
	req.Set("auth", copyMap(pc.auth))
	req.Set("requestId", id)
	req.Set("pageId", pc.pageID)
	req.Set("id", "request:"+pc.pageID+":"+id)
	pc.requests = append(pc.requests, req)
}

func (b *builder) buildMenus() {
	pages := asList(get(b.c, "pages"))
	menus, _ := get(b.c, "menus").([]any)
	if len(menus) == 0 {
		b.l.warnings = append(b.l.warnings, Problem{File: b.l.rootFile, Message: "no menus found; building the default menu"})
		var links []any
		for i, p := range pages {
			pm := asMap(p)
			if str(get(pm, "pageId")) == "404" {
				continue
			}
			links = append(links, jsvalue.ObjectOf(
				"id", fmt.Sprint(i), "type", "MenuLink", "pageId", get(pm, "pageId"), "auth", copyMap(asMap(get(pm, "auth"))),
			))
		}
		if links == nil {
			links = []any{}
		}
		menus = []any{jsvalue.ObjectOf("id", "default", "links", links)}
		b.c.Set("menus", menus)
	}
	pageAuth := map[string]*jsvalue.Object{}
	for _, p := range pages {
		pm := asMap(p)
		if id, ok := get(pm, "pageId").(string); ok {
			pageAuth[id] = asMap(get(pm, "auth"))
		}
	}
	seen := map[string]bool{}
	for i, m := range menus {
		mm := asMap(m)
		path := indexPath("menus", i)
		id, ok := get(mm, "id").(string)
		if !ok {
			b.fail(mm, path, "menu id must be a string")
			continue
		}
		if seen[id] {
			b.fail(mm, path, "duplicate menuId %q", id)
			continue
		}
		seen[id] = true
		mm.Set("menuId", id)
		mm.Set("id", "menu:"+id)
		b.menuItems(mm, id, pageAuth, map[string]bool{}, path)
	}
}

func (b *builder) menuItems(parent *jsvalue.Object, menuID string, pageAuth map[string]*jsvalue.Object, seen map[string]bool, path string) {
	links, ok := get(parent, "links").([]any)
	if !ok {
		return
	}
	kept := make([]any, 0, len(links))
	for i, l := range links {
		item := asMap(l)
		if item == nil {
			continue
		}
		ip := indexPath(joinPath(path, "links"), i)
		switch get(item, "type") {
		case "MenuLink":
			if pid, ok := get(item, "pageId").(string); ok {
				auth, found := pageAuth[pid]
				if !found {
					b.warn(item, ip, "page %q referenced in menu link %q not found; the link is left out", pid, str(get(item, "id")))
					continue
				}
				item.Set("auth", copyMap(auth))
			} else {
				item.Set("auth", jsvalue.ObjectOf("public", true))
			}
		case "MenuGroup":
			item.Set("auth", jsvalue.ObjectOf("public", true))
		}
		id := fmt.Sprint(get(item, "id"))
		if s, ok := get(item, "id").(string); ok {
			id = s
		}
		if seen[id] {
			b.fail(item, ip, "duplicate menuItemId %q on menu %q", id, menuID)
			continue
		}
		seen[id] = true
		item.Set("menuItemId", get(item, "id"))
		item.Set("id", "menuitem:"+menuID+":"+id)
		b.menuItems(item, menuID, pageAuth, seen, ip)
		kept = append(kept, item)
	}
	parent.Set("links", kept)
}

// typeClassNames names type classes in messages as Lowdefy does. The table is built on
// first use.
var typeClassNames = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"actions": "Action", "blocks": "Block", "connections": "Connection", "requests": "Request",
		"authAdapters": "Auth adapter", "authCallbacks": "Auth callback", "authEvents": "Auth event",
		"authProviders": "Auth provider",
	}
}}

// checkTypes reports types that no default plugin provides. With custom plugins the
// types they add are unknown here, so these become warnings.
func (b *builder) checkTypes() {
	custom := len(asList(get(b.c, "plugins"))) > 0
	for _, class := range slices.Sorted(maps.Keys(b.typeUse)) {
		known := defaultTypes.Get()[class]
		for _, name := range slices.Sorted(maps.Keys(b.typeUse[class])) {
			if slices.Contains(known, name) {
				continue
			}
			p := b.typeUse[class][name]
			msg := fmt.Sprintf("%s type %q was used but is not defined", typeClassNames.Get()[class], name)
			if custom {
				b.l.warnings = append(b.l.warnings, problemAt(p, "", "%s (it may come from a plugin)", msg))
			} else {
				b.l.problems = append(b.l.problems, problemAt(p, "", "%s", msg))
			}
		}
	}
}
