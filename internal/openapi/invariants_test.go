package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"
)

// realSpecs are the public specs kept in testdata/specs (sources in testdata/README.md), with
// the figures the importer must keep producing. Changing a figure needs a reason.
var realSpecs = []struct {
	file       string
	operations int
	minTools   int
}{
	{"petstore-expanded.yaml", 4, 4},
	{"tictactoe.yaml", 3, 3},
	{"uspto.json", 3, 3},
	{"elasticsearch-serverless.json.gz", 452, 452},
	{"openai.yaml.gz", 288, 275},
	{"twilio_api_v2010.json.gz", 197, 197},
	{"discord.json.gz", 242, 235},
}

// TestRealSpecInvariants imports every real spec and checks the properties every import must
// have, whatever the spec: every operation imported or warned about, every inputSchema a
// valid JSON Schema of type object, every {param} of a path mapped, required names present,
// mappings naming existing arguments, deterministic output, and YAML/JSON that agree.
func TestRealSpecInvariants(t *testing.T) {
	for _, spec := range realSpecs {
		t.Run(spec.file, func(t *testing.T) {
			t.Parallel()
			data := readSpec(t, spec.file)
			res, err := Import(data, Options{})
			if err != nil {
				t.Fatalf("Import: %v", err)
			}
			if res.Operations != spec.operations {
				t.Errorf("operations = %d, want %d", res.Operations, spec.operations)
			}
			if len(res.Server.Tools) < spec.minTools {
				t.Errorf("tools = %d, want at least %d", len(res.Server.Tools), spec.minTools)
			}
			skipped := 0
			for _, w := range res.Warnings {
				if strings.Contains(w, " skipped: ") || strings.Contains(w, " skipped") && strings.HasPrefix(w, "path ") {
					skipped++
				}
			}
			if len(res.Server.Tools)+skipped != res.Operations {
				t.Errorf("tools (%d) + skipped-operation warnings (%d) != operations (%d)", len(res.Server.Tools), skipped, res.Operations)
			}
			names := map[string]bool{}
			for _, tool := range res.Server.Tools {
				checkTool(t, tool)
				if names[tool.Name] {
					t.Errorf("tool name %q used twice", tool.Name)
				}
				names[tool.Name] = true
			}

			// Deterministic: a second import renders byte-identical YAML and warnings.
			y1, err := res.YAML()
			if err != nil {
				t.Fatalf("YAML: %v", err)
			}
			res2, err := Import(data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			y2, _ := res2.YAML()
			if !bytes.Equal(y1, y2) || !slices.Equal(res.Warnings, res2.Warnings) {
				t.Error("two imports of the same document differ")
			}

			// The YAML and the JSON rendering describe the same document.
			var fromYAML, fromJSON any
			if err := yaml.Unmarshal(y1, &fromYAML); err != nil {
				t.Fatalf("generated YAML does not parse: %v", err)
			}
			j, _ := res.JSON()
			if err := json.Unmarshal(j, &fromJSON); err != nil {
				t.Fatalf("generated JSON does not parse: %v", err)
			}
			if a, b := canonical(t, fromYAML), canonical(t, fromJSON); a != b {
				t.Error("YAML and JSON renderings differ")
			}
			t.Logf("%d operations → %d tools, %d warnings, %d bytes of YAML", res.Operations, len(res.Server.Tools), len(res.Warnings), len(y1))
		})
	}
}

// canonical re-encodes a decoded document as JSON with sorted keys (encoding/json sorts
// map keys), so that YAML and JSON decodings can be compared.
func canonical(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("re-encoding: %v", err)
	}
	var norm any
	if err := json.Unmarshal(b, &norm); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(norm)
	return string(b)
}

var toolNameRE = regexpMust(`^[A-Za-z0-9_.-]{1,64}$`)

// checkTool asserts the invariants of one generated tool.
func checkTool(t *testing.T, tool *Tool) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("tool %s (%s %s): %s", tool.Name, tool.Method, tool.Path, fmt.Sprintf(format, args...))
	}
	if !toolNameRE.MatchString(tool.Name) {
		fail("invalid tool name")
	}
	if tool.Description == "" || len(tool.Description) > maxToolDescLen {
		fail("description length %d", len(tool.Description))
	}
	raw, err := tool.InputSchema.MarshalJSON()
	if err != nil {
		fail("marshal inputSchema: %v", err)
		return
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		fail("inputSchema is not a JSON Schema: %v", err)
		return
	}
	if _, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
		fail("inputSchema does not resolve: %v", err)
	}
	if s.Type != "object" {
		fail("inputSchema type %q, want object", s.Type)
	}
	for name := range s.Properties {
		if !toolNameRE.MatchString(name) {
			fail("argument name %q is not a valid tool property name", name)
		}
	}
	for _, r := range s.Required {
		if _, ok := s.Properties[r]; !ok {
			fail("required %q is not a property", r)
		}
	}
	pathMapped := map[string]bool{}
	wholeBody := 0
	for _, m := range tool.Mappings {
		if _, ok := s.Properties[m.Direct]; !ok {
			fail("mapping reads argument %q, which is not a property", m.Direct)
		}
		switch m.In {
		case InPath:
			pathMapped[m.Field] = true
			if !slices.Contains(s.Required, m.Direct) {
				fail("path argument %q is not required", m.Direct)
			}
		case InQuery, InHeader, InCookie:
		case InBody:
			if tool.Body == "" {
				fail("body mapping without a body kind")
			}
			if m.Field == "" {
				wholeBody++
			}
		default:
			fail("mapping location %q", m.In)
		}
	}
	if wholeBody > 0 && len(tool.Mappings) > 0 {
		for _, m := range tool.Mappings {
			if m.In == InBody && m.Field != "" {
				fail("whole-body mapping mixed with field body mappings")
			}
		}
	}
	for _, m := range pathVarRE.Get().FindAllStringSubmatch(tool.Path, -1) {
		if !pathMapped[m[1]] {
			fail("path placeholder {%s} has no path mapping", m[1])
		}
	}
	if tool.Body != "" && tool.Body != "json" && tool.Body != "form" {
		fail("body kind %q", tool.Body)
	}
}
