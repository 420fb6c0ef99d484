package server

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
)

// endpoint is one built API endpoint (the `api/<id>.json` artifact of a 4.x build).
type endpoint struct {
	id, typ string
	// routine is the built routine: request steps carry `stepId`, `endpointId` and
	// `id: "request:<endpointId>:<stepId>"`.
	routine any
	auth    *jsvalue.Object
	// problem, when set, is why the routine cannot run; calling the endpoint reports it.
	problem string
	index   int
}

// buildEndpoints builds the endpoints of a's `api` section the way Lowdefy's build does
// (buildApi, buildRoutine, setStepId) and gives each its auth from `auth.api`. The
// app's config is not modified.
func buildEndpoints(a *app.App, log *slog.Logger) map[string]*endpoint {
	out := map[string]*endpoint{}
	var ids []string
	for i, raw := range a.API {
		m, _ := raw.(*jsvalue.Object)
		id, _ := m.Prop("id").(string)
		if id == "" {
			log.Warn("lowdefy api endpoint without an id is ignored", "index", i)
			continue
		}
		if _, dup := out[id]; dup {
			log.Warn("lowdefy api endpoint id is used twice; the first is kept", "endpointId", id)
			continue
		}
		ep := &endpoint{id: id, index: i}
		ep.typ, _ = m.Prop("type").(string)
		routine, ok := m.Get("routine")
		if !ok {
			ep.problem = fmt.Sprintf("API endpoint %q has no routine.", id)
		} else {
			ep.routine = jsvalue.DeepCopy(routine)
			if p := buildRoutine(ep.routine, id); p != "" {
				ep.problem = p
			}
		}
		if auth, ok := m.Prop("auth").(*jsvalue.Object); ok {
			ep.auth = auth // already built (artifacts)
		}
		if ep.problem != "" {
			log.Warn("lowdefy api endpoint can not run", "endpointId", id, "problem", ep.problem)
		}
		out[id] = ep
		ids = append(ids, id)
	}
	auths := apiAuth(a, ids)
	for _, id := range ids {
		if out[id].auth == nil {
			out[id].auth = auths[id]
		}
	}
	return out
}

// endpointOrder returns the endpoint ids in config order.
func (s *Server) endpointOrder() []string {
	ids := make([]string, len(s.endpoints))
	n := 0
	for id := range s.endpoints {
		ids[n] = id
		n++
	}
	// Insertion sort by config index: endpoint lists are short.
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && s.endpoints[ids[j]].index < s.endpoints[ids[j-1]].index; j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
	return ids
}

// routineKeys are the control keys whose values are routines themselves.
var routineKeys = []string{":then", ":else", ":do", ":try", ":catch", ":finally", ":default"}

// buildRoutine marks the request steps of a routine in place and returns a problem, or
// "". An object whose first key starts with ":" is a control; any other object is a
// request step.
func buildRoutine(r any, endpointID string) string {
	switch v := r.(type) {
	case []any:
		for _, item := range v {
			if p := buildRoutine(item, endpointID); p != "" {
				return p
			}
		}
		return ""
	case *jsvalue.Object:
		if v.Len() > 0 {
			if k, _ := v.At(0); strings.HasPrefix(k, ":") {
				return buildControl(v, endpointID)
			}
		}
		return buildStep(v, endpointID)
	}
	return fmt.Sprintf("Routine on endpoint %q is not an array or object. Received %s.", endpointID, jsonText(r))
}

func buildControl(c *jsvalue.Object, endpointID string) string {
	for _, k := range routineKeys {
		if sub, ok := c.Get(k); ok {
			if p := buildRoutine(sub, endpointID); p != "" {
				return p
			}
		}
	}
	if list, ok := c.Prop(":parallel").([]any); ok {
		for _, sub := range list {
			if p := buildRoutine(sub, endpointID); p != "" {
				return p
			}
		}
	}
	if cases, ok := c.Prop(":switch").([]any); ok {
		for _, cs := range cases {
			if m, ok := cs.(*jsvalue.Object); ok {
				if sub, ok := m.Get(":then"); ok {
					if p := buildRoutine(sub, endpointID); p != "" {
						return p
					}
				}
			}
		}
	}
	return ""
}

func buildStep(step *jsvalue.Object, endpointID string) string {
	id, _ := step.Prop("id").(string)
	if strings.HasPrefix(id, "request:") && step.Has("stepId") {
		return "" // built already (artifacts)
	}
	if id == "" {
		return fmt.Sprintf("Step on endpoint %q has no id (a step needs an id, a type and a connectionId; a control starts with a key such as \":return\"). Received %s.", endpointID, jsonText(step))
	}
	if strings.Contains(id, ".") {
		return fmt.Sprintf("Step id %q on endpoint %q must not contain \".\".", id, endpointID)
	}
	if _, ok := step.Prop("type").(string); !ok {
		return fmt.Sprintf("Step %q on endpoint %q needs a type (the request type, such as KnexRaw).", id, endpointID)
	}
	step.Set("stepId", id)
	step.Set("endpointId", endpointID)
	step.Set("id", "request:"+endpointID+":"+id)
	return ""
}

// jsonText is JSON.stringify for messages, shortened.
func jsonText(v any) string {
	s, ok := jsvalue.Stringify(v, "")
	if !ok {
		return "undefined"
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// setPath sets value at the dotted path in target the way @lowdefy/helpers set does:
// missing containers are created, as arrays when the next key is an integer.
func setPath(target *jsvalue.Object, path string, value any) {
	var keys []string
	for _, k := range splitPath(path) {
		if k != "__proto__" && k != "constructor" && k != "prototype" {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return
	}
	setIn(target, keys, value)
}

// splitPath splits at "." except where the dot is escaped with a backslash.
func splitPath(path string) []string {
	parts := strings.Split(path, ".")
	var out []string
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		for p != "" && strings.HasSuffix(p, `\`) && i+1 < len(parts) && parts[i+1] != "" {
			i++
			p = p[:len(p)-1] + "." + parts[i]
		}
		out = append(out, p)
	}
	return out
}

func setIn(container any, keys []string, value any) any {
	k, last := keys[0], len(keys) == 1
	switch c := container.(type) {
	case *jsvalue.Object:
		if last {
			c.Set(k, value)
			return c
		}
		child, _ := c.Get(k)
		c.Set(k, setIn(prepare(child, keys[1]), keys[1:], value))
		return c
	case []any:
		idx, ok := jsvalue.ArrayIndex(k)
		if !ok || idx > 1<<20 {
			return c // a named property of an array: Go arrays have none
		}
		for len(c) <= int(idx) {
			c = append(c, jsvalue.Undefined)
		}
		if last {
			c[idx] = value
			return c
		}
		c[idx] = setIn(prepare(c[idx], keys[1]), keys[1:], value)
		return c
	}
	return container
}

// prepare returns child when it is an object (set descends into it), else a new
// container: an array when next parses as an integer (parseInt), else an object.
func prepare(child any, next string) any {
	switch child.(type) {
	case *jsvalue.Object, []any:
		return child
	}
	if jsvalue.Typeof(child) == "object" && child != nil {
		return child
	}
	if leadingInt(next) {
		return []any{}
	}
	return &jsvalue.Object{}
}

// leadingInt tells whether parseInt(s, 10) is an integer: optional space and sign,
// then a digit.
func leadingInt(s string) bool {
	s = strings.TrimLeft(s, " \t\n\r")
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return s != "" && s[0] >= '0' && s[0] <= '9'
}
