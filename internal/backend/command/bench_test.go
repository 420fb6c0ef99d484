package command_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/backend"
)

// BenchmarkCall runs a command that does nothing: the cost of a call, process start and
// supervision included.
func BenchmarkCall(b *testing.B) {
	bk := open(b, `
servers:
  s:
    kind: command
    description: d
    tools:
      true: {description: does nothing, inputSchema: {type: object, properties: {a: {type: string}}}, argv: [true, {direct: a}]}
`)
	raw := json.RawMessage(`{"a": "x"}`)
	b.ReportAllocs()
	for b.Loop() {
		r, err := bk.CallTool(context.Background(), &backend.Call{Name: "true", Arguments: raw, Session: backend.NoSession{}})
		if err != nil || r.IsError {
			b.Fatal(err, text(r))
		}
	}
}
