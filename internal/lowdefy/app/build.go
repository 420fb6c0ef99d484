package app

import (
	"fmt"
	"strings"
)

// builder applies the steps of Lowdefy's build that shape the config (validateApp,
// validateConfig, addDefaultPages, buildAuth, buildConnections, buildPages, buildMenu,
// buildTypes' existence checks and the global default) to the resolved, schema-checked
// components. Problems are collected on the loader.
type builder struct {
	l       *loader
	ix      posIndex
	c       map[string]any
	typeUse map[string]map[string]position // type class → type name → first use
}

func (b *builder) fail(m map[string]any, path, format string, args ...any) {
	b.l.problems = append(b.l.problems, problemAt(b.ix.of(m), path, format, args...))
}

func (b *builder) warn(m map[string]any, path, format string, args ...any) {
	b.l.warnings = append(b.l.warnings, problemAt(b.ix.of(m), path, format, args...))
}

func (b *builder) useType(class, name string, at map[string]any) {
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
	b.buildConnections()
	b.buildPages()
	b.buildMenus()
	b.checkTypes()
	if _, ok := b.c["global"]; !ok || b.c["global"] == nil {
		b.c["global"] = map[string]any{}
	}
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
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

func isNone(m map[string]any, key string) bool {
	v, ok := m[key]
	return !ok || v == nil
}

func (b *builder) appDefaults() {
	if isNone(b.c, "app") {
		b.c["app"] = map[string]any{}
	}
	app := asMap(b.c["app"])
	if app == nil {
		b.fail(b.c, "app", "app must be an object")
		return
	}
	if isNone(app, "html") {
		app["html"] = map[string]any{}
	}
	html := asMap(app["html"])
	if html == nil {
		b.fail(app, "app.html", "app.html must be an object")
		return
	}
	for _, k := range []string{"appendBody", "appendHead"} {
		if isNone(html, k) {
			html[k] = ""
		}
	}
}

func (b *builder) configDefaults() {
	if isNone(b.c, "config") {
		b.c["config"] = map[string]any{}
	}
	cfg := asMap(b.c["config"])
	if cfg == nil {
		b.fail(b.c, "config", "config must be an object")
		return
	}
	if bp, ok := cfg["basePath"].(string); ok && !strings.HasPrefix(bp, "/") {
		b.fail(cfg, "config.basePath", "base path must start with \"/\"; got %q", bp)
	}
}

// page404 is the page Lowdefy adds when an app defines no page with id "404".
func page404() map[string]any {
	return map[string]any{
		"id":    "404",
		"type":  "Result",
		"style": map[string]any{"minHeight": "100vh"},
		"properties": map[string]any{
			"status":   "info",
			"title":    "404",
			"subTitle": "Sorry, the page you are visiting does not exist.",
		},
		"areas": map[string]any{
			"extra": map[string]any{
				"blocks": []any{map[string]any{
					"id":         "home",
					"type":       "Button",
					"properties": map[string]any{"title": "Go to home page", "type": "Link"},
					"events": map[string]any{
						"onClick": []any{map[string]any{"id": "home", "type": "Link", "params": map[string]any{"home": true}}},
					},
				}},
			},
		},
	}
}

func (b *builder) addDefaultPages() bool {
	if isNone(b.c, "pages") {
		b.c["pages"] = []any{}
	}
	pages, ok := b.c["pages"].([]any)
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
		if pm["id"] == "404" {
			has404 = true
		}
	}
	if !has404 {
		b.c["pages"] = append(pages, page404())
	}
	return true
}

