package openapi

import "testing"

// BenchmarkImportLargest imports the largest real spec kept as test data
// (Elasticsearch Serverless, 3.9 MB of JSON, 452 operations, recursive query DSL).
func BenchmarkImportLargest(b *testing.B) {
	data := readSpec(b, "elasticsearch-serverless.json.gz")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Import(data, Options{BaseURL: "http://127.0.0.1:9200"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkYAMLLargest renders the imported largest spec as YAML.
func BenchmarkYAMLLargest(b *testing.B) {
	r, err := Import(readSpec(b, "elasticsearch-serverless.json.gz"), Options{BaseURL: "http://127.0.0.1:9200"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.YAML(); err != nil {
			b.Fatal(err)
		}
	}
}
