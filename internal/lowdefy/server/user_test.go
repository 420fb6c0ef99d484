package server_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/lowdefytest"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/server"
)

// userFieldsCases are userFields with the sources a sign-in gives them: nested and indexed
// paths, a path that reads nothing, a field that overrides a standard claim, a dotted field.
const userFieldsCases = `[
 {"userFields": {"id": "user.id", "roles": "profile.app.roles", "first": "profile.given_name", "missing": "profile.nope",
   "deep.x": "profile.groups.1", "name": "profile.nickname", "provider": "account.provider", "email": "user.nothing"},
  "account": {"provider": "jwt", "type": "oauth", "providerAccountId": "s1"},
  "profile": {"sub": "s1", "name": "Ada L", "given_name": "Ada", "nickname": "ada", "app": {"roles": ["a", "b"]}, "groups": ["g0", "g1"], "email": "ada@x"},
  "user": {"id": "u1", "name": "Ada", "email": "ada@x", "roles": ["support"]}},
 {"userFields": {"roles": "user.roles", "profile_id": "profile.sub", "all": "profile.app"},
  "account": {"provider": "key"},
  "profile": {"sub": "k1", "app": {"x": 1}},
  "user": {"id": "k1", "roles": ["sales"]}}
]`

// ApplyUserFields agrees with Lowdefy's own auth callbacks (@lowdefy/api 4.0.0-rc.11, run
// by tools/lowdefy-engine-oracle/userfields.mjs) on every mapped field.
func TestApplyUserFieldsOracle(t *testing.T) {
	node := lowdefytest.Node(t)
	dir := lowdefytest.OracleDir(t)
	cmd := exec.Command(node, filepath.Join(dir, "userfields.mjs"))
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(userFieldsCases)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("userfields oracle: %v\n%s", err, stderr.String())
	}
	var cases []json.RawMessage
	if err := json.Unmarshal([]byte(userFieldsCases), &cases); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("oracle printed %d lines for %d cases", len(lines), len(cases))
	}
	for i, raw := range cases {
		v, err := jsvalue.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		c := v.(*jsvalue.Object)
		obj := func(k string) *jsvalue.Object { o, _ := c.Prop(k).(*jsvalue.Object); return o }
		base := jsvalue.ObjectOf("sub", "base", "name", "Base", "email", "base@x")
		got := server.ApplyUserFields(base, obj("userFields"), server.UserSources{Account: obj("account"), Profile: obj("profile"), User: obj("user")})
		wantV, err := jsvalue.Decode([]byte(lines[i]))
		if err != nil {
			t.Fatal(err)
		}
		want := wantV.(*jsvalue.Object)
		for field := range obj("userFields").Range {
			head, _, _ := strings.Cut(field, ".")
			w, _ := jsvalue.Stringify(want.Prop(head), "")
			g, _ := jsvalue.Stringify(got.Prop(head), "")
			if w != g || want.Has(head) != got.Has(head) {
				t.Errorf("case %d: _user.%s = %s (present %v), Lowdefy has %s (present %v)", i+1, head, g, got.Has(head), w, want.Has(head))
			}
		}
	}
	t.Logf("Lowdefy's _user for case 1: %s", lines[0])
}
