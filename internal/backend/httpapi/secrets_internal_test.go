package httpapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// An ordered object (what a response expression returns) is scrubbed in its keys and
// values, keeps its key order, and is not modified in place.
func TestScrubOrderedObject(t *testing.T) {
	s := newScrubber(map[string]string{"tok-s3cr3t-value": "secret TOKEN"})
	in := jsvalue.ObjectOf("z", "plain", "tok-s3cr3t-value", 1.0, "a", []any{"x tok-s3cr3t-value y"})
	out := s.Value(in)
	b, _ := json.Marshal(out)
	if strings.Contains(string(b), "tok-s3cr3t-value") {
		t.Fatalf("secret left in %s", b)
	}
	if o, ok := out.(*jsvalue.Object); !ok || o.Len() != 3 || o.Keys()[0] != "z" || o.Keys()[2] != "a" {
		t.Errorf("scrubbed object = %s, want 3 keys in their order", b)
	}
	if v, _ := in.Get("tok-s3cr3t-value"); v != 1.0 {
		t.Error("the input object was modified")
	}
}
