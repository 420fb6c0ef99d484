package engine

import "github.com/mcpbridge/mcpbridge/internal/jsvalue"

// Validation returns the validation shown on the page: for each block whose
// validation is displayed (after Validate) and that has errors or warnings,
// {status, errors, warnings}, in the order of Lowdefy's block map.
func (p *Page) Validation() *jsvalue.Object {
	out := jsvalue.NewObject(0)
	for id, v := range p.blockMap.Range {
		b := v.(*block)
		if !b.showValidation || (len(b.validation.errors) == 0 && len(b.validation.warnings) == 0) {
			continue
		}
		out.Set(id, jsvalue.ObjectOf("status", b.validation.status,
			"errors", append([]any{}, b.validation.errors...),
			"warnings", append([]any{}, b.validation.warnings...)))
	}
	return out
}

// RequestResults returns, for each request called on the page, its latest
// call as {response, error}: the response (null while loading or after an
// error) and the error message or null.
func (p *Page) RequestResults() *jsvalue.Object {
	out := jsvalue.NewObject(p.requests.Len())
	for id, v := range p.requests.Range {
		calls, _ := v.([]any)
		if len(calls) == 0 {
			continue
		}
		c, _ := calls[0].(*jsvalue.Object)
		var resp, msg any
		if c.Prop("loading") != true {
			resp = orDefault(c.Prop("response"), nil)
		}
		if e, ok := c.Prop("error").(*jsvalue.Error); ok {
			msg = e.Message
		}
		out.Set(id, jsvalue.ObjectOf("response", resp, "error", msg))
	}
	return out
}

// Block describes one block for a renderer: its type, category, evaluated
// properties, value, visibility and displayed validation.
type Block struct {
	ID         string
	Type       string
	Category   string
	Properties any
	Value      any
	Visible    bool
	Required   any
	Validation *jsvalue.Object
}

// Blocks returns the page's blocks in Lowdefy's block map order.
func (p *Page) Blocks() []Block {
	var out []Block
	for id, v := range p.blockMap.Range {
		b := v.(*block)
		var status any
		if b.showValidation {
			status = b.validation.status
		}
		out = append(out, Block{
			ID: id, Type: b.typ, Category: string(b.meta.Category), Properties: b.propertiesOut,
			Value: orDefault(b.value, nil), Visible: b.isVisible(), Required: b.requiredOut,
			Validation: jsvalue.ObjectOf("status", status, "errors", b.validation.errors, "warnings", b.validation.warnings),
		})
	}
	return out
}
