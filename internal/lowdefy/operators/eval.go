package operators

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
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
// (or the server parser when server is set) over the given inputs, within
// ctx. value is the serialized result (dates as {"~d": ms}, undefined as
// nil, objects as *jsvalue.Object in their key order) ready for
// json.Marshal, as in {"value": value, "errors": errors}.
func EvalJSON(ctx context.Context, server bool, in EvalInputs, exprJSON []byte) (value any, errors []string) {
	input, err := serial.Unmarshal(exprJSON)
	if err != nil {
		return nil, []string{fmt.Sprintf("expression: %v", err)}
	}
	octx := &Context{PageID: in.PageID}
	if octx.PageID == "" {
		octx.PageID = "page"
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		dst  **jsvalue.Object
	}{
		{"state", in.State, &octx.State}, {"payload", in.Payload, &octx.Payload}, {"user", in.User, &octx.User},
		{"secrets", in.Secrets, &octx.Secrets}, {"global", in.Global, &octx.Global}, {"input", in.Input, &octx.Input},
		{"urlQuery", in.URLQuery, &octx.URLQuery},
	} {
		if len(f.raw) == 0 {
			continue
		}
		v, err := serial.Unmarshal(f.raw)
		if err != nil {
			return nil, []string{fmt.Sprintf("%s: %v", f.name, err)}
		}
		m, ok := v.(*jsvalue.Object)
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
		p = NewServerParser(octx)
	} else {
		p = NewClientParser(octx)
	}
	out, errs := p.Parse(ctx, input, loc, in.ArrayIndices, event)
	errors = []string{}
	for _, e := range errs {
		errors = append(errors, e.Error())
	}
	return serial.Encode(out, false), errors
}
