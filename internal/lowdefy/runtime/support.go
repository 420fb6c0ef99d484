package runtime

import (
	"fmt"
	"slices"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/blocks"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections/all"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/engine"
)

// Unsupported lists what app a uses that mcpbridge does not run, one problem per use,
// each with its place (file:line:col of the source and the field path) and what happens
// instead: block types that are not Lowdefy's default blocks (custom plugins above all),
// action types the engine does not have, connection and request types the server does
// not have, and operators it does not have (a plugin's operator evaluates to null with
// an error; without plugins, Lowdefy itself leaves an unknown operator as a plain
// object). `mcpbridge app check` and `mcpbridge check` print them as warnings; the
// running page and the log of the call that meets them say the same.
func Unsupported(a *app.App) []app.Problem {
	plugins := len(a.Plugins) > 0
	var out []app.Problem
	at := func(o *jsvalue.Object, path, format string, args ...any) {
		p := a.Where(o)
		p.Path = path
		p.Message = fmt.Sprintf(format, args...)
		out = append(out, p)
	}
	origin := func(class, typ string) string {
		switch {
		case slices.Contains(app.DefaultTypes(class), typ):
			return "of Lowdefy's default plugins"
		case plugins:
			return "of a plugin"
		}
		return "that no default Lowdefy plugin provides"
	}
	actions := engine.ActionTypes()
	var walkBlock func(b *jsvalue.Object, path string)
	walkEvents := func(b *jsvalue.Object, path string) {
		events, _ := b.Prop("events").(*jsvalue.Object)
		for name, ev := range events.Range {
			eo, _ := ev.(*jsvalue.Object)
			for _, part := range []string{"try", "catch"} {
				list, _ := eo.Prop(part).([]any)
				for i, x := range list {
					act, _ := x.(*jsvalue.Object)
					typ, _ := act.Prop("type").(string)
					if act == nil || typ == "" || slices.Contains(actions, typ) {
						continue
					}
					at(act, fmt.Sprintf("%s.events.%s.%s[%d].type", path, name, part, i), "%s", engine.UnknownActionMessage(typ, plugins))
				}
			}
		}
	}
	walkBlock = func(b *jsvalue.Object, path string) {
		typ, _ := b.Prop("type").(string)
		if _, ok := blocks.Lookup(typ); !ok && typ != "" {
			_, hasAreas := b.Prop("areas").(*jsvalue.Object)
			at(b, path+".type", "%s", engine.UnknownBlockMessage(typ, string(blocks.Guess(typ, hasAreas).Category), plugins))
		}
		walkEvents(b, path)
		areas, _ := b.Prop("areas").(*jsvalue.Object)
		for key, ar := range areas.Range {
			ao, _ := ar.(*jsvalue.Object)
			list, _ := ao.Prop("blocks").([]any)
			for i, x := range list {
				if c, ok := x.(*jsvalue.Object); ok {
					walkBlock(c, fmt.Sprintf("%s.areas.%s.blocks[%d]", path, key, i))
				}
			}
		}
	}
	conns := all.Set()
	for i, p := range a.Pages {
		if p.ID == "404" {
			continue
		}
		walkBlock(p.Config, fmt.Sprintf("pages[%d]", i))
		for j, r := range p.Requests {
			c := a.Connection(r.ConnectionID)
			if c == nil {
				continue
			}
			ct := conns[c.Type]
			if ct == nil {
				continue // said once for the connection below
			}
			if _, ok := ct.Requests[r.Type]; !ok {
				at(r.Config, fmt.Sprintf("pages[%d].requests[%d].type", i, j),
					"request type `%s` (%s) is not one mcpbridge runs on a %s connection: the request fails", r.Type, origin("requests", r.Type), c.Type)
			}
		}
	}
	for i, c := range a.Connections {
		if conns[c.Type] == nil {
			at(c.Config, fmt.Sprintf("connections[%d].type", i),
				"connection type `%s` (%s) is not one mcpbridge runs (it runs AxiosHttp, Knex and MongoDBCollection): every request on connection %s fails", c.Type, origin("connections", c.Type), c.ID)
		}
	}
	for _, u := range a.UnknownOperators() {
		side := "client"
		if u.Server {
			side = "server"
		}
		p := u.At
		switch {
		case u.OtherSide && u.Server:
			p.Message = fmt.Sprintf("`%s` is an operator of the page (client) side: in request and connection properties Lowdefy leaves it as a plain object; pass the value in the request's payload and read it with _payload", u.Name)
		case u.OtherSide:
			p.Message = fmt.Sprintf("`%s` is an operator of the server side (request and connection properties): on a page Lowdefy leaves it as a plain object", u.Name)
		case plugins && u.Server:
			p.Message = fmt.Sprintf("`%s` is a plugin operator mcpbridge does not run: it evaluates to null with an error, so the request fails saying so (server side)", u.Name)
		case plugins:
			p.Message = fmt.Sprintf("`%s` is a plugin operator mcpbridge does not run: it evaluates to null, and the page and the call's log say so (client side)", u.Name)
		default:
			p.Message = fmt.Sprintf("`%s` is not an operator Lowdefy or mcpbridge has: it stays a plain object, as Lowdefy leaves it (%s side; Lowdefy's build warns \"Operator type %q was used but is not defined\")", u.Name, side, u.Name)
		}
		out = append(out, p)
	}
	return out
}
