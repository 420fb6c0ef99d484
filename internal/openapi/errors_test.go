package openapi

import (
	"strings"
	"testing"
)

// TestImportErrors checks that unusable documents fail with a message that says what to fix.
func TestImportErrors(t *testing.T) {
	tests := []struct {
		name, spec string
		opts       Options
		wantErr    []string
	}{
		{"swagger 2.0 petstore", string(readSpec(t, "swagger2-petstore.yaml")), Options{}, []string{"Swagger 2.0", "not supported", "convert it to OpenAPI 3"}},
		{"swagger json", `{"swagger": "2.0", "paths": {}}`, Options{}, []string{"Swagger 2.0", "convert it to OpenAPI 3"}},
		{"empty", "  \n", Options{}, []string{"empty"}},
		{"no version", "info: {title: x}\npaths: {}\n", Options{}, []string{`no "openapi" version field`}},
		{"version 4", "openapi: 4.0.0\npaths: {}\n", Options{}, []string{"OpenAPI version 4.0.0 is not supported", "3.0 or 3.1"}},
		{"top-level array", `[1, 2]`, Options{}, []string{"top level is an array"}},
		{"top-level scalar", `hello`, Options{}, []string{"top level is a string"}},
		{"broken JSON", `{"openapi": "3.0.0", "paths": {`, Options{}, []string{"reading JSON"}},
		{"broken YAML", "openapi: 3.0.0\npaths: [\n", Options{}, []string{"reading YAML"}},
		{"paths not an object", "openapi: 3.1.0\npaths: [a]\n", Options{}, []string{"paths is an array"}},
		{"bad server name", "openapi: 3.1.0\npaths: {}\n", Options{ServerName: "my server"}, []string{`server name "my server"`}},
		{"too deep", strings.Repeat("[", 600) + strings.Repeat("]", 600), Options{}, []string{"nesting deeper than"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Import([]byte(tt.spec), tt.opts)
			if err == nil {
				t.Fatalf("Import succeeded (%d tools), want an error", len(res.Server.Tools))
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

// TestImportWarnings checks documents that import with warnings instead of failing.
func TestImportWarnings(t *testing.T) {
	tests := []struct {
		name, spec string
		wantTools  int
		wantWarn   []string
	}{
		{"no paths", "openapi: 3.0.0\ninfo: {title: Empty}\n", 0, []string{"no servers", "no operations"}},
		{"operation not an object", "openapi: 3.0.0\nservers: [{url: 'http://x'}]\npaths:\n  /a:\n    get: 5\n", 0, []string{"GET /a skipped: the operation is a number"}},
		{"path without slash", "openapi: 3.0.0\nservers: [{url: 'http://x'}]\npaths:\n  a:\n    get: {}\n", 0, []string{"GET a skipped: the path does not start with '/'"}},
		{"dangling parameter ref", "openapi: 3.0.0\nservers: [{url: 'http://x'}]\npaths:\n  /a:\n    get:\n      parameters: [{$ref: '#/components/parameters/Nope'}]\n", 1, []string{`GET /a: parameter skipped: resolving $ref #/components/parameters/Nope`}},
		{"ref cycle between parameters", "openapi: 3.0.0\nservers: [{url: 'http://x'}]\npaths:\n  /a:\n    get:\n      parameters: [{$ref: '#/components/parameters/A'}]\ncomponents:\n  parameters:\n    A: {$ref: '#/components/parameters/B'}\n    B: {$ref: '#/components/parameters/A'}\n", 1, []string{"more than 32 $ref hops"}},
		{"relative server", "openapi: 3.0.0\nservers: [{url: /v1}]\npaths:\n  /a:\n    get: {}\n", 1, []string{`server URL "/v1" is not an absolute URL`}},
		{"xml only body", "openapi: 3.0.0\nservers: [{url: 'http://x'}]\npaths:\n  /a:\n    post:\n      requestBody:\n        content: {application/xml: {schema: {type: object}}}\n", 1, []string{"optional request body (application/xml) not supported"}},
		{"undefined security scheme", "openapi: 3.0.0\nservers: [{url: 'http://x'}]\nsecurity: [{ghost: []}]\npaths:\n  /a:\n    get: {}\n", 1, []string{`security scheme "ghost" is used but not defined`}},
		{"undeclared path param in path", "openapi: 3.0.0\nservers: [{url: 'http://x'}]\npaths:\n  /a:\n    get:\n      parameters: [{name: id, in: path, required: true}]\n", 1, []string{`path parameter "id" does not appear in the path`}},
		{"bad location", "openapi: 3.0.0\nservers: [{url: 'http://x'}]\npaths:\n  /a:\n    get:\n      parameters: [{name: id, in: body}]\n", 1, []string{`unsupported location "body"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Import([]byte(tt.spec), Options{})
			if err != nil {
				t.Fatalf("Import: %v", err)
			}
			if len(res.Server.Tools) != tt.wantTools {
				t.Errorf("tools = %d, want %d", len(res.Server.Tools), tt.wantTools)
			}
			all := strings.Join(res.Warnings, "\n")
			for _, want := range tt.wantWarn {
				if !strings.Contains(all, want) {
					t.Errorf("warnings do not contain %q:\n%s", want, all)
				}
			}
			for _, tool := range res.Server.Tools {
				checkTool(t, tool)
			}
		})
	}
}
