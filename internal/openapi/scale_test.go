package openapi

import (
	"fmt"
	"strings"
	"testing"
)

// generatedSpec builds a JSON spec with n operations (n/4 paths × 4 methods) sharing
// parameters, request bodies and a recursive schema through $refs, and a few operationIds
// that collide after sanitising.
func generatedSpec(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"Generated"},"servers":[{"url":"http://127.0.0.1:18080"}],"paths":{`)
	for p := 0; p < n/4; p++ {
		if p > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"/res%d/{id}":{"parameters":[{"$ref":"#/components/parameters/Id"}],`, p)
		fmt.Fprintf(&b, `"get":{"operationId":"get res %d","parameters":[{"$ref":"#/components/parameters/Limit"}]},`, p%(n/8+1))
		fmt.Fprintf(&b, `"put":{"requestBody":{"$ref":"#/components/requestBodies/Item"}},`)
		fmt.Fprintf(&b, `"post":{"operationId":"post_res_%d","requestBody":{"content":{"application/json":{"schema":{"type":"array","items":{"$ref":"#/components/schemas/Item"}}}}}},`, p)
		fmt.Fprintf(&b, `"delete":{"operationId":"delete-res-%d","parameters":[{"name":"X-Trace-Id","in":"header","schema":{"type":"string"}}]}}`, p)
	}
	b.WriteString(`},"components":{"parameters":{"Id":{"name":"id","in":"path","required":true,"schema":{"type":"string"}},"Limit":{"name":"limit","in":"query","schema":{"type":"integer","minimum":1,"maximum":100}}},`)
	b.WriteString(`"requestBodies":{"Item":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Item"}}}}},`)
	b.WriteString(`"schemas":{"Item":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"parent":{"$ref":"#/components/schemas/Item"},"tags":{"type":"array","items":{"type":"string"}}}}}}}`)
	return []byte(b.String())
}

// TestGeneratedLargeSpec imports 8,000 operations: all become tools with unique names.
func TestGeneratedLargeSpec(t *testing.T) {
	const n = 8000
	res, err := Import(generatedSpec(n), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Operations != n || len(res.Server.Tools) != n {
		t.Fatalf("operations = %d, tools = %d, want %d", res.Operations, len(res.Server.Tools), n)
	}
	seen := map[string]bool{}
	for _, tool := range res.Server.Tools {
		if seen[tool.Name] {
			t.Fatalf("duplicate tool name %q", tool.Name)
		}
		seen[tool.Name] = true
	}
	for _, tool := range res.Server.Tools[:40] {
		checkTool(t, tool)
	}
	// "get res 0" … repeat every n/8+1 paths; the repeats get numeric suffixes.
	if !seen["get_res_0"] || !seen["get_res_0_2"] {
		t.Errorf("colliding operationIds not made unique: %v", res.Server.Tools[0].Name)
	}
	if _, err := res.YAML(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkImportGenerated imports the generated 8,000-operation spec.
func BenchmarkImportGenerated(b *testing.B) {
	data := generatedSpec(8000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Import(data, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
