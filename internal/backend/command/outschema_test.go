package command_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// outSchemaYAML holds tools that declare an outputSchema and print what they are given.
const outSchemaYAML = `servers:
  s:
    kind: command
    tools:
      weather:
        description: prints what it is given
        inputSchema:
          type: object
          properties: {out: {type: string}}
        outputSchema:
          type: object
          properties:
            city: {type: string}
            temp: {type: number}
          required: [city, temp]
        argv: [printf, "%s", {direct: out}]
      failing:
        description: prints valid JSON, then fails
        inputSchema: {type: object}
        outputSchema: {type: object}
        argv: [sh, -c, "echo '{\"a\":1}'; exit 3"]
`

// structured decodes the structuredContent of a result into a generic value.
func structured(t *testing.T, r *mcp.CallToolResult) any {
	t.Helper()
	if r.StructuredContent == nil {
		return nil
	}
	b, err := json.Marshal(r.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// A tool with an outputSchema returns what its command printed as structuredContent when it
// is a JSON object matching the schema, and an error result saying what is wrong otherwise.
func TestCommandOutputSchema(t *testing.T) {
	b := open(t, outSchemaYAML)
	args := func(out string) string {
		raw, _ := json.Marshal(map[string]any{"out": out})
		return string(raw)
	}

	const good = `{"city": "Oslo", "temp": 21.5}` + "\n"
	r := call(t, b, "weather", args(good))
	want := map[string]any{"city": "Oslo", "temp": 21.5}
	if r.IsError || !reflect.DeepEqual(structured(t, r), want) {
		t.Fatalf("valid output: isError=%v structured=%v text=%q", r.IsError, structured(t, r), text(r))
	}
	var fromText any
	if err := json.Unmarshal([]byte(text(r)), &fromText); err != nil || !reflect.DeepEqual(fromText, want) {
		t.Errorf("the text content should hold the JSON: %q (%v)", text(r), err)
	}

	for name, c := range map[string]struct {
		out  string
		want []string
	}{
		"not JSON":      {"temperature is 21", []string{"outputSchema", "not JSON", "temperature is 21"}},
		"truncated":     {`{"city": "Oslo"`, []string{"not JSON", `{"city": "Oslo"`}},
		"two values":    {`{"city":"Oslo","temp":1} {}`, []string{"more than one JSON value"}},
		"array":         {`[1, 2]`, []string{"a JSON array, not an object"}},
		"missing field": {`{"city": "Oslo"}`, []string{"does not match the outputSchema", "temp", `{"city": "Oslo"}`}},
		"wrong type":    {`{"city": "Oslo", "temp": "warm"}`, []string{"does not match the outputSchema", "temp", "warm"}},
		"empty":         {"", []string{"stdout is empty", "printed nothing"}},
	} {
		r := call(t, b, "weather", args(c.out))
		if !r.IsError || r.StructuredContent != nil {
			t.Errorf("%s: want an error result without structuredContent, got isError=%v structured=%v", name, r.IsError, r.StructuredContent)
		}
		for _, w := range c.want {
			if !strings.Contains(text(r), w) {
				t.Errorf("%s: message %q does not contain %q", name, text(r), w)
			}
		}
	}

	// A long output is quoted only in part.
	long := `{"city": "` + strings.Repeat("x", 5000) + `"}`
	r = call(t, b, "weather", args(long))
	if !r.IsError || len(text(r)) > 2000 {
		t.Errorf("long mismatch: isError=%v, message of %d bytes", r.IsError, len(text(r)))
	}

	r = call(t, b, "failing", "{}")
	if !r.IsError || r.StructuredContent != nil || !strings.Contains(text(r), "exit code 3") {
		t.Errorf("exit 3: isError=%v structured=%v text=%q", r.IsError, r.StructuredContent, text(r))
	}
}

// structuredContent reaches an MCP client of either era through the gateway, and the
// SDK client (which checks it against the outputSchema) accepts the call.
func TestCommandOutputSchemaOverMCP(t *testing.T) {
	srv := gatewaytest.StartIn(t, t.TempDir(), outSchemaYAML, gateway.Options{})
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			_, cs := connectProtocol(t, srv.URL+"/mcp/s", era)
			r := callOK(t, cs, &mcp.CallToolParams{Name: "weather", Arguments: map[string]any{"out": `{"city":"Oslo","temp":21.5}`}})
			want := map[string]any{"city": "Oslo", "temp": 21.5}
			if r.IsError || !reflect.DeepEqual(structured(t, r), want) {
				t.Fatalf("isError=%v structured=%v content=%v", r.IsError, structured(t, r), r.Content)
			}
			if tc, ok := r.Content[0].(*mcp.TextContent); !ok || !strings.Contains(tc.Text, `"Oslo"`) {
				t.Errorf("content = %#v", r.Content[0])
			}
			r = callOK(t, cs, &mcp.CallToolParams{Name: "weather", Arguments: map[string]any{"out": `{"city":"Oslo"}`}})
			if !r.IsError || r.StructuredContent != nil {
				t.Errorf("mismatch: isError=%v structured=%v", r.IsError, r.StructuredContent)
			}
		})
	}
}

// A tool with an outputSchema cannot declare its output media: it prints JSON.
func TestCommandOutputSchemaWithMedia(t *testing.T) {
	_, err := config.Parse("test.yaml", t.TempDir(), []byte(`servers:
  s:
    kind: command
    tools:
      pic:
        description: d
        inputSchema: {type: object}
        outputSchema: {type: object}
        argv: [cat, pic.png]
        output: image
`), backend.Kinds())
	if err == nil || !strings.Contains(err.Error(), "cannot go with outputSchema") {
		t.Errorf("err = %v", err)
	}
}

// A secret the command prints is scrubbed from the structured content as from the text.
func TestCommandOutputSchemaScrubs(t *testing.T) {
	t.Setenv("OUTSCHEMA_TEST_TOKEN", "s3cr3t-outschema-value")
	b := open(t, `servers:
  s:
    kind: command
    tools:
      leaky:
        description: prints its token
        inputSchema: {type: object}
        outputSchema: {type: object, properties: {token: {type: string}}, required: [token]}
        argv: [sh, -c, "printf '{\"token\":\"%s\"}' \"$TOKEN\""]
        env: {TOKEN: "env:OUTSCHEMA_TEST_TOKEN"}
`)
	r := call(t, b, "leaky", "{}")
	sc, _ := json.Marshal(r.StructuredContent)
	if r.IsError || r.StructuredContent == nil || strings.Contains(string(sc), "s3cr3t") || strings.Contains(text(r), "s3cr3t") {
		t.Errorf("isError=%v structured=%s text=%q", r.IsError, sc, text(r))
	}
}