func (b *builder) buildAuth() bool {
	_, configured := b.c["auth"]
	configured = configured && b.c["auth"] != nil
	if !configured {
		b.c["auth"] = map[string]any{}
	}
	auth := asMap(b.c["auth"])
	if auth == nil {
		b.fail(b.c, "auth", "auth must be an object")
		return false
	}
	for _, k := range []string{"authPages", "pages", "session", "theme"} {
		if isNone(auth, k) {
			auth[k] = map[string]any{}
		}
	}
	for _, k := range []string{"callbacks", "events", "providers"} {
		if isNone(auth, k) {
			auth[k] = []any{}
		}
	}
	ap := asMap(auth["pages"])
	if ap == nil {
		b.fail(auth, "auth.pages", "auth.pages must be an object")
		return false
	}
	if isNone(ap, "roles") {
		ap["roles"] = map[string]any{}
	}
	prot, pub := ap["protected"], ap["public"]
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
	auth["configured"] = configured

	pages := asList(b.c["pages"])
	var ids []string
	for _, p := range pages {
		ids = append(ids, str(asMap(p)["id"]))
	}
	publicList := stringList(pub)
	var protected []string
	switch {
	case pubList:
		for _, id := range ids {
			if !contains(publicList, id) {
				protected = append(protected, id)
			}
		}
	case prot == true:
		protected = ids
	case protList:
		protected = stringList(prot)
	}
	pageRoles := map[string][]string{}
	roles := asMap(ap["roles"])
	for _, role := range b.ix.keys(roles) {
		for _, pid := range stringList(roles[role]) {
			if !contains(pageRoles[pid], role) {
				pageRoles[pid] = append(pageRoles[pid], role)
			}
		}
	}
	for i, p := range pages {
		pm := asMap(p)
		id := str(pm["id"])
		switch {
		case len(pageRoles[id]) > 0:
			if contains(publicList, id) {
				b.fail(pm, indexPath("pages", i), "page %q is both protected by roles %s and public", id, jsonText(anyList(pageRoles[id])))
				return false
			}
			pm["auth"] = map[string]any{"public": false, "roles": anyList(pageRoles[id])}
		case contains(protected, id):
			pm["auth"] = map[string]any{"public": false}
		default:
			pm["auth"] = map[string]any{"public": true}
		}
	}
	for _, class := range []string{"callbacks", "events", "providers"} {
		for i, it := range asList(auth[class]) {
			m := asMap(it)
			if t, ok := m["type"].(string); ok {
				b.useType("auth"+strings.ToUpper(class[:1])+class[1:], t, m)
			} else {
				b.fail(m, indexPath("auth."+class, i), "auth %s type must be a string", strings.TrimSuffix(class, "s"))
			}
		}
	}
	if ad := asMap(auth["adapter"]); ad != nil {
		if t, ok := ad["type"].(string); ok {
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func copyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch x := v.(type) {
		case map[string]any:
			out[k] = copyMap(x)
		case []any:
			l := make([]any, len(x))
			copy(l, x)
			out[k] = l
		default:
			out[k] = v
		}
	}
	return out
}

func (b *builder) buildConnections() {
	seen := map[string]bool{}
	for i, c := range asList(b.c["connections"]) {
		m := asMap(c)
		path := indexPath("connections", i)
		id, ok := m["id"].(string)
		if !ok {
			b.fail(m, path, "connection id must be a string")
			continue
		}
		if seen[id] {
			b.fail(m, path, "duplicate connectionId %q", id)
			continue
		}
		seen[id] = true
		t, ok := m["type"].(string)
		if !ok {
			b.fail(m, path, "connection type must be a string at connection %q", id)
			continue
		}
		b.useType("connections", t, m)
		m["connectionId"] = id
		m["id"] = "connection:" + id
	}
}

// pageContext is what buildBlock carries down a page.
type pageContext struct {
	pageID     string
	auth       map[string]any
	blockCount map[string]int
	requestIDs map[string]bool
	requests   []any
}

func (b *builder) buildPages() {
	seen := map[string]bool{}
	for i, p := range asList(b.c["pages"]) {
		pm := asMap(p)
		path := indexPath("pages", i)
		id, ok := pm["id"].(string)
		if !ok {
			b.fail(pm, path, "page id must be a string")
			continue
		}
		if seen[id] {
			b.fail(pm, path, "duplicate pageId %q", id)
			continue
		}
		seen[id] = true
		pm["pageId"] = id
		pc := &pageContext{pageID: id, auth: asMap(pm["auth"]), blockCount: map[string]int{}, requestIDs: map[string]bool{}, requests: []any{}}
		b.buildBlock(pm, pc, path)
		pm["id"] = "page:" + id
		pm["requests"] = pc.requests
		pm["operators"] = []any{}
	}
}

func (b *builder) buildBlock(block map[string]any, pc *pageContext, path string) {
	if block == nil {
		b.l.problems = append(b.l.problems, Problem{Path: path, Message: fmt.Sprintf("block must be an object on page %q", pc.pageID)})
		return
	}
	id, ok := block["id"].(string)
	if !ok {
		b.fail(block, path, "block id must be a string on page %q", pc.pageID)
		return
	}
	t, ok := block["type"].(string)
	if !ok {
		b.fail(block, path, "block type must be a string at %q on page %q", id, pc.pageID)
		return
	}
	b.useType("blocks", t, block)
	block["blockId"] = id
	block["id"] = fmt.Sprintf("block:%s:%s:%d", pc.pageID, id, pc.blockCount[id])
	pc.blockCount[id]++

	b.buildEvents(block, pc, path)
	if reqs, ok := block["requests"]; ok {
		for i, r := range asList(reqs) {
			b.buildRequest(asMap(r), pc, indexPath(joinPath(path, "requests"), i))
		}
		delete(block, "requests")
	}
	areaPaths := map[string]string{}
	if blocks, ok := block["blocks"]; ok && blocks != nil {
		areas := asMap(block["areas"])
		if areas == nil {
			areas = map[string]any{}
			block["areas"] = areas
		}
		content := asMap(areas["content"])
		if content == nil {
			content = map[string]any{}
			areas["content"] = content
		}
		content["blocks"] = blocks
		delete(block, "blocks")
		areaPaths["content"] = joinPath(path, "blocks")
	} else if ok {
		delete(block, "blocks")
	}
	if sk := asMap(block["skeleton"]); sk != nil {
		moveSkeletonBlocks(sk)
	}
	areas := asMap(block["areas"])
	for _, key := range b.ix.keys(areas) {
		area := asMap(areas[key])
		if area == nil {
			continue
		}
		if isNone(area, "blocks") {
			area["blocks"] = []any{}
		}
		list, ok := area["blocks"].([]any)
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
func moveSkeletonBlocks(block map[string]any) {
	if blocks, ok := block["blocks"]; ok && blocks != nil {
		areas := asMap(block["areas"])
		if areas == nil {
			areas = map[string]any{}
			block["areas"] = areas
		}
		content := asMap(areas["content"])
		if content == nil {
			content = map[string]any{}
			areas["content"] = content
		}
		content["blocks"] = blocks
		delete(block, "blocks")
	}
	for _, a := range asMap(block["areas"]) {
		for _, child := range asList(asMap(a)["blocks"]) {
			if cm := asMap(child); cm != nil {
				moveSkeletonBlocks(cm)
			}
		}
	}
}

func (b *builder) buildEvents(block map[string]any, pc *pageContext, path string) {
	events := asMap(block["events"])
	blockID := str(block["blockId"])
	for _, key := range b.ix.keys(events) {
		ep := joinPath(joinPath(path, "events"), key)
		var ev map[string]any
		switch x := events[key].(type) {
		case []any:
			ev = map[string]any{"try": x, "catch": []any{}}
			events[key] = ev
		case map[string]any:
			ev = x
			if isNone(ev, "try") {
				b.fail(ev, ep, "actions must be an array at %q in event %q on page %q", blockID, key, pc.pageID)
				continue
			}
			if isNone(ev, "catch") {
				ev["catch"] = []any{}
			}
		default:
			b.fail(block, ep, "actions must be an array at %q in event %q on page %q", blockID, key, pc.pageID)
			continue
		}
		seen := map[string]bool{}
		for _, part := range []string{"try", "catch"} {
			list, ok := ev[part].([]any)
			if !ok {
				b.fail(ev, joinPath(ep, part), "%s actions must be an array at %q in event %q on page %q", part, blockID, key, pc.pageID)
				continue
			}
			for i, a := range list {
				am := asMap(a)
				ap := indexPath(joinPath(ep, part), i)
				id, ok := am["id"].(string)
				if !ok {
					b.fail(am, ap, "action id must be a string on event %q on block %q on page %q", key, blockID, pc.pageID)
					continue
				}
				if seen[id] {
					b.fail(am, ap, "duplicate actionId %q on event %q on block %q on page %q", id, key, blockID, pc.pageID)
					continue
				}
				seen[id] = true
				t, ok := am["type"].(string)
				if !ok {
					b.fail(am, ap, "action type must be a string on action %q on event %q on block %q on page %q", id, key, blockID, pc.pageID)
					continue
				}
				b.useType("actions", t, am)
			}
		}
	}
}

func (b *builder) buildRequest(req map[string]any, pc *pageContext, path string) {
	if req == nil {
		b.l.problems = append(b.l.problems, Problem{Path: path, Message: fmt.Sprintf("request must be an object on page %q", pc.pageID)})
		return
	}
	id, ok := req["id"].(string)
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
	t, ok := req["type"].(string)
	if !ok {
		b.fail(req, path, "request type must be a string at request %q on page %q", id, pc.pageID)
		return
	}
	b.useType("requests", t, req)
	if _, ok := req["payload"]; !ok {
		req["payload"] = map[string]any{}
	}
	if asMap(req["payload"]) == nil {
		b.fail(req, joinPath(path, "payload"), "request %q on page %q: payload must be an object", id, pc.pageID)
		return
	}
	req["auth"] = copyMap(pc.auth)
	req["requestId"] = id
	req["pageId"] = pc.pageID
	req["id"] = "request:" + pc.pageID + ":" + id
	pc.requests = append(pc.requests, req)
}

func (b *builder) buildMenus() {
	pages := asList(b.c["pages"])
	menus, _ := b.c["menus"].([]any)
	if len(menus) == 0 {
		b.l.warnings = append(b.l.warnings, Problem{File: b.l.rootFile, Message: "no menus found; building the default menu"})
		var links []any
		for i, p := range pages {
			pm := asMap(p)
			if str(pm["pageId"]) == "404" {
				continue
			}
			links = append(links, map[string]any{
				"id": fmt.Sprint(i), "type": "MenuLink", "pageId": pm["pageId"], "auth": copyMap(asMap(pm["auth"])),
			})
		}
		if links == nil {
			links = []any{}
		}
		menus = []any{map[string]any{"id": "default", "links": links}}
		b.c["menus"] = menus
	}
	pageAuth := map[string]map[string]any{}
	for _, p := range pages {
		pm := asMap(p)
		if id, ok := pm["pageId"].(string); ok {
			pageAuth[id] = asMap(pm["auth"])
		}
	}
	seen := map[string]bool{}
	for i, m := range menus {
		mm := asMap(m)
		path := indexPath("menus", i)
		id, ok := mm["id"].(string)
		if !ok {
			b.fail(mm, path, "menu id must be a string")
			continue
		}
		if seen[id] {
			b.fail(mm, path, "duplicate menuId %q", id)
			continue
		}
		seen[id] = true
		mm["menuId"] = id
		mm["id"] = "menu:" + id
		b.menuItems(mm, id, pageAuth, map[string]bool{}, path)
	}
}

func (b *builder) menuItems(parent map[string]any, menuID string, pageAuth map[string]map[string]any, seen map[string]bool, path string) {
	links, ok := parent["links"].([]any)
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
		switch item["type"] {
		case "MenuLink":
			if pid, ok := item["pageId"].(string); ok {
				auth, found := pageAuth[pid]
				if !found {
					b.warn(item, ip, "page %q referenced in menu link %q not found; the link is left out", pid, str(item["id"]))
					continue
				}
				item["auth"] = copyMap(auth)
			} else {
				item["auth"] = map[string]any{"public": true}
			}
		case "MenuGroup":
			item["auth"] = map[string]any{"public": true}
		}
		id := fmt.Sprint(item["id"])
		if s, ok := item["id"].(string); ok {
			id = s
		}
		if seen[id] {
			b.fail(item, ip, "duplicate menuItemId %q on menu %q", id, menuID)
			continue
		}
		seen[id] = true
		item["menuItemId"] = item["id"]
		item["id"] = "menuitem:" + menuID + ":" + id
		b.menuItems(item, menuID, pageAuth, seen, ip)
		kept = append(kept, item)
	}
	parent["links"] = kept
}

// typeClassNames names type classes in messages as Lowdefy does.
var typeClassNames = map[string]string{
	"actions": "Action", "blocks": "Block", "connections": "Connection", "requests": "Request",
	"authAdapters": "Auth adapter", "authCallbacks": "Auth callback", "authEvents": "Auth event",
	"authProviders": "Auth provider",
}

// checkTypes reports types that no default plugin provides. With custom plugins the
// types they add are unknown here, so these become warnings.
func (b *builder) checkTypes() {
	custom := len(asList(b.c["plugins"])) > 0
	for _, class := range sortedKeys(b.typeUse) {
		known := defaultTypes[class]
		for _, name := range sortedKeys(b.typeUse[class]) {
			if contains(known, name) {
				continue
			}
			p := b.typeUse[class][name]
			msg := fmt.Sprintf("%s type %q was used but is not defined", typeClassNames[class], name)
			if custom {
				b.l.warnings = append(b.l.warnings, problemAt(p, "", "%s (it may come from a plugin)", msg))
			} else {
				b.l.problems = append(b.l.problems, problemAt(p, "", "%s", msg))
			}
		}
	}
}
