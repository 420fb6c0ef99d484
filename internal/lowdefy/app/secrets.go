package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// A SecretRef is one `_secret` an app reads on the server: in a connection's properties,
// a request's properties or an API endpoint's routine.
type SecretRef struct {
	// Name is the secret's name (the first part of a dotted key: _secret: API.token reads
	// the secret API).
	Name string
	// Where names what reads it, e.g. connection api, request home/get_items.
	Where string
}

// SecretRefs returns the secrets the app reads, sorted by name and then by where, one
// entry per name and place. Lowdefy runs with a secret that is not provided (the operator
// gives null), so a caller warns about the ones it lacks before the first request fails.
func (a *App) SecretRefs() []SecretRef {
	seen := map[SecretRef]bool{}
	var out []SecretRef
	add := func(where string, v any) {
		walkSecrets(v, 0, func(name string) {
			r := SecretRef{Name: name, Where: where}
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		})
	}
	for _, c := range a.Connections {
		add("connection "+c.ID, c.Properties)
	}
	for _, p := range a.Pages {
		for _, r := range p.Requests {
			add(fmt.Sprintf("request %s/%s", p.ID, r.ID), r.Config)
		}
	}
	for _, e := range a.API {
		if m, ok := e.(*jsvalue.Object); ok {
			add("api "+str(get(m, "id")), m)
		}
	}
	slices.SortStableFunc(out, func(x, y SecretRef) int {
		if c := strings.Compare(x.Name, y.Name); c != 0 {
			return c
		}
		return strings.Compare(x.Where, y.Where)
	})
	return out
}

// maxSecretDepth bounds the walk of a config value (the loader bounds nesting already).
const maxSecretDepth = 200

// walkSecrets calls found with the name of every `_secret` operator in v: `_secret: NAME`,
// `_secret: {key: NAME}` and `_secret.get: NAME`.
func walkSecrets(v any, depth int, found func(name string)) {
	if depth > maxSecretDepth {
		return
	}
	switch x := v.(type) {
	case *jsvalue.Object:
		x.Range(func(k string, val any) bool {
			if k == "_secret" || strings.HasPrefix(k, "_secret.") {
				arg := val
				if m, ok := val.(*jsvalue.Object); ok {
					arg = m.Prop("key")
				}
				if s, ok := arg.(string); ok {
					if name, _, _ := strings.Cut(s, "."); name != "" {
						found(name)
					}
				}
			}
			walkSecrets(val, depth+1, found)
			return true
		})
	case []any:
		for _, e := range x {
			walkSecrets(e, depth+1, found)
		}
	}
}
