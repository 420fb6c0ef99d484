package openapi

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBodyShapes checks how request bodies of various shapes become arguments and mappings.
func TestBodyShapes(t *testing.T) {
	head := "openapi: 3.1.0\nservers: [{url: 'http://127.0.0.1:18080'}]\npaths:\n  /x:\n    post:\n      operationId: x\n"
	tests := []struct {
		name     string
		op       string // YAML under the operation, indented 6 spaces
		body     string
		mappings []Mapping
		required []string
	}{
		{"object properties", "      requestBody:\n        required: true\n        content:\n          application/vnd.api+json:\n            schema: {type: object, required: [a], properties: {a: {type: string}, b: {type: integer}}}\n",
			"json", []Mapping{{"a", InBody, "a"}, {"b", InBody, "b"}}, []string{"a"}},
		{"dotted property names keep the body whole", "      requestBody:\n        content:\n          application/json:\n            schema: {type: object, properties: {index.mode: {type: string}}}\n",
			"json", []Mapping{{"", InBody, "body"}}, nil},
		{"oneOf body is whole", "      requestBody:\n        required: true\n        content:\n          application/json:\n            schema: {oneOf: [{type: object, properties: {a: {type: string}}}, {type: array}]}\n",
			"json", []Mapping{{"", InBody, "body"}}, []string{"body"}},
		{"free-form object is whole", "      requestBody:\n        content:\n          application/json:\n            schema: {type: object, additionalProperties: true}\n",
			"json", []Mapping{{"", InBody, "body"}}, nil},
		{"JSON preferred over form", "      requestBody:\n        content:\n          application/x-www-form-urlencoded:\n            schema: {type: object, properties: {f: {type: string}}}\n          application/json:\n            schema: {type: object, properties: {j: {type: string}}}\n",
			"json", []Mapping{{"j", InBody, "j"}}, nil},
		{"form body", "      requestBody:\n        content:\n          application/x-www-form-urlencoded:\n            schema: {type: object, properties: {f: {type: string}}}\n",
			"form", []Mapping{{"f", InBody, "f"}}, nil},
		{"whole body next to a parameter named body", "      parameters: [{name: body, in: query, schema: {type: string}}]\n      requestBody:\n        content:\n          application/json:\n            schema: {type: array, items: {type: string}}\n",
			"json", []Mapping{{"body", InQuery, "body"}, {"", InBody, "body_2"}}, nil},
		{"no schema", "      requestBody:\n        content:\n          application/json: {}\n",
			"json", []Mapping{{"", InBody, "body"}}, nil},
		{"readOnly properties are not arguments", "      requestBody:\n        content:\n          application/json:\n            schema: {type: object, required: [id], properties: {id: {type: string, readOnly: true}, n: {type: string}}}\n",
			"json", []Mapping{{"n", InBody, "n"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Import([]byte(head+tt.op), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Server.Tools) != 1 {
				t.Fatalf("tools = %d, warnings %v", len(res.Server.Tools), res.Warnings)
			}
			tool := res.Server.Tools[0]
			checkTool(t, tool)
			if tool.Body != tt.body {
				t.Errorf("body = %q, want %q", tool.Body, tt.body)
			}
			if diff := cmp.Diff(tt.mappings, tool.Mappings); diff != "" {
				t.Errorf("mappings (-want +got):\n%s", diff)
			}
			got := listOfStrings(getAny(tool.InputSchema, "required"))
			if diff := cmp.Diff(tt.required, got); diff != "" {
				t.Errorf("required (-want +got):\n%s", diff)
			}
		})
	}
}
