package openapi

import (
	"encoding/json"
	"testing"

	"go.yaml.in/yaml/v3"
)

// FuzzImport feeds random bytes and mutated specs to Import: it must never panic, and
// whatever it accepts must render as YAML and JSON and satisfy the tool invariants.
// Run: go test ./internal/openapi -run '^$' -fuzz FuzzImport -fuzztime 60s
func FuzzImport(f *testing.F) {
	for _, name := range []string{"petstore-expanded.yaml", "tictactoe.yaml", "uspto.json", "features.yaml"} {
		f.Add(readSpec(f, name))
	}
	f.Add([]byte(`{"openapi":"3.1.0","paths":{"/a/{b}":{"post":{"parameters":[{"$ref":"#/x"}],"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/S"}}}}}}},"components":{"schemas":{"S":{"allOf":[{"$ref":"#/components/schemas/S"}],"nullable":true}}}}`))
	f.Add([]byte("openapi: 3.0.0\npaths:\n  /x:\n    get:\n      parameters:\n        - &p {name: a, in: query, schema: {$ref: '#/paths/~1x/get/parameters/0/schema'}}\n        - *p\n"))
	f.Add([]byte("swagger: '2.0'"))
	f.Add([]byte{0xff, 0xfe, '{'})
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Import(data, Options{})
		if err != nil {
			return
		}
		y, err := res.YAML()
		if err != nil {
			t.Fatalf("YAML failed on an accepted document: %v", err)
		}
		var v any
		if err := yaml.Unmarshal(y, &v); err != nil {
			t.Fatalf("generated YAML does not parse: %v\n%s", err, y)
		}
		j, err := res.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(j) {
			t.Fatalf("generated JSON is invalid: %s", j)
		}
		for _, tool := range res.Server.Tools {
			checkTool(t, tool)
		}
	})
}
