package openapi

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestGolden imports small specs and compares the YAML config and the warnings with golden
// files. Run `go test ./internal/openapi -run TestGolden -update` after an intended change.
func TestGolden(t *testing.T) {
	tests := []struct {
		spec string
		opts Options
	}{
		{"petstore-expanded.yaml", Options{}},
		{"features.yaml", Options{ServerName: "tour"}},
		{"tictactoe.yaml", Options{BaseURL: "http://127.0.0.1:18080/"}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			res, err := Import(readSpec(t, tt.spec), tt.opts)
			if err != nil {
				t.Fatalf("Import: %v", err)
			}
			y, err := res.YAML()
			if err != nil {
				t.Fatalf("YAML: %v", err)
			}
			var got strings.Builder
			got.Write(y)
			got.WriteString("# warnings:\n")
			for _, w := range res.Warnings {
				got.WriteString("#   " + w + "\n")
			}
			golden := filepath.Join("testdata", "golden", strings.TrimSuffix(tt.spec, filepath.Ext(tt.spec))+".yaml")
			if *update {
				if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("reading golden file (run with -update to create it): %v", err)
			}
			if diff := cmp.Diff(string(want), got.String()); diff != "" {
				t.Errorf("output differs from %s (-want +got); run with -update if intended:\n%s", golden, diff)
			}
		})
	}
}

// TestMarshalServer checks that a Server and a Tool embedded in other data marshal to the
// same config as Result.YAML/JSON produce.
func TestMarshalServer(t *testing.T) {
	res, err := Import(readSpec(t, "petstore-expanded.yaml"), Options{ServerName: "pets"})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := yaml.Marshal(map[string]any{"servers": map[string]any{"pets": res.Server}})
	if err != nil {
		t.Fatal(err)
	}
	var viaServer, viaResult any
	if err := yaml.Unmarshal(doc, &viaServer); err != nil {
		t.Fatal(err)
	}
	y, _ := res.YAML()
	if err := yaml.Unmarshal(y, &viaResult); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(viaResult, viaServer); diff != "" {
		t.Errorf("yaml.Marshal(Server) differs from Result.YAML (-result +server):\n%s", diff)
	}
	j, err := json.Marshal(map[string]any{"servers": map[string]any{"pets": res.Server}})
	if err != nil {
		t.Fatal(err)
	}
	rj, _ := res.JSON()
	if string(j) != string(rj) {
		t.Errorf("json.Marshal(Server) differs from Result.JSON:\n%s\n%s", j, rj)
	}
	tj, err := json.Marshal(res.Server.Tools[0])
	if err != nil || !strings.Contains(string(tj), `"method":"GET","path":"/pets"`) {
		t.Errorf("json.Marshal(Tool) = %s, %v", tj, err)
	}
}

// TestYAMLOddNames renders a server whose name and description need quoting or block style
// and checks the document still decodes to the same names.
func TestYAMLOddNames(t *testing.T) {
	spec := "openapi: 3.0.0\nservers: [{url: 'http://127.0.0.1:1'}]\npaths:\n  /a:\n    get: {operationId: 'true'}\n  /b:\n    get: {operationId: '0123'}\n"
	res, err := Import([]byte(spec), Options{ServerName: "123", Description: "two\nlines: yes"})
	if err != nil {
		t.Fatal(err)
	}
	y, err := res.YAML()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Servers map[string]struct {
			Description string         `yaml:"description"`
			Tools       map[string]any `yaml:"tools"`
		} `yaml:"servers"`
	}
	if err := yaml.Unmarshal(y, &doc); err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	srv, ok := doc.Servers["123"]
	if !ok || srv.Description != "two\nlines: yes" {
		t.Fatalf("server not round-tripped:\n%s", y)
	}
	if _, ok := srv.Tools["true"]; !ok {
		t.Errorf("tool \"true\" missing:\n%s", y)
	}
	if _, ok := srv.Tools["0123"]; !ok {
		t.Errorf("tool \"0123\" missing:\n%s", y)
	}
}
