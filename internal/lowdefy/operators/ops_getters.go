package operators

import (
	"net/url"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// orUndefined turns a nil object or slice into undefined, the value of an
// absent context field.
func orUndefined[T *jsvalue.Object | []any](v T) any {
	if v == nil {
		return jsvalue.Undefined
	}
	return v
}

// The getter operators read the operator's params from an object of the context
// (getFromObject). They are functions rather than variables built by a helper, so that
// declaring them runs no code at init.

func opState(c *call) (any, error)   { return getFromObject(c, orUndefined(c.ctx().State), c.op) }
func opInput(c *call) (any, error)   { return getFromObject(c, orUndefined(c.ctx().Input), c.op) }
func opGlobal(c *call) (any, error)  { return getFromObject(c, orUndefined(c.ctx().Global), c.op) }
func opUser(c *call) (any, error)    { return getFromObject(c, orUndefined(c.ctx().User), c.op) }
func opPayload(c *call) (any, error) { return getFromObject(c, orUndefined(c.ctx().Payload), c.op) }
func opStep(c *call) (any, error)    { return getFromObject(c, orUndefined(c.ctx().Steps), c.op) }
func opItem(c *call) (any, error)    { return getFromObject(c, orUndefined(c.ctx().Items), c.op) }
func opEnv(c *call) (any, error)     { return getFromObject(c, orUndefined(c.ctx().Env), c.op) }
func opActions(c *call) (any, error) { return getFromObject(c, orUndefined(c.opts().Actions), c.op) }
func opArgs(c *call) (any, error)    { return getFromObject(c, orUndefined(c.opts().Args), c.op) }

func opEventLog(c *call) (any, error) {
	return getFromObject(c, orUndefined(c.ctx().EventLog), c.op)
}

func opRequestDetails(c *call) (any, error) {
	return getFromObject(c, orUndefined(c.ctx().Requests), c.op)
}

func opEvent(c *call) (any, error) {
	event := c.opts().Event
	if event == nil {
		event = jsvalue.Undefined
	}
	return getFromObject(c, event, c.op)
}

func opIndex(c *call) (any, error) {
	idx := c.arrayIndicesOrNil()
	out := make([]any, len(idx))
	for i, n := range idx {
		out[i] = float64(n)
	}
	return getFromObject(c, out, c.op)
}

func opSecret(c *call) (any, error) {
	if c.params == true {
		return nil, c.errorf("Getting all secrets is not allowed.")
	}
	all, err := prop(c.params, "all")
	if err != nil {
		return nil, err
	}
	if jsvalue.Truthy(all) {
		return nil, c.errorf("Getting all secrets is not allowed.")
	}
	secrets := jsvalue.NewObject(c.ctx().Secrets.Len())
	for k, v := range c.ctx().Secrets.Range {
		if k != "OPENID_CLIENT_SECRET" && k != "JWT_SECRET" {
			secrets.Set(k, v)
		}
	}
	return getFromObject(c, secrets, "_secret")
}

func opGet(c *call) (any, error) {
	pm, ok := c.params.(*jsvalue.Object)
	if !ok {
		return nil, c.errorf("_get takes an object as params.")
	}
	from, hasFrom := pm.Get("from")
	if hasFrom && from == nil {
		def, _ := pm.Get("default") // nil when absent
		return copyValue(def)
	}
	if !isObject(from) && !isArray(from) {
		return nil, c.errorf("_get.from is not an object or array.")
	}
	return getFromObject(c, from, "_get")
}

func opMenu(c *call) (any, error) {
	return getFromArray(c, c.ctx().Menus, "menuId", "_menu")
}

func opRequest(c *call) (any, error) {
	s, ok := c.params.(string)
	if !ok {
		return nil, c.errorf("_request accepts a string value.")
	}
	parts := strings.Split(s, ".")
	calls, ok := c.ctx().Requests.Get(parts[0])
	if !ok {
		return nil, nil
	}
	first, err := prop(calls, "0")
	if err != nil {
		return nil, err
	}
	loading, err := prop(first, "loading")
	if err != nil {
		return nil, err
	}
	if jsvalue.Truthy(loading) {
		return nil, nil
	}
	response, _ := prop(first, "response")
	if len(parts) == 1 {
		return copyValue(response)
	}
	key := applyArrayIndices(c.arrayIndicesOrNil(), strings.Join(parts[1:], "."))
	v, found := getPath(response, key)
	if !found {
		return nil, nil
	}
	return copyValue(v)
}

var locationProperties = []string{"basePath", "hash", "homePageId", "host", "hostname", "href", "origin", "pageId", "pathname", "port", "protocol", "search"}

func opLocation(c *call) (any, error) {
	ctx := c.ctx()
	if ctx.Location == nil {
		return nil, c.errorf("Browser window.location not available for _location.")
	}
	name, _ := c.params.(string)
	valid := false
	for _, p := range locationProperties {
		valid = valid || p == name
	}
	if !valid {
		return nil, c.errorf("_location only returns values for %s.", strings.Join(locationProperties, ", "))
	}
	l := ctx.Location
	obj := jsvalue.ObjectOf(
		"basePath", ctx.BasePath, "hash", l.Hash, "homePageId", ctx.HomePageID, "host", l.Host,
		"hostname", l.Hostname, "href", l.Href, "origin", l.Origin, "pageId", ctx.PageID,
		"pathname", l.Pathname, "port", l.Port, "protocol", l.Protocol, "search", l.Search,
	)
	return getFromObject(c, obj, "_location")
}

func opMedia(c *call) (any, error) {
	w := c.ctx().Window
	if w == nil || w.InnerWidth == 0 {
		return nil, c.errorf("device window width not available for _media.")
	}
	size := "xxl"
	switch {
	case w.InnerWidth < 576:
		size = "xs"
	case w.InnerWidth < 768:
		size = "sm"
	case w.InnerWidth < 992:
		size = "md"
	case w.InnerWidth < 1200:
		size = "lg"
	case w.InnerWidth < 1600:
		size = "xl"
	}
	return getFromObject(c, jsvalue.ObjectOf("size", size, "width", w.InnerWidth, "height", w.InnerHeight), "_media")
}

func opURLQuery(c *call) (any, error) {
	ctx := c.ctx()
	q := ctx.URLQuery
	if q == nil {
		if ctx.Location == nil {
			return nil, c.errorf("Browser window.location not available for _url_query.")
		}
		q = ParseURLQuery(ctx.Location.Search)
	}
	return getFromObject(c, q, "_url_query")
}

// ParseURLQuery decodes a location search string the way Lowdefy's
// urlQuery.parse does: query-string parsing (repeated keys become arrays, a
// key without "=" is null, keys sorted as query-string sorts them) and each
// value JSON-decoded when it is JSON.
func ParseURLQuery(search string) *jsvalue.Object {
	search = strings.TrimLeft(search, "?#&")
	out := &jsvalue.Object{}
	if search == "" {
		return out
	}
	raw := map[string]any{}
	for _, part := range strings.Split(search, "&") {
		if part == "" {
			continue
		}
		k, v, hasValue := strings.Cut(part, "=")
		key := decodeQueryComponent(k)
		var val any
		if hasValue {
			val = decodeQueryComponent(v)
		}
		if prev, ok := raw[key]; ok {
			if list, ok := prev.([]any); ok {
				raw[key] = append(list, val)
			} else {
				raw[key] = []any{prev, val}
			}
		} else {
			raw[key] = val
		}
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, jsvalue.CompareStrings)
	for _, k := range keys {
		v := raw[k]
		s, ok := v.(string)
		if !ok {
			out.Set(k, v)
			continue
		}
		if decoded, err := jsvalue.Decode([]byte(s)); err == nil {
			out.Set(k, serial.Decode(decoded))
		} else {
			out.Set(k, s)
		}
	}
	return out
}

func decodeQueryComponent(s string) string {
	s = strings.ReplaceAll(s, "+", " ")
	if d, err := url.PathUnescape(s); err == nil {
		return d
	}
	return s
}
