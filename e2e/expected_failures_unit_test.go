package e2e

import (
	"strings"
	"testing"
)

func TestExpectedFailuresFileIsValid(t *testing.T) {
	ef, err := loadExpectedFailures(expectedFailuresFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(ef.Server) == 0 {
		t.Fatalf("%s lists no server checks", expectedFailuresFile)
	}
}

func TestParseExpectedFailuresRejects(t *testing.T) {
	tests := []struct {
		name, yaml, wantErr string
	}{
		{"unknown key", "server:\n  - scenario: a\n    specVersion: v\n    check: c\n    reason: 'Not testable: x'\n    why: y\n", "field why not found"},
		{"missing check", "server:\n  - scenario: a\n    specVersion: v\n    reason: 'Not testable: x'\n", "needs scenario, specVersion, check and reason"},
		{"testable reason", "server:\n  - scenario: a\n    specVersion: v\n    check: c\n    reason: 'the gateway is slow'\n", `only checks the suite reports as "Not testable"`},
		{"suite's string form", "server:\n  - server-stateless:sep-2575-x\n", "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseExpectedFailures("test.yml", []byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("parseExpectedFailures: error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestExpectedFailuresAllows(t *testing.T) {
	ef, err := parseExpectedFailures("test.yml", []byte(`server:
  - scenario: server-stateless
    specVersion: "2026-07-28"
    check: sep-x
    reason: "Not testable: no tool 'test_missing_capability'"
`))
	if err != nil {
		t.Fatal(err)
	}
	notTestable := conformanceCheck{ID: "sep-x", Status: "FAILURE", ErrorMessage: "Not testable: no tool 'test_missing_capability' in tools/list"}
	tests := []struct {
		name              string
		scenario, version string
		check             conformanceCheck
		want              bool
	}{
		{"listed and not testable", "server-stateless", "2026-07-28", notTestable, true},
		{"other version", "server-stateless", "2025-11-25", notTestable, false},
		{"other scenario", "caching", "2026-07-28", notTestable, false},
		{"other check", "server-stateless", "2026-07-28", conformanceCheck{ID: "sep-y", Status: "FAILURE", ErrorMessage: notTestable.ErrorMessage}, false},
		{"a real failure of a listed check", "server-stateless", "2026-07-28", conformanceCheck{ID: "sep-x", Status: "FAILURE", ErrorMessage: "expected HTTP 400, got 200"}, false},
		{"not testable for another reason", "server-stateless", "2026-07-28", conformanceCheck{ID: "sep-x", Status: "FAILURE", ErrorMessage: "Not testable: no tool 'test_logging_tool'"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ef.allows(tt.scenario, tt.version, tt.check) != nil; got != tt.want {
				t.Errorf("allows = %v, want %v", got, tt.want)
			}
		})
	}
}
