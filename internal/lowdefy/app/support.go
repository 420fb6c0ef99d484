package app

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/operators"
)

// Where returns the source position of an object of the built config (a block, an
// action, a request, an operator object): its file (relative to the app folder), line
// and column, or a zero Problem position when it is not known (apps read with LoadBuild,
// objects made by the build).
func (a *App) Where(o *jsvalue.Object) Problem {
	pos := a.positions.of(o)
	return Problem{File: pos.file, Line: pos.line, Col: pos.col}
}

// OperatorUse is an operator object of the app, {_name: params}, whose operator mcpbridge
// does not have: a plugin's operator, or a misspelling that Lowdefy too leaves as a plain
// object.
type OperatorUse struct {
	// Name is the operator, such as "_my_operator" (the key before its first dot).
	Name string
	// Server is set for a use on the server side (request and connection properties,
	// endpoint routines), where the server operator set applies.
	Server bool
	// OtherSide is set when the operator is one of the other side's (_state in request
	// properties, _secret on a page): Lowdefy leaves it as a plain object there.
	OtherSide bool
	// At is where it is: file, line, column and field path (no message).
	At Problem
}

// notOperators are keys of one-key objects that are data, not operators, although they
// start with "_": MongoDB's `_id` (in queries such as {_id: {_payload: id}}) and the
// ObjectId marker `_oid`. Lowdefy's build warns about `_id` ("Operator type "_id" was
// used but is not defined"); mcpbridge does not.
var notOperators = []string{"_id", "_oid"}

// UnknownOperators lists the operator objects of the app whose operator mcpbridge does
// not have, in config order (pages, their requests, connections, API endpoints), as
// Lowdefy's build counts operators (countOperators: any one-key object whose key starts
// with "_"; leading underscores of nested function operators such as `__sum` count as
// one). The client operator set applies to pages and request payloads, the server set to
// request and connection properties and endpoint routines. The result is computed once.
func (a *App) UnknownOperators() []OperatorUse {
	a.computeOperators()
	return a.unknownOps
}

// PluginOperators returns the names of UnknownOperators when the app declares plugins
// (`plugins:` in lowdefy.yaml), which presumably provide them: an engine evaluates these
// to null with an error naming them rather than leaving them as objects. Nil when the
// app declares no plugins: then Lowdefy itself leaves them as plain objects. The map is
// shared: do not modify it.
func (a *App) PluginOperators() map[string]bool {
	a.computeOperators()
	return a.pluginOps
}

func (a *App) computeOperators() {
	a.opsOnce.Do(func() {
		a.unknownOps = a.findUnknownOperators()
		if len(a.Plugins) == 0 {
			return
		}
		for _, u := range a.unknownOps {
			if u.OtherSide {
				continue
			}
			if a.pluginOps == nil {
				a.pluginOps = map[string]bool{}
			}
			a.pluginOps[u.Name] = true
		}
	})
}

// appOperatorState holds the lazily computed operator uses of an App.
type appOperatorState struct {
	opsOnce    sync.Once
	unknownOps []OperatorUse
	pluginOps  map[string]bool
}

func (a *App) findUnknownOperators() []OperatorUse {
	client, server := map[string]bool{}, map[string]bool{}
	for _, n := range operators.Names(false) {
		client[n] = true
	}
	for _, n := range operators.Names(true) {
		server[n] = true
	}
	// The routine getters of late-v4 endpoints.
	routine := map[string]bool{"_step": true, "_item": true, "_state": true}
	var out []OperatorUse
	seen := map[string]bool{}
	var walk func(v any, path string, isServer bool, known func(string) bool)
	walk = func(v any, path string, isServer bool, known func(string) bool) {
		switch x := v.(type) {
		case *jsvalue.Object:
			if name, ok := operatorName(x); ok && !known(name) && !slices.Contains(notOperators, name) {
				key := fmt.Sprintf("%v\x00%s\x00%s", isServer, name, path)
				if !seen[key] {
					seen[key] = true
					at := a.Where(x)
					at.Path = path
					other := client[name]
					if !isServer {
						other = server[name]
					}
					out = append(out, OperatorUse{Name: name, Server: isServer, OtherSide: other, At: at})
				}
			}
			for k, c := range x.Range {
				walk(c, joinPath(path, k), isServer, known)
			}
		case []any:
			for i, c := range x {
				walk(c, indexPath(path, i), isServer, known)
			}
		}
	}
	isClient := func(n string) bool { return client[n] }
	isServer := func(n string) bool { return server[n] }
	isRoutine := func(n string) bool { return server[n] || routine[n] }
	for i, p := range a.Pages {
		pp := indexPath("pages", i)
		for k, v := range p.Config.Range {
			if k == "requests" {
				continue // the full requests below
			}
			walk(v, joinPath(pp, k), false, isClient)
		}
		for j, r := range p.Requests {
			rp := indexPath(joinPath(pp, "requests"), j)
			walk(r.Config.Prop("payload"), joinPath(rp, "payload"), false, isClient)
			walk(r.Config.Prop("properties"), joinPath(rp, "properties"), true, isServer)
		}
	}
	for i, c := range a.Connections {
		walk(c.Config.Prop("properties"), joinPath(indexPath("connections", i), "properties"), true, isServer)
	}
	for i, e := range a.API {
		walk(e, indexPath("api", i), true, isRoutine)
	}
	return out
}

// operatorName is the operator of a one-key object whose key starts with "_" ("_a.b" →
// "_a"; "__a" → "_a", as nested _function operators are written), ignoring the build's
// "~k" and "~r" keys.
func operatorName(o *jsvalue.Object) (string, bool) {
	key, n := "", 0
	for k := range o.Range {
		if k == "~k" || k == "~r" {
			continue
		}
		key = k
		n++
	}
	if n != 1 || !strings.HasPrefix(key, "_") {
		return "", false
	}
	op, _, _ := strings.Cut(key, ".")
	op = "_" + strings.TrimLeft(op, "_")
	if op == "_" {
		return "", false
	}
	return op, true
}

// DefaultTypes returns the types Lowdefy's default plugins provide for a type class
// ("actions", "blocks", "connections", "requests", "authAdapters", "authCallbacks",
// "authEvents", "authProviders"), as @lowdefy/build 4.0.0-rc.11 lists them
// (defaultTypesMap.js). The slice is shared: do not modify it.
func DefaultTypes(class string) []string { return defaultTypes.Get()[class] }
