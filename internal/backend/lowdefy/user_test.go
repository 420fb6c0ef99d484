package lowdefy

import (
	"encoding/json"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

// The Lowdefy user of each kind of principal, without and with auth.userFields.
func TestLowdefyUser(t *testing.T) {
	key := auth.Principal{User: "alice", Name: "Alice", Email: "a@x", Roles: []string{"support"}, Via: "key:k1"}
	jwt := auth.Principal{User: "u-7", Name: "Grace", Roles: []string{"staff"}, Via: "jwt", Issuer: "https://idp/",
		Claims: map[string]any{"sub": "u-7", "name": "Grace", "family_name": "Hopper", "picture": "https://p/g.png",
			"email_verified": true, "exp": json.Number("1900000000"), "team": []any{"a", "b"}}}
	fields := jsvalue.ObjectOf("provider", "account.provider", "kind", "account.type", "pic", "user.image",
		"team", "profile.team.1", "family", "profile.family_name", "mail", "profile.email", "roles", "user.roles")
	cases := []struct {
		p      auth.Principal
		fields *jsvalue.Object
		want   string
	}{
		{auth.Anonymous, fields, `null`},
		{key, nil, `{"id":"alice","sub":"alice","name":"Alice","email":"a@x","roles":["support"]}`},
		{jwt, nil, `{"id":"u-7","sub":"u-7","name":"Grace","family_name":"Hopper","picture":"https://p/g.png","email_verified":true,"roles":["staff"]}`},
		{key, fields, `{"id":"alice","sub":"alice","name":"Alice","email":"a@x","roles":["support"],"provider":"key","kind":"credentials","mail":"a@x"}`},
		{jwt, fields, `{"id":"u-7","sub":"u-7","name":"Grace","family_name":"Hopper","picture":"https://p/g.png","email_verified":true,"roles":["staff"],"provider":"jwt","kind":"oauth","pic":"https://p/g.png","team":"b","family":"Hopper"}`},
	}
	for i, c := range cases {
		got, _ := jsvalue.Stringify(lowdefyUser(c.p, c.fields), "")
		if got != c.want {
			t.Errorf("case %d: %s\nwant    %s", i+1, got, c.want)
		}
	}
}
