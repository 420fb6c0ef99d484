package auth_test

import (
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/sqlite"
)

func TestStoreKeys(t *testing.T) {
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "k.db"), sqlite.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	secret, info, err := st.Keys.Create(t.Context(), store.KeyInfo{User: "alice", UserName: "Alice", UserEmail: "a@x.test", Roles: []string{"sales"}, Servers: []string{"crm"}})
	if err != nil {
		t.Fatal(err)
	}
	a := auth.StoreKeys{Keys: st.Keys}
	p, ok, err := a.Authenticate(request("Bearer " + secret))
	if !ok || err != nil || p.User != "alice" || p.Name != "Alice" || p.Email != "a@x.test" || !slices.Equal(p.Roles, []string{"sales"}) ||
		!slices.Equal(p.Servers, []string{"crm"}) || p.Via != "key:"+info.ID || p.Admin {
		t.Fatalf("Authenticate = %+v %v %v", p, ok, err)
	}
	if _, ok, err := a.Authenticate(request("Bearer not-ours")); ok || err != nil {
		t.Errorf("a token without the key prefix: %v %v; want not recognised", ok, err)
	}
	bad := secret[:len(secret)-2] + "xx"
	if _, ok, err := a.Authenticate(request("Bearer " + bad)); ok || !errors.Is(err, auth.ErrInvalidCredentials) || strings.Contains(err.Error(), bad) {
		t.Errorf("an unknown key: %v %v; want invalid credentials, without the secret", ok, err)
	}
	if err := st.Keys.Revoke(t.Context(), info.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := a.Authenticate(request("Bearer " + secret)); ok || !errors.Is(err, auth.ErrInvalidCredentials) {
		t.Errorf("a revoked key: %v %v", ok, err)
	}
	st.Close()
	if _, ok, err := a.Authenticate(request("Bearer " + secret)); ok || !errors.Is(err, auth.ErrUnavailable) {
		t.Errorf("a closed store: %v %v; want ErrUnavailable", ok, err)
	}
}

func TestDeclaredKeys(t *testing.T) {
	const secret = "declared-secret-0123456789abcdef"
	d, err := auth.NewDeclaredKeys([]auth.DeclaredKey{
		{ID: "ci", Hash: "sha256:" + store.HashKey(secret), Principal: auth.Principal{User: "ci-bot", Roles: []string{"deploy"}}},
		{ID: "other", Hash: store.HashKey("another-secret-0123456789"), Principal: auth.Principal{User: "x"}},
	})
	if err != nil || d.Len() != 2 {
		t.Fatal(d, err)
	}
	p, ok, err := d.Authenticate(request("Bearer " + secret))
	if !ok || err != nil || p.User != "ci-bot" || p.Via != "key:ci" {
		t.Errorf("declared key: %+v %v %v", p, ok, err)
	}
	if _, ok, _ := d.Authenticate(request("Bearer " + secret + "x")); ok {
		t.Error("a longer token matched")
	}
	if _, err := auth.NewDeclaredKeys([]auth.DeclaredKey{{ID: "bad", Hash: secret}}); err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("a key written instead of its hash: %v (must fail without echoing it)", err)
	}
}

func TestAuthorize(t *testing.T) {
	anon := auth.Anonymous
	alice := auth.Principal{User: "alice", Roles: []string{"sales"}}
	limited := auth.Principal{User: "bot", Roles: []string{"sales"}, Servers: []string{"crm"}}
	for _, c := range []struct {
		p      auth.Principal
		server string
		rule   auth.Rule
		want   auth.Decision
	}{
		{anon, "crm", auth.Rule{Public: true}, auth.Allow},
		{anon, "crm", auth.Rule{}, auth.Unauthenticated},
		{anon, "crm", auth.Rule{Roles: []string{"sales"}}, auth.Unauthenticated},
		{alice, "crm", auth.Rule{}, auth.Allow},
		{alice, "crm", auth.Rule{Roles: []string{"ops", "sales"}}, auth.Allow},
		{alice, "crm", auth.Rule{Roles: []string{"ops"}}, auth.Forbidden},
		{limited, "crm", auth.Rule{Roles: []string{"sales"}}, auth.Allow},
		{limited, "billing", auth.Rule{Roles: []string{"sales"}}, auth.Forbidden},
		{limited, "billing", auth.Rule{Public: true}, auth.Forbidden},
	} {
		if got := auth.AuthorizeServer(c.p, c.server, c.rule); got != c.want {
			t.Errorf("AuthorizeServer(%+v, %s, %+v) = %v, want %v", c.p, c.server, c.rule, got, c.want)
		}
	}
	if !auth.MayCallTool(anon, nil) || auth.MayCallTool(anon, []string{"x"}) || !auth.MayCallTool(alice, []string{"x", "sales"}) || auth.MayCallTool(alice, []string{"ops"}) {
		t.Error("MayCallTool")
	}
}
