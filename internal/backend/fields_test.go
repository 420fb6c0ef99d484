package backend_test

import (
	"slices"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/backend"
)

type inner struct {
	Shared string `yaml:"shared"`
}

type section struct {
	BaseURL  string `yaml:"base_url"`
	Timeout  int    `yaml:"timeout,omitempty"`
	Skipped  bool   `yaml:"-"`
	Plain    string
	Embedded inner `yaml:",inline"`
	hidden   string
}

func TestFieldsOfFollowsTheYAMLTags(t *testing.T) {
	got := backend.FieldsOf(section{})
	want := []string{"base_url", "timeout", "plain", "shared"}
	if !slices.Equal(got, want) {
		t.Fatalf("FieldsOf = %q, want %q", got, want)
	}
	if got := backend.FieldsOf(&section{}); !slices.Equal(got, want) {
		t.Fatalf("FieldsOf(pointer) = %q, want %q", got, want)
	}
	_ = section{}.hidden
}

func TestFieldsOfRefusesANonStruct(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("FieldsOf(42) did not panic")
		}
	}()
	backend.FieldsOf(42)
}
