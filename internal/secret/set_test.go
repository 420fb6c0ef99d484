package secret_test

import (
	"sync"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/secret"
)

// TestSetGathersSecrets: a Set's scrubber removes every secret added to it, whoever added
// it, and nothing else; an empty or nil Set scrubs nothing.
func TestSetGathersSecrets(t *testing.T) {
	var nilSet *secret.Set
	nilSet.Add("x-secret-1", "ignored")
	if got := nilSet.Scrubber().String("x-secret-1"); got != "x-secret-1" {
		t.Errorf("nil set scrubbed %q", got)
	}
	s := new(secret.Set)
	if got := s.Scrubber().String("nothing yet"); got != "nothing yet" {
		t.Errorf("empty set scrubbed %q", got)
	}
	var wg sync.WaitGroup
	for i, v := range []string{"first-secret-value", "second-secret-value", "first-secret-value", ""} {
		wg.Go(func() { s.Add(v, []string{"file a.txt", "env B", "file again", "empty"}[i]) })
	}
	wg.Wait()
	if s.Len() != 2 {
		t.Errorf("Len = %d, want 2 (a value once, the empty one never)", s.Len())
	}
	got := s.Scrubber().String("a first-secret-value b second-secret-value c")
	if got != "a [file a.txt] b [env B] c" && got != "a [file again] b [env B] c" {
		t.Errorf("scrubbed = %q", got)
	}
	s.AddEnviron([]string{"MCPBRIDGE_SECRET_API=api-secret-value", "ADMIN=admin-secret-value", "PLAIN=plain-value"}, map[string]string{"ADMIN": "admin key"})
	if got := s.Scrubber().String("api-secret-value admin-secret-value plain-value"); got != "[secret API] [admin key] plain-value" {
		t.Errorf("environ secrets scrubbed = %q", got)
	}
}

// TestLabel: the label of a reference is the one Resolve gives.
func TestLabel(t *testing.T) {
	for ref, want := range map[string]string{
		"secret:API_KEY":       "secret API_KEY",
		"env:TOKEN":            "env TOKEN",
		"file:/run/secrets/db": "file db",
		"file:rel/key.txt":     "file key.txt",
		"plain":                "",
	} {
		if got := secret.Label(ref); got != want {
			t.Errorf("Label(%q) = %q, want %q", ref, got, want)
		}
	}
}
