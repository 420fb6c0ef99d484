package gateway

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// The reason a call was refused for its arguments, as logged and audited, names the
// argument that is wrong and what is wrong with it, and never quotes a value.
func TestArgumentErrorsKeepTheFieldName(t *testing.T) {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{
		"password":{"type":"string","maxLength":3},
		"count":{"type":"integer"},
		"nested":{"type":"object","properties":{"token":{"type":"string","enum":["a"]}}}},
		"required":["password","user_name"]}`), &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ args, want string }{
		{`{"password":"x"}`, "user_name"},
		{`{"password":"hunter2secret","user_name":"u"}`, "password"},
		{`{"password":"x","user_name":"u","count":"hunter2secret"}`, "count"},
		{`{"password":"x","user_name":"u","nested":{"token":"hunter2secret"}}`, "token"},
	} {
		_, msg := validateArgs(rs, json.RawMessage(c.args))
		if msg == "" {
			t.Fatalf("%s: no error", c.args)
		}
		got := withoutArgumentValues("invalid arguments for tool t: " + msg)
		t.Logf("%s\n  %s\n  %s", c.args, msg, got)
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: recorded %q, want it to name %s (the message was %q)", c.args, got, c.want, msg)
		}
		if strings.Contains(got, "hunter2") {
			t.Errorf("%s: recorded %q quotes the value", c.args, got)
		}
	}
}
