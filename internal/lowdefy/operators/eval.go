package operators

import (
	"encoding/json"
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/lowdefy/serial"
)

// EvalInputs are the JSON inputs of EvalJSON (the `mcpbridge app eval`
// flags). Empty fields mean absent. Dates may be given as {"~d": ms}.
type EvalInputs struct {
	State, Payload, User, Secrets, Global, Input, Event, URLQuery json.RawMessage
	// PageID and Location default to "page" and "eval".
	PageID, Location string
	// ArrayIndices are the list indices for "$" in keys and the location.
	ArrayIndices []int
}

// EvalJSON evaluates the operator expression exprJSON with the client parser
// (or the server parser when server is set) over the given inputs. value is
// the serialized result (dates as {"~d": ms}, undefined as nil) ready for
// json.Marshal, as in {"value": value, "errors": errors}.
func EvalJSON(server bool, in EvalInputs, exprJSON []byte) (value any, errors []string) {
	input, err := serial.Unmarshal(exprJSON)
	if err != nil {
		return nil, []string{fmt.Sprintf("expression: %v", err)}
	}
	ctx := &Context{PageID: in.PageID}
	if ctx.PageID == "" {
		ctx.PageID = "page"
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		dst  *map[string]any
	}{
		{"state", in.State, &ctx.State}, {"payload", in.Payload, &ctx.Payload}, {"user", in.User, &ctx.User},
		{"secrets", in.Secrets, &ctx.Secrets}, {"global", in.Global, &ctx.Global}, {"input", in.Input, &ctx.Input},
		{"urlQuery", in.URLQuery, &ctx.URLQuery},
	} {
		if len(f.raw) == 0 {
			continue
		}
		v, err := serial.Unmarshal(f.raw)
		if err != nil {
			return nil, []string{fmt.Sprintf("%s: %v", f.name, err)}
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, []string{fmt.Sprintf("%s: must be a JSON object", f.name)}
		}
		*f.dst = m
	}
	var event any
	if len(in.Event) > 0 {
		if event, err = serial.Unmarshal(in.Event); err != nil {
			return nil, []string{fmt.Sprintf("event: %v", err)}
		}
	}
	loc := in.Location
	if loc == "" {
		loc = "eval"
	}
	var p *Parser
	if server {
		p = NewServerParser(ctx)
	} else {
		p = NewClientParser(ctx)
	}
	out, errs := p.Parse(input, loc, in.ArrayIndices, event)
	errors = []string{}
	for _, e := range errs {
		errors = append(errors, e.Error())
	}
	return serial.Encode(out, false), errors
}
