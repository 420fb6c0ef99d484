package auth_test

import (
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/store"
)

// Owners are namespaced by how the principal authenticated: ids that read alike in two
// sources, or like the anonymous owner, are different owners; one user's keys share one.
func TestPrincipalOwner(t *testing.T) {
	keys, err := auth.ConfigKeys([]config.DeclaredKey{
		{ID: "k1", Hash: "sha256:" + store.HashKey("secret-one-0123456789"), User: config.KeyUser{ID: "anonymous"}},
		{ID: "k2", Hash: "sha256:" + store.HashKey("secret-two-0123456789"), User: config.KeyUser{ID: "x"}},
		{ID: "k3", Hash: "sha256:" + store.HashKey("secret-three-01234567"), User: config.KeyUser{ID: "x"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	key := func(secret string) auth.Principal {
		p, ok := keys.Lookup(secret)
		if !ok {
			t.Fatalf("key %s not found", secret)
		}
		return p
	}
	jwt := func(iss, sub string) auth.Principal {
		return auth.Principal{User: sub, Via: "jwt", Issuer: iss}
	}
	owners := map[string]auth.Principal{
		"anonymous":                          auth.Anonymous,
		"key:anonymous":                      key("secret-one-0123456789"),
		"key:x":                              key("secret-two-0123456789"),
		"jwt:https://idp.example/#anonymous": jwt("https://idp.example/", "anonymous"),
		"jwt:https://idp.example/#x":         jwt("https://idp.example/", "x"),
		"jwt:https://other.example/#x":       jwt("https://other.example/", "x"),
		"env:anonymous":                      {User: "anonymous", Via: "env"},
		"env:x":                              {User: "x", Via: "env"},
		"admin-key:admin":                    {User: "admin", Via: "admin-key", Admin: true},
	}
	for want, p := range owners {
		if got := p.Owner(); got != want {
			t.Errorf("%+v: owner %q, want %q", p, got, want)
		}
	}
	// A user's two keys are one owner (a rotated key keeps the user's sessions).
	if a, b := key("secret-two-0123456789").Owner(), key("secret-three-01234567").Owner(); a != b {
		t.Errorf("the two keys of user x own apart: %q, %q", a, b)
	}
	// No authenticated principal owns as the anonymous callers do, whatever its id.
	for _, id := range []string{"anonymous", "", ":", "anonymous:", "#"} {
		for _, via := range []string{"jwt", "key:k", "env", "admin-key", ""} {
			p := auth.Principal{User: id, Via: via}
			if p.Authenticated() && p.Owner() == auth.AnonymousOwner {
				t.Errorf("%+v owns as the anonymous callers", p)
			}
		}
	}
}
