package openapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// TestConvertSchema converts components.schemas.In of small documents and compares the
// JSON Schema produced with the expected one.
func TestConvertSchema(t *testing.T) {
	tests := []struct {
		name    string
		version string // openapi field
		schemas string // YAML of components.schemas (must define In)
		want    string // JSON
	}{
		{"3.0 nullable string", "3.0.3", `In: {type: string, nullable: true}`,
			`{"type":["string","null"]}`},
		{"nullable enum gains null", "3.0.3", `In: {type: string, enum: [a, b], nullable: true}`,
			`{"type":["string","null"],"enum":["a","b",null]}`},
		{"nullable ref sibling", "3.0.3", "In: {$ref: '#/components/schemas/T', nullable: true}\nT: {type: integer, format: int64}",
			`{"type":["integer","null"],"format":"int64"}`},
		{"nullable without type wraps anyOf", "3.0.3", "In: {nullable: true, oneOf: [{type: string}, {type: integer}]}",
			`{"anyOf":[{"oneOf":[{"type":"string"},{"type":"integer"}]},{"type":"null"}]}`},
		{"3.0 boolean exclusive bounds", "3.0.3", `In: {type: number, minimum: 1, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false}`,
			`{"type":"number","maximum":9,"exclusiveMinimum":1}`},
		{"3.1 numeric exclusive bound kept", "3.1.0", `In: {type: number, exclusiveMaximum: 10}`,
			`{"type":"number","exclusiveMaximum":10}`},
		{"readOnly dropped with its required entry", "3.0.3", "In: {type: object, required: [id, name], properties: {id: {$ref: '#/components/schemas/Id'}, name: {type: string}}}\nId: {type: string, readOnly: true}",
			`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`},
		{"allOf of objects merged", "3.0.3", "In: {allOf: [{$ref: '#/components/schemas/Base'}, {type: object, required: [b], properties: {b: {type: integer}}}]}\nBase: {type: object, description: Base, required: [a], properties: {a: {type: string}}}",
			`{"description":"Base","type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a","b"]}`},
		{"allOf with a combinator kept", "3.0.3", "In: {allOf: [{type: object}, {oneOf: [{type: object}]}]}",
			`{"allOf":[{"type":"object"},{"oneOf":[{"type":"object"}]}]}`},
		{"single-member allOf unwrapped", "3.0.3", "In: {description: Outer, allOf: [{$ref: '#/components/schemas/T'}]}\nT: {type: string, description: Inner, maxLength: 3}",
			`{"description":"Outer","type":"string","maxLength":3}`},
		{"self recursion cut after one level", "3.0.3", "In: {$ref: '#/components/schemas/Node'}\nNode: {type: object, properties: {next: {$ref: '#/components/schemas/Node'}, v: {type: integer}}}",
			`{"type":"object","properties":{"next":{"type":"object"},"v":{"type":"integer"}}}`},
		{"mutual recursion cut", "3.0.3", "In: {$ref: '#/components/schemas/A'}\nA: {type: object, properties: {b: {$ref: '#/components/schemas/B'}}}\nB: {type: array, items: {$ref: '#/components/schemas/A'}}",
			`{"type":"object","properties":{"b":{"type":"array","items":{"type":"object"}}}}`},
		{"3.1 type array and ref siblings", "3.1.0", "In: {$ref: '#/components/schemas/T', description: Override}\nT: {type: [string, 'null'], description: Orig}",
			`{"type":["string","null"],"description":"Override"}`},
		{"boolean schemas", "3.1.0", "In: {type: object, properties: {any: true, none: false}, additionalProperties: false}",
			`{"type":"object","properties":{"any":true,"none":false},"additionalProperties":false}`},
		{"ill-typed keywords dropped", "3.0.3", `In: {type: integer, minimum: "5", maxLength: -1, enum: [], type2: x, format: 7, pattern: "["}`,
			`{"type":"integer"}`},
		{"3.0 example becomes examples", "3.0.3", `In: {type: string, example: hi}`,
			`{"type":"string","examples":["hi"]}`},
		{"non-schema keywords dropped", "3.0.3", `In: {type: object, discriminator: {propertyName: k}, xml: {name: n}, x-internal: true, writeOnly: true, externalDocs: {url: u}, properties: {k: {type: string}}}`,
			`{"type":"object","properties":{"k":{"type":"string"}}}`},
		{"swagger file type", "3.0.3", `In: {type: file}`,
			`{"type":"string","format":"binary"}`},
		{"items tuple form accepts anything", "3.0.3", `In: {type: array, items: [{type: string}]}`,
			`{"type":"array"}`},
		{"default outside its enum dropped", "3.0.3", `In: {type: string, enum: [strict, coerce], default: "'strict'"}`,
			`{"type":"string","enum":["strict","coerce"]}`},
		{"default of the wrong type dropped", "3.0.3", `In: {type: integer, default: "10"}`,
			`{"type":"integer"}`},
		{"default matching no oneOf branch dropped", "3.1.0", `In: {oneOf: [{type: boolean}, {type: integer}], default: "10000"}`,
			`{"oneOf":[{"type":"boolean"},{"type":"integer"}]}`},
		{"valid defaults kept", "3.0.3", `In: {type: object, properties: {n: {type: integer, default: 5}, m: {oneOf: [{type: boolean}, {type: integer}], default: 3}}}`,
			`{"type":"object","properties":{"n":{"type":"integer","default":5},"m":{"oneOf":[{"type":"boolean"},{"type":"integer"}],"default":3}}}`},
		{"unknown ref", "3.0.3", `In: {$ref: '#/components/schemas/Missing', description: gone}`,
			`{"description":"gone"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := fmt.Sprintf("openapi: %s\ncomponents:\n  schemas:\n%s\n", tt.version, indent(tt.schemas, "    "))
			tree, err := parseDocument([]byte(doc))
			if err != nil {
				t.Fatalf("parse: %v\n%s", err, doc)
			}
			root := tree.(*jsvalue.Object)
			version, err := specVersion(root)
			if err != nil {
				t.Fatal(err)
			}
			in, _ := getObj(getObj(root, "components"), "schemas").Get("In")
			conv := newSchemaConverter(root, version)
			got := string(appendJSON(nil, conv.convert(in, 0)))
			if diff := cmp.Diff(normJSON(t, tt.want), normJSON(t, got)); diff != "" {
				t.Errorf("schema mismatch (-want +got):\n%s\ngot: %s", diff, got)
			}
		})
	}
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = prefix + lines[i]
	}
	return strings.Join(lines, "\n")
}

func normJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("invalid JSON %s: %v", s, err)
	}
	return v
}

// TestSchemaBounds checks that pathological schemas stay bounded: a wide recursive schema
// and a YAML alias bomb both produce a small, valid result with a warning.
func TestSchemaBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\nservers: [{url: 'http://x'}]\npaths:\n  /q:\n    post:\n      operationId: q\n      requestBody:\n        content:\n          application/json:\n            schema: {$ref: '#/components/schemas/Q0'}\ncomponents:\n  schemas:\n")
	// Q0..Q39 each reference every other: a dense recursive graph.
	for i := range 40 {
		fmt.Fprintf(&b, "    Q%d:\n      type: object\n      properties:\n", i)
		for j := range 40 {
			fmt.Fprintf(&b, "        p%d: {$ref: '#/components/schemas/Q%d'}\n", j, j)
		}
	}
	res, err := Import([]byte(b.String()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Server.Tools) != 1 {
		t.Fatalf("tools = %d, want 1", len(res.Server.Tools))
	}
	checkTool(t, res.Server.Tools[0])
	raw, _ := res.Server.Tools[0].InputSchema.MarshalJSON()
	if len(raw) > 200_000 {
		t.Errorf("schema is %d bytes; the node budget should keep it small", len(raw))
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "argument schema simplified") {
		t.Errorf("no simplification warning: %v", res.Warnings)
	}

	bomb := `openapi: 3.0.3
servers: [{url: 'http://x'}]
x-a: &a {type: object, properties: {a1: {type: string}, a2: {type: string}}}
x-b: &b {type: object, properties: {b1: *a, b2: *a, b3: *a, b4: *a, b5: *a, b6: *a, b7: *a, b8: *a}}
x-c: &c {type: object, properties: {c1: *b, c2: *b, c3: *b, c4: *b, c5: *b, c6: *b, c7: *b, c8: *b}}
x-d: &d {type: object, properties: {d1: *c, d2: *c, d3: *c, d4: *c, d5: *c, d6: *c, d7: *c, d8: *c}}
x-e: &e {type: object, properties: {e1: *d, e2: *d, e3: *d, e4: *d, e5: *d, e6: *d, e7: *d, e8: *d}}
x-f: &f {type: object, properties: {f1: *e, f2: *e, f3: *e, f4: *e, f5: *e, f6: *e, f7: *e, f8: *e}}
paths:
  /bomb:
    post:
      requestBody:
        content:
          application/json:
            schema: *f
`
	res, err = Import([]byte(bomb), Options{})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ = res.Server.Tools[0].InputSchema.MarshalJSON()
	if len(raw) > 200_000 {
		t.Errorf("alias bomb expanded to %d bytes", len(raw))
	}
	checkTool(t, res.Server.Tools[0])
}
